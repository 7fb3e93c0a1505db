import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

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

/** How often an invalidation Redis did not take is sent again, until the other processes' entries have expired anyway. */
const REBROADCAST_EVERY_MS = 500;

/** The process's named caches, sharing one Redis subscription for their invalidations. */
export class Caches {
  private readonly caches = new Map<string, SharedCache<unknown>>();
  private readonly channelPrefix: string;

  constructor(
    private readonly bus: CacheBus | undefined,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    this.channelPrefix = `${bus?.prefix ?? 'comando'}:cache:`;
  }

  /**
   * Tells the other processes to drop `key`. The change it follows is already written, so a slow or
   * absent Redis must not fail the request: the message is sent again in the background until it
   * goes or the other processes' entries have expired (the TTL), whichever comes first.
   */
  private async broadcast(channel: string, key: string, ttlMs: number): Promise<void> {
    const bus = this.bus;
    if (!bus) return;
    const givesUpAt = Date.now() + ttlMs;
    const attempt = async (): Promise<boolean> => {
      try {
        await bus.publisher.publish(channel, key);
        return true;
      } catch (error) {
        this.logger?.warn({ channel, errorName: (error as Error).name }, 'cache invalidation not sent; trying again');
        return false;
      }
    };
    if (await attempt()) return;
    const retry = () => {
      if (Date.now() >= givesUpAt) return;
      void attempt().then((sent) => {
        if (!sent) setTimeout(retry, REBROADCAST_EVERY_MS).unref();
      });
    };
    setTimeout(retry, REBROADCAST_EVERY_MS).unref();
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
      cache = new SharedCache<V>(load, ttlMs, (key) => this.broadcast(channel, key, ttlMs));
      this.caches.set(name, cache as SharedCache<unknown>);
    }
    return cache;
  }
}
