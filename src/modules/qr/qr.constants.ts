/**
 * Poster campaigns' closed lists and the code's shape, with nothing but TypeScript: the entities,
 * the codes and the schemas use them, and so does the staff console, which bundles the schemas.
 */

export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const FIELD_MODES = ['required', 'optional', 'hidden'] as const;
export type FieldMode = (typeof FIELD_MODES)[number];

/**
 * Poster codes: 10 characters from 31 that cannot be mistaken for each other when read off a
 * poster or typed (no 0/o, 1/l/i). 31^10 ≈ 8·10^14 codes: unguessable at any rate limit.
 */
export const CODE_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
export const CODE_LENGTH = 10;
export const CODE_PATTERN = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);
