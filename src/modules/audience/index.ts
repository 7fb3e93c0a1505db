import type { ModuleManifest } from '../../kernel/module';
import { AudienceAuditSchema, ConsentSchema, ConsentTextSchema, ContactOriginSchema, ContactSchema, ErasedIdentifierSchema } from './audience.entities';
import { startDuplicatesCatchUp } from './audience.duplicates';
import { startMergeSweep } from './audience.merge';
import { peopleEntities } from './audience.merge.entities';
import { mergeRouter } from './audience.merge.routes';
import { ContactNoteSchema } from './audience.people.entities';
import { peopleRouter } from './audience.people.routes';
import { audiencePersonalData } from './audience.personal-data';
import { audienceRouter } from './audience.routes';
import { audienceTimeline } from './audience.timeline';
import { audienceTerritoryReferences } from './audience.repository';

/**
 * People the campaign may reach, their consent, and the segments that select them. Audience owns
 * contacts, their origins, consent texts and consent records: the functions below are the only
 * way other modules change them, and `audienceContacts()` the only way they read them in SQL. It
 * answers a person's requests to see or erase their data, across every module's `personalData`,
 * imports supporters' files, finds duplicates and merges two records of one person (each module
 * moving its own rows through `personalData.merge`).
 */
export const audienceModule: ModuleManifest = {
  territoryReferences: audienceTerritoryReferences,
  name: 'audience',
  entities: [ContactSchema, ContactOriginSchema, ConsentTextSchema, ConsentSchema, AudienceAuditSchema, ErasedIdentifierSchema, ContactNoteSchema, ...peopleEntities],
  routers: [audienceRouter, peopleRouter, mergeRouter],
  personalData: audiencePersonalData,
  personTimeline: audienceTimeline,
  /**
   * Merges keep personal data for their undo window only: each worker clears what is past it. The
   * duplicate finder's pairs follow the contacts written since it last looked.
   */
  onWorkersStarted: async (deps) => {
    const tasks = [startMergeSweep(deps), startDuplicatesCatchUp(deps)];
    return { stop: async () => void (await Promise.all(tasks.map((task) => task.stop()))) };
  },
};

export { ContactSchema, type Contact } from './audience.entities';
export { segmentSchema, countSegment, segmentBatches, CHANNELS, type Channel, type Segment, type SegmentMember } from './audience.segments';
export { citizenDocumentId, citizenEmail, citizenTerritoryId, optionalText } from './audience.fields';
export { normalisePhone, identityKey, type CapturedPerson, type ConsentProof, type Origin } from './audience.contacts';
export {
  arrivingContact,
  audienceContacts,
  contactExists,
  contactReach,
  contactGreeting,
  countOptedOut,
  ensureConsentText,
  ensureContactByPhone,
  ERASED_NAME,
  segmentMembers,
  type ContactSelector,
  type ContactReach,
} from './audience.repository';
export { registerContact, type ChannelConsent, type RegisteredPerson } from './audience.registration';
export { erasureView } from './audience.schemas';
export { erasedIdentifiersAmong, type ErasedMatches, type IdentifierCandidates } from './audience.erased';
export { erasePerson, withdrawConsent, WITHDRAWAL_TEXTS, type WithdrawalProof, type WithdrawalSource } from './audience.service';
