import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { TerritorySchema } from '../territories';
import { ContactSchema } from '../audience';
import { UserSchema } from '../auth';
import { STATION_STATUSES, VOTER_STATUSES, VOTER_PRIORITIES, REPORT_KINDS, INCIDENT_SEVERITIES, INCIDENT_TYPES, INCIDENT_PHOTO_TYPES, CONTACT_OUTCOMES } from './gotv.constants';
export { STATION_STATUSES, VOTER_STATUSES, VOTER_PRIORITIES, REPORT_KINDS, INCIDENT_SEVERITIES, INCIDENT_TYPES, INCIDENT_PHOTO_TYPES, CONTACT_OUTCOMES };
export type { StationStatus, VoterStatus, VoterPriority, ReportKind, IncidentPhotoType, IncidentSeverity, IncidentType, ContactOutcome } from './gotv.constants';

/** Puesto de votación: a place with several mesas (tables), each with its own voter list. */
export const PollingStationSchema = defineEntity({
  name: 'PollingStation',
  tableName: 'gotv_polling_stations',
  indexes: [{ properties: ['territory', 'name'] }, { properties: ['name'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    /** The registrar's code (or the campaign's own); unique. */
    code: p.string().length(40).unique(),
    name: p.string().length(200),
    address: p.string().length(300).nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    lat: p.double(),
    lng: p.double(),
    tables: p.integer(),
    /** Potencial electoral: voters registered at this station. */
    registeredVoters: p.integer(),
    /** Voters at this station in the previous comparable election (Registraduría results); the projection's level prior. */
    previousTurnout: p.integer().nullable(),
    status: p.enum([...STATION_STATUSES]).default('pending'),
    ...timestamps,
  }),
});
export type PollingStation = InferEntity<typeof PollingStationSchema>;

/** A confirmed supporter the campaign will get to the polls; the document number is unique. */
export const VoterSchema = defineEntity({
  name: 'Voter',
  tableName: 'gotv_voters',
  // `contact`: a person's page and their export or erasure find their voter record by it.
  indexes: [{ properties: ['pollingStation', 'status'] }, { properties: ['status', 'name'] }, { properties: ['name'] }, { properties: ['contact'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    /** Cédula, digits only. */
    documentId: p.string().length(20).unique(),
    phone: p.string().length(20).nullable(),
    pollingStation: () => p.manyToOne(PollingStationSchema).deleteRule('restrict'),
    /** Mesa number at the station. */
    tableNumber: p.integer().nullable(),
    contact: () => p.manyToOne(ContactSchema).nullable().deleteRule('set null'),
    /** The brigade that gets this voter to the polls. */
    brigade: () => p.manyToOne(BrigadeSchema).nullable().deleteRule('set null'),
    priority: p.enum([...VOTER_PRIORITIES]).default('normal'),
    status: p.enum([...VOTER_STATUSES]).default('pending'),
    votedAt: p.datetime().nullable(),
    /** Who is chasing this voter now, so that two people do not call the same person. */
    claimedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    claimedUntil: p.datetime().nullable(),
    ...timestamps,
  }),
});
export type Voter = InferEntity<typeof VoterSchema>;

/**
 * A station's confirmed voters and how many of them have voted, kept by triggers on `gotv_voters`
 * (migration GotvStationTallies) whatever writes the voters: the live map, the projection and the
 * dashboard read 300 rows instead of counting every voter, once a second on election day.
 */
export const StationTallySchema = defineEntity({
  name: 'StationTally',
  tableName: 'gotv_station_tallies',
  properties: (p) => ({
    station: () => p.oneToOne(PollingStationSchema).primary().owner().deleteRule('cascade'),
    confirmedVoters: p.integer().default(0),
    confirmedVoted: p.integer().default(0),
  }),
});

/** A mobilisation brigade: its members (users with the brigade role) and the stations it covers. */
export const BrigadeSchema = defineEntity({
  name: 'Brigade',
  tableName: 'gotv_brigades',
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(120).unique(),
    leader: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
  }),
});
export type Brigade = InferEntity<typeof BrigadeSchema>;

export const BrigadeMemberSchema = defineEntity({
  name: 'BrigadeMember',
  tableName: 'gotv_brigade_members',
  primaryKeys: ['brigade', 'user'],
  indexes: [{ properties: ['user'] }],
  properties: (p) => ({
    brigade: () => p.manyToOne(BrigadeSchema).primary().deleteRule('cascade'),
    user: () => p.manyToOne(UserSchema).primary().deleteRule('cascade'),
  }),
});

export const BrigadeStationSchema = defineEntity({
  name: 'BrigadeStation',
  tableName: 'gotv_brigade_stations',
  primaryKeys: ['brigade', 'station'],
  indexes: [{ properties: ['station'] }],
  properties: (p) => ({
    brigade: () => p.manyToOne(BrigadeSchema).primary().deleteRule('cascade'),
    station: () => p.manyToOne(PollingStationSchema).primary().deleteRule('restrict'),
  }),
});

/**
 * An append-only fact from the field: "this voter voted" or "at time T, N people have voted at
 * this station". `clientReportId` is made by the phone, so a batch resent over a bad connection is
 * recognised and counted once.
 */
export const TurnoutReportSchema = defineEntity({
  name: 'TurnoutReport',
  tableName: 'gotv_turnout_reports',
  // receivedAt alone: volunteers copy brigade work in recording order (gotv.work.repository.ts).
  indexes: [{ properties: ['station', 'kind', 'reportedAt'] }, { properties: ['station', 'receivedAt'] }, { properties: ['receivedAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    clientReportId: p.uuid().unique(),
    kind: p.enum([...REPORT_KINDS]),
    station: () => p.manyToOne(PollingStationSchema).deleteRule('restrict'),
    /** Null once the voter was deleted (a correction, or their request): the fact stays, the person goes. */
    voter: () => p.manyToOne(VoterSchema).nullable().deleteRule('set null'),
    votersSoFar: p.integer().nullable(),
    /** When it happened, by the reporter's clock (never in the future). */
    reportedAt: p.datetime(),
    receivedAt: p.datetime(),
    reportedBy: () => p.manyToOne(UserSchema).deleteRule('restrict'),
    /** A count lower than the station's figure at that time: kept as a fact, not applied. */
    flagged: p.boolean().default(false),
    /** Made before the election date: brigades practising. Kept, but it never marks a voter voted. */
    rehearsal: p.boolean().default(false),
  }),
});

export type CurvePointJson = { time: string; fraction: number };
export type FollowingDayJson = { date: string; opensAt: string; closesAt: string };
export type StoredTurnoutCurve = CurvePointJson[] | { curve: CurvePointJson[] | null; history: unknown[]; previousTurnoutSpread?: unknown };

/** Election-day settings: one row (id 1), in TIMEZONE. The date itself is the campaign's (`modules/campaign`). */
export const GotvSettingsSchema = defineEntity({
  name: 'GotvSettings',
  tableName: 'gotv_settings',
  properties: (p) => ({
    id: p.integer().primary(),
    opensAt: p.string().length(5),
    closesAt: p.string().length(5),
    /**
     * The configured curve, as `[{ time, fraction }]`; with a curve history, as
     * `{ curve: [...] | null, history: [...] }` (gotv.stations.repository.ts reads both).
     */
    turnoutCurve: p.json<StoredTurnoutCurve>().nullable(),
    /** Polls open on later days too (Italy's Monday): `[{ date, opensAt, closesAt }]`, validated where used. */
    followingDays: p.json<FollowingDayJson[]>().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  }),
});

/** Something wrong at a station on election day; it turns the station red on the map. */
export const IncidentSchema = defineEntity({
  name: 'Incident',
  tableName: 'gotv_incidents',
  indexes: [{ properties: ['station', 'createdAt'] }, { properties: ['createdAt'] }],
  // A phone's resend of the same report (its clientId) finds the first one instead of adding another.
  uniques: [{ properties: ['reportedBy', 'clientId'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    station: () => p.manyToOne(PollingStationSchema).deleteRule('restrict'),
    type: p.enum([...INCIDENT_TYPES]),
    severity: p.enum([...INCIDENT_SEVERITIES]),
    description: p.text(),
    reportedBy: () => p.manyToOne(UserSchema).deleteRule('restrict'),
    clientId: p.uuid().nullable(),
    /** The photo's type by its first bytes and its size; the file is `${DATA_DIR}/gotv/incident-photos/<id>`. */
    photoType: p.enum([...INCIDENT_PHOTO_TYPES]).nullable(),
    photoSize: p.integer().nullable(),
    ...createdAtStamp,
  }),
});

export type Incident = InferEntity<typeof IncidentSchema>;

/** One attempt to reach a voter on election day, and how it went. */
export const VoterContactSchema = defineEntity({
  name: 'VoterContact',
  tableName: 'gotv_voter_contacts',
  indexes: [{ properties: ['voter', 'createdAt'] }, { properties: ['createdAt'] }],
  uniques: [{ properties: ['user', 'clientId'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    voter: () => p.manyToOne(VoterSchema).deleteRule('cascade'),
    user: () => p.manyToOne(UserSchema).deleteRule('restrict'),
    outcome: p.enum([...CONTACT_OUTCOMES]),
    note: p.string().length(500).nullable(),
    clientId: p.uuid().nullable(),
    ...createdAtStamp,
  }),
});
