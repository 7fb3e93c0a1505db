/**
 * An invalidation follows a change already written: when Redis does not take it, the request that
 * made the change still succeeds, and the message is sent again until it goes or the other
 * processes' entries have expired anyway.
 */
import type { Redis } from 'ioredis';
import { Caches } from '../../src/kernel/cache';

afterEach(() => jest.useRealTimers());

function cachesWith(publish: jest.Mock) {
  const warn = jest.fn();
  const caches = new Caches({ publisher: { publish } as unknown as Redis, subscriber: {} as Redis, prefix: 'probe' }, { warn });
  return { cache: caches.named('things', async (key) => key.toUpperCase(), 2000), warn };
}

it('answers the invalidation at once and sends it again once Redis takes it', async () => {
  jest.useFakeTimers();
  const publish = jest.fn().mockRejectedValueOnce(new Error('Command timed out')).mockRejectedValueOnce(new Error('Command timed out')).mockResolvedValue(1);
  const { cache, warn } = cachesWith(publish);
  await expect(cache.invalidate('k')).resolves.toBeUndefined();
  expect(publish).toHaveBeenCalledTimes(1);
  await jest.advanceTimersByTimeAsync(500);
  await jest.advanceTimersByTimeAsync(500);
  expect(publish).toHaveBeenCalledTimes(3);
  expect(publish).toHaveBeenLastCalledWith('probe:cache:things', 'k');
  await jest.advanceTimersByTimeAsync(5000);
  expect(publish).toHaveBeenCalledTimes(3);
  expect(warn).toHaveBeenCalledTimes(2);
});

it('stops sending once the entries it would drop have expired everywhere', async () => {
  jest.useFakeTimers();
  const publish = jest.fn().mockRejectedValue(new Error('Connection is closed.'));
  const { cache } = cachesWith(publish);
  await cache.invalidate('k');
  await jest.advanceTimersByTimeAsync(10_000);
  // The first attempt, then every 500 ms for the cache's 2 s TTL.
  expect(publish.mock.calls.length).toBeGreaterThanOrEqual(4);
  expect(publish.mock.calls.length).toBeLessThanOrEqual(6);
});
