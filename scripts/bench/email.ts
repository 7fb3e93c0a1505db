/**
 * `npm run bench:email`: email marketing.
 *
 * 1. A 20,000-recipient campaign with personalisation (MJML template, subject and body variables,
 *    tracked links, pixel, unsubscribe headers) sent by Comando's production build to a real
 *    local SMTP server (test/fakes/smtp.ts, in this process): messages per second rendered and
 *    accepted by SMTP, and the server's memory while it sends (sampled RSS; goal: flat, because
 *    recipients are claimed in chunks, never loaded at once).
 * 2. The open-tracking pixel under autocannon beside GET /api/test on the same server (goal:
 *    ≥ 50 %), every request a different recipient's signed token, each one a row in email_events.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type autocannon from 'autocannon';
import { Client } from 'pg';
import { TrackingTokens } from '../../src/modules/email/email.tracking-tokens';
import { FakeSmtp } from '../../test/fakes/smtp';
import {
  benchDatabase,
  comandoServer,
  cpuProfileArgs,
  benchRedisUrl,
  callJson,
  defaults,
  deleteRedisKeys,
  measure,
  onInterrupt,
  registerFirstAdmin,
  scaled,
  withServer,
  type Measurement,
  type ServerOptions,
} from './lib';
import { atLeast, atMost, loadTable, publish, runBenchmark, type Goal, type Table } from './report';

const RECIPIENTS = scaled(20_000);
const db = benchDatabase('comando_bench_email');
const REDIS_KEY_PREFIX = 'bench-email';
const TRACKING_SECRET = randomBytes(32).toString('hex');
const goals = { pixelRatio: 0.5, memoryGrowthMiB: 16 };

const MJML = `<mjml>
  <mj-body>
    <mj-section><mj-column>
      <mj-text font-size="20px">Hola {{contact.firstName}},</mj-text>
      <mj-text>Esta semana {{campaign.name}} recorre los barrios. Te escribimos a {{contact.email}} porque te inscribiste en nuestra lista.</mj-text>
      <mj-button href="https://ejemplo.co/agenda?utm_source=correo">Ver la agenda</mj-button>
      <mj-text><a href="https://ejemplo.co/propuestas">Propuestas</a> · <a href="https://ejemplo.co/voluntarios">Súmate como voluntario</a></mj-text>
      <mj-text font-size="11px">Si no quieres recibir más correos, <a href="{{unsubscribeUrl}}">cancela tu suscripción</a>.</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;

/** A heap cap that a leak proportional to the recipients would run into (20k × a rendered message ≫ 96 MiB). */
const CAPPED_HEAP = '--max-old-space-size=96';

function comando(smtpUrl: string, extraNodeArgs: string[] = []): ServerOptions {
  return comandoServer({
    name: extraNodeArgs.length ? 'comando-email-capped' : 'comando-email',
    databaseUrl: db.url,
    redisKeyPrefix: REDIS_KEY_PREFIX,
    nodeArgs: [...cpuProfileArgs(), ...extraNodeArgs],
    env: {
      PUBLIC_BASE_URL: 'https://comando.example.org',
      SMTP_URL: smtpUrl,
      SMTP_MAX_CONNECTIONS: '5',
      EMAIL_RATE_PER_SECOND: '100000',
      EMAIL_TRACKING_SECRET: TRACKING_SECRET,
    },
  });
}

/** Resident set size and its peak (VmHWM) of a process, MiB (Linux). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

async function seedContacts(count: number): Promise<void> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(
      `insert into contacts (id, identity_key, name, email, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
       select gen_random_uuid(), 'mail:lector' || g || '@example.org',
              (array['Ana María','Luis Fernando','Yuliana','Jhon Jairo','Paola Andrea'])[1 + g % 5] || ' ' || (array['Rojas','Gómez','Mosquera','Cárdenas'])[1 + g % 4],
              'lector' || g || '@example.org', '{boletin}', false, true, now(), now()
       from generate_series(1, $1::int) g`,
      [count],
    );
  } finally {
    await client.end();
  }
}

async function campaignState(campaignId: string): Promise<{ status: string; sent: number }> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string; sent: number }>(
      `select c.status, (select count(*)::int from email_recipients r where r.campaign_id = c.id and r.status = 'sent') as sent from email_campaigns c where c.id = $1`,
      [campaignId],
    );
    return rows[0]!;
  } finally {
    await client.end();
  }
}

interface SendResult {
  seconds: number;
  messagesPerSecond: number;
  accepted: number;
  sentRows: number;
  idleRss: number;
  samples: { progress: number; rss: number }[];
  peak: number;
}

async function adminToken(baseUrl: string, first: boolean): Promise<string> {
  if (first) return registerFirstAdmin(baseUrl);
  const login = await callJson<{ token: string }>(`${baseUrl}/api/auth/login`, { body: { email: 'bench-admin@example.org', password: 'bench-password-123' } });
  return login.token;
}

async function sendCampaign(baseUrl: string, pid: number, smtp: FakeSmtp, first: boolean): Promise<SendResult> {
  const token = await adminToken(baseUrl, first);
  const acceptedBefore = smtp.accepted;
  const template = await callJson<{ id: string }>(`${baseUrl}/api/email-marketing/templates`, {
    token,
    expect: 201,
    body: { name: 'Boletín', subject: 'Hola {{contact.firstName}}', mjml: MJML },
  });
  const campaign = await callJson<{ id: string; audienceSize: number }>(`${baseUrl}/api/email-marketing/campaigns`, {
    token,
    expect: 201,
    body: {
      name: 'Recorrido por los barrios',
      fromName: 'Campaña Ejemplo',
      fromEmail: 'boletin@ejemplo.co',
      segment: { interestsAny: ['boletin'] },
      variants: [{ name: 'A', subject: '{{contact.firstName}}, esta semana en tu barrio', templateId: template.id }],
    },
  });
  if (campaign.audienceSize !== RECIPIENTS) throw new Error(`audience ${campaign.audienceSize}, expected ${RECIPIENTS}`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleRss = memory(pid).rss;
  const samples: { progress: number; rss: number }[] = [];
  const started = Date.now();
  await callJson(`${baseUrl}/api/email-marketing/campaigns/${campaign.id}/send`, { token, expect: 202, body: {} });
  const sampler = setInterval(() => samples.push({ progress: (smtp.accepted - acceptedBefore) / RECIPIENTS, rss: memory(pid).rss }), 250);
  try {
    await smtp.waitFor(acceptedBefore + RECIPIENTS, 30 * 60_000);
  } finally {
    clearInterval(sampler);
  }
  const seconds = (Date.now() - started) / 1000;
  let state = await campaignState(campaign.id);
  for (let i = 0; i < 50 && state.status !== 'sent'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    state = await campaignState(campaign.id);
  }
  return { seconds, messagesPerSecond: RECIPIENTS / seconds, accepted: smtp.accepted - acceptedBefore, sentRows: state.sent, idleRss, samples, peak: memory(pid).peak };
}

/**
 * Pixel requests for 1,000 different recipients, cycled by every connection. Built once:
 * autocannon's per-request `setupRequest` costs the load generator more than the server's work.
 */
function pixelRequests(): autocannon.Request[] {
  const tokens = new TrackingTokens(TRACKING_SECRET);
  const headers = { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148' };
  return Array.from({ length: Math.min(1000, RECIPIENTS) }, (_, index) => ({
    method: 'GET' as const,
    path: `/e/o/${tokens.sign('open', BigInt(1 + ((index * 7919) % RECIPIENTS)))}`,
    headers,
  }));
}

async function countEvents(): Promise<number> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("select count(*)::int as n from email_events where kind = 'open'");
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

interface Results {
  send: SendResult;
  cappedSend: SendResult;
  apiTest: Measurement;
  pixel: Measurement;
  openRows: number;
}

async function runAll(): Promise<Results> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const smtp = await new FakeSmtp({ keep: false, parse: false }).start();
  try {
    return await withServer(comando(smtp.url), async (server) => {
      log(`seeding ${RECIPIENTS} contacts …`);
      await seedContacts(RECIPIENTS);
      log(`sending a ${RECIPIENTS}-recipient campaign to the local SMTP server …`);
      const send = await sendCampaign(server.url, server.pid, smtp, true);
      log(`  ${send.messagesPerSecond.toFixed(0)} messages/s`);
      log('GET /api/test …');
      const apiTest = await measure({ url: `${server.url}/api/test`, serverPid: server.pid });
      log('GET /e/o/:token (open pixel) …');
      const pixel = await measure({ url: server.url, serverPid: server.pid, requests: pixelRequests() });
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { send, apiTest, pixel, openRows: await countEvents() };
    }).then(async (first) => {
      log(`the same campaign again from a server with ${CAPPED_HEAP} …`);
      const cappedSend = await withServer(comando(smtp.url, [CAPPED_HEAP]), (server) => sendCampaign(server.url, server.pid, smtp, false));
      log(`  ${cappedSend.messagesPerSecond.toFixed(0)} messages/s`);
      return { ...first, cappedSend };
    });
  } finally {
    await smtp.stop();
  }
}

const fixed = (value: number, digits = 0) => value.toFixed(digits);

function report(r: Results): void {
  const ratio = r.pixel.requestsPerSecond / r.apiTest.requestsPerSecond;
  const quartersOf = (send: SendResult) => {
    const quarter = (from: number, to: number) => {
      const slice = send.samples.filter((sample) => sample.progress >= from && sample.progress < to);
      return slice.length ? Math.max(...slice.map((sample) => sample.rss)) : NaN;
    };
    return [quarter(0, 0.25), quarter(0.25, 0.5), quarter(0.5, 0.75), quarter(0.75, 1.01)];
  };
  const growthOf = (quarters: number[]) => {
    const valid = quarters.filter((value) => Number.isFinite(value));
    return valid.length >= 2 ? valid[valid.length - 1]! - valid[0]! : NaN;
  };
  const quarters = quartersOf(r.send);
  const cappedQuarters = quartersOf(r.cappedSend);
  const growth = growthOf(cappedQuarters);
  const sendTable: Table = {
    header: [
      'Server',
      'Recipients',
      'Time to send (s)',
      'Messages/s (rendered + accepted by SMTP)',
      'Accepted by SMTP',
      '`sent` rows',
      'RSS idle (MiB)',
      'Peak RSS per quarter of the send (MiB)',
      'Peak RSS, whole life (MiB)',
    ],
    rows: (
      [
        ['production defaults', r.send, quarters],
        [`\`${CAPPED_HEAP}\``, r.cappedSend, cappedQuarters],
      ] as const
    ).map(([name, send, q]) => [
      name,
      String(RECIPIENTS),
      fixed(send.seconds, 1),
      fixed(send.messagesPerSecond),
      String(send.accepted),
      String(send.sentRows),
      fixed(send.idleRss),
      q.map((value) => fixed(value)).join(' / '),
      fixed(send.peak),
    ]),
  };
  const extra = r.openRows - r.pixel.total2xx;
  const rowsOk = extra >= 0 && extra <= r.pixel.inFlightAtStop;
  const goalList: Goal[] = [
    {
      goal: 'Every recipient accepted by SMTP and recorded `sent` (both runs)',
      target: `${RECIPIENTS}`,
      measured: `${r.send.accepted} / ${r.send.sentRows}; ${r.cappedSend.accepted} / ${r.cappedSend.sentRows}`,
      pass: [r.send, r.cappedSend].every((send) => send.accepted === RECIPIENTS && send.sentRows === RECIPIENTS),
    },
    atMost(`Memory flat while sending with ${CAPPED_HEAP} (peak RSS, last quarter − first quarter)`, Number.isFinite(growth) ? growth : Infinity, goals.memoryGrowthMiB, {
      digits: 0,
      unit: ' MiB',
    }),
    atLeast('Pixel req/s vs GET /api/test', ratio, goals.pixelRatio),
    {
      goal: 'Pixel: no errors, every 200 an `email_events` row',
      target: '0 / match',
      measured: `${r.pixel.errors + r.pixel.non2xx} / ${rowsOk ? 'match' : `mismatch (${r.openRows} rows, ${r.pixel.total2xx} 200s)`}`,
      pass: r.pixel.errors + r.pixel.non2xx === 0 && rowsOk,
    },
  ];
  const intro = `The machine is shared with other agents' builds and tests, so the numbers are indicative (±20 %).

Comando's production build (\`node dist/src/main.js\`, \`NODE_ENV=production\`, PostgreSQL \`${db.name}\` created for
the run and dropped after it, Redis under its own key prefix) sends one campaign to ${RECIPIENTS} contacts (seeded with
SQL, email opt-in) through its BullMQ worker to a real SMTP server (\`smtp-server\`, \`test/fakes/smtp.ts\`, running in
the load-generator process, counting messages without parsing them). Each message is rendered for its recipient
(MJML template compiled once; subject and body variables; 3 tracked links, open pixel and unsubscribe link with
signed tokens; text part; List-Unsubscribe + List-Unsubscribe-Post) and handed to nodemailer's pooled transport
(\`SMTP_MAX_CONNECTIONS=5\`: five messages in flight through the outbound engine, rate limit off). Time runs from \`POST …/send\` (which writes
the ${RECIPIENTS}-row send list in one INSERT … SELECT) until the SMTP server has accepted the last message. RSS of the
server process is sampled every 250 ms; "per quarter" is the highest sample while the first, second, third and
last 25 % of the messages were accepted — flat means the process does not grow with the number sent. With
production defaults V8 lets the heap grow while allocation is fast (garbage it has not yet needed to collect), so
RSS rises during a long send without anything being retained; the same send is therefore repeated from a
second server process whose old-space heap is capped at 96 MiB — far less than 20,000 rendered messages — and
its memory is the one held to the goal. Finishing at all under that cap shows nothing grows with the audience.`;
  const pixelIntro = `Then autocannon (${defaults.connections} connections, ${defaults.warmupSeconds} s warm-up, ${defaults.durationSeconds} s measured) against the same server: \`GET /api/test\`,
then the open pixel cycling through 1,000 recipients' tokens (prepared once; each hit verifies the token without a
database read and queues one \`email_events\` row for the batched writer; the answer does not wait for it).`;
  publish({
    id: 'email',
    title: 'Email marketing',
    command: 'npm run bench:email',
    blocks: [
      intro,
      sendTable,
      pixelIntro,
      loadTable([
        { target: 'GET /api/test (baseline, same server)', m: r.apiTest },
        { target: '**GET /e/o/:token (open pixel)**', m: r.pixel, vs: { baseline: r.apiTest, name: '/api/test' } },
      ]),
      { goals: goalList },
    ],
  });
}

async function cleanUp(): Promise<void> {
  await db.dropAtEnd();
  await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`).catch(() => undefined);
}

runBenchmark(async () => {
  onInterrupt(cleanUp);
  let results: Results;
  try {
    await db.recreate();
    await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`);
    results = await runAll();
  } finally {
    await cleanUp();
  }
  report(results);
});
