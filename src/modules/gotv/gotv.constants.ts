/** Election day's codes, apart from the entities: the console's forms validate with schemas built on them. */
export const STATION_STATUSES = ['pending', 'open', 'closed', 'incident'] as const;
export const VOTER_STATUSES = ['pending', 'contacted', 'on_the_way', 'voted'] as const;
export const VOTER_PRIORITIES = ['low', 'normal', 'high'] as const;
export const REPORT_KINDS = ['voter', 'count'] as const;
export const INCIDENT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const INCIDENT_TYPES = ['violence', 'vote_buying', 'material_missing', 'station_closed', 'witness_denied', 'other'] as const;
export const INCIDENT_PHOTO_TYPES = ['image/jpeg', 'image/png'] as const;
export const CONTACT_OUTCOMES = ['reached', 'no_answer', 'wrong_number', 'refused', 'on_the_way'] as const;
export type StationStatus = (typeof STATION_STATUSES)[number];
export type VoterStatus = (typeof VOTER_STATUSES)[number];
export type VoterPriority = (typeof VOTER_PRIORITIES)[number];
export type ReportKind = (typeof REPORT_KINDS)[number];
export type IncidentPhotoType = (typeof INCIDENT_PHOTO_TYPES)[number];
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];
export type IncidentType = (typeof INCIDENT_TYPES)[number];
export type ContactOutcome = (typeof CONTACT_OUTCOMES)[number];
