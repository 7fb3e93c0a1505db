import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { createRedis } from '../../src/kernel/redis';
import { RateLimits } from '../../src/kernel/rate-limit';
import { Realtime } from '../../src/kernel/realtime';
import { testRedisUrl } from '../helpers/database';
import { until } from '../helpers/wait';

/**
 * Our Lua commands on the shared, auto-pipelined connection. ioredis 6.0.0 crashes the process
 * when a command is defined after an auto-pipeline it then joins was created in the same tick
 * (redis/ioredis#1931): the first capture of a busy server did exactly that. Commands are therefore
 * defined when the kernel pieces are built, before any traffic.
 */
const clients: Redis[] = [];
const prefix = `test-commands-${randomUUID()}`;

async function freshClient(): Promise<Redis> {
  const client = createRedis(testRedisUrl);
  clients.push(client);
  await client.connect();
  return client;
}

afterAll(async () => {
  const keys = await clients[0]!.keys(`${prefix}*`);
  if (keys.length) await clients[0]!.del(...keys);
  // disconnect, not quit: the socket adapter's blocking stream read would hold a quit back.
  for (const client of clients) client.disconnect();
});

it('a limiter made while other commands are being pipelined counts normally', async () => {
  const redis = await freshClient();
  const limits = new RateLimits(redis, prefix, createSecretKey(randomBytes(32)));
  // Same tick: a command opens an auto-pipeline, then a new limiter defines its script and joins it.
  const pending = redis.get(`${prefix}:probe`);
  const consumed = limits.named('late', { points: 5, windowSeconds: 60 }).consume('+573001234567');
  await expect(Promise.all([pending, consumed])).resolves.toEqual([null, undefined]);
  // The phone it was keyed by is stored as its keyed hash, never as itself.
  const keys = await redis.keys(`${prefix}:rl:late:*`);
  expect(keys).toHaveLength(1);
  expect(keys[0]).not.toContain('3001234567');
  expect(await redis.get(keys[0]!)).toBe('1');
  // Every method reads and writes the same hashed key: what consume counted, counted() sees.
  const limiter = limits.named('late', { points: 5, windowSeconds: 60 });
  expect(await limiter.counted('+573001234567')).toBe(1);
  await limiter.record('+573001234567');
  expect(await limiter.counted('+573001234567')).toBe(2);
  await limiter.reset('+573001234567');
  expect(await limiter.counted('+573001234567')).toBe(0);
});

it('a shared window appended to while other commands are being pipelined delivers its items', async () => {
  const commands = await freshClient();
  const client = await freshClient();
  const realtime = new Realtime({
    auth: {} as never,
    logger: pino({ level: 'silent' }),
    corsOrigins: [],
    redis: { client, commands, prefix },
  });
  realtime.attach(createServer());
  const published: unknown[] = [];
  jest.spyOn(realtime, 'publish').mockImplementation((_room, _event, payload) => void published.push(payload));
  const pending = commands.get(`${prefix}:probe`);
  realtime.batched('probe', 'qr:lead', 20)({ id: 'a', campaignId: 'c', codeId: 'k', created: true });
  await pending;
  await until(() => published.length > 0, 10_000, 'the window published');
  expect(published).toEqual([{ items: [expect.objectContaining({ id: 'a' })] }]);
  await realtime.close();
});
