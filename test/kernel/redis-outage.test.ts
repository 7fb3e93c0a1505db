import type { ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, registerAdmin } from '../helpers/users';
import { connectedClients, freePort, startRedis, stopRedis } from '../helpers/redis-server';
import { until } from '../helpers/wait';

let port: number;
let redis: ChildProcess;
let app: TestApp;

beforeAll(async () => {
  port = await freePort();
  redis = await startRedis(port);
  app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}/0`, REDIS_COMMAND_TIMEOUT: '300' });
});
afterAll(async () => {
  await app.close();
  await stopRedis(redis);
});

it('answers captures and readiness while Redis is down, and is ready again when it is back', async () => {
  const admin = await registerAdmin(app);
  const manager = await createUser(app, admin, 'manager');
  const campaign = await createCampaign(app, manager);
  const [code] = await generateCodes(app, manager, campaign.id, { count: 1 });
  await app.http
    .post('/api/qr-leads/capture')
    .send(lead(code!.code, { phone: '3015550199' }))
    .expect(201);

  const clients = await connectedClients(port);
  redis.kill('SIGKILL');
  await new Promise((resolve) => redis.once('exit', resolve));
  // Before the fix a capture waited up to 27 s for Redis; the in-process fallback answers now.
  const during = await app.http
    .post('/api/qr-leads/capture')
    .timeout(8000)
    .send(lead(code!.code, { phone: '3015550198', name: 'Durante la caída' }));
  expect(during.status).toBe(201);
  const ready = await app.http.get('/readyz').timeout(8000);
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toEqual({ database: 'ok', redis: 'failed' });

  redis = await startRedis(port);
  await until(async () => (await app.http.get('/readyz')).status === 200);
  await app.http
    .post('/api/qr-leads/capture')
    .send(lead(code!.code, { phone: '3015550197', name: 'Después' }))
    .expect(201);
  // Every connection comes back, job workers' included; closing one that is still reconnecting
  // leaves library timers behind that outlive this file.
  await until(async () => (await connectedClients(port)) >= clients);
});
