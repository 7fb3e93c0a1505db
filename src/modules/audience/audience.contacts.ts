import type { ConsentFields, ContactRecord, OriginRecord } from './audience.repository';

export { normalisePhone } from './audience.phone';

/** A contact's identity: the phone when there is one, otherwise the email. */
export function identityKey(person: { phone?: string | null; email?: string | null }): string {
  if (person.phone) return `tel:${person.phone}`;
  if (person.email) return `mail:${person.email.toLowerCase()}`;
  throw new Error('A contact needs a phone or an email');
}

/** A person as a form or a message gives them: the contact's fields they can fill in, and the channels they opt in to. */
export type CapturedPerson = Pick<ContactRecord, 'name' | 'phone' | 'email' | 'documentId' | 'territoryId' | 'neighbourhood' | 'interests' | 'whatsappOptIn' | 'emailOptIn'>;

/** What a consent record keeps of how it was given. */
export type ConsentProof = Pick<ConsentFields, 'textId' | 'source' | 'sourceRef' | 'ipHash' | 'userAgent'>;

/** Where a person arrived from (a QR campaign, a WhatsApp conversation…), kept once per source. */
export type Origin = Pick<OriginRecord, 'kind' | 'refId'>;
