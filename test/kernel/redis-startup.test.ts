import type { ChildProcess } from 'node:child_process';
import { authModule } from '../../src/modules/auth';
import { startTestApp, type TestApp } from '../helpers/app';
import { freePort, slowRelay, startRedis, stopRedis, type SlowRelay } from '../helpers/redis-server';

// A Redis of this file's own behind a relay that can answer slowly: a busy machine or Redis.
let redisServer: ChildProcess;
let relay: SlowRelay;
let app: TestApp | undefined;

beforeAll(async () => {
  const port = await freePort();
  redisServer = await startRedis(port);
  relay = await slowRelay(port);
});
afterAll(async () => {
  await app?.close();
  await relay.close();
  await stopRedis(redisServer);
});

it('a process starting while Redis answers slowly waits for it; once serving, requests do not wait', async () => {
  relay.delayMs = 300;
  app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${relay.port}`, REDIS_COMMAND_TIMEOUT: '100' }, { modules: [authModule] });

  relay.delayMs = 0;
  expect((await app.http.get('/readyz')).status).toBe(200);

  relay.delayMs = 300;
  await expect(app.runtime.deps.redis!.get('probe')).rejects.toThrow('Command timed out');
  relay.delayMs = 0;
});
