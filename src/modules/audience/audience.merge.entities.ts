import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { newId } from '../../kernel/ids';
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
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
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
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
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

export const peopleEntities = [ContactImportSchema, ContactMergeSchema, DuplicateDismissalSchema];
