/**
 * `npm run bench:gotv-lock`: one station's tally row held FOR UPDATE (a long transaction, a stuck
 * operator's query) while brigade phones report everywhere else.
 *
 * One Comando process (production configuration) on its own database: 300 stations, 75,000
 * confirmed voters, 10 brigade phones posting one voter report per request at a steady
 * BENCH_RATE (200/s) for other stations, each a voter not reported before. Three phases of the
 * same load: a warm-up (BENCH_WARMUP, 10 s; not measured), BENCH_SECONDS (45 s) with nothing held,
 * then as long with station P0000's tally row held FOR UPDATE by another connection. Meanwhile
 * that station's own phone adds a report every 3 s to an outbox it sends the way the brigade app
 * does: one request at a time with what is due, given up after 15 s without an answer, sent again
 * after Retry-After on a 503 (else with the app's backoff). Measured: the other stations' answer
 * times in each phase (their p99 with the row held is the goal, and against the phase without),
 * their answers that were not a 201, the held station's answers (each must come, as a 503, well
 * within the 15 s the phone waits) and, once the row is released, that every report of its outbox
 * is recorded exactly once.
 */
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { setUpElectionDay } from './gotv-fixtures';
import { benchDatabase, benchRedisUrl, callJson, comandoServer, deleteRedisKeys, onInterrupt, registerFirstAdmin, settings, startServer, withPg } from './lib';
import { atMost, publish, runBenchmark, type Goal } from './report';

const db = benchDatabase('comando_bench_gotv_lock');
const PREFIX = 'bench-gotv-lock';
const RATE = settings.rate ?? 200;
const SECONDS = settings.seconds ?? 45;
const WARMUP = settings.warmup ?? 10;
const STATIONS = 300;
const VOTERS = 75_000;
const PHONES = 10;
/** The brigade app's fetch gives up on an answer after this long (web/lib/api.ts). */
const PHONE_TIMEOUT_MS = 15_000;
/** The held station's phone: a new report this often. */
const HELD_REPORT_EVERY_MS = 3000;
const goals = { heldP99Ms: 1000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo' });

/** A POST given up after `timeoutMs` from the call, the wait for a pooled socket included (as a phone's fetch is). */
function post(url: string, body: string, token: string, timeoutMs = PHONE_TIMEOUT_MS): Promise<{ status: number; body: string; retryAfter: number | undefined }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        signal: AbortSignal.timeout(timeoutMs),
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), authorization: `Bearer ${token}` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const retryAfter = response.headers['retry-after'];
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: retryAfter === undefined ? undefined : Number(retryAfter) });
        });
      },
    );
    request.on('error', (error) => reject(error.name === 'AbortError' ? new Error(`no answer in ${timeoutMs / 1000} s`) : error));
    request.end(body);
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN);

interface Phase {
  name: string;
  latencies: number[];
  statuses: Map<string, number>;
}

const newPhase = (name: string): Phase => ({ name, latencies: [], statuses: new Map() });

/** Other stations' reports at RATE for `seconds`, each a fresh voter; answers recorded in `phase`. */
async function otherStations(url: string, tokens: string[], voters: string[], seconds: number, phase: Phase | undefined): Promise<void> {
  const total = Math.floor(seconds * RATE);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    for (; sent < due; sent++) {
      const voterId = voters.pop();
      if (!voterId) throw new Error('ran out of voters');
      const body = JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId });
      const at = performance.now();
      const promise = post(`${url}/api/gotv/turnout`, body, tokens[sent % tokens.length]!)
        .then(
          (answer) => String(answer.status),
          (error: unknown) => ((error as Error).message.startsWith('no answer') ? (error as Error).message : `error: ${(error as Error).message}`),
        )
        .then((status) => {
          if (!phase) return;
          phase.latencies.push(performance.now() - at);
          phase.statuses.set(status, (phase.statuses.get(status) ?? 0) + 1);
        })
        .finally(() => inFlight.delete(promise));
      inFlight.add(promise);
    }
    await sleep(2);
  }
  await Promise.all(inFlight);
}

interface HeldPhone {
  /** Every report it made, by clientReportId. */
  reports: { clientReportId: string; voterId: string }[];
  answers: { status: string; ms: number; items: number }[];
  stop(): Promise<void>;
  /** Resolves once nothing is left to send. */
  drained(): Promise<void>;
}

/**
 * The held station's phone, as web/brigada/sync.ts sends: what is due goes in one request, one at
 * a time; a 5xx, 429 or no answer within 15 s leaves it for later (Retry-After when the server
 * gives one, else the app's doubling backoff from 2 s).
 */
function heldStationPhone(url: string, token: string, voters: string[]): HeldPhone {
  const outbox: { report: { kind: 'voter'; clientReportId: string; voterId: string }; attempts: number; nextAt: number }[] = [];
  const phone: HeldPhone = { reports: [], answers: [], stop: async () => undefined, drained: async () => undefined };
  let adding = true;
  let running = true;
  const adder = (async () => {
    while (adding) {
      const voterId = voters.pop()!;
      const report = { kind: 'voter' as const, clientReportId: randomUUID(), voterId };
      phone.reports.push({ clientReportId: report.clientReportId, voterId });
      outbox.push({ report, attempts: 0, nextAt: 0 });
      await sleep(HELD_REPORT_EVERY_MS);
    }
  })();
  const sender = (async () => {
    while (running) {
      const due = outbox.filter((item) => item.nextAt <= Date.now());
      if (!due.length) {
        await sleep(200);
        continue;
      }
      const at = performance.now();
      let status: string;
      let retryAfter: number | undefined;
      try {
        const answer = await post(`${url}/api/gotv/turnout`, JSON.stringify({ reports: due.map((item) => item.report) }), token, PHONE_TIMEOUT_MS);
        status = String(answer.status);
        retryAfter = answer.retryAfter;
      } catch (error) {
        status = (error as Error).message.startsWith('no answer') ? (error as Error).message : `error: ${(error as Error).message}`;
      }
      phone.answers.push({ status, ms: performance.now() - at, items: due.length });
      if (status === '200' || status === '201') {
        for (const item of due) outbox.splice(outbox.indexOf(item), 1);
      } else {
        for (const item of due) {
          item.attempts++;
          const backoff = Math.min(300_000, 2000 * 2 ** (item.attempts - 1)) * (0.75 + Math.random() * 0.5);
          item.nextAt = Date.now() + Math.max(backoff, (retryAfter ?? 0) * 1000);
        }
      }
    }
  })();
  phone.stop = async () => {
    adding = false;
    await adder;
  };
  phone.drained = async () => {
    while (outbox.length) await sleep(200);
    running = false;
    await sender;
  };
  return phone;
}

function summary(phase: Phase): string[] {
  const sorted = [...phase.latencies].sort((a, b) => a - b);
  const other = [...phase.statuses].filter(([status]) => status !== '201');
  return [
    phase.name,
    String(sorted.length),
    percentile(sorted, 50).toFixed(0),
    percentile(sorted, 95).toFixed(0),
    percentile(sorted, 99).toFixed(0),
    (sorted.at(-1) ?? Number.NaN).toFixed(0),
    other.length ? other.map(([status, n]) => `${n} × ${status}`).join(', ') : '0',
  ];
}

runBenchmark(async () => {
  const cleanUp = async () => {
    agent.destroy();
    await db.drop();
    await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`);
  };
  onInterrupt(cleanUp);
  await db.recreate();
  await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`);
  const server = await startServer(comandoServer({ name: 'comando-gotv-lock', databaseUrl: db.url, redisKeyPrefix: PREFIX, jwtSecret: randomBytes(32).toString('hex') }));
  let held: Client | undefined;
  try {
    log(`set-up: ${STATIONS} stations, ${VOTERS.toLocaleString('en')} voters, ${PHONES} brigade phones …`);
    const adminToken = await registerFirstAdmin(server.url);
    const phones: { id: string; token: string }[] = [];
    for (let i = 0; i < PHONES + 1; i++) {
      const body = await callJson<{ user: { id: string }; token: string }>(`${server.url}/api/auth/register`, {
        token: adminToken,
        expect: 201,
        body: { email: `bench-lock-${i}@example.org`, password: 'bench-password-123', name: `Bench phone ${i}`, role: 'brigade' },
      });
      phones.push({ id: body.user.id, token: body.token });
    }
    await setUpElectionDay(server.url, adminToken, { stations: STATIONS, voters: VOTERS, memberIds: phones.map((phone) => phone.id) });
    const { heldStation, heldVoters, otherVoters } = await withPg(db.url, async (client) => {
      const station = (await client.query<{ id: string }>("select id from gotv_polling_stations where code = 'P0000'")).rows[0]!.id;
      const rows = (await client.query<{ id: string; polling_station_id: string }>('select id, polling_station_id from gotv_voters order by random()')).rows;
      return {
        heldStation: station,
        heldVoters: rows.filter((row) => row.polling_station_id === station).map((row) => row.id),
        otherVoters: rows.filter((row) => row.polling_station_id !== station).map((row) => row.id),
      };
    });
    const tokens = phones.slice(0, PHONES).map((phone) => phone.token);

    log(`warm-up: ${WARMUP} s at ${RATE} reports/s …`);
    await otherStations(server.url, tokens, otherVoters, WARMUP, undefined);
    const free = newPhase('nothing held');
    log(`nothing held: ${SECONDS} s …`);
    await otherStations(server.url, tokens, otherVoters, SECONDS, free);

    const lockedPhase = newPhase('P0000 tally held FOR UPDATE');
    log(`P0000's tally held FOR UPDATE: ${SECONDS} s, its phone reporting every ${HELD_REPORT_EVERY_MS / 1000} s …`);
    held = new Client({ connectionString: db.url });
    await held.connect();
    await held.query('begin');
    await held.query('select * from gotv_station_tallies where station_id = $1 for update', [heldStation]);
    const phone = heldStationPhone(server.url, phones[PHONES]!.token, heldVoters);
    await otherStations(server.url, tokens, otherVoters, SECONDS, lockedPhase);
    await phone.stop();
    await held.query('rollback');
    await held.end();
    held = undefined;
    log('released; the held station’s phone sends what it kept …');
    const releasedAt = performance.now();
    await phone.drained();
    const drainedInS = (performance.now() - releasedAt) / 1000;

    const recorded = await withPg(db.url, async (client) => {
      const ids = phone.reports.map((report) => report.clientReportId);
      const rows = await client.query<{ n: string }>('select count(*) as n from gotv_turnout_reports where client_report_id = any($1::uuid[])', [ids]);
      const voted = await client.query<{ n: string }>("select count(*) as n from gotv_voters where id = any($1::uuid[]) and status = 'voted'", [
        phone.reports.map((report) => report.voterId),
      ]);
      return { rows: Number(rows.rows[0]!.n), voted: Number(voted.rows[0]!.n) };
    });

    const freeSorted = [...free.latencies].sort((a, b) => a - b);
    const heldSorted = [...lockedPhase.latencies].sort((a, b) => a - b);
    const heldP99 = percentile(heldSorted, 99);
    const ratio = heldP99 / percentile(freeSorted, 99);
    const lockAnswers = phone.answers.filter((answer) => answer.status !== '200' && answer.status !== '201');
    const slowest = Math.max(...lockAnswers.map((answer) => answer.ms));
    const silent = phone.answers.filter((answer) => !/^\d+$/.test(answer.status)).length;
    const othersNot201 = [...lockedPhase.statuses].filter(([status]) => status !== '201').reduce((sum, [, n]) => sum + n, 0);
    const all503 = lockAnswers.every((answer) => answer.status === '503');
    const goalList: Goal[] = [
      atMost('Other stations, row held: p99', heldP99, goals.heldP99Ms, { digits: 0, unit: ' ms' }),
      { goal: 'Other stations, row held: answers not 201', target: '0', measured: String(othersNot201), pass: othersNot201 === 0 },
      { goal: 'Held station: requests left without an answer for 15 s', target: '0', measured: String(silent), pass: silent === 0 },
      { goal: 'Held station: answers while held are 503 with Retry-After', target: 'all', measured: all503 ? 'all' : 'not all', pass: all503 },
      {
        goal: 'Held station: its reports recorded once after release',
        target: `${phone.reports.length} rows, ${phone.reports.length} voted`,
        measured: `${recorded.rows} rows, ${recorded.voted} voted`,
        pass: recorded.rows === phone.reports.length && recorded.voted === phone.reports.length,
      },
    ];
    const statuses = new Map<string, number>();
    for (const answer of phone.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    publish({
      id: 'gotv-lock',
      title: 'GOTV: one station held, everyone else reporting',
      command: 'npm run bench:gotv-lock',
      blocks: [
        [
          `One Comando process (production configuration, defaults: \`GOTV_REPORT_LOCK_TIMEOUT\` 1 s, \`GOTV_REPORT_STATEMENT_TIMEOUT\` 5 s,`,
          `\`GOTV_REPORT_DEADLINE\` 10 s) with ${STATIONS} stations and ${VOTERS.toLocaleString('en')} voters; ${PHONES} brigade phones post one voter report per`,
          `request at ${RATE}/s to stations other than P0000 (each a voter not reported before): ${WARMUP} s of warm-up, ${SECONDS} s with nothing`,
          `held, then ${SECONDS} s with P0000's tally row held \`FOR UPDATE\` by another connection. P0000's own phone adds a report every`,
          `${HELD_REPORT_EVERY_MS / 1000} s and sends its outbox as the brigade app does (one request at a time, no answer in 15 s or a 5xx: again later,`,
          `after Retry-After when given). Answer times are from sending a request to its answer, at the load generator.`,
        ].join('\n'),
        { header: ['Other stations', 'reports', 'p50 (ms)', 'p95 (ms)', 'p99 (ms)', 'max (ms)', 'answers not 201'], rows: [summary(free), summary(lockedPhase)] },
        [
          `p99 with the row held: ${ratio.toFixed(2)} × the phase with nothing held. Held station's phone: ${phone.answers.length} requests`,
          `(${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}); while held, the slowest answer took ${slowest.toFixed(0)} ms;`,
          `once released its outbox of ${phone.reports.length} reports was sent within ${drainedInS.toFixed(1)} s (the app's backoff doubles with each attempt).`,
          'The two phases run back to back under the same load; other programs sharing the two cores (the load average above) move',
          "either phase's tail by hundreds of milliseconds, so the goal is the held phase's own p99.",
        ].join('\n'),
        { goals: goalList },
      ],
    });
  } finally {
    await held?.end().catch(() => undefined);
    await server.stop();
    await cleanUp();
  }
});
