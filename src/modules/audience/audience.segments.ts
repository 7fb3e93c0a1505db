import type { z } from 'zod';
import type { Queries } from '../../kernel/sql';
import { countSegmentMembers, segmentMembersAfter, type SegmentMember } from './audience.repository';
import type { Channel } from './audience.codes';
import type { segmentSchema } from './audience.segment.schemas';

export { CHANNELS, type Channel } from './audience.codes';
export { segmentSchema } from './audience.segment.schemas';

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
