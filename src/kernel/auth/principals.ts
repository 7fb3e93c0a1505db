import type { Redis } from 'ioredis';
import type { Role } from './roles';

/** What every authenticated request checks about its user: still active, token not ended. */
export interface Principal {
  id: string;
  role: Role;
  active: boolean;
  tokenVersion: number;
}

export type PrincipalLoader = (id: string) => Promise<Principal | undefined>;

interface CacheEntry {
  principal: Principal | undefined;
  expiresAt: number;
}

/**
 * A short-lived per-process cache of principals so that authentication costs no query per
 * request. When a user's tokens are ended (logout, role change, deactivation) the entry is
 * dropped here and, through Redis pub/sub, in every other process at once; the TTL bounds
 * staleness should a pub/sub message be lost while a connection is down.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<Principal | undefined>>();
  private readonly channel: string;

  constructor(
    private readonly load: PrincipalLoader,
    private readonly pubsub: { publisher: Redis; subscriber: Redis; prefix: string } | undefined,
    private readonly ttlMs = 10_000,
  ) {
    this.channel = `${pubsub?.prefix ?? 'comando'}:auth:invalidate`;
  }

  async start(): Promise<void> {
    if (!this.pubsub) return;
    await this.pubsub.subscriber.subscribe(this.channel);
    this.pubsub.subscriber.on('message', (channel, userId) => {
      if (channel === this.channel) this.entries.delete(userId);
    });
  }

  async get(id: string): Promise<Principal | undefined> {
    const cached = this.entries.get(id);
    if (cached && cached.expiresAt > Date.now()) return cached.principal;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.load(id).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    const principal = await pending;
    this.entries.set(id, { principal, expiresAt: Date.now() + this.ttlMs });
    return principal;
  }

  /** Forget a user everywhere: call after committing a change to role, active or token version. */
  async invalidate(id: string): Promise<void> {
    this.entries.delete(id);
    if (this.pubsub) await this.pubsub.publisher.publish(this.channel, id);
  }
}
