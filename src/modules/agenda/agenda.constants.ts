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
