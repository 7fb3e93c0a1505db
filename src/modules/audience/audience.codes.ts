/*
 * The audience's closed lists of words, apart from the entities (which need the ORM) so that its
 * schema files, and the console that validates forms with them, need nothing but zod.
 */

export const CONSENT_ACTIONS = ['given', 'withdrawn'] as const;
export type ConsentAction = (typeof CONSENT_ACTIONS)[number];

export const AUDIT_ACTIONS = ['export', 'erasure', 'withdrawal', 'correction', 'tags', 'merge', 'merge_undo'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The channels a person consents to, one by one. */
export const CHANNELS = ['whatsapp', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];
