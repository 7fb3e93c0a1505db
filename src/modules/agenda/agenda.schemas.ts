import { z } from 'zod';
import { calendarDateOrInstant, instant, roleSchema } from '../../kernel/schemas';
import { pageQueryShape, pageSchema } from '../../kernel/page-schemas';
import { CHECK_IN_METHODS, EVENT_STATUSES, EVENT_TYPES, RSVP_STATUSES, VISIBILITIES } from './agenda.constants';

/** An instant with its offset, as the service's `Date`. */
const at = instant.transform((value) => new Date(value));
/** A bound of a list's range: an instant, or a day (midnight in the campaign's time zone). */
const rangeBound = calendarDateOrInstant;

export const timeZone = z
  .string()
  .max(64)
  .refine((value) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  }, 'expected an IANA time zone such as America/Bogota');

const place = z.object({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});

const eventFields = {
  title: z.string().trim().min(1).max(200),
  type: z.enum(EVENT_TYPES),
  description: z.string().trim().max(10_000).nullable().optional(),
  startsAt: at,
  endsAt: at,
  timeZone: timeZone.optional().describe('IANA zone the event is shown in; the campaign’s TIMEZONE by default'),
  address: z.string().trim().min(1).max(300).nullable().optional(),
  territoryId: z.uuid().nullable().optional(),
  location: place.nullable().optional().describe('The venue on the map'),
  capacity: z.number().int().positive('capacity must be at least 1 (leave it out for no limit)').max(1_000_000).nullable().optional(),
  visibility: z.enum(VISIBILITIES).optional().describe('`internal` (default: the team only) or `public` (in the public calendar feed)'),
  organiserId: z.uuid().nullable().optional().describe('The user who runs it; they may edit it'),
  budget: z.number().int().min(0).max(10_000_000_000_000).nullable().optional().describe('Planned spend in whole pesos'),
};

const endAfterStart = (body: { startsAt?: Date | undefined; endsAt?: Date | undefined }) => !body.startsAt || !body.endsAt || body.endsAt > body.startsAt;
const endAfterStartIssue = { message: 'endsAt must be after startsAt', path: ['endsAt'] };

export const createEventBody = z
  .object({ ...eventFields, status: z.enum(['draft', 'scheduled']).optional().describe('`scheduled` (default) or `draft` (only staff see it)') })
  .refine(endAfterStart, endAfterStartIssue);
export type CreateEventInput = z.infer<typeof createEventBody>;

export const updateEventBody = z
  .object({
    title: eventFields.title.optional(),
    type: eventFields.type.optional(),
    description: eventFields.description,
    startsAt: at.optional(),
    endsAt: at.optional(),
    timeZone: eventFields.timeZone,
    address: eventFields.address,
    territoryId: eventFields.territoryId,
    location: eventFields.location,
    capacity: eventFields.capacity,
    visibility: eventFields.visibility,
    organiserId: eventFields.organiserId,
    budget: eventFields.budget,
    status: z.enum(EVENT_STATUSES).optional().describe('`cancelled` notifies everyone going; a cancelled event stays cancelled'),
    cancellationReason: z.string().trim().min(1).max(500).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.')
  .refine(endAfterStart, endAfterStartIssue);
export type UpdateEventInput = z.infer<typeof updateEventBody>;

export const idParams = z.object({ id: z.uuid() });
export const shiftParams = z.object({ id: z.uuid(), shiftId: z.uuid() });
export const signupParams = z.object({ id: z.uuid(), shiftId: z.uuid(), contactId: z.uuid() });
export const contactParams = z.object({ id: z.uuid(), contactId: z.uuid() });
export const taskParams = z.object({ id: z.uuid(), taskId: z.uuid() });
export const allocationParams = z.object({ id: z.uuid(), allocationId: z.uuid() });
export const userParams = z.object({ userId: z.uuid() });

export const listEventsQuery = z.object({
  ...pageQueryShape,
  from: rangeBound.optional(),
  to: rangeBound.optional(),
  territoryId: z.uuid().optional().describe('Events in this territory or any inside it'),
  type: z.enum(EVENT_TYPES).optional(),
  status: z.enum(EVENT_STATUSES).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  upcoming: z.stringbool().optional().describe('Scheduled events that have not ended'),
});
export type ListEventsInput = z.infer<typeof listEventsQuery>;

const countsView = z.object({ going: z.number().int(), maybe: z.number().int(), declined: z.number().int(), waitlisted: z.number().int(), checkedIn: z.number().int() });

export const eventView = z.object({
  id: z.uuid(),
  title: z.string(),
  type: z.enum(EVENT_TYPES),
  description: z.string().nullable(),
  startsAt: z.string().describe('UTC'),
  endsAt: z.string().describe('UTC'),
  timeZone: z.string(),
  local: z.object({ startsAt: z.string(), endsAt: z.string() }).describe('The same instants as wall-clock times of the event’s zone, with its offset'),
  address: z.string().nullable(),
  territoryId: z.uuid().nullable(),
  location: place.nullable(),
  capacity: z.number().int().nullable(),
  visibility: z.enum(VISIBILITIES),
  status: z.enum(EVENT_STATUSES),
  organiserId: z.uuid().nullable(),
  budget: z.number().int().nullable().describe('Planned spend in pesos; shown to managers, treasurers and the organiser (null for others)'),
  cancelledAt: z.string().nullable(),
  cancellationReason: z.string().nullable(),
  counts: countsView,
  createdById: z.uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const eventPageView = z.object({ data: z.array(eventView), nextCursor: z.string().nullable() });

// ───────────── RSVPs

export const rsvpBody = z.object({
  contactId: z.uuid().optional().describe('Whose answer; volunteers and brigade members leave it out (their own contact)'),
  status: z.enum(['going', 'maybe', 'declined']),
});
export type RsvpInput = z.infer<typeof rsvpBody>;

export const rsvpView = z.object({
  eventId: z.uuid(),
  contactId: z.uuid(),
  status: z.enum(RSVP_STATUSES),
  waitlistPosition: z.number().int().nullable().describe('1 for the first on the waitlist'),
  respondedAt: z.string(),
});
export const rsvpResultView = rsvpView.extend({
  promoted: z.array(z.uuid()).describe('Contacts moved from the waitlist to going by this answer'),
  counts: countsView,
});
export const rsvpListQuery = z.object({ status: z.enum(RSVP_STATUSES).optional() });
export const rsvpListView = z.object({ data: z.array(rsvpView) });

/** The door's list: everyone who answered or was checked in, by name; `q` finds a name (accents and case ignored) or a scanned contact id. */
export const attendeesQuery = z.object({
  ...pageQueryShape,
  q: z.string().trim().max(100).optional().describe('Words of a name (accents and case ignored), or a contact id as a scanned code gives it'),
  status: z.enum(RSVP_STATUSES).optional(),
  checkedIn: z.stringbool().optional().describe('Only those checked in (true) or not yet (false)'),
});
export type AttendeesInput = z.infer<typeof attendeesQuery>;
export const attendeeView = z.object({
  contactId: z.uuid(),
  name: z.string(),
  status: z.enum(RSVP_STATUSES).nullable().describe('Their answer; null for someone checked in without one (a walk-in)'),
  waitlistPosition: z.number().int().nullable().describe('1 for the first on the waitlist'),
  respondedAt: z.string().nullable(),
  checkedInAt: z.string().nullable(),
  checkInMethod: z.enum(CHECK_IN_METHODS).nullable(),
});
export const attendeePageView = pageSchema(attendeeView);

// ───────────── shifts

const shiftFields = {
  role: z.string().trim().min(1).max(120),
  startsAt: at,
  endsAt: at,
  slots: z.number().int().positive('slots must be at least 1').max(10_000),
};
export const createShiftBody = z.object(shiftFields).refine(endAfterStart, endAfterStartIssue);
export const updateShiftBody = z
  .object({ role: shiftFields.role.optional(), startsAt: at.optional(), endsAt: at.optional(), slots: shiftFields.slots.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.')
  .refine(endAfterStart, endAfterStartIssue);
export type CreateShiftInput = z.infer<typeof createShiftBody>;
export type UpdateShiftInput = z.infer<typeof updateShiftBody>;

export const shiftView = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  role: z.string(),
  startsAt: z.string(),
  endsAt: z.string(),
  slots: z.number().int(),
  taken: z.number().int(),
  contactIds: z.array(z.uuid()),
});
export const shiftListView = z.object({ data: z.array(shiftView) });
export const signupBody = z.object({ contactId: z.uuid().optional().describe('Who; volunteers and brigade members leave it out (their own contact)') });

// ───────────── check-in

/** Someone new at the door (`checkIn`'s `walkIn`): the console's walk-in form validates with it. */
export const walkInBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    phone: z.string().trim().min(5).max(30).optional(),
    email: z.email().max(254).optional(),
    whatsappOptIn: z.boolean().default(false),
    emailOptIn: z.boolean().default(false),
    consentText: z.string().trim().min(20).max(5000).describe('The data-processing authorisation the person accepted, word for word (kept as proof)'),
    privacyPolicyUrl: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .optional(),
  })
  .refine((person) => person.phone || person.email, { message: 'a walk-in needs a phone or an email', path: ['phone'] });

export const checkInBody = z
  .object({
    contactId: z.uuid().optional().describe('Someone already known (scanned or picked from the list)'),
    walkIn: walkInBody.optional().describe('Someone new at the door, with their consent'),
    method: z.enum(['scan', 'mark']).optional().describe('How a known person was checked in (`mark` by default); walk-ins are `walk_in`'),
    shiftId: z.uuid().optional().describe('The shift they came to work'),
  })
  .refine((body) => Boolean(body.contactId) !== Boolean(body.walkIn), { message: 'send either contactId or walkIn', path: ['contactId'] });
export type CheckInInput = z.infer<typeof checkInBody>;

export const checkInView = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  contactId: z.uuid(),
  shiftId: z.uuid().nullable(),
  method: z.enum(CHECK_IN_METHODS),
  checkedInAt: z.string(),
  created: z.boolean().describe('false when they had been checked in already (the first check-in stands)'),
  counts: countsView,
});
export const checkInListView = z.object({
  data: z.array(z.object({ id: z.uuid(), contactId: z.uuid(), shiftId: z.uuid().nullable(), method: z.enum(CHECK_IN_METHODS), checkedInAt: z.string() })),
});

// ───────────── organisers

export const organisersQuery = z.object({
  ...pageQueryShape,
  q: z.string().trim().min(1).max(100).optional().describe('In the name or the email, any case'),
});
export const organiserView = z.object({ id: z.uuid(), name: z.string(), role: roleSchema }).describe('An active account whose role may run an event');
export const organiserPageView = pageSchema(organiserView);

// ───────────── accounts

export const userContactBody = z.object({ contactId: z.uuid().nullable() });
export const userContactView = z.object({ userId: z.uuid(), contactId: z.uuid().nullable() });

// ───────────── logistics

const resourceFields = {
  name: z.string().trim().min(1).max(160),
  category: z.string().trim().min(1).max(60).nullable().optional().describe('e.g. sonido, vehículos, camisetas, afiches'),
  quantity: z.number().int().min(0).max(10_000_000),
  unit: z.string().trim().min(1).max(30).nullable().optional(),
  notes: z.string().trim().max(5000).nullable().optional(),
  active: z.boolean().optional(),
};
export const createResourceBody = z.object(resourceFields);
export const updateResourceBody = z
  .object({ ...resourceFields, name: resourceFields.name.optional(), quantity: resourceFields.quantity.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type CreateResourceInput = z.infer<typeof createResourceBody>;
export type UpdateResourceInput = z.infer<typeof updateResourceBody>;
export const resourceParams = z.object({ resourceId: z.uuid() });
export const listResourcesQuery = z
  .object({
    active: z.stringbool().optional(),
    category: z.string().max(60).optional(),
    from: instant.optional().describe('Start of the window `allocated` is measured in (now by default)'),
    to: instant.optional().describe('End of that window (from + 30 days by default)'),
  })
  .refine((query) => !query.from || !query.to || Date.parse(query.to) > Date.parse(query.from), { message: 'to must be after from', path: ['to'] });

export const resourceView = z.object({
  id: z.uuid(),
  name: z.string(),
  category: z.string().nullable(),
  quantity: z.number().int(),
  unit: z.string().nullable(),
  notes: z.string().nullable(),
  active: z.boolean(),
  allocated: z.number().int().describe('The most units held at one moment of the window'),
  available: z.number().int().describe('quantity − allocated'),
});
export const resourceListView = z.object({ data: z.array(resourceView), window: z.object({ from: z.string(), to: z.string() }) });

export const allocationBody = z
  .object({
    resourceId: z.uuid(),
    quantity: z.number().int().positive('quantity must be at least 1').max(10_000_000),
    startsAt: at.optional().describe('From when it is held (the event’s start by default: set it earlier for set-up)'),
    endsAt: at.optional().describe('Until when (the event’s end by default)'),
    notes: z.string().trim().max(500).nullable().optional(),
  })
  .refine(endAfterStart, endAfterStartIssue);
export type AllocationInput = z.infer<typeof allocationBody>;
export const allocationView = z.object({
  id: z.uuid(),
  resourceId: z.uuid(),
  resourceName: z.string(),
  unit: z.string().nullable(),
  eventId: z.uuid(),
  quantity: z.number().int(),
  startsAt: z.string(),
  endsAt: z.string(),
  notes: z.string().nullable(),
  createdById: z.uuid().nullable(),
});
export const allocationListView = z.object({ data: z.array(allocationView) });

export const createTaskBody = z.object({
  title: z.string().trim().min(1).max(200),
  notes: z.string().trim().max(5000).nullable().optional(),
  assigneeId: z.uuid().nullable().optional().describe('The user who does it'),
  dueAt: at.nullable().optional(),
});
export const updateTaskBody = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    notes: z.string().trim().max(5000).nullable().optional(),
    assigneeId: z.uuid().nullable().optional(),
    dueAt: at.nullable().optional(),
    done: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type CreateTaskInput = z.infer<typeof createTaskBody>;
export type UpdateTaskInput = z.infer<typeof updateTaskBody>;
export const taskView = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  title: z.string(),
  notes: z.string().nullable(),
  assigneeId: z.uuid().nullable(),
  dueAt: z.string().nullable(),
  done: z.boolean(),
  doneAt: z.string().nullable(),
  createdAt: z.string(),
});
export const taskListView = z.object({ data: z.array(taskView) });

// ───────────── calendar feed

export const feedQuery = z.object({ token: z.string().min(20).max(100).optional().describe('A personal calendar address’s secret') });
export const feedTokenView = z.object({ token: z.string(), url: z.string().describe('The address to subscribe to') });

// ───────────── settings

export const settingsBody = z.object({
  reminderTemplate: z
    .string()
    .trim()
    .min(1)
    .max(512)
    .nullable()
    .describe('Approved WhatsApp template for reminders, with three placeholders: title, when, where. Null: reminders by email only'),
  cancellationTemplate: z.string().trim().min(1).max(512).nullable().describe('The same for cancellations'),
  templateLanguage: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'a template language such as es or es_CO')
    .default('es'),
  remindersEnabled: z.boolean().default(true),
});
export const settingsView = z.object({
  reminderTemplate: z.string().nullable(),
  cancellationTemplate: z.string().nullable(),
  templateLanguage: z.string(),
  remindersEnabled: z.boolean(),
  updatedAt: z.string(),
  updatedById: z.uuid().nullable(),
});
