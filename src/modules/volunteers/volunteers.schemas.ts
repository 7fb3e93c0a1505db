import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { ACTIVITY_SOURCES, ACTIVITY_TYPES, ACTIVITY_UNITS, SKILL_CATALOGUE, TIME_SLOTS, VOLUNTEER_STATUSES, WEEKDAYS } from './volunteers.values';

export const idParams = z.object({ id: z.uuid() });

/** Cédula as people type it (dots, spaces) → digits. */
const documentId = z
  .string()
  .trim()
  .transform((value) => value.replace(/[.\s-]/g, ''))
  .pipe(z.string().regex(/^\d{5,12}$/, 'a cédula has 5 to 12 digits'));

const SKILL_PATTERN = /^[\p{L}\p{N} _-]+$/u;

/** A catalogue skill or a free one: lower case, short. */
const skill = z
  .string()
  .trim()
  .toLowerCase()
  .min(2)
  .max(40)
  .regex(SKILL_PATTERN, 'letters, digits, spaces, _ and - only')
  // The generator writes a regex's flags into the pattern; JSON Schema patterns are Unicode already.
  .meta({ pattern: SKILL_PATTERN.source });

const availability = z
  .partialRecord(z.enum(WEEKDAYS), z.array(z.enum(TIME_SLOTS)).max(TIME_SLOTS.length))
  .describe('Weekday → time slots, e.g. { "sat": ["morning"], "wed": ["evening"] }');

/** The largest goal a volunteer may carry: far above a real leader's, low enough to catch a typo. */
export const GOAL_MAX = 1_000_000;
const goal = z.number().int().min(0).max(GOAL_MAX);
const goals = z.object({ promisedVotes: goal.optional(), leads: goal.optional(), posters: goal.optional() }).strict();

const volunteerFields = {
  territoryId: z.uuid().nullable().optional(),
  skills: z.array(skill).max(30).optional(),
  availability: availability.optional(),
  status: z.enum(VOLUNTEER_STATUSES).optional(),
  leaderId: z.uuid().nullable().optional().describe('Another volunteer: their leader in the pyramid'),
  goals: goals.optional(),
  userId: z.uuid().nullable().optional().describe('A user account with role volunteer or brigade, through which they log their own work'),
  locationConsent: z.boolean().optional().describe('The person agreed (to the text in docs/volunteers.md) that GPS points of their activities are kept'),
  joinedOn: calendarDate.optional().describe('Local day; today when absent'),
};

export const createVolunteerBody = z
  .object({
    contactId: z.uuid().optional().describe('Promote an existing contact (a QR lead) without retyping'),
    name: z.string().trim().min(2).max(160).optional(),
    phone: z.string().trim().min(5).max(30).optional(),
    email: z.email().max(254).toLowerCase().optional(),
    documentId: documentId.optional(),
    whatsappOptIn: z.boolean().optional().describe('The person agreed to WhatsApp messages (recorded as consent with the staff member as source)'),
    emailOptIn: z.boolean().optional(),
    ...volunteerFields,
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.contactId) {
      for (const field of ['name', 'phone', 'email', 'documentId'] as const) {
        if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'send either contactId or the person’s details, not both' });
      }
      // A known contact's channels are already the audience's record of what they agreed to.
      for (const field of ['whatsappOptIn', 'emailOptIn'] as const) {
        if (body[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'a contact’s channel consent is recorded where they gave it, not when promoting them' });
      }
      return;
    }
    if (!body.name) ctx.addIssue({ code: 'custom', path: ['name'], message: 'a name is required (or a contactId)' });
    if (!body.phone && !body.email) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'a phone or an email is required' });
  });
export type CreateVolunteerInput = z.infer<typeof createVolunteerBody>;

export const updateVolunteerBody = z
  .object(volunteerFields)
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type UpdateVolunteerInput = z.infer<typeof updateVolunteerBody>;

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listVolunteersQuery = z.object({
  ...pageQueryShape,
  status: z.enum(VOLUNTEER_STATUSES).optional(),
  territoryId: z.uuid().optional().describe('The territory and every territory inside it'),
  skill: skill.optional(),
  leaderId: z.uuid().optional().describe('Direct members of this leader'),
  active: booleanQuery.optional().describe('Active: at least one activity in the window (VOLUNTEER_ACTIVE_DAYS)'),
  q: z.string().trim().min(1).max(100).optional().describe('Text in the name or email, or digits of the phone'),
  format: z.enum(['json', 'csv']).default('json'),
});
export type ListVolunteersInput = z.infer<typeof listVolunteersQuery>;

export const volunteerView = z
  .object({
    id: z.uuid(),
    contactId: z.uuid(),
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    documentId: z.string().nullable(),
    userId: z.uuid().nullable(),
    territoryId: z.uuid().nullable(),
    skills: z.array(z.string()),
    availability: z.record(z.string(), z.array(z.string())),
    status: z.enum(VOLUNTEER_STATUSES),
    leaderId: z.uuid().nullable(),
    goals: z.object({ promisedVotes: z.number().int(), leads: z.number().int(), posters: z.number().int() }),
    joinedOn: calendarDate,
    source: z.string(),
    locationConsent: z.object({ at: instant, textId: z.uuid() }).nullable(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'Volunteer' });

export const volunteerRowView = volunteerView
  .extend({
    active: z.boolean().describe('At least one activity in the active window'),
    activityCount: z.number().int().describe('Activities in the active window'),
    lastActivityAt: instant.nullable().describe('Latest activity in the active window'),
    reliability: z
      .object({ committed: z.number().int(), attended: z.number().int(), noShow: z.number().int(), score: z.number().nullable() })
      .describe('Agenda events that ended: committed to (going or a shift), attended (checked in), no-shows; score = attended ÷ committed, null without commitments'),
  })
  .meta({ id: 'VolunteerRow' });

export const volunteerPageView = z.object({
  data: z.array(volunteerRowView),
  nextCursor: z.string().nullable(),
  window: z.object({ days: z.number().int(), from: instant, to: instant }),
});

// ───────────── activities

/** Phones' clocks drift: an activity up to two minutes ahead of ours is taken as now. */
export const CLOCK_SKEW_MS = 2 * 60_000;
/** How far back an activity may be logged. */
export const BACKDATE_DAYS = 366;
export const MAX_ACTIVITIES_PER_BATCH = 500;

/** The most one activity may count of each unit: a day of very hard work, never a typo's 100,000 doors. */
export const QUANTITY_MAX: Record<(typeof ACTIVITY_UNITS)[number], number> = {
  doors: 1000,
  calls: 1000,
  posters: 2000,
  voters_registered: 1000,
  messages: 5000,
  people: 20000,
  turnout_reports: 5000,
  other: 10000,
};

export const activityBody = z
  .object({
    clientId: z.uuid().optional().describe('Made by the phone: a resent activity with the same clientId is recorded once'),
    volunteerId: z.uuid(),
    type: z.enum(ACTIVITY_TYPES),
    occurredAt: instant,
    durationMinutes: z.number().int().min(1).max(1440).optional(),
    quantity: z.number().int().min(0).optional(),
    unit: z.enum(ACTIVITY_UNITS).optional(),
    territoryId: z.uuid().optional(),
    notes: z.string().trim().min(1).max(1000).optional(),
    lat: z.number().min(-90, 'latitude is between -90 and 90').max(90, 'latitude is between -90 and 90').optional(),
    lng: z.number().min(-180, 'longitude is between -180 and 180').max(180, 'longitude is between -180 and 180').optional(),
    eventId: z.uuid().optional(),
    posterCode: z.string().trim().min(1).max(40).optional(),
  })
  .strict()
  .superRefine((item, ctx) => {
    if ((item.lat === undefined) !== (item.lng === undefined)) ctx.addIssue({ code: 'custom', path: ['lat'], message: 'send lat and lng together' });
    if (item.quantity !== undefined && !item.unit) ctx.addIssue({ code: 'custom', path: ['unit'], message: 'a quantity needs its unit' });
    if (item.quantity !== undefined && item.unit && item.quantity > QUANTITY_MAX[item.unit]) {
      ctx.addIssue({ code: 'custom', path: ['quantity'], message: `${item.quantity} ${item.unit} in one activity is not plausible (at most ${QUANTITY_MAX[item.unit]})` });
    }
    const at = Date.parse(item.occurredAt);
    if (at > Date.now() + CLOCK_SKEW_MS) ctx.addIssue({ code: 'custom', path: ['occurredAt'], message: 'is in the future' });
    if (at < Date.now() - BACKDATE_DAYS * 86_400_000) ctx.addIssue({ code: 'custom', path: ['occurredAt'], message: `is more than ${BACKDATE_DAYS} days ago` });
  });
export type ActivityInput = z.infer<typeof activityBody>;

/** One activity is a batch of one; a phone's queue after a dead zone is up to 500. */
export const activitiesBody = z
  .object({ activities: z.array(activityBody).min(1).max(MAX_ACTIVITIES_PER_BATCH) })
  .strict()
  .superRefine((body, ctx) => {
    const seen = new Map<string, number>();
    body.activities.forEach((activity, index) => {
      if (!activity.clientId) return;
      const earlier = seen.get(activity.clientId);
      if (earlier !== undefined) ctx.addIssue({ code: 'custom', path: ['activities', index, 'clientId'], message: `repeats item ${earlier}'s clientId` });
      else seen.set(activity.clientId, index);
    });
  });
export type ActivitiesInput = z.infer<typeof activitiesBody>;

export const activityResult = z.object({
  index: z.number().int(),
  clientId: z.uuid().nullable(),
  id: z.uuid(),
  status: z.enum(['created', 'duplicate']),
  locationStored: z.boolean().describe('False when a GPS point was sent but the volunteer has not consented to its keeping'),
});

export const activitiesAnswer = z.object({ created: z.number().int(), duplicates: z.number().int(), results: z.array(activityResult) }).meta({ id: 'VolunteerActivitiesAnswer' });

const range = {
  from: instant.optional().describe('occurred at or after'),
  to: instant.optional().describe('occurred at or before'),
};
const rangeInOrder = (query: { from?: string | undefined; to?: string | undefined }) => !query.from || !query.to || Date.parse(query.from) <= Date.parse(query.to);
const rangeProblem = { message: '`to` must not be before `from`', path: ['to'] };

export const listActivitiesQuery = z
  .object({
    ...pageQueryShape,
    volunteerId: z.uuid().optional(),
    type: z.enum(ACTIVITY_TYPES).optional(),
    territoryId: z.uuid().optional().describe('The territory and every territory inside it'),
    ...range,
  })
  .refine(rangeInOrder, rangeProblem);
export type ListActivitiesInput = z.infer<typeof listActivitiesQuery>;

export const activityView = z
  .object({
    id: z.uuid(),
    clientId: z.uuid().nullable(),
    source: z.enum(ACTIVITY_SOURCES),
    volunteerId: z.uuid(),
    type: z.enum(ACTIVITY_TYPES),
    occurredAt: instant,
    durationMinutes: z.number().int().nullable(),
    quantity: z.number().int().nullable(),
    unit: z.enum(ACTIVITY_UNITS).nullable(),
    territoryId: z.uuid().nullable(),
    notes: z.string().nullable(),
    location: z.object({ lat: z.number(), lng: z.number() }).nullable(),
    eventId: z.uuid().nullable(),
    posterCode: z.string().nullable(),
    recordedById: z.uuid().nullable(),
    createdAt: instant,
  })
  .meta({ id: 'VolunteerActivity' });

export const activityPageView = z.object({
  data: z.array(activityView),
  nextCursor: z.string().nullable(),
  totals: z.record(z.string(), z.object({ count: z.number().int(), quantity: z.number().int() })).describe('By type, of every matching activity'),
});

// ───────────── pyramid and leaderboard

export const pyramidQuery = z.object({
  rootId: z.uuid().optional().describe('Only this volunteer and the people under them'),
});

export const pyramidNodeView = z.object({
  id: z.uuid(),
  name: z.string(),
  leaderId: z.uuid().nullable(),
  level: z.number().int().describe('0 for a volunteer without a leader'),
  status: z.enum(VOLUNTEER_STATUSES),
  active: z.boolean(),
  direct: z.number().int().describe('People whose leader they are'),
  people: z.number().int().describe('Everyone under them, at any depth'),
  activePeople: z.number().int(),
  activeShare: z.number().nullable().describe('activePeople ÷ people'),
  promisedVotes: z.number().int().describe('Their own goal'),
  teamPromisedVotes: z.number().int().describe('The goals of everyone under them'),
  estimatedVotes: z.number().int().describe('Confirmed GOTV voters linked to them or anyone under them'),
  voted: z.number().int().describe('Of those, how many voted (election day)'),
  goalProgress: z.number().nullable().describe('estimatedVotes ÷ promisedVotes'),
  pace: z.number().nullable().describe('estimatedVotes ÷ what a steady pace from their joining day to the election day would have reached by now; ≥ 1 is on track'),
});

export const pyramidView = z.object({
  at: instant,
  electionDate: calendarDate.nullable(),
  window: z.object({ days: z.number().int(), from: instant, to: instant }),
  nodes: z.array(pyramidNodeView),
});

export const leaderboardQuery = z
  .object({
    metric: z.enum(['points', 'quantity']).default('points'),
    groupBy: z.enum(['volunteer', 'territory']).default('volunteer'),
    territoryId: z.uuid().optional().describe('Activities in this territory or inside it'),
    type: z.enum(ACTIVITY_TYPES).optional(),
    ...range,
    limit: z.coerce.number().int().min(1).max(200).default(20),
  })
  .refine(rangeInOrder, rangeProblem);
export type LeaderboardInput = z.infer<typeof leaderboardQuery>;

export const leaderboardView = z.object({
  metric: z.enum(['points', 'quantity']),
  groupBy: z.enum(['volunteer', 'territory']),
  from: instant,
  to: instant,
  data: z.array(
    z.object({
      rank: z.number().int(),
      id: z.uuid().nullable().describe('The volunteer, or the territory (null: activities without one)'),
      name: z.string().nullable(),
      activities: z.number().int(),
      quantity: z.number().int(),
      points: z.number(),
    }),
  ),
});

// ───────────── voters ("votos amarrados")

export const votersBody = z
  .object({
    voterIds: z.array(z.uuid()).max(5000).optional(),
    documentIds: z.array(documentId).max(5000).optional(),
  })
  .strict()
  .refine((body) => body.voterIds !== undefined || body.documentIds !== undefined, 'Send voterIds or documentIds.');
export type VotersInput = z.infer<typeof votersBody>;

export const votersView = z.object({
  volunteerId: z.uuid(),
  voters: z.array(z.object({ voterId: z.uuid(), status: z.string(), votedAt: instant.nullable(), linkedAt: instant })),
  total: z.number().int(),
  voted: z.number().int(),
});

export { SKILL_CATALOGUE };
