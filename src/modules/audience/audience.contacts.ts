export { normalisePhone } from './audience.phone';

/** A contact's identity: the phone when there is one, otherwise the email. */
export function identityKey(person: { phone?: string | null; email?: string | null }): string {
  if (person.phone) return `tel:${person.phone}`;
  if (person.email) return `mail:${person.email.toLowerCase()}`;
  throw new Error('A contact needs a phone or an email');
}

export interface CapturedPerson {
  name: string;
  phone: string | null;
  email: string | null;
  documentId: string | null;
  territoryId: string | null;
  neighbourhood: string | null;
  interests: string[];
  whatsappOptIn: boolean;
  emailOptIn: boolean;
}

export interface ConsentProof {
  textId: string;
  source: string;
  sourceRef: string | null;
  ipHash: string | null;
  userAgent: string | null;
}

/** Where a person arrived from (a QR campaign, a WhatsApp conversation…), kept once per source. */
export interface Origin {
  kind: string;
  refId: string;
}
