import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { TerritorySchema } from '../territories';
import { AUDIT_ACTIONS, CONSENT_ACTIONS } from './audience.codes';

/**
 * A person the campaign may reach. Identity is the phone when there is one (E.164), otherwise
 * the email: `identityKey` is `tel:+573001234567` or `mail:ana@example.org`, unique, so the same
 * person arriving from two posters is one contact. Channel consent lives here because an
 * opt-out ("BAJA", unsubscribe) applies to every campaign.
 */
export const ContactSchema = defineEntity({
  name: 'Contact',
  tableName: 'contacts',
  indexes: [
    { name: 'contacts_interests_gin', expression: 'create index "contacts_interests_gin" on "contacts" using gin ("interests")' },
    // The people search (audience.people.repository.ts). Only held people (erased ones never show).
    // The name's trigrams, with a short pending list: a search reads all of it, and the default 4 MB
    // cost a name search milliseconds during a stream of captures.
    {
      name: 'contacts_name_trgm',
      expression: 'create index "contacts_name_trgm" on "contacts" using gin ("name_folded" gin_trgm_ops) with (gin_pending_list_limit = 256) where "erased_at" is null',
    },
    // The two orders of the list, carrying what a name search and a territory filter test, so a page
    // of a common name walks the index alone (an index-only scan) instead of visiting a row per entry.
    // The creation order serves every other reader of `created_at` too (segments' dates): it replaced
    // the plain index on it, which the planner would otherwise pick and then visit each row.
    {
      name: 'contacts_created_order',
      expression: 'create index "contacts_created_order" on "contacts" ("created_at", "id") include ("name_folded", "territory_id", "erased_at")',
    },
    { name: 'contacts_name_order', expression: 'create index "contacts_name_order" on "contacts" ("name_folded", "id") include ("territory_id") where "erased_at" is null' },
    { name: 'contacts_phone_suffix', expression: 'create index "contacts_phone_suffix" on "contacts" (reverse("phone") text_pattern_ops)' },
    { name: 'contacts_document_id', expression: 'create index "contacts_document_id" on "contacts" ("document_id" text_pattern_ops)' },
    { name: 'contacts_email_lower', expression: 'create index "contacts_email_lower" on "contacts" (lower("email") text_pattern_ops)' },
    { name: 'contacts_tags_gin', expression: 'create index "contacts_tags_gin" on "contacts" using gin ("tags")' },
    // The duplicate finder's "same name in the same territory" (contact_name_key: migration PeopleImportAndMerge).
    {
      name: 'contacts_territory_name_key',
      expression: 'create index "contacts_territory_name_key" on "contacts" ("territory_id", contact_name_key("name")) where "erased_at" is null and "merged_into_id" is null',
    },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    identityKey: p.string().length(270).unique(),
    name: p.string().length(160),
    /**
     * The name lower-cased and without accents (`people_fold`, migration PeopleSearch: unaccent()
     * is only STABLE, so it is wrapped in an IMMUTABLE function), kept by PostgreSQL: what the
     * people search matches and sorts by, read rather than computed for each row it looks at.
     */
    nameFolded: p
      .text()
      // Never written by an insert; nullable for the query builder's sake (a name is never null).
      .nullable()
      .generated('(people_fold(name)) stored')
      .ignoreSchemaChanges('type', 'extra'),
    phone: p.string().length(20).nullable().index(),
    email: p.string().length(254).nullable().index(),
    documentId: p.string().length(20).nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    neighbourhood: p.string().length(120).nullable(),
    interests: p.array().default([]),
    /** Staff's labels (`líder`, `transporte`…): replaced as a list by `PATCH /api/audience/contacts/:id`, merged like interests by imports and merges. */
    tags: p.array().default([]),
    whatsappOptIn: p.boolean().default(false),
    whatsappOptedOutAt: p.datetime().nullable(),
    emailOptIn: p.boolean().default(false),
    emailOptedOutAt: p.datetime().nullable(),
    /**
     * When the person had their data suppressed (Ley 1581 de 2012, art. 8): the row stays, emptied
     * of everything that identified them, so the consent proof and other modules' figures that
     * point at it hold.
     */
    erasedAt: p.datetime().nullable(),
    /**
     * Set when this record was merged into another of the same person (`contact_merges`): the row
     * stays, emptied, so the merge can be undone and what pointed at it keeps a referent; it is no
     * longer anyone.
     */
    mergedInto: () => p.manyToOne(ContactSchema).nullable().deleteRule('restrict'),
    mergedAt: p.datetime().nullable(),
    ...timestamps,
  }),
});
export type Contact = InferEntity<typeof ContactSchema>;

/** Where a contact came from (a QR campaign, an import): segments select by origin. */
export const ContactOriginSchema = defineEntity({
  name: 'ContactOrigin',
  tableName: 'contact_origins',
  primaryKeys: ['contact', 'kind', 'refId'],
  indexes: [{ properties: ['kind', 'refId'] }],
  properties: (p) => ({
    contact: () => p.manyToOne(ContactSchema).primary().deleteRule('cascade'),
    kind: p.string().length(40).primary(),
    refId: p.uuid().primary(),
    firstSeenAt: p.datetime(),
  }),
});

/**
 * The exact wording a person agreed to. Stored once per distinct text (by its SHA-256), so a
 * consent record proves what was shown even after the campaign changes its text. Evidence does
 * not change: a trigger refuses every UPDATE and DELETE of a row (migration ConsentTextsAppendOnly).
 */
export const ConsentTextSchema = defineEntity({
  name: 'ConsentText',
  tableName: 'consent_texts',
  properties: (p) => ({
    ...uuidPrimaryKey,
    sha256: p.string().length(64).unique(),
    text: p.text(),
    privacyPolicyUrl: p.string().length(500).nullable(),
    ...createdAtStamp,
  }),
});

export { CONSENT_ACTIONS, type ConsentAction } from './audience.codes';

/**
 * Proof of consent (Ley 1581 de 2012, art. 9; Decreto 1377 de 2013, art. 7) and of its withdrawal,
 * which must be as provable: who, when, to which text, for which channels, from where, and for a
 * withdrawal what the person did or wrote. Append-only: one row per submission or withdrawal; only
 * the person's erasure touches a row, clearing what could identify them (IP hash, browser, evidence).
 */
export const ConsentSchema = defineEntity({
  name: 'Consent',
  tableName: 'consents',
  indexes: [{ properties: ['contact', 'givenAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    /**
     * No foreign key: consent texts are append-only (nothing can change or remove one, see
     * above), and writers take the id from `ensureConsentText` or a campaign, so it always
     * exists. The key's check share-locked the one text row every capture of a campaign uses.
     */
    text: () => p.manyToOne(ConsentTextSchema).createForeignKeyConstraint(false),
    action: p.enum([...CONSENT_ACTIONS]).default('given'),
    /** e.g. `qr` with the code's id; `whatsapp_stop` with the message's; `email_unsubscribe` with the campaign's; `staff` with the user's. */
    source: p.string().length(40),
    sourceRef: p.uuid().nullable(),
    whatsappOptIn: p.boolean(),
    emailOptIn: p.boolean(),
    ipHash: p.string().length(64).nullable(),
    userAgent: p.string().length(300).nullable(),
    /** A withdrawal's own words or act: the message the person sent ("BAJA"), the link they used, a staff note. */
    evidence: p.string().length(500).nullable(),
    givenAt: p.datetime(),
  }),
});

export { AUDIT_ACTIONS, type AuditAction } from './audience.codes';

/** How many rows of each kind an audited action read or changed, by module. */
export type AuditCounts = Record<string, Record<string, number>>;

/**
 * Who exported, erased, withdrew or merged whose data, and when, with counts and never the data itself.
 * Append-only: a trigger refuses every UPDATE and DELETE (migration AudienceAudit). No foreign
 * keys: the record must outlive whatever it names.
 */
export const AudienceAuditSchema = defineEntity({
  name: 'AudienceAudit',
  tableName: 'audience_audit',
  indexes: [{ properties: ['at'] }, { properties: ['contactId', 'at'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    at: p.datetime(),
    actorId: p.uuid(),
    action: p.enum([...AUDIT_ACTIONS]),
    contactId: p.uuid(),
    /** What the action was about beyond the person (a withdrawal's channel, a correction's fields), never personal data. */
    detail: p.string().length(40).nullable(),
    counts: p.json<AuditCounts>(),
  }),
});
export type AudienceAudit = InferEntity<typeof AudienceAuditSchema>;

/**
 * What is left of an erased person's cédulas, phones and emails: each as a keyed hash
 * (`hashIdentifier`, kernel/privacy.ts), so that a list imported later (GOTV voters, supporters)
 * that names them again is recognised and refused, while the identifiers themselves are gone.
 */
export const ErasedIdentifierSchema = defineEntity({
  name: 'ErasedIdentifier',
  tableName: 'erased_identifiers',
  properties: (p) => ({
    hash: p.string().length(64).primary(),
    kind: p.enum(['document', 'phone', 'email']),
    erasedAt: p.datetime(),
  }),
});
