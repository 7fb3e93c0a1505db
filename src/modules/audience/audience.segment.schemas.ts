import { z } from 'zod';
import { instant } from '../../kernel/schemas';

/*
 * The segment's rules on their own, zod only, so that a screen building a segment (the console's
 * WhatsApp campaign form) validates with the schema the API takes; the segment's SQL lives in
 * audience.segments.ts and audience.repository.ts.
 */

const interest = z.string().trim().toLowerCase().min(1).max(60);

/** Who a mass message goes to; every condition given must hold. */
export const segmentSchema = z
  .object({
    interestsAny: z.array(interest).min(1).max(50).optional(),
    interestsAll: z.array(interest).min(1).max(50).optional(),
    /** A territory includes everything inside it (a comuna includes its barrios). */
    territoryIds: z.array(z.uuid()).min(1).max(500).optional(),
    qrCampaignIds: z.array(z.uuid()).min(1).max(100).optional(),
    createdFrom: instant.optional(),
    createdTo: instant.optional(),
  })
  .refine((segment) => !segment.createdFrom || !segment.createdTo || Date.parse(segment.createdFrom) <= Date.parse(segment.createdTo), {
    message: 'createdFrom must not be after createdTo',
    path: ['createdTo'],
  })
  .meta({ id: 'Segment' });
