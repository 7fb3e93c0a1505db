/**
 * `npm run bench:gotv`: election day in real time.
 *
 * Two Comando processes (production configuration) share PostgreSQL and Redis. This process is the
 * load: 2,000 socket.io clients (1,000 on each process) in room `gotv`, held by a worker thread
 * (gotv-listeners.ts), and, on the main thread, brigade phones posting one voter report per
 * request at a steady REPORT_RATE (BENCH_RATE) for DURATION seconds (BENCH_SECONDS), alternating between
 * the processes. For every accepted report it measures report sent → `gotv:turnout` item received
 * at every client (so the figure includes the request itself: an upper bound of accepted →
 * received), checks every client saw every accepted report exactly once, and counts the
 * `gotv:projection` pushes. The baseline, in the same run with the same clients and rates: two bare
 * Socket.IO processes on the same Redis streams adapter broadcasting each 100 ms window of reports
 * as items of the same shape and size, and a recorded projection push as often as Comando pushes
 * (`baseline-socket-broadcast.ts`). Last, `POST /api/gotv/turnout` at full speed (autocannon) on
 * one process with the 2,000 clients listening, then with nobody listening, then the bare pg insert
 * route (`baseline-pg-insert.ts`) for the CPU a report costs against a bare write. BENCH_CPU_PROF
 * profiles the first Comando process.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { setUpElectionDay } from './gotv-fixtures';
import { agent, cpuReadings, cpuUsed, delivery, drive, newRun, post, startListeners, stopListeners, stopRecording, type Delivery, type Listeners, type Run } from './gotv-load';
import {
  barePgInsertLoad,
  barePgInsertServer,
  benchDatabase,
  comandoServer,
  cpuProfileArgs,
  benchRedisUrl,
  callJson,
  deleteRedisKeys,
  logDir,
  measure,
  onInterrupt,
  registerFirstAdmin,
  scaled,
  settings,
  startServer,
  withPg,
  withServer,
  type Measurement,
  type RunningServer,
  type ServerOptions,
} from './lib';
import { atLeast, atMost, loadTable, publish, runBenchmark, type Goal, type Table } from './report';
import { projectionPushSeconds } from './gotv-projection-push';

const db = benchDatabase('comando_bench_gotv');
const PREFIX = 'bench-gotv';
const BASELINE_PREFIX = 'bench-gotv-bare';
const CLIENTS = scaled(2000);
const REPORT_RATE = settings.rate ?? 200;
const DURATION = settings.seconds ?? 60;
/**
 * Seconds of reports before the measured part, for both targets. A cold process (JIT, statements
 * prepared on each pooled connection, the first touch of a table just imported) answers slowly
 * for a few seconds, and the backlog it leaves at the listener thread, which runs near its
 * capacity, takes several more to drain: with 5 s the first measured seconds were still draining
 * it. Election day's peak never meets a cold server.
 */
const WARMUP = settings.warmup ?? 15;
const STATIONS = 300;
/** Every report of the steady phase a new voter (150,000 at the benchmark's size). */
const VOTERS = Math.max(scaled(150_000), REPORT_RATE * (WARMUP + DURATION));
const BRIGADE_PHONES = 10;
/**
 * Worker threads holding the clients: one takes the clients' parsing off the main thread (which
 * sends the reports and times them), while the simulated screens, which in real life run on their
 * own devices, still get at most one of this machine's two cores.
 */
const LISTENER_THREADS = 1;
const goals = { p99Ms: 250, p99VsBaseline: 1.5, routeRatio: 0.5, cpuVsBareInsert: 2.5 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// One run (gotv-load.ts), with the CPU each side used over its steady phase

interface GotvRun extends Run {
  loadCpuSeconds: number;
  /** CPU seconds over the steady phase: both app processes, PostgreSQL (all backends), Redis. */
  serversCpuSeconds: number;
  postgresCpuSeconds: number;
  redisCpuSeconds: number;
  elapsedSeconds: number;
}

function newGotvRun(): GotvRun {
  const run = newRun(REPORT_RATE * (WARMUP + DURATION), 1);
  return { ...run, loadCpuSeconds: 0, serversCpuSeconds: 0, postgresCpuSeconds: 0, redisCpuSeconds: 0, elapsedSeconds: 0 };
}

/** CLIENTS war-room clients over LISTENER_THREADS threads (client i to urls[i % urls.length]); with a token, joined to `gotv`. */
function listen(urls: string[], token: string | undefined, run: GotvRun, voterIds: string[]): Promise<Listeners> {
  return startListeners({ urls, token, clients: CLIENTS, threads: LISTENER_THREADS, voterIds }, run);
}

async function driveRun(run: GotvRun, serverPids: number[], send: (seq: number) => Promise<boolean>): Promise<void> {
  const cpuBefore = cpuReadings(serverPids);
  const started = performance.now();
  await drive(run, { from: 0, to: run.totalReports, rate: REPORT_RATE, measuredFrom: REPORT_RATE * WARMUP, step: 0 }, send);
  run.elapsedSeconds = (performance.now() - started) / 1000;
  await sleep(2000); // the last window, and anything still crossing Redis
  const used = cpuUsed(cpuBefore, cpuReadings(serverPids));
  run.loadCpuSeconds = used.load;
  run.serversCpuSeconds = used.servers.reduce((sum, seconds) => sum + seconds, 0);
  run.postgresCpuSeconds = used.postgres;
  run.redisCpuSeconds = used.redis;
}

// ---------------------------------------------------------------------------------------------
// Set-up through Comando's API

interface Setup {
  adminToken: string;
  viewerToken: string;
  phoneTokens: string[];
  voterIds: string[];
}

async function registerUser(url: string, adminToken: string, role: string, n: number): Promise<{ id: string; token: string }> {
  const body = await callJson<{ user: { id: string }; token: string }>(`${url}/api/auth/register`, {
    token: adminToken,
    expect: 201,
    body: { email: `bench-${role}-${n}@example.org`, password: 'bench-password-123', name: `Bench ${role} ${n}`, role },
  });
  return { id: body.user.id, token: body.token };
}

async function setUp(url: string): Promise<Setup> {
  const adminToken = await registerFirstAdmin(url);
  const viewer = await registerUser(url, adminToken, 'viewer', 0);
  const phones = await Promise.all(Array.from({ length: BRIGADE_PHONES }, (_, i) => registerUser(url, adminToken, 'brigade', i)));
  await setUpElectionDay(url, adminToken, { stations: STATIONS, voters: VOTERS, memberIds: phones.map((phone) => phone.id) });
  const voterIds = await withPg(db.url, async (client) => (await client.query<{ id: string }>('select id from gotv_voters order by document_id')).rows.map((row) => row.id));
  return { adminToken, viewerToken: viewer.token, phoneTokens: phones.map((phone) => phone.token), voterIds };
}

// ---------------------------------------------------------------------------------------------
// Phases

/** Both processes share the JWT secret (a token works on either); BENCH_CPU_PROF profiles the first. */
function comando(name: string, jwtSecret: string, profile = false): ServerOptions {
  return comandoServer({ name, databaseUrl: db.url, redisKeyPrefix: PREFIX, jwtSecret, ...(profile ? { nodeArgs: cpuProfileArgs() } : {}) });
}

async function baselinePhase(): Promise<GotvRun> {
  const servers: RunningServer[] = [];
  try {
    for (const name of ['bare-socket-a', 'bare-socket-b']) {
      const env = {
        REDIS_URL: benchRedisUrl,
        REDIS_KEY_PREFIX: BASELINE_PREFIX,
        WINDOW_OWNER: name.endsWith('-a') ? '1' : '0',
      };
      const nodeArgs = name.endsWith('-a') ? cpuProfileArgs() : [];
      servers.push(await startServer({ name, script: 'dist/scripts/bench/baseline-socket-broadcast.js', readyPath: '/healthz', env, nodeArgs }));
    }
    const run = newGotvRun();
    // UUIDs like Comando's voter and station ids, so that both runs carry the same bytes.
    const voterIds = Array.from({ length: run.totalReports }, () => randomUUID());
    const stationIds = Array.from({ length: STATIONS }, () => randomUUID());
    const listeners = await listen(
      servers.map((server) => server.url),
      undefined,
      run,
      voterIds,
    );
    log(`  ${CLIENTS} clients connected (${listeners.threads.length} listener threads); ${REPORT_RATE} reports/s for ${WARMUP} + ${DURATION} s …`);
    await driveRun(
      run,
      servers.map((server) => server.pid),
      async (seq) => {
        const body = JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[seq], stationId: stationIds[seq % STATIONS] });
        const response = await post(`${servers[seq % 2]!.url}/report`, body, {});
        return response.status === 201;
      },
    );
    await stopListeners(listeners);
    return run;
  } finally {
    for (const server of servers) await server.stop();
  }
}

interface ComandoResults {
  live: GotvRun;
  withListeners: Measurement;
  withoutListeners: Measurement;
  /** The bare pg insert route at full speed, right after: what a report's CPU is compared with. */
  bareInsert: Measurement;
  projection: { count: number; minGapMs: number; perSecond: number };
}

async function comandoPhase(): Promise<ComandoResults> {
  const jwtSecret = randomBytes(32).toString('hex');
  const a = await startServer(comando('comando-gotv-a', jwtSecret, true)); // runs the migrations
  const b = await startServer(comando('comando-gotv-b', jwtSecret)).catch(async (error: unknown) => {
    await a.stop();
    throw error;
  });
  try {
    log('  setting up stations, brigade, settings and 150,000 voters through the API …');
    const setup = await setUp(a.url);
    const live = newGotvRun();
    const listeners = await listen([a.url, b.url], setup.viewerToken, live, setup.voterIds);
    log(`  ${CLIENTS} clients connected and subscribed (${listeners.threads.length} listener threads); ${REPORT_RATE} reports/s for ${WARMUP} + ${DURATION} s …`);
    const projectionFrom = Date.now();
    await driveRun(live, [a.pid, b.pid], async (seq) => {
      const body = JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: setup.voterIds[seq] });
      const response = await post(`${(seq % 2 ? b : a).url}/api/gotv/turnout`, body, { authorization: `Bearer ${setup.phoneTokens[seq % BRIGADE_PHONES]}` });
      return response.status === 201 && (JSON.parse(response.body) as { accepted: number }).accepted === 1;
    });
    const projectionUntil = Date.now();

    // The full-speed load runs in a child process of its own (see gotv-report-load.ts).
    const voterIdsFile = path.join(logDir, 'gotv-voter-ids.json');
    writeFileSync(voterIdsFile, JSON.stringify(setup.voterIds));
    let next = live.totalReports;
    // Asynchronous: this process's clients must keep reading their sockets meanwhile.
    const fullSpeed = async (): Promise<Measurement> => {
      const job = { url: a.url, serverPid: a.pid, token: setup.phoneTokens[0], voterIdsFile, from: next };
      const child = spawn(process.execPath, [path.join(__dirname, 'gotv-report-load.js'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      if (code !== 0) throw new Error(`report load failed: ${stderr}`);
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as Measurement & { used: number };
      next += result.used;
      return result;
    };
    stopRecording(listeners);
    log(`  POST /api/gotv/turnout at full speed on one process (load from its own process), ${CLIENTS} clients listening …`);
    const withListeners = await fullSpeed();
    await stopListeners(listeners);
    // The pushes computed while reports came at the steady rate (the full-speed phase is not this measure).
    const pushes = live.projectionPushes[0]!.filter((at) => at >= projectionFrom && at <= projectionUntil).sort((x, y) => x - y);
    const gaps = pushes.slice(1).map((at, i) => at - pushes[i]!);
    const projection = {
      count: pushes.length,
      minGapMs: gaps.length ? Math.min(...gaps) : Number.NaN,
      perSecond: pushes.length / ((projectionUntil - projectionFrom) / 1000),
    };
    await sleep(2000);
    log('  … and with nobody listening');
    const withoutListeners = await fullSpeed();
    if (next > VOTERS) log(`  note: ${next - VOTERS} requests re-used voters (answered as duplicates)`);
    log('  … and the bare pg insert route (Koa, koa-body, one insert) at full speed');
    const bareInsert = await withServer(barePgInsertServer(db.url), (server) => measure(barePgInsertLoad(server)));
    return { live, withListeners, withoutListeners, bareInsert, projection };
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

// ---------------------------------------------------------------------------------------------
// Report

/** The mean size of the projection pushes a run's first clients read, as JSON. */
function bytesNote(sizes: number[]): string {
  return sizes.length ? `${Math.round(sizes.reduce((sum, size) => sum + size, 0) / sizes.length).toLocaleString('en-US')} bytes` : 'no push';
}

function report(baseline: GotvRun, comando: ComandoResults): void {
  const live = comando.live;
  const [bd, cd] = [delivery(baseline, baseline.received), delivery(live, live.received)];
  const row = (name: string, run: GotvRun, d: Delivery) => [
    name,
    (d.accepted / run.elapsedSeconds).toFixed(0),
    run.latencies[0]!.percentile(50).toFixed(1),
    run.latencies[0]!.percentile(99).toFixed(1),
    run.httpLatencies[0]!.percentile(99).toFixed(1),
    (run.messages / CLIENTS / run.elapsedSeconds).toFixed(1),
    `${d.lost} (${d.clientsMissing} clients)`,
    String(run.duplicates),
    ...[run.loadCpuSeconds, run.serversCpuSeconds, run.postgresCpuSeconds, run.redisCpuSeconds].map((seconds) => `${((seconds / run.elapsedSeconds) * 100).toFixed(0)}%`),
  ];
  const table: Table = {
    header: [
      'Target',
      'Reports/s accepted',
      'p50 sent→received (ms)',
      'p99 (ms)',
      'HTTP p99 (ms)',
      'Messages/s per client',
      'Lost deliveries',
      'Duplicate deliveries',
      'Load process CPU',
      'App processes CPU',
      'PostgreSQL CPU',
      'Redis CPU',
    ],
    rows: [row('bare Socket.IO broadcast, 2 processes (baseline)', baseline, bd), row('**Comando, 2 processes**', live, cd)],
  };
  const ratio = comando.withListeners.requestsPerSecond / comando.withoutListeners.requestsPerSecond;
  const routeTable = loadTable([
    { target: 'POST /api/gotv/turnout, one process, nobody listening', m: comando.withoutListeners },
    {
      target: `… ${CLIENTS} clients listening (${(CLIENTS / 2).toLocaleString('en-US')} on this process)`,
      m: comando.withListeners,
      vs: { baseline: comando.withoutListeners, name: 'nobody listening' },
    },
    { target: 'baseline: bare Koa + pg insert, POST /api/territories', m: comando.bareInsert },
  ]);
  const reportCpu = comando.withoutListeners.serverCpuUsPerRequest ?? Number.NaN;
  const insertCpu = comando.bareInsert.serverCpuUsPerRequest ?? Number.NaN;
  const p99 = live.latencies[0]!.percentile(99);
  const baseP99 = baseline.latencies[0]!.percentile(99);
  const allAccepted = cd.accepted === live.totalReports && live.sendErrors === 0;
  const goalList: Goal[] = [
    atMost('p99 report → event at the clients', p99, goals.p99Ms, { digits: 1, unit: ' ms' }),
    atMost('p99 vs bare Socket.IO p99', p99 / baseP99, goals.p99VsBaseline, { unit: '×' }),
    { goal: `Every report accepted (${live.totalReports})`, target: 'all', measured: `${cd.accepted}, ${live.sendErrors} send errors`, pass: allAccepted },
    { goal: 'Lost reports (every client sees every accepted report id)', target: '0', measured: String(cd.lost), pass: cd.lost === 0 },
    {
      goal: 'gotv:projection pushes, both processes together (closest two `generatedAt` ≥ 4,950 ms apart, and they keep coming)',
      target: 'one per 5 s (GOTV_PROJECTION_PUSH)',
      measured: `${comando.projection.count} pushes, ${comando.projection.perSecond.toFixed(2)}/s, closest two ${comando.projection.minGapMs} ms apart`,
      pass: comando.projection.count >= 2 && comando.projection.minGapMs >= 4950,
    },
    atLeast('Report route with live push vs nobody listening', ratio, goals.routeRatio),
    {
      goal: 'Server CPU per report (nobody listening) vs the bare pg insert route per request',
      target: `≤ ${goals.cpuVsBareInsert}×`,
      measured: `${reportCpu.toFixed(0)} µs vs ${insertCpu.toFixed(0)} µs: ${(reportCpu / insertCpu).toFixed(2)}×`,
      pass: reportCpu <= goals.cpuVsBareInsert * insertCpu,
    },
  ];
  const intro = `Two Comando processes in production configuration (\`node dist/src/main.js\`, PostgreSQL \`${db.name}\`
created for the run, Redis db 14 under one key prefix, Socket.IO with the Redis streams adapter) and,
driving them from this separate load process, ${CLIENTS.toLocaleString('en-US')} socket.io clients (websocket, half on each process)
that join \`gotv\`, held by ${LISTENER_THREADS} worker threads of the load process (one event loop parsing every client's
messages delayed every measurement, the report sends included; send and receipt times are on one clock), plus ${BRIGADE_PHONES} brigade phones (users with the brigade role) posting one voter report per
request at ${REPORT_RATE}/s for ${WARMUP} s of warm-up and ${DURATION} s measured, alternating between the processes, to
${VOTERS.toLocaleString('en-US')} confirmed voters at ${STATIONS} stations (set up through the API first). Latency is report
sent → item received in \`gotv:turnout\` at each client, over every client and every report of the
measured part, so it includes the request's own handling (transaction, duplicate check, scope) and
the 100 ms batching window (one window shared by both processes). The baseline, in the same run with
the same clients and rates: two bare Socket.IO processes on the same adapter that put each posted report
into one shared 100 ms window (the second forwards its reports to the first with \`serverSideEmit\`) and
broadcast it packed as Comando's \`gotv:turnout\` is (its encoder) — the same messages per second and bytes per message, with no
authentication, validation or database. Every ${projectionPushSeconds} s, as often as Comando pushes \`gotv:projection\`, the first also
broadcasts a projection Comando pushed in an earlier run (\`gotv-projection-push.ts\`: ${bytesNote(baseline.projectionBytes)} as JSON,
against ${bytesNote(comando.live.projectionBytes)} for Comando's pushes in this run), because the load process parses every
client's copy on its one thread, where each screen parses only its own. During the route measurements the clients stay connected and
socket.io-client keeps parsing every message, but the harness's delivery bookkeeping (matching each
item to its report) stops: it is measuring apparatus, and it would take CPU from the server it measures.
The CPU one report costs the server (nobody listening) is compared with the bare pg insert route's CPU
per request (Koa, koa-body, one insert: \`baseline-pg-insert.ts\`), measured right after on the same database.`;
  publish({
    id: 'gotv',
    title: 'GOTV in real time',
    command: 'npm run bench:gotv',
    blocks: [
      intro,
      table,
      routeTable,
      { goals: goalList },
      `The last four columns of the first table are CPU over the steady phase, in % of one core: the load
process's own (its clients' parsing; latency figures include its event-loop delay), both app
processes together, PostgreSQL (every backend) and Redis, all sharing ${os.cpus().length} cores.`,
    ],
  });
}

async function cleanUp(): Promise<void> {
  await db.dropAtEnd();
  await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`).catch(() => undefined);
  await deleteRedisKeys(benchRedisUrl, `${BASELINE_PREFIX}:`).catch(() => undefined);
}

runBenchmark(async () => {
  onInterrupt(cleanUp);
  let baseline: GotvRun;
  let comando: ComandoResults;
  try {
    await db.recreate();
    await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`);
    await deleteRedisKeys(benchRedisUrl, `${BASELINE_PREFIX}:`);
    log('bare Socket.IO broadcast, two processes …');
    baseline = await baselinePhase();
    log('Comando, two processes …');
    comando = await comandoPhase();
  } finally {
    agent.destroy();
    await cleanUp();
  }
  report(baseline, comando);
});
