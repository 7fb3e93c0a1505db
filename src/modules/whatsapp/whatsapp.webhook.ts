import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { Coalescer } from '../../kernel/coalesce';
import { newId } from '../../kernel/ids';
import { processLocal } from '../../kernel/process-local';
import { ensureContactByPhone, normalisePhone, withdrawConsent } from '../audience';
import { safeErrorFields } from '../../kernel/http/problem';
import type { Queries } from '../../kernel/sql';
import { whatsapp } from './whatsapp.context';
import { applyTemplateReview } from './whatsapp.templates.repository';
import {
  applyStatuses as applyStatusUpdates,
  ensureConversation,
  insertInboundMessage,
  markReplied,
  noteInbound,
  takePendingStatuses,
  type StatusUpdate,
} from './whatsapp.repository';
import type { ChangedRow } from './whatsapp.outbound.repository';
import { STATUS_RANK, type MessageKind, type TemplateStatus } from './whatsapp.entities';
import { publishNewMessage } from './whatsapp.conversations';

// The app secret as a key object, made once: Node 24 imports a string or Buffer key again on every HMAC.
let preparedSecret: { secret: string; key: KeyObject } | undefined;

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`, compared in constant time. */
export function signatureValid(appSecret: string | undefined, rawBody: string | undefined, header: string | undefined): boolean {
  if (!appSecret || rawBody === undefined || !header?.startsWith('sha256=')) return false;
  if (preparedSecret?.secret !== appSecret) preparedSecret = { secret: appSecret, key: createSecretKey(Buffer.from(appSecret, 'utf8')) };
  const expected = createHmac('sha256', preparedSecret.key).update(rawBody, 'utf8').digest();
  const given = Buffer.from(header.slice(7), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const statusItem = z.object({
  id: z.string().min(1).max(128),
  status: z.enum(['sent', 'delivered', 'read', 'failed']),
  timestamp: z.string().regex(/^\d{1,12}$/),
  recipient_id: z.string().max(32).optional(),
  biz_opaque_callback_data: z.string().max(512).optional(),
  errors: z.array(z.object({ code: z.number().int(), title: z.string().max(500).optional(), message: z.string().max(1000).optional() })).optional(),
});
type StatusItem = z.infer<typeof statusItem>;

/**
 * Text a citizen typed, as stored: without NUL characters, which PostgreSQL text cannot hold (the
 * API refuses them with a 400; a webhook must not, or the provider would retry the delivery forever).
 */
const typedText = (max: number) =>
  z
    .string()
    .max(max)
    // eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL text cannot hold.
    .transform((value) => value.replace(/\u0000/g, ''));

const inboundItem = z.object({
  from: z.string().regex(/^\d{6,16}$/),
  id: z.string().min(1).max(128),
  timestamp: z.string().regex(/^\d{1,12}$/),
  type: z.string().max(40),
  text: z.object({ body: typedText(4096) }).optional(),
  button: z.object({ payload: typedText(256).optional(), text: typedText(256).optional() }).optional(),
  interactive: z
    .object({
      button_reply: z.object({ id: z.string().max(256), title: typedText(256) }).optional(),
      list_reply: z.object({ id: z.string().max(256), title: typedText(256) }).optional(),
    })
    .optional(),
  context: z.object({ id: z.string().max(128).optional() }).optional(),
});
type InboundItem = z.infer<typeof inboundItem>;

const messagesValue = z.object({
  messaging_product: z.literal('whatsapp'),
  contacts: z.array(z.object({ wa_id: z.string().max(32), profile: z.object({ name: typedText(200) }).optional() })).optional(),
  statuses: z.array(statusItem).optional(),
  messages: z.array(inboundItem).optional(),
});

const templateValue = z.object({
  event: z.string().max(40),
  message_template_id: z.union([z.string(), z.number()]).transform(String),
  message_template_name: z.string().max(512).optional(),
  message_template_language: z.string().max(15).optional(),
  reason: z.string().max(200).nullable().optional(),
});

const envelope = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(z.object({ id: z.string().optional(), changes: z.array(z.object({ field: z.string().max(100), value: z.unknown() })) })),
});

export interface WebhookOutcome {
  statuses: number;
  applied: number;
  inbound: number;
  templates: number;
  ignored: number;
}

const TEMPLATE_EVENTS: Record<string, TemplateStatus> = {
  APPROVED: 'APPROVED',
  REJECTED: 'REJECTED',
  PAUSED: 'PAUSED',
  DISABLED: 'DISABLED',
  PENDING: 'PENDING',
  REINSTATED: 'APPROVED',
  UNPAUSED: 'APPROVED',
};

/**
 * The one path every webhook takes, from the HTTP route (after its signature check) and from the
 * simulator alike. Anything of a shape we do not know is counted as ignored and logged, never an error:
 * Meta would otherwise retry it for days.
 */
export async function handleWebhookPayload(deps: AppDeps, payload: unknown): Promise<WebhookOutcome> {
  const outcome: WebhookOutcome = { statuses: 0, applied: 0, inbound: 0, templates: 0, ignored: 0 };
  const parsed = envelope.safeParse(payload);
  if (!parsed.success) {
    outcome.ignored++;
    deps.logger.warn({ webhook: 'whatsapp', issue: parsed.error.issues[0]?.message }, 'whatsapp webhook of an unknown shape ignored');
    return outcome;
  }
  const statuses: StatusItem[] = [];
  for (const entry of parsed.data.entry) {
    for (const change of entry.changes) {
      if (change.field === 'messages') {
        const value = messagesValue.safeParse(change.value);
        if (!value.success) {
          outcome.ignored++;
          deps.logger.warn({ webhook: 'whatsapp', field: change.field }, 'whatsapp webhook change of an unknown shape ignored');
          continue;
        }
        statuses.push(...(value.data.statuses ?? []));
        const names = new Map((value.data.contacts ?? []).map((contact) => [contact.wa_id, contact.profile?.name]));
        for (const message of value.data.messages ?? []) {
          if (await recordInbound(deps, message, names.get(message.from))) outcome.inbound++;
        }
      } else if (change.field === 'message_template_status_update') {
        const value = templateValue.safeParse(change.value);
        if (value.success && (await applyTemplateEvent(deps, value.data))) outcome.templates++;
        else outcome.ignored++;
      } else {
        outcome.ignored++;
        deps.logger.info({ webhook: 'whatsapp', field: change.field }, 'whatsapp webhook field not handled');
      }
    }
  }
  outcome.statuses = statuses.length;
  if (statuses.length) outcome.applied = await applyStatuses(deps, statuses);
  return outcome;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The process's status batches: Meta posts many webhooks at once, and the statuses of those that
 * arrive together are applied by one statement (a round trip each was what bounded ingestion). A
 * webhook is answered once its batch is written. In a batch with several statuses of one message,
 * from one webhook or several, the highest applies (each stage keeping the time it was first
 * reached); the others changed nothing.
 */
const statusBatches = processLocal(
  'whatsapp.statusBatches',
  (deps: AppDeps) =>
    new Coalescer<StatusUpdate, ChangedRow | null>(
      async (updates) => {
        const rows = await applyStatusUpdates(deps.db, updates);
        const byStatus = new Map(rows.map((row) => [`${row.applied_wamid} ${row.status}`, row]));
        return updates.map((update) => {
          const key = `${update.wamid} ${update.status}`;
          const row = byStatus.get(key);
          byStatus.delete(key);
          return row ? { id: row.id, campaign_id: row.campaign_id, conversation_id: row.conversation_id, status: row.status } : null;
        });
      },
      { maxBatch: 500, concurrency: 2, metrics: { registry: deps.metrics, name: 'whatsapp_statuses' } },
    ),
);

/** Meta's error codes are small; one that would not fit the column is dropped rather than failing the status. */
const storableErrorCode = (code: number | undefined) => (code !== undefined && Math.abs(code) <= 2 ** 31 - 1 ? code : null);

async function applyStatuses(deps: AppDeps, items: StatusItem[]): Promise<number> {
  const batches = statusBatches(deps);
  // Settled one and all before the answer: a failed batch fails the webhook (Meta sends it again),
  // but only once every other status of it is written, and what did change is still published.
  const answers = await Promise.allSettled(
    items.map((item) =>
      batches.submit({
        id: item.biz_opaque_callback_data && UUID.test(item.biz_opaque_callback_data) ? item.biz_opaque_callback_data : null,
        wamid: item.id,
        status: item.status,
        rank: STATUS_RANK[item.status],
        at: new Date(Number(item.timestamp) * 1000),
        errorCode: storableErrorCode(item.errors?.[0]?.code),
        errorTitle: item.errors?.[0] ? (item.errors[0].title ?? item.errors[0].message ?? 'failed').slice(0, 200) : null,
      }),
    ),
  );
  const rows = answers.flatMap((answer) => (answer.status === 'fulfilled' && answer.value ? [answer.value] : []));
  if (rows.length) whatsapp(deps).statusChanged(rows.map((row) => ({ id: row.id, campaignId: row.campaign_id, conversationId: row.conversation_id, status: row.status })));
  const failed = answers.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected');
  if (failed) throw failed.reason;
  return rows.length;
}

/**
 * Applies the statuses that arrived before their message's wamid was stored, now that it is; how
 * many changed a message. Taken out of the park and applied in one transaction, so a failure (or a
 * stop) between the two leaves them parked for the next try.
 */
export async function applyPendingStatuses(deps: AppDeps): Promise<number> {
  const rows = await deps.db.transaction(async (tx) => {
    const pending = await takePendingStatuses(tx);
    return pending.length ? applyStatusUpdates(tx, pending) : [];
  });
  if (rows.length) whatsapp(deps).statusChanged(rows.map((row) => ({ id: row.id, campaignId: row.campaign_id, conversationId: row.conversation_id, status: row.status })));
  return rows.length;
}

/**
 * A review outcome. One that arrives before the provider's answer to the create call matches the
 * template by name and language: the row is written before the provider is called.
 */
async function applyTemplateEvent(deps: AppDeps, value: z.infer<typeof templateValue>): Promise<boolean> {
  const status = TEMPLATE_EVENTS[value.event];
  if (!status) return false;
  return applyTemplateReview(deps.db, {
    status,
    reason: status === 'REJECTED' ? (value.reason ?? 'NONE').slice(0, 200) : null,
    providerTemplateId: value.message_template_id,
    name: value.message_template_name ?? '',
    language: value.message_template_language ?? '',
  });
}

/** Replies that withdraw WhatsApp consent (accents and case ignored). */
const OPT_OUT_WORDS = new Set(['BAJA', 'STOP', 'PARAR', 'DETENER', 'CANCELAR', 'UNSUBSCRIBE', 'NO MAS', 'NO MAS MENSAJES', 'DARME DE BAJA']);

export function isOptOut(text: string | undefined): boolean {
  if (!text) return false;
  const word = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase();
  return OPT_OUT_WORDS.has(word);
}

function inboundContent(message: InboundItem): { kind: MessageKind; text: string | null } {
  switch (message.type) {
    case 'text':
      return { kind: 'text', text: message.text?.body ?? null };
    case 'button':
      return { kind: 'button', text: message.button?.text ?? message.button?.payload ?? null };
    case 'interactive':
      return { kind: 'interactive', text: message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title ?? null };
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
    case 'sticker':
    case 'location':
      return { kind: 'media', text: `[${message.type}]` };
    default:
      return { kind: 'other', text: null };
  }
}

/**
 * An inbound message: the contact (created without any consent if new), its conversation, the
 * message (unique by wamid, so a repeated webhook adds nothing), the reply attributed to the
 * campaign message it answers, and an opt-out when the text asks for one.
 */
async function recordInbound(deps: AppDeps, message: InboundItem, profileName: string | undefined): Promise<boolean> {
  const phone = normalisePhone(`+${message.from}`);
  if (!phone) {
    deps.logger.warn({ webhook: 'whatsapp' }, 'inbound whatsapp message from an invalid number ignored');
    return false;
  }
  const { kind, text } = inboundContent(message);
  const optOut = isOptOut(text ?? message.button?.payload);
  const at = new Date(Number(message.timestamp) * 1000);
  const result = await deps.db.transaction((tx) => recordInboundRows(tx, { phone, profileName, message, kind, text, at, optOut }));
  if (!result) return false;
  const rt = whatsapp(deps);
  // Stored already: a failure to tell the inbox must not fail the delivery (Meta would send it again for nothing).
  await publishNewMessage(deps, result.conversationId, result.messageId).catch((error: unknown) =>
    deps.logger.warn({ webhook: 'whatsapp', messageId: result.messageId, ...safeErrorFields(error) }, 'inbound whatsapp message stored but not pushed'),
  );
  rt.unreadChanged();
  if (result.repliedCampaignId) rt.statusChanged([{ id: result.messageId, campaignId: result.repliedCampaignId, conversationId: null, status: 'replied' }]);
  return true;
}

interface InboundRows {
  phone: string;
  profileName: string | undefined;
  message: InboundItem;
  kind: MessageKind;
  text: string | null;
  at: Date;
  optOut: boolean;
}

/** The name of a contact who first wrote without a WhatsApp profile name. */
export const UNNAMED_CONTACT = 'WhatsApp';

async function recordInboundRows(tx: Queries, input: InboundRows) {
  const contactId = await ensureContactByPhone(tx, input.phone, (input.profileName ?? UNNAMED_CONTACT).slice(0, 160) || UNNAMED_CONTACT);
  const conversationId = await ensureConversation(tx, contactId, input.at);
  const messageId = newId();
  const stored = await insertInboundMessage(tx, {
    id: messageId,
    conversationId,
    contactId,
    phone: input.phone,
    kind: input.kind,
    text: input.text,
    wamid: input.message.id,
    at: input.at,
  });
  if (!stored) return undefined;
  await noteInbound(tx, conversationId, messageId, input.at);
  if (input.optOut) {
    await withdrawConsent(tx, { contactId }, 'whatsapp', {
      source: 'whatsapp_stop',
      sourceRef: messageId,
      evidence: input.text ?? input.message.button?.payload ?? '',
      at: input.at,
    });
  }
  const repliedCampaignId = await markReplied(tx, contactId, input.message.context?.id, input.at);
  return { messageId, conversationId, repliedCampaignId };
}
