import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { uuidPrimaryKey } from '../../kernel/entity-properties';
import { ContactSchema } from '../audience';
import { UserSchema } from '../auth';
import { TerritorySchema } from '../territories';
import { HISTORY_ACTIONS, PQRS_CHANNELS, PQRS_PRIORITIES, PQRS_STATUSES, PQRS_TYPES } from './pqrs.constants';

export {
  HISTORY_ACTIONS,
  OPEN_STATUSES,
  PQRS_CHANNELS,
  PQRS_PRIORITIES,
  PQRS_STATUSES,
  PQRS_TYPES,
  type HistoryAction,
  type PqrsChannel,
  type PqrsPriority,
  type PqrsStatus,
  type PqrsType,
} from './pqrs.constants';

/** One field's value before and after a change (null when it had none). */
export type StoredChanges = Record<string, { before: unknown; after: unknown }>;

/** What the notices module answered for one notice about the request. */
export interface StoredNotice {
  status: 'queued' | 'duplicate' | 'unreachable';
  /** Null when nobody could be told (an anonymous request, an erased citizen): no notice was written. */
  noticeId: string | null;
  channel?: string;
  reason?: string;
  at: string;
}

/**
 * A citizen's request (petición, queja, reclamo, sugerencia, denuncia, consulta or solicitud de
 * información) and its legal clock: `dueDate` is the local day by which it must be answered
 * (Ley 1755 de 2015, art. 14), `dueAt` the last instant of that day.
 */
export const PqrsRequestSchema = defineEntity({
  name: 'PqrsRequest',
  tableName: 'pqrs_requests',
  indexes: [
    { properties: ['receivedAt', 'id'] },
    // The desk's queue, soonest deadline first.
    { properties: ['dueAt', 'id'] },
    { properties: ['status', 'dueAt'] },
    { properties: ['assignee', 'status'] },
    { properties: ['contact'] },
    { properties: ['territory'] },
  ],
  uniques: [{ properties: ['year', 'sequence'], name: 'pqrs_requests_year_sequence_unique' }],
  checks: [
    // Only a denuncia may come without a citizen, and an anonymous one has none.
    { name: 'pqrs_requests_anonymous_check', expression: `not anonymous or (type = 'denuncia' and contact_id is null)` },
    { name: 'pqrs_requests_term_check', expression: 'term_days > 0 and term_days <= 60' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    number: p.string().length(20).unique(),
    year: p.smallint(),
    sequence: p.integer(),
    type: p.enum([...PQRS_TYPES]),
    subject: p.string().length(200),
    description: p.text(),
    channel: p.enum([...PQRS_CHANNELS]),
    contact: () => p.manyToOne(ContactSchema).nullable().deleteRule('set null'),
    anonymous: p.boolean().default(false),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    assignee: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    priority: p.enum([...PQRS_PRIORITIES]).default('normal'),
    status: p.enum([...PQRS_STATUSES]).default('received'),
    receivedAt: p.datetime(),
    /** Business days the law gives this type; the clock's first day is the business day after `receivedAt`'s local day. */
    termDays: p.smallint(),
    originalDueDate: p.string().length(10),
    dueDate: p.string().length(10),
    dueAt: p.datetime(),
    extendedAt: p.datetime().nullable(),
    extensionReason: p.string().length(1000).nullable(),
    extendedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    /** Set by the daily run when the request came within three business days of its deadline. */
    dueSoonAt: p.datetime().nullable(),
    answer: p.text().nullable(),
    answeredAt: p.datetime().nullable(),
    answeredBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    closedAt: p.datetime().nullable(),
    /** The WhatsApp conversation it was converted from. */
    conversationId: p.uuid().nullable(),
    receivedNotice: p.json<StoredNotice>().nullable(),
    answerNotice: p.json<StoredNotice>().nullable(),
    extensionNotice: p.json<StoredNotice>().nullable(),
    /** A one-time secret (its SHA-256) letting the filer attach files for a while after filing. */
    uploadTokenHash: p.string().length(64).nullable(),
    uploadTokenExpiresAt: p.datetime().nullable(),
    /** The citizen's data was erased at their request: texts cleared, attachments deleted, figures kept. */
    citizenErasedAt: p.datetime().nullable(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    updatedAt: p.datetime(),
  }),
});
export type PqrsRequest = InferEntity<typeof PqrsRequestSchema>;

/** Every change to a request, append-only: who, when, what before and after. */
export const PqrsHistorySchema = defineEntity({
  name: 'PqrsHistory',
  tableName: 'pqrs_history',
  indexes: [{ properties: ['request', 'at'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    request: () => p.manyToOne(PqrsRequestSchema).deleteRule('cascade'),
    at: p.datetime(),
    actor: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    action: p.enum([...HISTORY_ACTIONS]),
    changes: p.json<StoredChanges>(),
    note: p.string().length(1000).nullable(),
  }),
});

/** A file attached to a request, stored under `${DATA_DIR}/pqrs/attachments/<id>`. */
export const PqrsAttachmentSchema = defineEntity({
  name: 'PqrsAttachment',
  tableName: 'pqrs_attachments',
  indexes: [{ properties: ['request', 'uploadedAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    request: () => p.manyToOne(PqrsRequestSchema).deleteRule('cascade'),
    fileName: p.string().length(200),
    type: p.string().length(100),
    size: p.integer(),
    sha256: p.string().length(64),
    uploadedAt: p.datetime(),
    uploadedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
  }),
});

/** The last number given out per year; taken with a row lock in the filing's transaction, so numbers have no gaps. */
export const PqrsCounterSchema = defineEntity({
  name: 'PqrsCounter',
  tableName: 'pqrs_counters',
  properties: (p) => ({
    year: p.smallint().primary().autoincrement(false),
    last: p.integer(),
  }),
});

/**
 * The desk's settings, one row: the consent text, the WhatsApp templates of the citizen notices
 * (null: that notice goes by email only), the daily run's last day.
 */
export const PqrsSettingsSchema = defineEntity({
  name: 'PqrsSettings',
  tableName: 'pqrs_settings',
  checks: [{ name: 'pqrs_settings_singleton_check', expression: 'id = 1' }],
  properties: (p) => ({
    id: p.smallint().primary().autoincrement(false),
    consentText: p.text(),
    privacyPolicyUrl: p.string().length(500).nullable(),
    receivedTemplate: p.string().length(100).nullable(),
    answeredTemplate: p.string().length(100).nullable(),
    extendedTemplate: p.string().length(100).nullable(),
    templateLanguage: p.string().length(10),
    /** The local day the due-soon run last did, claimed by whichever process gets there first. */
    dueSoonRunOn: p.string().length(10).nullable(),
    updatedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    updatedAt: p.datetime(),
  }),
});

export const pqrsEntities = [PqrsRequestSchema, PqrsHistorySchema, PqrsAttachmentSchema, PqrsCounterSchema, PqrsSettingsSchema];
