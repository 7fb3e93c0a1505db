import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { Redis } from 'ioredis';
import { TEST_JWT_SECRET } from '../helpers/app';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../helpers/database';
import { FakeWhatsAppCloud } from '../fakes/whatsapp-cloud';
import { CLOUD } from './setup';
import { Client } from 'pg';
import { until } from '../helpers/wait';

/**
 * SIGKILL in the middle of a 2,500-message campaign, then a restart: the real entry point in a
 * child process, the real Cloud API client against the local fake (the ground truth of what was
 * sent), the fake retrying its webhooks while the process is down, as Meta does.
 */
jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../..');
const RECIPIENTS = 2500;
const CONCURRENCY = 20;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

let db: TestDatabase;
let fake: FakeWhatsAppCloud;
let child: ChildProcess | undefined;
const prefix = `crash${Date.now().toString(36)}`;

async function start(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: testRedisUrl,
    REDIS_KEY_PREFIX: prefix,
    JWT_SECRET: TEST_JWT_SECRET,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    WHATSAPP_API_BASE_URL: fake.url,
    WHATSAPP_ACCESS_TOKEN: CLOUD.token,
    WHATSAPP_APP_SECRET: CLOUD.appSecret,
    WHATSAPP_PHONE_NUMBER_ID: CLOUD.phoneNumberId,
    WHATSAPP_WABA_ID: CLOUD.wabaId,
    WHATSAPP_VERIFY_TOKEN: CLOUD.verifyToken,
    WHATSAPP_RATE_PER_SECOND: '400',
    WHATSAPP_SEND_CONCURRENCY: String(CONCURRENCY),
    WHATSAPP_MESSAGING_TIER: 'unlimited',
  };
  const started = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  started.stdout!.on('data', (chunk) => (output += chunk));
  started.stderr!.on('data', (chunk) => (output += chunk));
  await until(
    () => {
      if (started.exitCode !== null) throw new Error(`did not start:\n${output}`);
      return output.includes('Comando listening');
    },
    60_000,
    'the process to listen',
  );
  return { child: started, output: () => output };
}

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await new FakeWhatsAppCloud({ ...CLOUD, statuses: ['sent'], approveTemplatesAfterMs: 0, webhookConcurrency: 16 }).start();
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await fake.close();
  await db.drop();
  const redis = new Redis(testRedisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

async function rows(): Promise<{ status: string; phone: string }[]> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<{ status: string; phone: string }>(`select status, phone from wa_messages where direction = 'out'`)).rows;
  } finally {
    await client.end();
  }
}

it('after a SIGKILL mid-campaign and a restart: nobody with a recorded outcome gets a second message, nobody is dropped, in doubt ≤ concurrency', async () => {
  const port = await freePort();
  let running = await start(port);
  child = running.child;
  fake.setWebhookUrl(`http://127.0.0.1:${port}/api/whatsapp/webhook`);
  const http = request(`http://127.0.0.1:${port}`);
  const register = await http.post('/api/auth/register').send({ email: 'admin@example.org', password: 'a long enough password', name: 'Admin' }).expect(201);
  const auth = { Authorization: `Bearer ${register.body.token}` };
  // Contacts arrive through the audience table (one statement), as the QR module would have left them.
  await runSql(
    `insert into contacts (id, identity_key, name, phone, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
     select gen_random_uuid(), 'tel:+57300' || lpad(n::text, 7, '0'), 'Persona ' || n, '+57300' || lpad(n::text, 7, '0'), '{crash}', true, false, now(), now()
     from generate_series(1, $1::int) n`,
    [RECIPIENTS],
  );
  const template = await http
    .post('/api/whatsapp/templates')
    .set(auth)
    .send({ name: 'recordatorio', language: 'es', category: 'MARKETING', body: 'Hola {{1}}', examples: ['Ana'] })
    .expect(201);
  await until(async () => (await http.get('/api/whatsapp/templates').set(auth)).body.data[0]?.status === 'APPROVED', 10_000, 'approval');
  const campaign = await http
    .post('/api/whatsapp/campaigns')
    .set(auth)
    .send({ name: 'Crash', templateId: template.body.id, variables: ['contact.firstName'], segment: { interestsAny: ['crash'] } })
    .expect(201);
  expect(campaign.body.audienceSize).toBe(RECIPIENTS);
  const sent = await http.post(`/api/whatsapp/campaigns/${campaign.body.id}/send`).set(auth).expect(202);
  expect(sent.body.queued).toBe(RECIPIENTS);

  await until(async () => fake.accepted.length >= 800, 60_000, '800 sends');
  running.child.kill('SIGKILL');
  await new Promise((resolve) => running.child.once('exit', resolve));
  const acceptedAtKill = fake.accepted.length;
  const atKill = await rows();
  const inFlightAtKill = atKill.filter((row) => row.status === 'sending').length;
  expect(acceptedAtKill).toBeLessThan(RECIPIENTS);
  expect(inFlightAtKill).toBeLessThanOrEqual(CONCURRENCY);

  running = await start(port);
  child = running.child;
  await until(async () => (await http.get(`/api/whatsapp/campaigns/${campaign.body.id}`).set(auth)).body.status === 'completed', 90_000, 'completion after restart');
  await fake.webhooksDrained(60_000);
  await until(async () => (await rows()).every((row) => row.status !== 'accepted'), 20_000, 'webhooks applied');

  const final = await rows();
  expect(final).toHaveLength(RECIPIENTS);
  const inDoubt = final.filter((row) => row.status === 'in_doubt');
  const byStatus = final.reduce<Record<string, number>>((counts, row) => ({ ...counts, [row.status]: (counts[row.status] ?? 0) + 1 }), {});
  // No duplicates at all: in-doubt messages are never resent.
  expect(fake.duplicates()).toEqual([]);
  expect(inDoubt.length).toBeLessThanOrEqual(inFlightAtKill);
  // Everyone else was sent exactly once, and the webhook carrying our id settled it.
  expect(byStatus.sent).toBe(RECIPIENTS - inDoubt.length);
  const received = new Set(fake.accepted.map((send) => `+${send.to}`));
  for (const row of final) if (row.status === 'sent') expect(received.has(row.phone)).toBe(true);
  // What is still in doubt never reached the provider (the kill came before the request left).
  for (const row of inDoubt) expect(received.has(row.phone)).toBe(false);
  expect(fake.accepted.length).toBe(RECIPIENTS - inDoubt.length);

  running.child.kill('SIGTERM');
  await new Promise((resolve) => running.child.once('exit', resolve));
});

async function runSql(text: string, params: unknown[]): Promise<unknown> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}
