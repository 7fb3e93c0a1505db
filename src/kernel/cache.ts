import type { Redis } from 'ioredis';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A small per-process read-through cache for hot look-ups (who a token belongs to, which
 * campaign a QR code is in). Concurrent misses for one key share a single load; `invalidate`
 * drops the key here and, through Redis pub/sub, in every other process at once. The TTL bounds
 * staleness should a pub/sub message be lost while a connection is down.
 */
export class SharedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly ttlMs: number,
    private readonly broadcast: (key: string) => Promise<void>,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string): Promise<V> {
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(key).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    const value = await pending;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    return value;
  }

  /** Forget a key everywhere: call after committing a change to what it caches. */
  async invalidate(key: string): Promise<void> {
    this.drop(key);
    await this.broadcast(key);
  }

  /** Forget a key in this process only (an invalidation arriving from another one). */
  drop(key: string): void {
    this.entries.delete(key);
  }
}

export interface CacheBus {
  publisher: Redis;
  subscriber: Redis;
  prefix: string;
}

/** The process's named caches, sharing one Redis subscription for their invalidations. */
export class Caches {
  private readonly caches = new Map<string, SharedCache<unknown>>();
  private readonly channelPrefix: string;

  constructor(private readonly bus: CacheBus | undefined) {
    this.channelPrefix = `${bus?.prefix ?? 'comando'}:cache:`;
  }

  async start(): Promise<void> {
    if (!this.bus) return;
    this.bus.subscriber.on('pmessage', (_pattern, channel, key) => {
      this.caches.get(channel.slice(this.channelPrefix.length))?.drop(key);
    });
    await this.bus.subscriber.psubscribe(`${this.channelPrefix}*`);
  }

  /** The cache called `name`, made on first use; later calls get the same one. */
  named<V>(name: string, load: (key: string) => Promise<V>, ttlMs: number): SharedCache<V> {
    let cache = this.caches.get(name) as SharedCache<V> | undefined;
    if (!cache) {
      const channel = `${this.channelPrefix}${name}`;
      const bus = this.bus;
      cache = new SharedCache<V>(load, ttlMs, async (key) => {
        if (bus) await bus.publisher.publish(channel, key);
      });
      this.caches.set(name, cache as SharedCache<unknown>);
    }
    return cache;
  }
}
