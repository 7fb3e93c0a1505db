import { Redis } from 'ioredis';

/**
 * A Redis connection for commands. Pub/sub and blocking reads need connections of their own:
 * take them with `client.duplicate()`.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, {
    // Fail fast at start-up instead of queueing commands forever when Redis is down.
    maxRetriesPerRequest: 3,
    enableReadyCheck: true,
    lazyConnect: true,
    // Commands issued in the same tick (rate limits, publishes) go out in one write.
    enableAutoPipelining: true,
  });
}
