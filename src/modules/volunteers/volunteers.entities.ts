import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { ContactSchema } from '../audience';
import { UserSchema } from '../auth';
import { VoterSchema } from '../gotv';
import { TerritorySchema } from '../territories';
import { ACTIVITY_SOURCES, ACTIVITY_TYPES, ACTIVITY_UNITS, VOLUNTEER_STATUSES } from './volunteers.values';

export { ACTIVITY_SOURCES, ACTIVITY_TYPES, ACTIVITY_UNITS, SKILL_CATALOGUE, TIME_SLOTS, VOLUNTEER_STATUSES, WEEKDAYS } from './volunteers.values';
export type { ActivitySource, ActivityType, ActivityUnit, VolunteerStatus } from './volunteers.values';

/**
 * A member of the campaign's team. The person is an audience contact (one volunteer per contact),
 * so consent and erasure follow the audience's rules; the optional user account is how they log
 * their own work. `leader` builds the pyramid: a tree, kept free of cycles by the service under a lock.
 */
export const VolunteerSchema = defineEntity({
  name: 'Volunteer',
  tableName: 'volunteers',
  indexes: [{ properties: ['status'] }, { properties: ['territory'] }, { properties: ['leader'] }],
  checks: [
    { name: 'volunteers_goals_check', expression: 'goal_promised_votes >= 0 and goal_leads >= 0 and goal_posters >= 0' },
    { name: 'volunteers_not_own_leader_check', expression: 'leader_id is null or leader_id <> id' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    contact: () => p.manyToOne(ContactSchema).unique().deleteRule('restrict'),
    user: () => p.manyToOne(UserSchema).nullable().unique().deleteRule('set null'),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    skills: p.array().default([]),
    /** `day:slot` pairs (`mon:evening`). */
    availability: p.array().default([]),
    status: p.enum([...VOLUNTEER_STATUSES]).default('prospect'),
    leader: () => p.manyToOne(VolunteerSchema).nullable().deleteRule('set null'),
    goalPromisedVotes: p.integer().default(0),
    goalLeads: p.integer().default(0),
    goalPosters: p.integer().default(0),
    /** The local day they joined. */
    joinedOn: p.string().length(10),
    /** How they arrived: `staff`, `qr` (the landing page's box) or `lead` (a QR lead promoted). */
    source: p.string().length(20),
    sourceRef: p.uuid().nullable(),
    /**
     * Consent to keep GPS points with their activities: when, to which text (stored by the
     * audience, by hash) and who recorded it. Without it, points sent with activities are dropped.
     */
    locationConsentAt: p.datetime().nullable(),
    locationConsentTextId: p.uuid().nullable(),
    locationConsentBy: p.uuid().nullable(),
    /** Set when the person's data was erased: the row stays, anonymous, so the pyramid's figures hold. */
    erasedAt: p.datetime().nullable(),
    ...timestamps,
  }),
});
export type Volunteer = InferEntity<typeof VolunteerSchema>;

/**
 * What a volunteer did. Logged from phones with a client id (a resent batch is recognised), or
 * recorded from another module's fact under (source, sourceId), so re-reading it changes nothing.
 */
export const VolunteerActivitySchema = defineEntity({
  name: 'VolunteerActivity',
  tableName: 'volunteer_activities',
  indexes: [{ properties: ['volunteer', 'occurredAt'] }, { properties: ['occurredAt'] }, { properties: ['type', 'occurredAt'] }],
  uniques: [{ properties: ['source', 'sourceId'] }],
  checks: [
    { name: 'volunteer_activities_quantity_check', expression: 'quantity is null or (quantity >= 0 and quantity <= 100000)' },
    { name: 'volunteer_activities_duration_check', expression: 'duration_minutes is null or (duration_minutes > 0 and duration_minutes <= 1440)' },
    // Bounds typed as the columns are, so PostgreSQL stores them without casts and the schema diff reads them back as written.
    {
      name: 'volunteer_activities_point_check',
      expression:
        "(lat is null) = (lng is null) and (lat is null or (lat >= '-90'::double precision and lat <= '90'::double precision and lng >= '-180'::double precision and lng <= '180'::double precision))",
    },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    clientId: p.uuid().nullable().unique(),
    source: p.enum([...ACTIVITY_SOURCES]).default('manual'),
    sourceId: p.uuid().nullable(),
    volunteer: () => p.manyToOne(VolunteerSchema).deleteRule('cascade'),
    type: p.enum([...ACTIVITY_TYPES]),
    occurredAt: p.datetime(),
    durationMinutes: p.integer().nullable(),
    quantity: p.integer().nullable(),
    unit: p.enum([...ACTIVITY_UNITS]).nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    notes: p.string().length(1000).nullable(),
    lat: p.double().nullable(),
    lng: p.double().nullable(),
    /** An agenda event (its module owns the table, so no foreign key). */
    eventId: p.uuid().nullable(),
    posterCode: p.string().length(40).nullable(),
    recordedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
  }),
});
export type VolunteerActivity = InferEntity<typeof VolunteerActivitySchema>;

/** The confirmed GOTV voters a volunteer brings ("votos amarrados"): each voter counts for one volunteer. */
export const VolunteerVoterSchema = defineEntity({
  name: 'VolunteerVoter',
  tableName: 'volunteer_voters',
  indexes: [{ properties: ['volunteer'] }],
  properties: (p) => ({
    voter: () => p.manyToOne(VoterSchema).primary().deleteRule('cascade'),
    volunteer: () => p.manyToOne(VolunteerSchema).deleteRule('cascade'),
    linkedAt: p.datetime(),
  }),
});

/** How far each copy of another module's facts has read: one row per source. */
export const VolunteerSyncSchema = defineEntity({
  name: 'VolunteerSync',
  tableName: 'volunteer_sync',
  properties: (p) => ({
    source: p.string().length(40).primary(),
    watermark: p.datetime(),
    updatedAt: p.datetime(),
  }),
});

export const volunteersEntities = [VolunteerSchema, VolunteerActivitySchema, VolunteerVoterSchema, VolunteerSyncSchema];
