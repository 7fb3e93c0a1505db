import type { ModuleManifest } from '../../kernel/module';
import { ConsentSchema, ConsentTextSchema, ContactOriginSchema, ContactSchema } from './audience.entities';

/** People the campaign may reach, their consent, and the segments that select them. */
export const audienceModule: ModuleManifest = {
  name: 'audience',
  entities: [ContactSchema, ContactOriginSchema, ConsentTextSchema, ConsentSchema],
};

export { ContactSchema, type Contact } from './audience.entities';
export { segmentSchema, countSegment, segmentBatches, segmentMembersSql, CHANNELS, type Channel, type Segment, type SegmentMember } from './audience.segments';
export {
  normalisePhone,
  identityKey,
  ensureConsentText,
  arrivingContact,
  type CapturedPerson,
  type ConsentProof,
  type Origin,
} from './audience.contacts';
