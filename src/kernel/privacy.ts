import { createHmac, type KeyObject } from 'node:crypto';

/**
 * A keyed hash of an IP address: equal IPs give equal hashes (unique counts, rate limits), but
 * the address cannot be recovered from the database without the key, which lives outside it.
 */
export function hashIp(key: KeyObject, ip: string): string {
  return createHmac('sha256', key).update(ip).digest('hex').slice(0, 32);
}
