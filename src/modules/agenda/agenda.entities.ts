import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { ContactSchema } from '../audience';
import { UserSchema } from '../auth';
import { TerritorySchema } from '../territories';

import { CHECK_IN_METHODS, EVENT_STATUSES, EVENT_TYPES, RSVP_STATUSES, VISIBILITIES } from './agenda.constants';

export { CHECK_IN_METHODS, EVENT_STATUSES, EVENT_TYPES, RSVP_STATUSES, VISIBILITIES };
export type { CheckInMethod, EventStatus, EventType, RsvpStatus, Visibility } from './agenda.constants';
export const REMINDER_KINDS = ['day_before', 'two_hours'] as const;
export type ReminderKind = (typeof REMINDER_KINDS)[number];

/** An event the campaign holds: a rally, a training, a door-to-door day. Never deleted: cancelled instead, so RSVPs and check-ins keep their meaning. */
export const AgendaEventSchema = defineEntity({
  name: 'AgendaEvent',
  tableName: 'agenda_events',
  indexes: [{ properties: ['startsAt', 'id'] }, { properties: ['status', 'startsAt'] }, { properties: ['territory'] }],
  checks: [
    { name: 'agenda_events_span_check', expression: 'ends_at > starts_at' },
    { name: 'agenda_events_capacity_check', expression: 'capacity is null or capacity > 0' },
    { name: 'agenda_events_budget_check', expression: 'budget is null or budget >= 0' },
    { name: 'agenda_events_place_check', expression: '(latitude is null) = (longitude is null)' },
    { name: 'agenda_events_latitude_check', expression: 'latitude is null or abs(latitude)::numeric <= 90' },
    { name: 'agenda_events_longitude_check', expression: 'longitude is null or abs(longitude)::numeric <= 180' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    title: p.string().length(200),
    type: p.enum([...EVENT_TYPES]),
    description: p.text().nullable(),
    startsAt: p.datetime(),
    endsAt: p.datetime(),
    /** IANA zone the event's wall-clock times are shown in (the campaign's by default). */
    timeZone: p.string().length(64),
    address: p.string().length(300).nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    latitude: p.double().nullable(),
    longitude: p.double().nullable(),
    /** People who may say `going`; null is unlimited. */
    capacity: p.integer().nullable(),
    visibility: p.enum([...VISIBILITIES]),
    status: p.enum([...EVENT_STATUSES]),
    organiser: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    /** Planned spend in whole pesos. */
    budget: p.bigint('number').nullable(),
    cancelledAt: p.datetime().nullable(),
    cancellationReason: p.string().length(500).nullable(),
    createdBy: () => p.manyToOne(UserSchema).deleteRule('restrict'),
    ...timestamps,
  }),
});
export type AgendaEvent = InferEntity<typeof AgendaEventSchema>;

/** A block of work within an event (door, sound, registration) with how many people it needs. */
export const AgendaShiftSchema = defineEntity({
  name: 'AgendaShift',
  tableName: 'agenda_shifts',
  indexes: [{ properties: ['event', 'startsAt'] }],
  checks: [
    { name: 'agenda_shifts_span_check', expression: 'ends_at > starts_at' },
    { name: 'agenda_shifts_slots_check', expression: 'slots > 0' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    event: () => p.manyToOne(AgendaEventSchema).deleteRule('restrict'),
    role: p.string().length(120),
    startsAt: p.datetime(),
    endsAt: p.datetime(),
    slots: p.integer(),
    ...createdAtStamp,
  }),
});

/** One person's answer to one event; the reminder columns record which reminders were queued for it. */
export const AgendaRsvpSchema = defineEntity({
  name: 'AgendaRsvp',
  tableName: 'agenda_rsvps',
  uniques: [{ properties: ['event', 'contact'], name: 'agenda_rsvps_event_contact_unique' }],
  indexes: [{ properties: ['event', 'status', 'waitlistedAt'] }, { properties: ['contact'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    event: () => p.manyToOne(AgendaEventSchema).deleteRule('restrict'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('restrict'),
    status: p.enum([...RSVP_STATUSES]),
    /** When a `going` joined the waitlist: the queue's order. */
    waitlistedAt: p.datetime().nullable(),
    respondedAt: p.datetime(),
    recordedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    dayReminderAt: p.datetime().nullable(),
    hoursReminderAt: p.datetime().nullable(),
    ...createdAtStamp,
  }),
});

/** A person signed up to work a shift. */
export const AgendaShiftSignupSchema = defineEntity({
  name: 'AgendaShiftSignup',
  tableName: 'agenda_shift_signups',
  uniques: [{ properties: ['shift', 'contact'], name: 'agenda_shift_signups_shift_contact_unique' }],
  indexes: [{ properties: ['event'] }, { properties: ['contact'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    shift: () => p.manyToOne(AgendaShiftSchema).deleteRule('cascade'),
    event: () => p.manyToOne(AgendaEventSchema).deleteRule('restrict'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('restrict'),
    recordedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
  }),
});

/** Someone was there: once per event and person, whatever the method. */
export const AgendaCheckInSchema = defineEntity({
  name: 'AgendaCheckIn',
  tableName: 'agenda_check_ins',
  uniques: [{ properties: ['event', 'contact'], name: 'agenda_check_ins_event_contact_unique' }],
  indexes: [{ properties: ['checkedInAt', 'id'] }, { properties: ['contact'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    event: () => p.manyToOne(AgendaEventSchema).deleteRule('restrict'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('restrict'),
    shift: () => p.manyToOne(AgendaShiftSchema).nullable().deleteRule('set null'),
    method: p.enum([...CHECK_IN_METHODS]),
    checkedInAt: p.datetime(),
    recordedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
  }),
});

/** A logistics to-do for an event. */
export const AgendaTaskSchema = defineEntity({
  name: 'AgendaTask',
  tableName: 'agenda_tasks',
  indexes: [{ properties: ['event', 'dueAt'] }, { properties: ['assignee'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    event: () => p.manyToOne(AgendaEventSchema).deleteRule('restrict'),
    title: p.string().length(200),
    notes: p.text().nullable(),
    assignee: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    dueAt: p.datetime().nullable(),
    doneAt: p.datetime().nullable(),
    ...timestamps,
  }),
});

/** Something the campaign owns and lends to events: sound equipment, vehicles, t-shirts, posters. */
export const AgendaResourceSchema = defineEntity({
  name: 'AgendaResource',
  tableName: 'agenda_resources',
  uniques: [{ name: 'agenda_resources_name_unique', expression: 'create unique index agenda_resources_name_unique on agenda_resources (lower(name))' }],
  checks: [{ name: 'agenda_resources_quantity_check', expression: 'quantity >= 0' }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    category: p.string().length(60).nullable(),
    quantity: p.integer(),
    unit: p.string().length(30).nullable(),
    notes: p.text().nullable(),
    active: p.boolean().default(true),
    ...timestamps,
  }),
});

/** A quantity of a resource held for an event over a span; overlapping allocations never add up to more than the resource has. */
export const AgendaAllocationSchema = defineEntity({
  name: 'AgendaAllocation',
  tableName: 'agenda_allocations',
  indexes: [{ properties: ['resource', 'startsAt'] }, { properties: ['event'] }],
  checks: [
    { name: 'agenda_allocations_quantity_check', expression: 'quantity > 0' },
    { name: 'agenda_allocations_span_check', expression: 'ends_at > starts_at' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    resource: () => p.manyToOne(AgendaResourceSchema).deleteRule('restrict'),
    event: () => p.manyToOne(AgendaEventSchema).deleteRule('restrict'),
    quantity: p.integer(),
    startsAt: p.datetime(),
    endsAt: p.datetime(),
    notes: p.string().length(500).nullable(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
  }),
});

/** A user's secret calendar-feed address, kept as its SHA-256 (the secret itself is shown once). */
export const AgendaFeedTokenSchema = defineEntity({
  name: 'AgendaFeedToken',
  tableName: 'agenda_feed_tokens',
  properties: (p) => ({
    user: () => p.manyToOne(UserSchema).primary().deleteRule('cascade'),
    tokenHash: p.string().length(64).unique(),
    /** The user's token version when it was made: signing out everywhere or a new password bumps it, which ends the address too. */
    tokenVersion: p.integer(),
    ...createdAtStamp,
  }),
});

/** Which contact a user account is (a volunteer's login): how a volunteer RSVPs for themself. */
export const AgendaUserContactSchema = defineEntity({
  name: 'AgendaUserContact',
  tableName: 'agenda_user_contacts',
  properties: (p) => ({
    user: () => p.manyToOne(UserSchema).primary().deleteRule('cascade'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    updatedAt: p.datetime().onCreate(() => new Date()),
  }),
});

/** The module's settings, one row: which WhatsApp template reminders and cancellations use. */
export const AgendaSettingsSchema = defineEntity({
  name: 'AgendaSettings',
  tableName: 'agenda_settings',
  checks: [{ name: 'agenda_settings_singleton_check', expression: 'id = 1' }],
  properties: (p) => ({
    id: p.smallint().primary().autoincrement(false),
    reminderTemplate: p.string().length(512).nullable(),
    cancellationTemplate: p.string().length(512).nullable(),
    templateLanguage: p.string().length(15),
    remindersEnabled: p.boolean().default(true),
    updatedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    updatedAt: p.datetime().onCreate(() => new Date()),
  }),
});

export const agendaEntities = [
  AgendaEventSchema,
  AgendaShiftSchema,
  AgendaRsvpSchema,
  AgendaShiftSignupSchema,
  AgendaCheckInSchema,
  AgendaTaskSchema,
  AgendaResourceSchema,
  AgendaAllocationSchema,
  AgendaFeedTokenSchema,
  AgendaUserContactSchema,
  AgendaSettingsSchema,
];
