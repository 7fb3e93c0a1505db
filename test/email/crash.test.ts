import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/app';
import { testRedisUrl } from '../helpers/database';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp } from '../fakes/smtp';
import { sql } from '../../src/kernel/sql';
import { Runtime } from '../../src/runtime';
import { decideWinner } from '../../src/modules/email';
import { campaignBody, createCampaign, createTemplate, emailEnv, seedContacts } from './helpers';
import { until } from '../helpers/wait';

// Its own waits allow 40 s for a killed worker's successor on a busy machine: the test's budget must cover them.
jest.setTimeout(120_000);

/** Reads the database with a client of its own: the runtimes come and go in these tests. */
async function query<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

function duplicates(smtp: FakeSmtp): string[] {
  const seen = new Map<string, number>();
  for (const message of smtp.messages) for (const to of message.to) seen.set(to, (seen.get(to) ?? 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([address]) => address);
}

describe('a worker killed in the middle of a campaign', () => {
  let smtp: FakeSmtp;
  let app: TestApp;
  let manager: TestUser;
  let worker: ChildProcess | undefined;
  let successor: Runtime | undefined;
  /** The SMTP pool: the most messages in flight, so the most in doubt after the kill. */
  const POOL = 2;

  beforeAll(async () => {
    // A slow server, so the kill lands while messages are on the wire.
    smtp = await new FakeSmtp({ delayMs: 25 }).start();
    const env = emailEnv(smtp.url, { SMTP_MAX_CONNECTIONS: String(POOL), EMAIL_CLAIM_TIMEOUT: '1' });
    // This process only takes requests; the campaign is sent by the child, then by its successor.
    app = await startTestApp(env, { workers: false });
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    await seedContacts(app, { prefix: 'crash', count: 150 });
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await successor?.stop();
    await app.close();
    await smtp.stop();
  });

  it('sends nobody twice: at most the SMTP pool size is in doubt, everyone else gets exactly one message', async () => {
    const templateId = (await createTemplate(app, manager)).id;
    const campaign = await createCampaign(app, manager, campaignBody(templateId));
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);

    // One process (node with tsx's loader), so SIGKILL hits the worker itself and not a wrapper.
    worker = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'crash-worker.ts')], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: app.db.url,
        REDIS_URL: testRedisUrl,
        REDIS_KEY_PREFIX: app.config.redisKeyPrefix,
        JWT_SECRET: TEST_JWT_SECRET,
        PORT: '0',
        ...emailEnv(smtp.url, { SMTP_MAX_CONNECTIONS: String(POOL), EMAIL_CLAIM_TIMEOUT: '1' }),
      },
      stdio: 'ignore',
    });
    await smtp.waitFor(50, 40_000);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker!.once('exit', resolve));
    const [midway] = await query<{ sent: number; sending: number }>(
      app.db.url,
      "select count(*) filter (where status = 'sent')::int as sent, count(*) filter (where status = 'sending')::int as sending from email_recipients where campaign_id = $1",
      [campaign.id],
    );
    expect(midway!.sent).toBeGreaterThanOrEqual(40);
    expect(midway!.sent).toBeLessThan(150);
    expect(midway!.sending).toBeGreaterThan(0);
    // Each outcome is recorded as its answer comes: only messages on the wire are `sending`.
    expect(midway!.sending).toBeLessThanOrEqual(POOL);

    // Past the claim timeout a new worker process starts and resumes from the database (the
    // timeout's passing is the subject: nothing else is waited for).
    await new Promise((resolve) => setTimeout(resolve, 1200));
    successor = await Runtime.create(app.config, { migrate: false });
    await until(
      async () => (await query<{ status: string }>(app.db.url, 'select status from email_campaigns where id = $1', [campaign.id]))[0]!.status === 'sent',
      30_000,
      'campaign sent',
    );

    const rows = await app.runtime.deps.db.rows(sql<{ email: string; status: string }>`select email, status from email_recipients where campaign_id = ${campaign.id}`);
    const inDoubt = rows.filter((row) => row.status === 'in_doubt');
    const sent = rows.filter((row) => row.status === 'sent');
    expect(inDoubt.length).toBe(midway!.sending);
    expect(inDoubt.length).toBeLessThanOrEqual(POOL);
    expect(sent.length + inDoubt.length).toBe(150);
    expect(duplicates(smtp)).toEqual([]);
    const received = new Set(smtp.messages.flatMap((message) => message.to));
    for (const row of sent) expect(received.has(row.email)).toBe(true);
    for (const address of received) expect(rows.find((row) => row.email === address)?.status).toMatch(/^(sent|in_doubt)$/);
  });
});

describe('a crash between the A/B test and the winner', () => {
  let smtp: FakeSmtp;
  let app: TestApp;
  let manager: TestUser;
  let successor: Runtime | undefined;

  beforeAll(async () => {
    smtp = await new FakeSmtp().start();
    app = await startTestApp(emailEnv(smtp.url));
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    await seedContacts(app, { prefix: 'phase', count: 80 });
  });
  afterAll(async () => {
    await successor?.stop();
    await app.close();
    await smtp.stop();
  });

  it('resumes on start-up and sends the winner exactly once, whoever else tries to decide', async () => {
    const templateId = (await createTemplate(app, manager)).id;
    const campaign = await createCampaign(
      app,
      manager,
      campaignBody(templateId, {
        variants: [
          { name: 'A', subject: 'A: hola', templateId },
          { name: 'B', subject: 'B: hola', templateId },
        ],
        abTest: { testPercent: 50, metric: 'open', waitMinutes: 30 },
      }),
    );
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    await until(
      async () => (await app.runtime.deps.db.first(sql<{ ab_phase: string }>`select ab_phase from email_campaigns where id = ${campaign.id}`))?.ab_phase === 'waiting',
      30_000,
      'the A/B wait',
    );
    expect(smtp.accepted).toBe(40);

    // The process goes away while the test waits; by the time one comes back, the wait is over.
    await app.runtime.stop();
    await query(app.db.url, "update email_campaigns set ab_decide_at = now() - interval '1 minute' where id = $1", [campaign.id]);
    successor = await Runtime.create(app.config, { migrate: false });
    // Others race the start-up recovery: a manager's "decide now" twice, and the original delayed job fired early.
    const racers = await Promise.all([decideWinner(successor.deps, campaign.id, { now: true }), decideWinner(successor.deps, campaign.id, { now: true })]);
    const queue = new Queue('email.decide-winner', { connection: { url: testRedisUrl }, prefix: `${app.config.redisKeyPrefix}:jobs` });
    for (const job of await queue.getDelayed()) await job.promote();
    await queue.close();

    await until(
      async () => (await query<{ status: string }>(app.db.url, 'select status from email_campaigns where id = $1', [campaign.id]))[0]!.status === 'sent',
      30_000,
      'campaign sent',
    );
    await successor.deps.jobs.idle();
    expect(racers.filter((result) => result.decided).length).toBeLessThanOrEqual(1);
    expect(smtp.accepted).toBe(80);
    expect(duplicates(smtp)).toEqual([]);
    const [decision] = await query<{ ab_phase: string; winner: string; reason: string }>(
      app.db.url,
      `select c.ab_phase, v.name as winner, c.decision->>'reason' as reason from email_campaigns c join email_variants v on v.id = c.winner_variant_id where c.id = $1`,
      [campaign.id],
    );
    // Nobody opened anything: too small a sample, so the control wins.
    expect(decision).toEqual({ ab_phase: 'winner_sent', winner: 'A', reason: 'too_small' });
    expect(smtp.messages.filter((message) => message.parsed!.subject === 'A: hola')).toHaveLength(60);
  });
});
