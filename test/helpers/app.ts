import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../src/config';
import { Runtime, type RuntimeOptions } from '../../src/runtime';
import { createTestDatabase, testDataDir, testRedisUrl, type TestDatabase } from './database';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: testDataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    REDIS_URL: testRedisUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    ...overrides,
  });
}

export interface TestApp {
  runtime: Runtime;
  config: Config;
  db: TestDatabase;
  /** http://127.0.0.1:<port> of the listening server (sockets connect here). */
  url: string;
  http: ReturnType<typeof request>;
  /** Another process-like instance on the same database and Redis (multi-process tests), with `overrides` of its own environment. */
  sibling(overrides?: Record<string, string | undefined>): Promise<{ runtime: Runtime; url: string; http: ReturnType<typeof request> }>;
  close(): Promise<void>;
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(testRedisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

async function listening(runtime: Runtime) {
  const address = await runtime.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${address.port}`;
  return { runtime, url, http: request(url) };
}

/**
 * A real Comando process in miniature: its own database cloned from the migrated template,
 * its own Redis key prefix, a listening HTTP server. Pass REDIS_URL: undefined for the
 * embedded-style in-memory mode.
 */
export async function startTestApp(overrides: Record<string, string | undefined> = {}, options: RuntimeOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, ...overrides });
  const runtimes: Runtime[] = [];
  const main = await listening(await Runtime.create(config, { migrate: false, ...options }));
  runtimes.push(main.runtime);
  return {
    ...main,
    config,
    db,
    async sibling(own) {
      const siblingConfig = own ? testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, ...overrides, ...own }) : config;
      const other = await listening(await Runtime.create(siblingConfig, { migrate: false, ...options }));
      runtimes.push(other.runtime);
      return other;
    },
    async close() {
      await Promise.all(runtimes.map((runtime) => runtime.stop()));
      await db.drop();
      if (config.redisUrl) await deleteRedisKeys(prefix);
    },
  };
}
