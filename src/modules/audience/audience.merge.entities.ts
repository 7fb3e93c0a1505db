import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { uuidPrimaryKey } from '../../kernel/entity-properties';
import type { AuditCounts } from './audience.entities';
import { ContactSchema } from './audience.entities';

/**
 * One supporters' file imported (not a dry run): who, when, what it did, and the consent text its
 * people agreed to with where and how it was collected. The consent records and contact origins
 * of its people point at it (`source_ref`, `ref_id`). No personal data.
 */
export const ContactImportSchema = defineEntity({
  name: 'ContactImport',
  tableName: 'contact_imports',
  indexes: [{ properties: ['importedAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    importedBy: p.uuid(),
    importedAt: p.datetime(),
    /** Data rows in the file. */
    rows: p.integer(),
    created: p.integer(),
    updated: p.integer(),
    unchanged: p.integer(),
    rejected: p.integer(),
    warnings: p.integer(),
    /** The exact text the people in the file agreed to (`consent_texts`, append-only, so no foreign key); null when no row gave consent. */
    consentTextId: p.uuid().nullable(),
    /** Where and how that consent was collected ("formulario firmado en evento del 12/10"). */
    consentCollection: p.string().length(300).nullable(),
    consentsRecorded: p.integer(),
  }),
});
export type ContactImport = InferEntity<typeof ContactImportSchema>;

export const SNAPSHOT_CLEARED_REASONS = ['expired', 'erasure', 'undone'] as const;
export type SnapshotClearedReason = (typeof SNAPSHOT_CLEARED_REASONS)[number];

/** What each module moved, by module and table: row ids only. */
export type MergeMoved = Record<string, Record<string, string[]>>;

/**
 * Two records of one person made one: `fromContact` (left as a tombstone, `contacts.merged_into_id`)
 * into `intoContact`. `moved` keeps the ids of every row that now points at the survivor, by
 * module and table, for as long as the merge is kept; `snapshot` keeps both records' values before
 * the merge and what each module needs to split combined rows again: personal data, so it is
 * cleared when the undo window ends (a sweep), when the merge is undone, and when the person is erased.
 */
export const ContactMergeSchema = defineEntity({
  name: 'ContactMerge',
  tableName: 'contact_merges',
  indexes: [
    { properties: ['mergedAt', 'id'] },
    { properties: ['intoContact'] },
    { properties: ['fromContact'] },
    {
      name: 'contact_merges_snapshot_until',
      expression: 'create index "contact_merges_snapshot_until" on "contact_merges" ("undo_until") where "snapshot" is not null',
    },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    intoContact: () => p.manyToOne(ContactSchema).deleteRule('restrict'),
    fromContact: () => p.manyToOne(ContactSchema).deleteRule('restrict'),
    mergedBy: p.uuid(),
    mergedAt: p.datetime(),
    /** Until when `POST /api/audience/merges/:id/undo` may split them again. */
    undoUntil: p.datetime(),
    moved: p.json<MergeMoved>(),
    /** Rows moved and combined, by module and kind, as the audit records them. */
    counts: p.json<AuditCounts>(),
    snapshot: p.json<Record<string, unknown>>().nullable(),
    snapshotClearedAt: p.datetime().nullable(),
    snapshotClearedReason: p.enum([...SNAPSHOT_CLEARED_REASONS]).nullable(),
    undoneAt: p.datetime().nullable(),
    undoneBy: p.uuid().nullable(),
  }),
});
export type ContactMerge = InferEntity<typeof ContactMergeSchema>;

/**
 * Staff said two contacts are different people: the duplicate finder no longer offers the pair.
 * Kept with the smaller id first.
 */
export const DuplicateDismissalSchema = defineEntity({
  name: 'DuplicateDismissal',
  tableName: 'contact_duplicate_dismissals',
  primaryKeys: ['contactA', 'contactB'],
  checks: [{ name: 'contact_duplicate_dismissals_order_check', expression: 'contact_a_id < contact_b_id' }],
  indexes: [{ properties: ['contactB'] }],
  properties: (p) => ({
    contactA: () => p.manyToOne(ContactSchema).primary().deleteRule('cascade'),
    contactB: () => p.manyToOne(ContactSchema).primary().deleteRule('cascade'),
    dismissedBy: p.uuid(),
    dismissedAt: p.datetime(),
  }),
});

/**
 * The duplicate finder's pairs (audience.duplicates.repository.ts), kept rather than computed on
 * each request: every pair of held contacts sharing a cédula, an email, the last ten digits of a
 * phone or a name in one territory, not dismissed, with its reasons and score, smaller id first.
 * Kept right by `catchUpDuplicates` from the contacts named in `contact_duplicate_queue`. No
 * foreign keys: a key's check would share-lock both contacts, and the catch-up would wait on every
 * import or merge holding one; a contact that goes is queued and its pairs go with it.
 */
export const DuplicateCandidateSchema = defineEntity({
  name: 'DuplicateCandidate',
  tableName: 'contact_duplicate_pairs',
  primaryKeys: ['contactA', 'contactB'],
  checks: [{ name: 'contact_duplicate_pairs_order_check', expression: 'contact_a_id < contact_b_id' }],
  indexes: [
    // Best first: keyset pages compare (-score, a, b) as one row, which this index serves in order.
    {
      name: 'contact_duplicate_pairs_rank',
      expression: 'create index "contact_duplicate_pairs_rank" on "contact_duplicate_pairs" ((-"score"), "contact_a_id", "contact_b_id")',
    },
    { properties: ['contactB'] },
  ],
  properties: (p) => ({
    contactA: () => p.manyToOne(ContactSchema).primary().createForeignKeyConstraint(false),
    contactB: () => p.manyToOne(ContactSchema).primary().createForeignKeyConstraint(false),
    /** 0–1, three decimals: 1 − ∏(1 − wᵢ) over the reasons (audience.duplicates.ts). */
    score: p.decimal().precision(4).scale(3),
    /** pg_trgm similarity of the two `contact_name_key`s. */
    nameSimilarity: p.float(),
    reasons: p.array(),
  }),
});

/**
 * Contacts whose pairs may have changed since the finder last looked, appended by triggers on
 * `contacts` (a row inserted or deleted, or a name, phone, email, cédula, territory, erasure or
 * merge mark changed) and on `contact_duplicate_dismissals` (migration DuplicatePairsKept), in the
 * writer's transaction, so no writer needs to know. A row without a contact asks for every pair
 * again. Taken, and the pairs of its contacts computed again, by `catchUpDuplicates` after the
 * writes committed.
 */
export const DuplicateRecheckSchema = defineEntity({
  name: 'DuplicateRecheck',
  tableName: 'contact_duplicate_queue',
  properties: (p) => ({
    id: p.bigint().primary().autoincrement(),
    contact: () => p.manyToOne(ContactSchema).nullable().createForeignKeyConstraint(false),
  }),
});

export const peopleEntities = [ContactImportSchema, ContactMergeSchema, DuplicateDismissalSchema, DuplicateCandidateSchema, DuplicateRecheckSchema];
