import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import type { Queries } from '../../kernel/sql';
import { countSegmentMembers, segmentMembersAfter, type SegmentMember } from './audience.repository';

import type { Channel } from './audience.codes';

export { CHANNELS, type Channel } from './audience.codes';

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

export type Segment = z.infer<typeof segmentSchema>;

export type { SegmentMember } from './audience.repository';

/** How many distinct people a segment reaches on a channel (consent and opt-outs applied). */
export function countSegment(q: Queries, segment: Segment, channel: Channel): Promise<number> {
  return countSegmentMembers(q, segment, channel);
}

/**
 * The segment's members in id order, a batch at a time, so a campaign of 100k recipients never
 * sits in memory at once. Consent is read at the moment each batch is fetched.
 */
export async function* segmentBatches(q: Queries, segment: Segment, channel: Channel, batchSize = 1000): AsyncGenerator<SegmentMember[]> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await segmentMembersAfter(q, segment, channel, after, batchSize);
    if (batch.length === 0) return;
    yield batch;
    after = batch[batch.length - 1]!.id;
    if (batch.length < batchSize) return;
  }
}
