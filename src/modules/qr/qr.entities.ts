import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { TerritorySchema } from '../territories';
import { ContactSchema } from '../audience';
import { CAMPAIGN_STATUSES, type FieldMode } from './qr.constants';

export { CAMPAIGN_STATUSES, FIELD_MODES, type CampaignStatus, type FieldMode } from './qr.constants';

/** What the landing page shows and asks; the campaign's own words, Spanish by default. */
export interface LandingConfig {
  title: string;
  intro: string;
  /** Interest options a citizen can tick: value is stored, label is shown. */
  interests: { value: string; label: string }[];
  fields: { phone: FieldMode; email: FieldMode; documentId: FieldMode; neighbourhood: FieldMode };
  consentText: string;
  privacyPolicyUrl: string;
  thankYouMessage: string;
  /** Offer the "quiero ser voluntario" box; campaigns saved before it existed offer it. */
  volunteerSignup?: boolean;
}

export const QrCampaignSchema = defineEntity({
  name: 'QrCampaign',
  tableName: 'qr_campaigns',
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    description: p.text().nullable(),
    status: p.enum([...CAMPAIGN_STATUSES]).default('draft'),
    startsAt: p.datetime().nullable(),
    endsAt: p.datetime().nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    landing: p.json<LandingConfig>(),
    /** The consent text record the landing currently shows (proof keeps old versions). */
    consentTextId: p.uuid(),
    /** Honeypot hits: counted, never stored as leads. */
    spamBlocked: p.integer().default(0),
    ...timestamps,
  }),
});
export type QrCampaign = InferEntity<typeof QrCampaignSchema>;

/**
 * One printed poster. Colombian rules on public-space propaganda (placement only in the three
 * months before the vote, at sites the mayor authorises, none on election day) make each
 * placement a legal object: when it went up, whether the site is authorised, when it must go.
 */
export const QrCodeSchema = defineEntity({
  name: 'QrCode',
  tableName: 'qr_codes',
  indexes: [{ properties: ['campaign', 'createdAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    campaign: () => p.manyToOne(QrCampaignSchema).deleteRule('cascade'),
    code: p.string().length(16).unique(),
    label: p.string().length(160),
    address: p.string().length(300).nullable(),
    lat: p.double().nullable(),
    lng: p.double().nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    placedAt: p.datetime().nullable(),
    authorisedSite: p.boolean().default(false),
    removalDeadline: p.datetime().nullable(),
    removedAt: p.datetime().nullable(),
    ...createdAtStamp,
  }),
});
export type QrCode = InferEntity<typeof QrCodeSchema>;

/** A scan: no raw IP, only a keyed hash for unique counts. */
export const QrScanSchema = defineEntity({
  name: 'QrScan',
  tableName: 'qr_scans',
  indexes: [{ properties: ['campaign', 'scannedAt'] }, { properties: ['code', 'scannedAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    campaign: () => p.manyToOne(QrCampaignSchema).deleteRule('cascade'),
    code: () => p.manyToOne(QrCodeSchema).deleteRule('cascade'),
    scannedAt: p.datetime(),
    isBot: p.boolean(),
    ipHash: p.string().length(64).nullable(),
    referrer: p.string().length(300).nullable(),
  }),
});

/**
 * A person's submission to a campaign; the person (name, phone, email, opt-ins) is the audience
 * contact. Unique per campaign and contact: a repeat submission updates the lead and counts
 * as a merged duplicate.
 */
export const QrLeadSchema = defineEntity({
  name: 'QrLead',
  tableName: 'qr_leads',
  uniques: [{ properties: ['campaign', 'contact'], name: 'qr_leads_campaign_contact_unique' }],
  indexes: [
    { properties: ['campaign', 'createdAt'] },
    { properties: ['code', 'createdAt'] },
    { name: 'qr_leads_interests_gin', expression: 'create index "qr_leads_interests_gin" on "qr_leads" using gin ("interests")' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    /**
     * Always the code's campaign (capture takes both from the code). No foreign key of its own:
     * the code's key already ties the lead to an existing campaign (a campaign deleted takes its
     * codes, and they their leads), and a second check share-locked the one campaign row that
     * every concurrent capture of a campaign touches (measured: 13 µs of PostgreSQL per capture).
     */
    campaign: () => p.manyToOne(QrCampaignSchema).createForeignKeyConstraint(false),
    /** The poster that brought the person first. */
    code: () => p.manyToOne(QrCodeSchema).deleteRule('cascade'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    neighbourhood: p.string().length(120).nullable(),
    interests: p.array().default([]),
    whatsappOptIn: p.boolean(),
    emailOptIn: p.boolean(),
    submissions: p.integer().default(1),
    /** Not the shared `timestamps`: leads are written only in SQL, which sets both columns itself. */
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  }),
});
export type QrLead = InferEntity<typeof QrLeadSchema>;
