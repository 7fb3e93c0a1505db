import { z } from 'zod';
import { pageQueryShape } from '../../kernel/page-schemas';
import { calendarDate, instant, roleSchema } from '../../kernel/schemas';
import { DUE_STATES, HISTORY_ACTIONS, PQRS_CHANNELS, PQRS_PRIORITIES, PQRS_STATUSES, PQRS_TYPES } from './pqrs.constants';

/*
 * What the desk's API takes and answers. The staff console bundles this file (its forms validate
 * with `answerBody`, `extendBody`, `updateBody`), so it imports only zod and zod-only files; the
 * public filing's body, made of audience's citizen fields, is in pqrs.filing.schemas.ts.
 */

export const filedView = z.object({
  id: z.uuid(),
  number: z.string(),
  type: z.enum(PQRS_TYPES),
  status: z.enum(PQRS_STATUSES),
  receivedAt: instant,
  dueDate: calendarDate,
  dueAt: instant,
  businessDaysLeft: z.number().int(),
  /** Lets the filer attach files (`POST /api/pqrs/:id/attachments`, header `X-Upload-Token`) for 24 hours. */
  uploadToken: z.string().nullable(),
});

export const fromWhatsAppBody = z
  .object({
    conversationId: z.uuid(),
    type: z.enum(PQRS_TYPES),
    subject: z.string().trim().min(3).max(200),
    description: z.string().trim().min(1).max(10_000).optional(),
    territoryId: z.uuid().optional(),
    priority: z.enum(PQRS_PRIORITIES).optional(),
  })
  .strict();
export type FromWhatsAppInput = z.infer<typeof fromWhatsAppBody>;

export const idParams = z.object({ id: z.uuid() });
export const attachmentParams = z.object({ id: z.uuid(), attachmentId: z.uuid() });

const booleanQuery = z.enum(['true', 'false'], { error: 'expected true or false' }).transform((value) => value === 'true');

const dueStateList = z
  .string()
  .regex(new RegExp(`^(${DUE_STATES.join('|')})(,(${DUE_STATES.join('|')}))*$`), `expected one or more of ${DUE_STATES.join(', ')}, separated by commas`)
  .transform((value) => [...new Set(value.split(','))] as (typeof DUE_STATES)[number][])
  .describe(`${DUE_STATES.join(', ')}; several separated by commas (\`overdue,due_soon,on_time\`: every open request)`);

/** Filters the queue and its summary share. */
const queueFilters = {
  type: z.enum(PQRS_TYPES).optional(),
  channel: z.enum(PQRS_CHANNELS).optional(),
  assigneeId: z.uuid().optional(),
  unassigned: booleanQuery.optional(),
  /** This territory and every territory inside it. */
  territoryId: z.uuid().optional(),
  q: z.string().trim().min(1).max(100).optional().describe('In the subject (any case) or the number (`PQRS-2026-000123`, or part of it)'),
};

export const listQuery = z
  .object({
    ...pageQueryShape,
    ...queueFilters,
    status: z.enum(PQRS_STATUSES).optional(),
    dueState: dueStateList.optional(),
    overdue: booleanQuery.optional(),
    dueSoon: booleanQuery.optional(),
    /** Due on or before this local day. */
    dueBefore: calendarDate.optional(),
    contactId: z.uuid().optional(),
    sort: z.enum(['received', 'due']).default('received').describe('`received`: newest filing first; `due`: the legal due date, soonest first (the desk’s queue)'),
  })
  .strict();
export type ListInput = z.infer<typeof listQuery>;

export const summaryQuery = z.object(queueFilters).strict();
export type SummaryInput = z.infer<typeof summaryQuery>;

export const summaryView = z
  .object({
    overdue: z.number().int().describe('Open, past the deadline'),
    due_soon: z.number().int().describe('Open, 3 business days or fewer left (the due day included)'),
    on_time: z.number().int().describe('Open, more than 3 business days left'),
    answered: z.number().int().describe('Answered (closed since or not)'),
    closed: z.number().int().describe('Closed without an answer'),
  })
  .meta({ id: 'PqrsSummary' });

export const updateBody = z
  .object({
    status: z.enum(['received', 'in_progress', 'waiting_citizen', 'closed'] as const).optional(),
    assigneeId: z.uuid().nullable().optional(),
    priority: z.enum(PQRS_PRIORITIES).optional(),
    territoryId: z.uuid().nullable().optional(),
    /** Reclassifying changes the legal term; not after an extension. */
    type: z.enum(PQRS_TYPES).optional(),
    note: z.string().trim().min(1).max(1000).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).some((key) => key !== 'note'), { message: 'change at least one of status, assigneeId, priority, territoryId, type' });
export type UpdateInput = z.infer<typeof updateBody>;

export const answerBody = z
  .object({
    answer: z.string().trim().min(10, 'the answer needs at least 10 characters').max(20_000),
    /** Close the request with the answer (otherwise it stays `answered` until closed). */
    close: z.boolean().default(false),
  })
  .strict();
export type AnswerInput = z.infer<typeof answerBody>;

export const extendBody = z
  .object({
    newDueDate: calendarDate,
    reason: z.string().trim().min(10, 'say why, in at least 10 characters').max(1000),
  })
  .strict();
export type ExtendInput = z.infer<typeof extendBody>;

export const settingsBody = z
  .object({
    consentText: z.string().trim().min(20).max(5000),
    privacyPolicyUrl: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .nullable(),
    receivedTemplate: z.string().trim().min(1).max(100).nullable(),
    answeredTemplate: z.string().trim().min(1).max(100).nullable(),
    extendedTemplate: z.string().trim().min(1).max(100).nullable(),
    templateLanguage: z
      .string()
      .trim()
      .regex(/^[a-z]{2}(_[A-Z]{2})?$/, 'expected a WhatsApp language code such as es or es_CO'),
  })
  .strict();
export type SettingsInput = z.infer<typeof settingsBody>;

export const settingsView = settingsBody.extend({ updatedAt: instant });

/**
 * What came of a notice to the citizen: `queued` on `channel`, or `unreachable` with `reason` (the
 * notices module's: `no_consent`, `no_address`, `template_missing`…; or `anonymous`, `erased`, when
 * there is nobody to tell, with no `noticeId`).
 */
const noticeView = z.object({ status: z.string(), noticeId: z.string().nullable(), channel: z.string().optional(), reason: z.string().optional(), at: instant }).nullable();

const attachmentView = z.object({ id: z.uuid(), fileName: z.string(), type: z.string(), size: z.number().int(), sha256: z.string(), uploadedAt: instant });

export const requestView = z.object({
  id: z.uuid(),
  number: z.string(),
  type: z.enum(PQRS_TYPES),
  subject: z.string(),
  channel: z.enum(PQRS_CHANNELS),
  status: z.enum(PQRS_STATUSES),
  priority: z.enum(PQRS_PRIORITIES),
  anonymous: z.boolean(),
  territoryId: z.uuid().nullable(),
  assigneeId: z.uuid().nullable(),
  receivedAt: instant,
  termDays: z.number().int(),
  originalDueDate: calendarDate,
  dueDate: calendarDate,
  dueAt: instant,
  businessDaysLeft: z.number().int(),
  overdue: z.boolean(),
  dueSoon: z.boolean(),
  dueState: z.enum(DUE_STATES),
  dueSoonFlaggedAt: instant.nullable(),
  /** While an extension may still be asked for (open, not extended, before the deadline): the latest new due date the law allows, twice the term. */
  latestExtensionDate: calendarDate.nullable(),
  /** `reason` is null for viewers (free text that may name people). */
  extension: z.object({ at: instant, reason: z.string().nullable(), byId: z.uuid().nullable() }).nullable(),
  answeredAt: instant.nullable(),
  answeredLate: z.boolean().nullable(),
  closedAt: instant.nullable(),
  conversationId: z.uuid().nullable(),
  citizenErased: z.boolean(),
  updatedAt: instant,
  /** Managers only; null for viewers (and for anonymous requests' citizen). */
  personal: z
    .object({
      citizen: z.object({ contactId: z.uuid(), name: z.string(), phone: z.string().nullable(), email: z.string().nullable() }).nullable(),
      description: z.string(),
      answer: z.string().nullable(),
      attachments: z.array(attachmentView),
      receivedNotice: noticeView,
      answerNotice: noticeView,
      extensionNotice: noticeView,
    })
    .nullable(),
});

export const requestPageView = z.object({ data: z.array(requestView), nextCursor: z.string().nullable() });

export const historyView = z.object({
  data: z.array(
    z.object({
      id: z.uuid(),
      at: instant,
      /** Null for what the citizen or the system did (filing, the daily run). */
      actorId: z.uuid().nullable(),
      /** The staff member's name as it is now (null with `actorId`, or when the account is gone). */
      actorName: z.string().nullable(),
      action: z.enum(HISTORY_ACTIONS),
      changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })),
      note: z.string().nullable(),
    }),
  ),
});

export const attachmentCreatedView = attachmentView;

export const assigneesView = z
  .object({
    data: z.array(z.object({ id: z.uuid(), name: z.string(), role: roleSchema })).describe('Active managers and admins, by name (not paged: at most 500)'),
  })
  .meta({ id: 'PqrsAssignees' });
