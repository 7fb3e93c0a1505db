/**
 * The agenda's closed lists, with nothing but TypeScript: the entities and the schemas use them,
 * and so does the staff console, which bundles the schemas.
 */

export const EVENT_TYPES = ['rally', 'meeting', 'canvass', 'training', 'debate', 'door_to_door', 'other'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const VISIBILITIES = ['public', 'internal'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const EVENT_STATUSES = ['draft', 'scheduled', 'cancelled', 'done'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
/** What a person answered; `waitlisted` is what a `going` becomes when the event is full. */
export const RSVP_STATUSES = ['going', 'maybe', 'declined', 'waitlisted'] as const;
export type RsvpStatus = (typeof RSVP_STATUSES)[number];
export const CHECK_IN_METHODS = ['scan', 'mark', 'walk_in'] as const;
export type CheckInMethod = (typeof CHECK_IN_METHODS)[number];
/** How long before its start an event takes check-ins, and how long after its end (late marking from a paper list). */
export const CHECK_IN_OPENS_BEFORE_MS = 6 * 3_600_000;
export const CHECK_IN_CLOSES_AFTER_MS = 24 * 3_600_000;
