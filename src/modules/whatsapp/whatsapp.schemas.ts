import { z } from 'zod';
import { pageQueryShape } from '../../kernel/page-schemas';
import { instant, roleSchema } from '../../kernel/schemas';
import { QUICK_REPLY_VARIABLES } from './whatsapp.quick-replies.render';
import { CAMPAIGN_STATUSES, CONVERSATION_STATUSES, MESSAGE_KINDS, MESSAGE_STATUSES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './whatsapp.codes';

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

/** The numbers of `{{n}}` placeholders in order of appearance; undefined entries for non-numeric ones. */
export function placeholderNumbers(text: string): (number | undefined)[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => (/^\d+$/.test(match[1]!) ? Number(match[1]) : undefined));
}

/** Placeholders must be `{{1}}..{{n}}`, each number used, none skipped; returns n or an error message. */
export function checkPlaceholders(text: string): number | string {
  const numbers = placeholderNumbers(text);
  if (numbers.some((n) => n === undefined)) return 'placeholders must be numbered, like {{1}}';
  const distinct = [...new Set(numbers as number[])].sort((a, b) => a - b);
  for (let i = 0; i < distinct.length; i++) {
    if (distinct[i] !== i + 1) return `placeholders must be numbered 1..${distinct.length} without gaps (found ${distinct.map((n) => `{{${n}}}`).join(' ')})`;
  }
  return distinct.length;
}

const buttonSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('QUICK_REPLY'), text: z.string().trim().min(1).max(25) }),
  z.object({
    type: z.literal('URL'),
    text: z.string().trim().min(1).max(25),
    url: z
      .url()
      .max(2000)
      .refine((url) => url.startsWith('https://'), 'must be an https:// URL'),
  }),
  z.object({ type: z.literal('PHONE_NUMBER'), text: z.string().trim().min(1).max(25), phoneNumber: z.string().regex(/^\+\d{7,15}$/, 'E.164, like +573001234567') }),
]);

export const createTemplateBody = z
  .object({
    name: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[a-z][a-z0-9_]*$/, 'lowercase letters, digits and underscores, starting with a letter'),
    language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'a language code such as es or es_CO'),
    category: z.enum(TEMPLATE_CATEGORIES),
    body: z.string().trim().min(1).max(1024),
    header: z
      .string()
      .trim()
      .min(1)
      .max(60)
      .refine((text) => !text.includes('{{'), 'no placeholders in the header')
      .optional(),
    footer: z
      .string()
      .trim()
      .min(1)
      .max(60)
      .refine((text) => !text.includes('{{'), 'no placeholders in the footer')
      .optional(),
    buttons: z.array(buttonSchema).max(10).default([]),
    /** One example value per placeholder, in order (Meta reviews templates with them). */
    examples: z.array(z.string().trim().min(1).max(200)).max(100).default([]),
  })
  .superRefine((body, ctx) => {
    const checked = checkPlaceholders(body.body);
    if (typeof checked === 'string') return void ctx.addIssue({ code: 'custom', path: ['body'], message: checked });
    if (checked > 0 && body.examples.length !== checked) {
      ctx.addIssue({ code: 'custom', path: ['examples'], message: `give one example per placeholder (${checked})` });
    }
    if (checked === 0 && body.examples.length > 0) ctx.addIssue({ code: 'custom', path: ['examples'], message: 'the body has no placeholders' });
  });
export type CreateTemplateInput = z.infer<typeof createTemplateBody>;

export const templateView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    language: z.string(),
    category: z.enum(TEMPLATE_CATEGORIES),
    body: z.string(),
    header: z.string().nullable(),
    footer: z.string().nullable(),
    buttons: z.array(z.object({ type: z.string(), text: z.string(), url: z.string().optional(), phoneNumber: z.string().optional() })),
    examples: z.array(z.string()),
    placeholders: z.number().int(),
    status: z.enum(TEMPLATE_STATUSES),
    rejectionReason: z.string().nullable(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'WhatsAppTemplate' });

export const listTemplatesQuery = z.object({ ...pageQueryShape, status: z.enum(TEMPLATE_STATUSES).optional() });

/** A campaign's (or every outbound message's) progress by status. */
export const counters = z.object({
  queued: z.number().int(),
  sending: z.number().int(),
  inDoubt: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  read: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  cancelled: z.number().int(),
  replied: z.number().int(),
  /** Taken by the built-in simulator (no Cloud API token configured): none of these reached WhatsApp, whatever their status. */
  simulated: z.number().int(),
});
export type Counters = z.infer<typeof counters>;

export const messageView = z
  .object({
    id: z.uuid(),
    conversationId: z.uuid().nullable(),
    campaignId: z.uuid().nullable(),
    direction: z.enum(['in', 'out']),
    kind: z.enum(MESSAGE_KINDS),
    text: z.string().nullable(),
    templateId: z.uuid().nullable(),
    status: z.enum(MESSAGE_STATUSES as [string, ...string[]]),
    /** Taken by the built-in simulator: it never reached WhatsApp, and its delivered and read ticks were made up. */
    simulated: z.boolean(),
    error: z.object({ code: z.number().int().nullable(), title: z.string().nullable() }).nullable(),
    sentById: z.uuid().nullable(),
    createdAt: instant,
    sentAt: instant.nullable(),
    deliveredAt: instant.nullable(),
    readAt: instant.nullable(),
  })
  .meta({ id: 'WhatsAppMessage' });

export const conversationView = z
  .object({
    id: z.uuid(),
    contact: z.object({ id: z.uuid(), name: z.string(), phone: z.string().nullable(), optedOut: z.boolean() }),
    status: z.enum(CONVERSATION_STATUSES),
    /** The same as `assignee.id`. */
    assignedToId: z.uuid().nullable(),
    assignee: z.object({ id: z.uuid(), name: z.string() }).nullable().describe('The staff member holding the conversation'),
    unreadCount: z.number().int(),
    lastMessage: messageView.nullable(),
    lastMessageAt: instant,
    windowOpen: z.boolean(),
    windowExpiresAt: instant.nullable(),
  })
  .meta({ id: 'WhatsAppConversation' });

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listConversationsQuery = z.object({
  ...pageQueryShape,
  status: z.enum(CONVERSATION_STATUSES).optional(),
  unread: booleanQuery.optional(),
  assignee: z
    .union([z.enum(['me', 'none']), z.uuid()], { error: 'expected me, none or a user id' })
    .optional()
    .describe('`me` (the caller), `none` (unassigned) or a user id'),
  q: z.string().trim().min(1).max(100).optional().describe("In the contact's name (any case) or phone (digits in any format: `300 123 4567`, `+57 300-123-4567`)"),
});

export const unreadView = z
  .object({
    conversations: z.number().int().describe('Open conversations with unread messages'),
    messages: z.number().int().describe('Unread messages in open conversations'),
  })
  .meta({ id: 'WhatsAppUnread' });

export const conversationIdParams = z.object({ id: z.uuid() });
export const listMessagesQuery = z.object({ ...pageQueryShape });

export const replyBody = z.union([
  z.object({ text: z.string().trim().min(1).max(4096) }).strict(),
  z.object({ templateId: z.uuid(), variables: z.array(z.string().trim().min(1).max(200)).max(100).default([]) }).strict(),
]);
export type ReplyInput = z.infer<typeof replyBody>;

export const listAssigneesQuery = z.object({
  ...pageQueryShape,
  q: z.string().trim().min(1).max(100).optional().describe('In the name or the email, any case'),
});

export const assigneeView = z
  .object({ id: z.uuid(), name: z.string(), role: roleSchema })
  .meta({ id: 'WhatsAppAssignee', description: 'An active staff member who may hold conversations' });

export const updateConversationBody = z
  .object({ assignedToId: z.uuid().nullable().optional(), status: z.enum(CONVERSATION_STATUSES).optional() })
  .refine((body) => Object.keys(body).length > 0, 'send assignedToId or status');

export const webhookVerifyQuery = z.object({
  'hub.mode': z.string().max(40).optional(),
  'hub.verify_token': z.string().max(200).optional(),
  'hub.challenge': z.string().max(200).optional(),
});

const rates = z.object({ delivery: z.number(), read: z.number(), reply: z.number() });

export const dashboardView = z
  .object({
    totals: counters.extend({ total: z.number().int() }),
    rates,
    campaigns: z.array(z.object({ id: z.uuid(), name: z.string(), status: z.enum(CAMPAIGN_STATUSES), audienceSize: z.number().int(), progress: counters, rates })),
    conversations: z.object({ open: z.number().int(), unread: z.number().int(), unreadMessages: z.number().int(), windowOpen: z.number().int() }),
    optOuts: z.number().int(),
    last24h: z.object({ inbound: z.number().int(), outbound: z.number().int() }),
    tier: z.object({ limit: z.number().int().nullable(), usedLast24h: z.number().int(), remaining: z.number().int().nullable() }),
    provider: z.enum(['cloud', 'simulator']).describe('`simulator` when no Cloud API token is configured: nothing reaches WhatsApp, statuses and replies are made up'),
  })
  .meta({ id: 'WhatsAppDashboard' });

const quickReplyText = z
  .string()
  .trim()
  .min(1)
  .max(1024)
  .superRefine((text, ctx) => {
    const unknown = [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!).filter((name) => !(QUICK_REPLY_VARIABLES as readonly string[]).includes(name));
    if (unknown.length) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown variable ${unknown.map((name) => `{{${name}}}`).join(', ')}; use ${QUICK_REPLY_VARIABLES.map((name) => `{{${name}}}`).join(', ')}`,
      });
    }
  })
  .describe(`Up to 1,024 characters; variables ${QUICK_REPLY_VARIABLES.map((name) => `{{${name}}}`).join(', ')} are filled in when used`);

const shortcut = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^\/[a-z0-9ñáéíóúü_-]{1,30}$/, 'a slash and 1 to 30 letters, digits, - or _, like /horario')
  .describe('Typed in the reply box, like `/horario`; unique, kept in lower case');

export const createQuickReplyBody = z
  .object({
    shortcut,
    title: z.string().trim().min(1).max(80),
    text: quickReplyText,
  })
  .strict();
export type CreateQuickReplyInput = z.infer<typeof createQuickReplyBody>;

export const updateQuickReplyBody = createQuickReplyBody.partial().refine((body) => Object.keys(body).length > 0, 'send shortcut, title or text');
export type UpdateQuickReplyInput = z.infer<typeof updateQuickReplyBody>;

export const quickReplyIdParams = z.object({ id: z.uuid() });

export const listQuickRepliesQuery = z.object({
  ...pageQueryShape,
  q: z.string().trim().min(1).max(80).optional().describe('The start of a shortcut (`/hor` or `hor`), or words in the title'),
  conversationId: z.uuid().optional().describe("Fill each quick reply's variables for this conversation's contact (`rendered`)"),
});

export const quickReplyView = z
  .object({
    id: z.uuid(),
    shortcut: z.string(),
    title: z.string(),
    /** As written, with its variables. */
    text: z.string(),
    variables: z.array(z.enum(QUICK_REPLY_VARIABLES)).describe('The variables the text uses'),
    /** With `conversationId`: the text for that conversation, and the variables with nothing to fill them (left empty). */
    rendered: z.object({ text: z.string(), missing: z.array(z.enum(QUICK_REPLY_VARIABLES)) }).nullable(),
    createdById: z.uuid().nullable(),
    updatedById: z.uuid().nullable(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'WhatsAppQuickReply' });

export const listActivityQuery = z.object({
  ...pageQueryShape,
  direction: z.enum(['in', 'out']).optional().describe('`in`: people’s messages to the campaign; `out`: the campaign’s'),
});

/** A conversation message as the figures room hears of it (`whatsapp:activity`): that it happened, never its text, number or author. */
export const activityView = z.object({ id: z.uuid(), direction: z.enum(['in', 'out']), kind: z.enum(MESSAGE_KINDS), createdAt: instant }).meta({ id: 'WhatsappActivity' });
