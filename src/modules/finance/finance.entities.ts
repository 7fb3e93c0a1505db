import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { AgendaEventSchema } from '../agenda';
import { UserSchema } from '../auth';

export * from './finance.codes';
import { AUDIT_ACTIONS, DONOR_TYPES, ENTRY_KINDS, type OverridableRule } from './finance.codes';

/** A manager's decision to let an entry through a rule it broke, kept on the entry. */
export interface StoredOverride {
  reason: string;
  byId: string;
  rules: OverridableRule[];
}

/** One field's value before and after a change (null when it had none). */
export type StoredChanges = Record<string, { before: unknown; after: unknown }>;

/**
 * The catalogue of income and expense codes the report groups by; its defaults follow the
 * headings of the CNE's campaign report (Formulario 5B). Codes are never deleted once used.
 */
export const FinanceCodeSchema = defineEntity({
  name: 'FinanceCode',
  tableName: 'finance_codes',
  // I- codes are income and G- codes expense (gastos), so a code says its kind wherever it is read.
  checks: [
    { name: 'finance_codes_code_check', expression: `(kind = 'income' and code ~ '^I-[0-9]{3}(\\.[0-9]{1,2})?$') or (kind = 'expense' and code ~ '^G-[0-9]{3}(\\.[0-9]{1,2})?$')` },
  ],
  properties: (p) => ({
    code: p.string().length(10).primary(),
    kind: p.enum([...ENTRY_KINDS]),
    name: p.string().length(160),
    description: p.string().length(500).nullable(),
    /** Income under this code is a private contribution: it names its donor and counts against the donor limit. */
    donation: p.boolean().default(false),
    active: p.boolean().default(true),
    ...timestamps,
  }),
});
export type FinanceCode = InferEntity<typeof FinanceCodeSchema>;

/**
 * A ledger entry. Amounts are whole pesos; a reversal carries the opposite sign of the entry it
 * reverses (`reverses`, unique: an entry is reversed once), so sums over any filter stay true.
 */
export const FinanceEntrySchema = defineEntity({
  name: 'FinanceEntry',
  tableName: 'finance_entries',
  indexes: [{ properties: ['date', 'id'] }, { properties: ['code', 'date'] }, { properties: ['counterpartyIdNumber'] }],
  // What the service enforces, kept true by the database too: recorded amounts are positive and at most 10^13, reversals negative.
  checks: [
    {
      name: 'finance_entries_amount_check',
      expression: '(reverses_id is null and amount > 0 and amount <= 10000000000000) or (reverses_id is not null and amount < 0 and amount >= -10000000000000)',
    },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    kind: p.enum([...ENTRY_KINDS]),
    date: p.string().length(10),
    amount: p.bigint('number'),
    code: () => p.manyToOne(FinanceCodeSchema).fieldName('code').deleteRule('restrict'),
    counterpartyName: p.string().length(200),
    counterpartyIdNumber: p.string().length(20).nullable(),
    description: p.string().length(500).nullable(),
    notes: p.text().nullable(),
    donorType: p.enum([...DONOR_TYPES]).nullable(),
    reverses: () => p.manyToOne(FinanceEntrySchema).nullable().unique().deleteRule('restrict'),
    /** The agenda event the movement belongs to: its budget is compared with what was spent on it. */
    event: () => p.manyToOne(AgendaEventSchema).nullable().index().deleteRule('restrict'),
    override: p.json<StoredOverride>().nullable(),
    receiptSha256: p.string().length(64).nullable(),
    receiptType: p.string().length(40).nullable(),
    receiptSize: p.integer().nullable(),
    receiptUploadedAt: p.datetime().nullable(),
    recordedBy: () => p.manyToOne(UserSchema).deleteRule('restrict'),
    ...timestamps,
  }),
});
export type FinanceEntry = InferEntity<typeof FinanceEntrySchema>;

/** The module's settings, one row: the spending cap, the donor limit and the closed period (the election day is the campaign's). */
export const FinanceSettingsSchema = defineEntity({
  name: 'FinanceSettings',
  tableName: 'finance_settings',
  checks: [
    { name: 'finance_settings_singleton_check', expression: 'id = 1' },
    { name: 'finance_settings_cap_check', expression: 'spending_cap is null or spending_cap > 0' },
  ],
  properties: (p) => ({
    id: p.smallint().primary().autoincrement(false),
    spendingCap: p.bigint('number').nullable(),
    donorLimitShare: p.double(),
    closedThrough: p.string().length(10).nullable(),
    updatedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('restrict'),
    updatedAt: p.datetime().onCreate(() => new Date()),
  }),
});

/** Append-only (a trigger refuses updates and deletes): who did what to the ledger, when, with before/after. */
export const FinanceAuditSchema = defineEntity({
  name: 'FinanceAudit',
  tableName: 'finance_audit',
  indexes: [{ properties: ['entry', 'at'] }, { properties: ['at'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    entry: () => p.manyToOne(FinanceEntrySchema).nullable().deleteRule('restrict'),
    action: p.enum([...AUDIT_ACTIONS]),
    actor: () => p.manyToOne(UserSchema).deleteRule('restrict'),
    at: p.datetime(),
    changes: p.json<StoredChanges>(),
    reason: p.string().length(500).nullable(),
  }),
});

export const financeEntities = [FinanceCodeSchema, FinanceEntrySchema, FinanceSettingsSchema, FinanceAuditSchema];
