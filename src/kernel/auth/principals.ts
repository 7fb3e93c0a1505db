import type { Caches, SharedCache } from '../cache';
import type { Role } from './roles';

/** What every authenticated request checks about its user: still active, token not ended. */
export interface Principal {
  id: string;
  role: Role;
  active: boolean;
  tokenVersion: number;
}

export type PrincipalLoader = (id: string) => Promise<Principal | undefined>;
export type PrincipalCache = SharedCache<Principal | undefined>;

/**
 * Principals are cached per process (10 s) so that authentication costs no query per request;
 * when a user's tokens are ended the entry is dropped in every process at once.
 */
export function principalCache(caches: Caches, load: PrincipalLoader): PrincipalCache {
  return caches.named('principals', load, 10_000);
}

/**
 * The signed-in devices' sessions, kept by the auth module: whether the one a token names still
 * stands (an admin may end one device alone), noting that it was seen; and forgetting one that
 * ended, in every process.
 */
export interface SessionRegistry {
  stands(sessionId: string, userId: string): Promise<boolean>;
  forget(sessionId: string): Promise<void>;
}
