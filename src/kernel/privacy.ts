import { createHmac, type KeyObject } from 'node:crypto';

/**
 * A keyed hash of an IP address: equal IPs give equal hashes (unique counts, rate limits), but
 * the address cannot be recovered from the database without the key, which lives outside it.
 */
export function hashIp(key: KeyObject, ip: string): string {
  return createHmac('sha256', key).update(ip).digest('hex').slice(0, 32);
}

/** What an erased person's name reads as wherever it is shown (a contact, a voter, a login). */
export const ERASED_NAME = '(datos suprimidos)';

/** The kinds of identifier an erased person leaves behind as hashes. */
export type IdentifierKind = 'document' | 'phone' | 'email';

/**
 * A keyed hash of one of a person's identifiers, in its stored form (cédula digits, E.164 phone,
 * lower-cased email): what is kept once they are erased, so a list imported later that names them
 * again is recognised, while a cédula (ten digits, quickly enumerated) cannot be read back from a
 * copy of the database without the key.
 */
export function hashIdentifier(key: KeyObject, kind: IdentifierKind, value: string): string {
  return createHmac('sha256', key).update(`${kind}:${value}`).digest('hex');
}
