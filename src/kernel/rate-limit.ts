import { createHmac, type KeyObject } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from './errors';

export interface LimitSettings {
  /** How many events are allowed per window. */
  points: number;
  windowSeconds: number;
}

/**
 * One named limit, keyed by whatever the caller chooses (an IP, an email, a phone). The store
 * (Redis) only ever sees a key's HMAC, so its keys name no one.
 */
export class Limiter {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly points: number,
    private readonly keyHash: KeyObject,
  ) {}

  private stored(key: string): string {
    return createHmac('sha256', this.keyHash).update(key).digest('base64url');
  }

  /** Counts one event; throws 429 (with `detail`, when given, for the people who read it) once over the limit. */
  async consume(key: string, detail?: string): Promise<void> {
    try {
      await this.limiter.consume(this.stored(key), 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw new RateLimitedError(retryAfter(rejection), detail);
      throw rejection;
    }
  }

  /** Throws 429 if the key is already over its limit, without counting anything. */
  async check(key: string): Promise<void> {
    const state = await this.limiter.get(this.stored(key));
    if (state && state.consumedPoints >= this.points) throw new RateLimitedError(retryAfter(state));
  }

  /** Counts one event, never throwing for being over the limit (e.g. a failed login). */
  async record(key: string): Promise<void> {
    await this.limiter.penalty(this.stored(key), 1);
  }

  async reset(key: string): Promise<void> {
    await this.limiter.delete(this.stored(key));
  }

  /** How many events the key has counted in its current window (0 when none), without counting one. */
  async counted(key: string): Promise<number> {
    return (await this.limiter.get(this.stored(key)))?.consumedPoints ?? 0;
  }
}

function retryAfter(state: RateLimiterRes): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}

/**
 * Limits shared by every process through Redis when it is configured; in memory otherwise.
 * If Redis is unreachable, an in-memory limiter stands in rather than failing the request.
 */
export class RateLimits {
  private readonly limiters = new Map<string, Limiter>();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    /** Keys the HMAC every limiter stores its callers' keys as. */
    private readonly keyHash: KeyObject,
  ) {
    // Every RateLimiterRedis (re)defines its Lua command on the client. ioredis 6.0.0 crashes the
    // process when a command is defined after an auto-pipeline it then joins was created
    // (redis/ioredis#1931), so the command is defined now, before any traffic; limiters made later
    // only redefine it with the same script, which pipelines already know.
    if (redis) new RateLimiterRedis({ storeClient: redis, points: 1, duration: 1 });
  }

  /** The limiter called `name`, made on first use; later calls get the same one. */
  named(name: string, settings: LimitSettings): Limiter {
    const existing = this.limiters.get(name);
    if (existing) return existing;
    const options = { keyPrefix: `${this.prefix}:rl:${name}`, points: settings.points, duration: settings.windowSeconds };
    const limiter = this.redis ? new RateLimiterRedis({ ...options, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(options) }) : new RateLimiterMemory(options);
    const created = new Limiter(limiter, settings.points, this.keyHash);
    this.limiters.set(name, created);
    return created;
  }
}
