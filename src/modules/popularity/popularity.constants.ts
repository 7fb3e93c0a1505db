/**
 * Popularity's closed lists, with nothing but TypeScript: the entities and the schemas use them, and
 * so does the staff console, which bundles the schemas.
 */

export const POLL_SCOPES = ['national', 'department', 'municipality', 'locality'] as const;
export const POLL_METHODS = ['face_to_face', 'phone', 'online', 'mixed'] as const;
export const POLL_OPTIONS = ['blank', 'undecided', 'none'] as const;
export type PollOption = (typeof POLL_OPTIONS)[number];

export const SWOT_QUADRANTS = ['strength', 'weakness', 'opportunity', 'threat'] as const;
export type SwotQuadrant = (typeof SWOT_QUADRANTS)[number];
