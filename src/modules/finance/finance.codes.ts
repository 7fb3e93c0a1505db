/*
 * The module's code lists, apart from its entities so that the schemas, which the console bundles
 * to validate its forms, need nothing but zod (the entities bring the ORM). The entities re-export them.
 */

export const ENTRY_KINDS = ['income', 'expense'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** Who gave a contribution: a private person, a company, the party, or the candidate's own resources. */
export const DONOR_TYPES = ['person', 'company', 'party', 'own'] as const;
export type DonorType = (typeof DONOR_TYPES)[number];
/** Donor types the per-donor limit applies to: private persons and companies (Ley 1475 de 2011, art. 23). */
export const LIMITED_DONOR_TYPES: readonly DonorType[] = ['person', 'company'];

/** The rules a manager may override, with a reason. */
export const OVERRIDABLE_RULES = ['cap_exceeded', 'donor_limit_exceeded'] as const;
export type OverridableRule = (typeof OVERRIDABLE_RULES)[number];

export const AUDIT_ACTIONS = ['create', 'update', 'reverse', 'receipt', 'settings', 'code'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
