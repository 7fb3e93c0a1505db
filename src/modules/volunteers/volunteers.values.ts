/**
 * The volunteers module's fixed values, in a file of their own that imports nothing: the schemas
 * (and through them the console's forms) use them without the entities' ORM.
 */

export const VOLUNTEER_STATUSES = ['prospect', 'active', 'inactive'] as const;
export type VolunteerStatus = (typeof VOLUNTEER_STATUSES)[number];

/** The skills a campaign asks for most; volunteers may add free ones besides. */
export const SKILL_CATALOGUE = ['canvassing', 'phone_bank', 'driving', 'logistics', 'social_media', 'design', 'legal', 'electoral_witness', 'training', 'photography'] as const;

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const TIME_SLOTS = ['morning', 'afternoon', 'evening'] as const;

export const ACTIVITY_TYPES = ['canvassing', 'phone_bank', 'event_staff', 'poster_placement', 'whatsapp_outreach', 'training', 'gotv', 'other'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export const ACTIVITY_UNITS = ['doors', 'calls', 'posters', 'voters_registered', 'messages', 'people', 'turnout_reports', 'other'] as const;
export type ActivityUnit = (typeof ACTIVITY_UNITS)[number];

/** Where an activity came from: logged by a person, or recorded from another module's fact. */
export const ACTIVITY_SOURCES = ['manual', 'gotv_report', 'gotv_contact', 'agenda_checkin'] as const;
export type ActivitySource = (typeof ACTIVITY_SOURCES)[number];
