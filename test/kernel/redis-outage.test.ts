import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, registerAdmin } from '../helpers/users';

/** A Redis of this test's own, so that stopping it disturbs no other test. */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

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
  redis.kill('SIGKILL');
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
});
