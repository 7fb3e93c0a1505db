import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { ROLES } from '../../kernel/auth/roles';
import { pageQueryShape } from '../../kernel/page-schemas';
import { CONTACT_OUTCOMES, INCIDENT_PHOTO_TYPES, INCIDENT_SEVERITIES, INCIDENT_TYPES, STATION_STATUSES, VOTER_PRIORITIES, VOTER_STATUSES } from './gotv.constants';

const count = z.number().int().min(0).max(10_000_000);

const previousTurnoutNote =
  'voters at this station in the previous comparable election (at most registeredVoters): the projection weighs today’s counts against it (docs/gotv-projection.md)';

export const createStationBody = z
  .object({
    code: z.string().trim().min(1).max(40),
    name: z.string().trim().min(1).max(200),
    address: z.string().trim().max(300).optional(),
    territoryId: z.uuid().optional(),
    /** Required: every station is a point on the live map. */
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    tables: z.number().int().min(1).max(1000),
    registeredVoters: count,
    previousTurnout: count.optional().describe(previousTurnoutNote),
    status: z.enum(STATION_STATUSES).default('pending'),
  })
  .refine((body) => body.previousTurnout === undefined || body.previousTurnout <= body.registeredVoters, {
    message: 'previousTurnout cannot exceed registeredVoters',
    path: ['previousTurnout'],
  })
  .meta({
    examples: [{ code: '05001-0042', name: 'I.E. San José', address: 'Cra 50 # 45-10', lat: 6.2518, lng: -75.5636, tables: 12, registeredVoters: 4200 }],
  });

/** Written out rather than `.partial()` of the create body: a default there would reset fields on every PATCH. */
export const updateStationBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    address: z.string().trim().max(300).nullable().optional(),
    territoryId: z.uuid().nullable().optional(),
    lat: z.number().min(-90).max(90).optional(),
    lng: z.number().min(-180).max(180).optional(),
    tables: z.number().int().min(1).max(1000).optional(),
    registeredVoters: count.optional(),
    previousTurnout: count.nullable().optional().describe(`${previousTurnoutNote}; null removes it`),
    status: z.enum(STATION_STATUSES).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change');

export const listStationsQuery = z.object({
  ...pageQueryShape,
  territoryId: z.uuid().optional(),
  status: z.enum(STATION_STATUSES).optional(),
  q: z.string().trim().min(1).max(100).optional(),
});

export const stationIdParams = z.object({ id: z.uuid() });

/** The stations' and voters' CSV imports: `dryRun=true` reads and checks the whole file and answers what it would write, writing nothing. */
export const gotvImportQuery = z.object({
  dryRun: z.enum(['true', 'false'], { error: 'expected true or false' }).default('false'),
});

export const stationView = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    address: z.string().nullable(),
    territoryId: z.uuid().nullable(),
    lat: z.number(),
    lng: z.number(),
    tables: z.number().int(),
    registeredVoters: z.number().int(),
    previousTurnout: z.number().int().nullable().describe(previousTurnoutNote),
    status: z.enum(STATION_STATUSES),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'PollingStation' });

export type CreateStationInput = z.infer<typeof createStationBody>;
export type UpdateStationInput = z.infer<typeof updateStationBody>;
export type ListStationsInput = z.infer<typeof listStationsQuery>;

/** Cédula as people type it (dots, spaces) → digits. */
const documentId = z
  .string()
  .trim()
  .transform((value) => value.replace(/[.\s-]/g, ''))
  .pipe(z.string().regex(/^\d{5,12}$/, 'a cédula has 5 to 12 digits'));

export const createVoterBody = z.object({
  name: z.string().trim().min(2).max(160),
  documentId,
  phone: z.string().trim().max(30).optional(),
  pollingStationId: z.uuid(),
  tableNumber: z.number().int().min(1).max(1000).optional(),
  contactId: z.uuid().optional(),
  priority: z.enum(VOTER_PRIORITIES).default('normal'),
});

export const updateVoterBody = z
  .object({
    name: z.string().trim().min(2).max(160).optional(),
    documentId: documentId.optional(),
    /** `null` (or empty) removes it. */
    phone: z.string().trim().max(30).nullable().optional(),
    pollingStationId: z.uuid().optional(),
    tableNumber: z.number().int().min(1).max(1000).nullable().optional(),
    contactId: z.uuid().nullable().optional(),
    priority: z.enum(VOTER_PRIORITIES).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Give at least one field to change.');

export const listVotersQuery = z.object({
  ...pageQueryShape,
  pollingStationId: z.uuid().optional(),
  territoryId: z.uuid().optional(),
  status: z.enum(VOTER_STATUSES).optional(),
  priority: z.enum(VOTER_PRIORITIES).optional(),
  brigadeId: z.uuid().optional(),
  /** `mine`: the voters I am calling now; `free`: nobody is calling them. */
  claim: z.enum(['mine', 'free']).optional(),
  q: z.string().trim().min(1).max(100).optional(),
  /** `csv`: the whole filtered list as a spreadsheet file (managers only). */
  format: z.enum(['json', 'csv']).default('json'),
});

export const voterIdParams = z.object({ id: z.uuid() });

export const voterView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    documentId: z.string(),
    phone: z.string().nullable(),
    pollingStationId: z.uuid(),
    tableNumber: z.number().int().nullable(),
    contactId: z.uuid().nullable(),
    brigadeId: z.uuid().nullable(),
    priority: z.enum(VOTER_PRIORITIES),
    status: z.enum(VOTER_STATUSES),
    votedAt: instant.nullable(),
    /** Who is calling this voter now (null when nobody is, or the claim has expired). */
    claimedBy: z.uuid().nullable(),
    claimedUntil: instant.nullable(),
    createdAt: instant,
  })
  .meta({ id: 'Voter' });

export type CreateVoterInput = z.infer<typeof createVoterBody>;
export type ListVotersInput = z.infer<typeof listVotersQuery>;
export type UpdateVoterInput = z.infer<typeof updateVoterBody>;

const idList = (max: number) => z.array(z.uuid()).max(max).default([]);

export const createBrigadeBody = z.object({
  name: z.string().trim().min(1).max(120),
  leaderId: z.uuid().optional(),
  /** Users with the `brigade` role. */
  memberIds: idList(200),
  stationIds: idList(500),
});

export const assignVotersBody = z.object({ voterIds: z.array(z.uuid()).min(1).max(5000) });

export const brigadeIdParams = z.object({ id: z.uuid() });

export const brigadeView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    leaderId: z.uuid().nullable(),
    memberIds: z.array(z.uuid()),
    stationIds: z.array(z.uuid()),
    voters: z.number().int(),
    createdAt: instant,
  })
  .meta({ id: 'Brigade' });

export const updateBrigadeBody = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    leaderId: z.uuid().nullable().optional(),
    memberIds: z.array(z.uuid()).max(200).optional(),
    stationIds: z.array(z.uuid()).max(500).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Give at least one field to change.');

export const brigadePeopleView = z
  .object({
    data: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        role: z.enum(ROLES),
        active: z.boolean().describe('false: a deactivated account a brigade still names'),
      }),
    ),
  })
  .meta({ id: 'BrigadePeople' });

export type CreateBrigadeInput = z.infer<typeof createBrigadeBody>;
export type UpdateBrigadeInput = z.infer<typeof updateBrigadeBody>;

const clientReportId = z.uuid();

const voterReport = z
  .object({
    kind: z.literal('voter'),
    clientReportId,
    voterId: z.uuid().optional(),
    documentId: documentId.optional(),
    votedAt: instant.optional(),
  })
  .refine((report) => Boolean(report.voterId) !== Boolean(report.documentId), { message: 'send voterId or documentId (one of them)', path: ['voterId'] });

const countReport = z.object({
  kind: z.literal('count'),
  clientReportId,
  pollingStationId: z.uuid(),
  votersSoFar: z.number().int().min(0).max(10_000_000),
  reportedAt: instant.optional(),
});

export const turnoutReport = z.discriminatedUnion('kind', [voterReport, countReport]);
export type TurnoutReportInput = z.infer<typeof turnoutReport>;

export const MAX_REPORTS_PER_BATCH = 500;

/** One report, or `{ reports: [...] }` with up to 500 (a phone's queue after a dead zone). Documents the route. */
export const turnoutBody = z.union([turnoutReport, z.object({ reports: z.array(turnoutReport).min(1).max(MAX_REPORTS_PER_BATCH) })]).meta({
  examples: [
    { kind: 'voter', clientReportId: '0196d6a0-3c1e-7a51-9f00-4b1c2d3e4f50', documentId: '1020304050', votedAt: '2026-03-08T10:42:00-05:00' },
    {
      reports: [
        { kind: 'count', clientReportId: '0196d6a0-3c1e-7a51-9f00-4b1c2d3e4f51', pollingStationId: '0196d69f-0000-7000-8000-000000000042', votersSoFar: 1180 },
        { kind: 'voter', clientReportId: '0196d6a0-3c1e-7a51-9f00-4b1c2d3e4f52', voterId: '0196d69f-1111-7000-8000-000000000007' },
      ],
    },
  ],
});

/** A batch item as checked on its own: a report, or why it is not one. */
export type TurnoutItemInput = { valid: true; report: TurnoutReportInput } | { valid: false; message: string };

function checkItem(item: unknown): TurnoutItemInput {
  const parsed = turnoutReport.safeParse(item);
  if (parsed.success) return { valid: true, report: parsed.data };
  return { valid: false, message: parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ') };
}

/**
 * What the route and the socket command parse: the envelope as a whole (a single report, or 1–500
 * items), then each item of a batch on its own, so that one malformed item in a phone's queue is
 * rejected by index while the rest are recorded (a whole-batch 400 would make the phone resend
 * the queue forever).
 */
const batchEnvelope = z.object({ reports: z.array(z.unknown()).min(1).max(MAX_REPORTS_PER_BATCH) }).transform((body) => body.reports.map(checkItem));
const singleEnvelope = turnoutReport.transform((report): TurnoutItemInput[] => [{ valid: true, report }]);
// Chosen by the `reports` key rather than as a union, so that a single report's errors name its fields.
export const turnoutEnvelope = z.unknown().transform((body, ctx): TurnoutItemInput[] => {
  const isBatch = typeof body === 'object' && body !== null && 'reports' in body;
  const parsed = (isBatch ? batchEnvelope : singleEnvelope).safeParse(body);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});

export const turnoutAnswer = z
  .object({
    accepted: z.number().int(),
    duplicates: z.number().int(),
    rejected: z.array(z.object({ index: z.number().int(), code: z.string(), message: z.string() })),
  })
  .meta({ id: 'TurnoutAnswer' });

const clientId = z.uuid().optional().describe('Made by the phone once per report; a resend with the same clientId answers the first record (200) and adds nothing');

export const createIncidentBody = z.object({
  pollingStationId: z.uuid(),
  type: z.enum(INCIDENT_TYPES),
  severity: z.enum(INCIDENT_SEVERITIES),
  description: z.string().trim().min(3).max(2000),
  clientId,
});

export const incidentView = z
  .object({
    id: z.uuid(),
    pollingStationId: z.uuid(),
    type: z.enum(INCIDENT_TYPES),
    severity: z.enum(INCIDENT_SEVERITIES),
    description: z.string(),
    reportedBy: z.uuid(),
    reportedByName: z
      .string()
      .nullable()
      .describe('The reporter’s name: always in the list of incidents (the war room’s detail), possibly null in the answers to a report or a photo'),
    photo: z.object({ type: z.enum(INCIDENT_PHOTO_TYPES), size: z.number().int() }).nullable(),
    createdAt: instant,
  })
  .meta({ id: 'Incident' });

export type CreateIncidentInput = z.infer<typeof createIncidentBody>;

export const incidentIdParams = z.object({ id: z.uuid() });

export const listIncidentsQuery = z.object({
  ...pageQueryShape,
  pollingStationId: z.uuid().optional(),
  since: instant.optional().describe('Only incidents reported at or after this instant'),
});
export type ListIncidentsInput = z.infer<typeof listIncidentsQuery>;

export const contactOutcomeBody = z.object({
  outcome: z.enum(CONTACT_OUTCOMES),
  note: z.string().trim().max(500).optional(),
  clientId,
});

export const claimView = z.object({ voterId: z.uuid(), claimedBy: z.uuid(), claimedUntil: instant }).meta({ id: 'VoterClaim' });

export const contactOutcomeView = z
  .object({ id: z.uuid(), voterId: z.uuid(), outcome: z.enum(CONTACT_OUTCOMES), voterStatus: z.enum(VOTER_STATUSES), createdAt: instant })
  .meta({ id: 'VoterContactOutcome' });
