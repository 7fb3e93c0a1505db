/**
 * `npm run bench:whatsapp`: a 20,000-recipient WhatsApp campaign against the local fake
 * Cloud API set to 1,000 messages/s, then 20,000 status webhooks.
 *
 *   send → all `queued` rows written     vs one bare INSERT ... SELECT of 20,000 rows
 *   sustained send rate                  vs the configured limit (goal ≥ 90 %, zero duplicates)
 *   webhook ingestion (signed POSTs)     vs a bare node:http server that checks the HMAC and runs one UPDATE
 *
 * Comando runs alone in its own child process (dist/src/main.js); the fake provider, the webhook
 * load and the baseline run in this process.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { FakeWhatsAppCloud } from '../../test/fakes/whatsapp-cloud';
import { benchDatabase, benchRedisUrl, comandoServer, cpuProfileArgs, callJson, deleteRedisKeys, onInterrupt, registerFirstAdmin, scaled, withPg, withServer } from './lib';
import { atLeast, publish } from './report';

const db = benchDatabase('comando_bench_whatsapp');
const REDIS_KEY_PREFIX = 'bench-whatsapp';
const RECIPIENTS = scaled(20_000);
const RATE = 1000;
const CONCURRENCY = 50;
const WEBHOOK_CONCURRENCY = 32;
const CLOUD = { token: 'bench-cloud-token-0123456789', appSecret: 'bench-app-secret-0123456789', phoneNumberId: '106540352242922', wabaId: '102290129340398' };
const goals = { sendRateRatio: 0.9, webhooksPerSecond: 1000 };

const sign = (body: string) => `sha256=${createHmac('sha256', CLOUD.appSecret).update(body, 'utf8').digest('hex')}`;

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** POSTs every body with `concurrency` requests in flight; returns the seconds it took. */
async function postAll(url: string, bodies: string[], concurrency: number): Promise<{ seconds: number; failures: number }> {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': sign(body) }, body });
        await response.arrayBuffer();
        if (!response.ok) failures++;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, failures };
}

/** The least a webhook receiver can do: read the body, check the HMAC, one UPDATE by primary key. */
async function baselineWebhookServer(pool: Pool): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (request.headers['x-hub-signature-256'] !== sign(raw)) {
        response.writeHead(401).end();
        return;
      }
      const status = (JSON.parse(raw) as { entry: { changes: { value: { statuses: { biz_opaque_callback_data: string }[] } }[] }[] }).entry[0]!.changes[0]!.value.statuses[0]!;
      pool
        .query(`update bench_wa_baseline set status = 'delivered' where id = $1`, [status.biz_opaque_callback_data])
        .then(() => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'))
        .catch(() => response.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  await db.recreate();
  onInterrupt(() => db.drop());
  await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX);
  const fake = await new FakeWhatsAppCloud({ ...CLOUD, ratePerSecond: RATE, statuses: [], approveTemplatesAfterMs: 0, webhookConcurrency: 4 }).start();
  try {
    const env = {
      WHATSAPP_API_BASE_URL: fake.url,
      WHATSAPP_ACCESS_TOKEN: CLOUD.token,
      WHATSAPP_APP_SECRET: CLOUD.appSecret,
      WHATSAPP_PHONE_NUMBER_ID: CLOUD.phoneNumberId,
      WHATSAPP_WABA_ID: CLOUD.wabaId,
      WHATSAPP_VERIFY_TOKEN: 'bench-verify-token',
      WHATSAPP_RATE_PER_SECOND: String(RATE),
      WHATSAPP_SEND_CONCURRENCY: String(CONCURRENCY),
      WHATSAPP_MESSAGING_TIER: 'unlimited',
    };
    const options = comandoServer({
      name: 'comando-whatsapp',
      databaseUrl: db.url,
      redisKeyPrefix: REDIS_KEY_PREFIX,
      jwtSecret: 'bench-secret-that-is-long-enough-0123456789',
      nodeArgs: cpuProfileArgs(),
      logLevel: 'warn',
      env,
    });
    await withServer(options, async (server) => {
      fake.setWebhookUrl(`${server.url}/api/whatsapp/webhook`);
      const token = await registerFirstAdmin(server.url);
      await withPg(db.url, (client) =>
        client.query(
          `insert into contacts (id, identity_key, name, phone, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
           select gen_random_uuid(), 'tel:+57300' || lpad(n::text, 7, '0'), 'Persona ' || n, '+57300' || lpad(n::text, 7, '0'), '{bench}', true, false, now(), now()
           from generate_series(1, $1::int) n`,
          [RECIPIENTS],
        ),
      );
      const template = await callJson<{ id: string }>(`${server.url}/api/whatsapp/templates`, {
        token,
        expect: 201,
        body: { name: 'bench_aviso', language: 'es', category: 'MARKETING', body: 'Hola {{1}}, te esperamos.', examples: ['Ana'] },
      });
      await until(
        async () => (await callJson<{ data: { status: string }[] }>(`${server.url}/api/whatsapp/templates`, { token })).data[0]?.status === 'APPROVED',
        10_000,
        'approval',
      );
      const campaign = await callJson<{ id: string; audienceSize: number }>(`${server.url}/api/whatsapp/campaigns`, {
        token,
        expect: 201,
        body: { name: 'Bench', templateId: template.id, variables: ['contact.firstName'], segment: { interestsAny: ['bench'] } },
      });
      if (campaign.audienceSize !== RECIPIENTS) throw new Error(`audience ${campaign.audienceSize}, expected ${RECIPIENTS}`);

      // 1. send → every queued row written (the 202 comes after the transaction commits).
      const sendStarted = performance.now();
      const sent = await callJson<{ queued: number }>(`${server.url}/api/whatsapp/campaigns/${campaign.id}/send`, { token, method: 'POST', expect: 202 });
      const queueSeconds = (performance.now() - sendStarted) / 1000;
      const baselineQueueSeconds = await withPg(db.url, async (client) => {
        await client.query(`create table bench_wa_baseline (like wa_messages including all)`);
        const started = performance.now();
        await client.query('begin');
        await client.query(
          `insert into bench_wa_baseline (id, campaign_id, contact_id, phone, direction, kind, template_id, params, status, status_rank, priority, attempts, next_attempt_at, created_at)
           select gen_random_uuid(), $1, c.id, c.phone, 'out', 'template', $2, jsonb_build_array(split_part(c.name, ' ', 1)), 'queued', 0, 1, 0, now(), now()
           from contacts c where c.whatsapp_opt_in and c.whatsapp_opted_out_at is null and c.interests && array['bench']`,
          [campaign.id, template.id],
        );
        await client.query('commit');
        return (performance.now() - started) / 1000;
      });

      // 2. sustained send rate, measured at the provider.
      await until(async () => fake.accepted.length >= sent.queued, 120_000, 'every message to be accepted');
      const times = fake.accepted.map((send) => send.at).sort((a, b) => a - b);
      // Sustained: between the 5th and 95th percentile of acceptance times, so neither the ramp-up
      // nor the tail of messages retried after a 130429 (seconds later, by design) count.
      const p5 = Math.floor(times.length * 0.05);
      const p95 = Math.floor(times.length * 0.95);
      const sendRate = (p95 - p5) / ((times[p95]! - times[p5]!) / 1000);
      const wholeSeconds = (times.at(-1)! - times[0]!) / 1000;
      const duplicates = fake.duplicates().length;
      const throttled = fake.rejected.filter((rejection) => rejection.code === 130429).length;
      await until(async () => (await callJson<{ status: string }>(`${server.url}/api/whatsapp/campaigns/${campaign.id}`, { token })).status === 'completed', 30_000, 'completion');

      // 3. webhook ingestion: one signed POST per status, as Meta sends them.
      const bodies = fake.accepted.map((send) => JSON.stringify(fake.statusPayload(send, 'delivered')));
      const ingest = await postAll(`${server.url}/api/whatsapp/webhook`, bodies, WEBHOOK_CONCURRENCY);
      const dashboard = await callJson<{ totals: { sent: number; delivered: number; failed: number; inDoubt: number } }>(`${server.url}/api/whatsapp/dashboard`, { token });
      const exact = dashboard.totals.sent === RECIPIENTS && dashboard.totals.delivered === RECIPIENTS && dashboard.totals.failed === 0 && dashboard.totals.inDoubt === 0;

      const pool = new Pool({ connectionString: db.url, max: 10 });
      const baselineServer = await baselineWebhookServer(pool);
      // The same rows (same ids) for the baseline to update.
      await withPg(db.url, async (client) => {
        await client.query('truncate bench_wa_baseline');
        await client.query(`insert into bench_wa_baseline select * from wa_messages`);
      });
      const baseline = await postAll(baselineServer.url, bodies, WEBHOOK_CONCURRENCY);
      await baselineServer.close();
      await pool.end();

      const webhookRate = bodies.length / ingest.seconds;
      const baselineWebhookRate = bodies.length / baseline.seconds;
      const failures = ingest.failures + baseline.failures;
      publish({
        id: 'whatsapp',
        title: 'WhatsApp campaign',
        command: 'npm run bench:whatsapp',
        blocks: [
          `${RECIPIENTS.toLocaleString('en')} recipients, fake Cloud API limited to ${RATE} msg/s (it answers 130429 above that), \`WHATSAPP_RATE_PER_SECOND=${RATE}\`, \`WHATSAPP_SEND_CONCURRENCY=${CONCURRENCY}\`, ${WEBHOOK_CONCURRENCY} webhook POSTs in flight.
Comando ran in its own process; the fake provider, the webhook load and the baselines shared the bench process. The machine is shared with other agents' work, so absolute numbers vary between runs.`,
          {
            header: ['measure', 'Comando', 'baseline', 'ratio'],
            rows: [
              [
                `send → ${RECIPIENTS.toLocaleString('en')} queued rows written`,
                `${(queueSeconds * 1000).toFixed(0)} ms`,
                `${(baselineQueueSeconds * 1000).toFixed(0)} ms (bare INSERT … SELECT, same table shape)`,
                (baselineQueueSeconds / queueSeconds).toFixed(2),
              ],
              [
                'all sent (first to last acceptance)',
                `${wholeSeconds.toFixed(1)} s`,
                `${(RECIPIENTS / RATE).toFixed(1)} s at exactly the limit`,
                (RECIPIENTS / RATE / wholeSeconds).toFixed(3),
              ],
              ['sustained send rate (5th–95th percentile)', `${sendRate.toFixed(0)} msg/s`, `${RATE} msg/s (configured limit)`, (sendRate / RATE).toFixed(3)],
              ['duplicates / 130429 answers', `${duplicates} / ${throttled}`, '0 / 0', '—'],
              [
                `webhook ingestion (${bodies.length.toLocaleString('en')} signed POSTs)`,
                `${webhookRate.toFixed(0)} /s`,
                `${baselineWebhookRate.toFixed(0)} /s (node:http + HMAC + 1 UPDATE)`,
                (webhookRate / baselineWebhookRate).toFixed(2),
              ],
              ['dashboard exact afterwards', exact ? 'yes' : `no: ${JSON.stringify(dashboard.totals)}`, '—', '—'],
            ],
          },
          {
            goals: [
              atLeast('Sustained send rate vs the configured limit', sendRate / RATE, goals.sendRateRatio, { digits: 3 }),
              { goal: 'Duplicate sends', target: '0', measured: String(duplicates), pass: duplicates === 0 },
              atLeast('Webhook ingestion, signed POSTs a second', webhookRate, goals.webhooksPerSecond, { digits: 0, unit: '/s' }),
              { goal: 'Webhook POSTs failed (Comando and baseline)', target: '0', measured: String(failures), pass: failures === 0 },
              { goal: 'Dashboard exact afterwards', target: 'exact', measured: exact ? 'exact' : JSON.stringify(dashboard.totals), pass: exact },
            ],
          },
          'The goals are absolute figures; read them against the baseline column, measured on the same machine in the same minutes.',
        ],
      });
    });
  } finally {
    await fake.close();
    await db.drop();
    await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX);
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
