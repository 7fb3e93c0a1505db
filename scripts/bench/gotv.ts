/**
 * `npm run bench:gotv`: election day in real time.
 *
 * Two Comando processes (production configuration) share PostgreSQL and Redis. This process is the
 * load: 2,000 socket.io clients (1,000 on each process) in room `gotv`, held by LISTENER_THREADS
 * worker threads (gotv-listeners.ts), and, on the main thread, brigade phones posting
 * one voter report per request at a steady REPORT_RATE for DURATION seconds, alternating between
 * the processes. For every accepted report it measures report sent → `gotv:turnout` item received
 * at every client (so the figure includes the request itself: an upper bound of accepted →
 * received), checks every client saw every accepted report exactly once, and counts the
 * `gotv:projection` pushes. The baseline, in the same run with the same clients and rates: two bare
 * Socket.IO processes on the same Redis streams adapter broadcasting each 100 ms window of reports
 * as items of the same shape and size, and a recorded projection push as often as Comando pushes
 * (`baseline-socket-broadcast.ts`). Last, `POST /api/gotv/turnout` at full speed (autocannon) on
 * one process with the 2,000 clients listening, then with nobody listening, then the bare pg insert
 * route (`baseline-pg-insert.ts`) for the CPU a report costs against a bare write.
 *
 * Diagnostics (such runs are not written to the doc unless the size is the benchmark's):
 * BENCH_GOTV_TRACE=1 prints, per second of sending, the slowest answer and the slowest delivery,
 * and where a report's time goes (its answer, the wait for its window, the delivery's spread over
 * the clients), and writes the first client's messages (arrival, oldest and newest report sent)
 * to the bench log folder; BENCH_NODE_ARGS / BENCH_CPU_PROF pass node options to the first Comando process.
 * BENCH_GOTV_RECORD_PUSH=<file> writes one of Comando's projection pushes there, to re-record the
 * baseline's (gotv-projection-push.ts).
 * BENCH_GOTV_BARE_INSERT=1 has the baseline insert each report into PostgreSQL before answering it
 * (one `pg` insert, its own table): the least a server that keeps its reports must do.
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
  machineNote,
  markdownTable,
  measure,
  onInterrupt,
  registerFirstAdmin,
  startServer,
  withPg,
  withServer,
  writeDocSection,
  type Measurement,
  type RunningServer,
  type ServerOptions,
} from './lib';
import { projectionPushSeconds } from './gotv-projection-push';

const db = benchDatabase('comando_bench_gotv');
const PREFIX = 'bench-gotv';
const BASELINE_PREFIX = 'bench-gotv-bare';
const CLIENTS = Number(process.env.BENCH_GOTV_CLIENTS ?? 2000);
const REPORT_RATE = Number(process.env.BENCH_GOTV_RATE ?? 200);
const DURATION = Number(process.env.BENCH_GOTV_SECONDS ?? 60);
/**
 * Seconds of reports before the measured part, for both targets. A cold process (JIT, statements
 * prepared on each pooled connection, the first touch of a table just imported) answers slowly
 * for a few seconds, and the backlog it leaves at the listener thread, which runs near its
 * capacity, takes several more to drain: with 5 s the first measured seconds were still draining
 * it. Election day's peak never meets a cold server.
 */
const WARMUP = Number(process.env.BENCH_GOTV_WARMUP ?? 15);
const STATIONS = 300;
const VOTERS = 150_000;
const BRIGADE_PHONES = 10;
/**
 * Worker threads holding the clients. One by default: it takes the clients' parsing off the main
 * thread (which sends the reports and times them), while the simulated screens, which in real life
 * run on their own devices, still get at most one of this machine's two cores. With four threads
 * they took more, starved both app processes, and Comando's HTTP p99 rose to 744 ms.
 */
const LISTENER_THREADS = Number(process.env.BENCH_GOTV_LISTENER_THREADS ?? 1);
/** A diagnostic: the baseline also inserts each report into PostgreSQL before answering (baseline-socket-broadcast.ts). */
const BARE_INSERT = process.env.BENCH_GOTV_BARE_INSERT === '1';
const full = CLIENTS === 2000 && REPORT_RATE === 200 && DURATION === 60 && WARMUP === 15 && LISTENER_THREADS === 1 && !cpuProfileArgs().length && !BARE_INSERT;
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
  const run = newRun(REPORT_RATE * (WARMUP + DURATION), 1, REPORT_RATE, WARMUP + DURATION);
  return { ...run, loadCpuSeconds: 0, serversCpuSeconds: 0, postgresCpuSeconds: 0, redisCpuSeconds: 0, elapsedSeconds: 0 };
}

/** CLIENTS war-room clients over LISTENER_THREADS threads (client i to urls[i % urls.length]); with a token, joined to `gotv`. */
function listen(urls: string[], token: string | undefined, run: GotvRun, voterIds: string[]): Promise<Listeners> {
  return startListeners({ urls, token, clients: CLIENTS, threads: LISTENER_THREADS, voterIds }, run);
}

async function driveRun(run: GotvRun, serverPids: number[], send: (seq: number) => Promise<boolean>): Promise<void> {
  const cpuBefore = cpuReadings(serverPids);
  const startedUs = process.hrtime.bigint() / 1000n;
  const started = performance.now();
  await drive(run, { from: 0, to: run.totalReports, rate: REPORT_RATE, measuredFrom: REPORT_RATE * WARMUP, step: 0 }, send);
  run.elapsedSeconds = (performance.now() - started) / 1000;
  // The profile's clock: cut a BENCH_CPU_PROF profile to this phase with cpuprofile-layers.
  if (process.env.BENCH_CPU_PROF) log(`  steady phase, monotonic µs: ${startedUs} ${process.hrtime.bigint() / 1000n}`);
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
        // Set either way: a DATABASE_URL of the shell would otherwise have the bare baseline insert (or fail to start).
        DATABASE_URL: BARE_INSERT ? db.url : '',
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

/**
 * BENCH_GOTV_TRACE: each measured report's time split into its answer (sent → answered), the wait
 * for its window (answered → first client), and the delivery's spread (first → last client), at
 * the median and averaged over the slowest 1 % of reports by their last delivery.
 */
function stages(name: string, run: GotvRun): string {
  const measured: { http: number; toFirst: number; spread: number; total: number }[] = [];
  for (let seq = REPORT_RATE * WARMUP; seq < run.totalReports; seq++) {
    if (!run.accepted[seq] || !run.lastReceivedAt[seq]) continue;
    const sent = run.sentAt[seq]!;
    measured.push({
      http: run.answeredAt[seq]! - sent,
      toFirst: run.firstReceivedAt[seq]! - run.answeredAt[seq]!,
      spread: run.lastReceivedAt[seq]! - run.firstReceivedAt[seq]!,
      total: run.lastReceivedAt[seq]! - sent,
    });
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const slowest = [...measured].sort((x, y) => y.total - x.total).slice(0, Math.max(1, Math.floor(measured.length / 100)));
  const line = (label: string, rows: typeof measured, of: (values: number[]) => number) =>
    `  ${label}: answer ${of(rows.map((r) => r.http)).toFixed(1)}, window ${of(rows.map((r) => r.toFirst)).toFixed(1)}, spread ${of(rows.map((r) => r.spread)).toFixed(1)}, last ${of(rows.map((r) => r.total)).toFixed(1)}`;
  return `${name} (${measured.length} reports)\n${line('median', measured, median)}\n${line('slowest 1 % (mean)', slowest, mean)}`;
}

/** The mean size of the projection pushes a run's first clients read, as JSON. */
function bytesNote(sizes: number[]): string {
  return sizes.length ? `${Math.round(sizes.reduce((sum, size) => sum + size, 0) / sizes.length).toLocaleString('en-US')} bytes` : 'no push';
}

function report(baseline: GotvRun, comando: ComandoResults, machine: string): { markdown: string; pass: boolean } {
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
  const table = markdownTable(
    [
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
    [
      row(BARE_INSERT ? 'bare Socket.IO broadcast + pg insert, 2 processes (baseline)' : 'bare Socket.IO broadcast, 2 processes (baseline)', baseline, bd),
      row('**Comando, 2 processes**', live, cd),
    ],
  );
  const ratio = comando.withListeners.requestsPerSecond / comando.withoutListeners.requestsPerSecond;
  const routeTable = markdownTable(
    ['POST /api/gotv/turnout, one process, autocannon', 'req/s', 'p50 (ms)', 'p99 (ms)', 'errors / non-2xx', 'Server CPU/request'],
    (
      [
        ['nobody listening', comando.withoutListeners],
        [`${CLIENTS} clients listening (${(CLIENTS / 2).toLocaleString('en-US')} on this process)`, comando.withListeners],
        ['baseline: bare Koa + pg insert, POST /api/territories', comando.bareInsert],
      ] as const
    ).map(([name, m]) => [
      name,
      m.requestsPerSecond.toFixed(0),
      String(m.p50Ms),
      String(m.p99Ms),
      `${m.errors} / ${m.non2xx}`,
      m.serverCpuUsPerRequest === undefined ? '–' : `${m.serverCpuUsPerRequest.toFixed(0)} µs`,
    ]),
  );
  const reportCpu = comando.withoutListeners.serverCpuUsPerRequest ?? Number.NaN;
  const insertCpu = comando.bareInsert.serverCpuUsPerRequest ?? Number.NaN;
  const p99 = live.latencies[0]!.percentile(99);
  const baseP99 = baseline.latencies[0]!.percentile(99);
  const allAccepted = cd.accepted === live.totalReports && live.sendErrors === 0;
  const verdicts: Array<[string, string, string, boolean]> = [
    ['p99 report → event at the clients', `≤ ${goals.p99Ms} ms`, `${p99.toFixed(1)} ms`, p99 <= goals.p99Ms],
    ['p99 vs bare Socket.IO p99', `≤ ${goals.p99VsBaseline}×`, `${(p99 / baseP99).toFixed(2)}×`, p99 <= goals.p99VsBaseline * baseP99],
    [`Every report accepted (${live.totalReports})`, 'all', `${cd.accepted}, ${live.sendErrors} send errors`, allAccepted],
    ['Lost reports (every client sees every accepted report id)', '0', String(cd.lost), cd.lost === 0],
    [
      'gotv:projection pushes, both processes together (closest two `generatedAt` ≥ 4,950 ms apart, and they keep coming)',
      'one per 5 s (GOTV_PROJECTION_PUSH)',
      `${comando.projection.count} pushes, ${comando.projection.perSecond.toFixed(2)}/s, closest two ${comando.projection.minGapMs} ms apart`,
      comando.projection.count >= 2 && comando.projection.minGapMs >= 4950,
    ],
    ['Report route with live push vs nobody listening', `≥ ${goals.routeRatio}`, ratio.toFixed(2), ratio >= goals.routeRatio],
    [
      'Server CPU per report (nobody listening) vs the bare pg insert route per request',
      `≤ ${goals.cpuVsBareInsert}×`,
      `${reportCpu.toFixed(0)} µs vs ${insertCpu.toFixed(0)} µs: ${(reportCpu / insertCpu).toFixed(2)}×`,
      reportCpu <= goals.cpuVsBareInsert * insertCpu,
    ],
  ];
  const goalTable = markdownTable(
    ['Goal', 'Target', 'Measured', 'Result'],
    verdicts.map(([g, t, m, ok]) => [g, t, m, ok ? 'PASS' : 'FAIL']),
  );
  const markdown = `## GOTV in real time

Command: \`npm run bench:gotv\` (\`scripts/bench/gotv.ts\`) · run ${new Date().toISOString()} · machine: ${machine}.

Two Comando processes in production configuration (\`node dist/src/main.js\`, PostgreSQL \`${db.name}\`
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
authentication, validation or database${BARE_INSERT ? ' but one `pg` insert per report before its answer (BENCH_GOTV_BARE_INSERT=1)' : ''}. Every ${projectionPushSeconds} s, as often as Comando pushes \`gotv:projection\`, the first also
broadcasts a projection Comando pushed in an earlier run (\`gotv-projection-push.ts\`: ${bytesNote(baseline.projectionBytes)} as JSON,
against ${bytesNote(comando.live.projectionBytes)} for Comando's pushes in this run), because the load process parses every
client's copy on its one thread, where each screen parses only its own. During the route measurements the clients stay connected and
socket.io-client keeps parsing every message, but the harness's delivery bookkeeping (matching each
item to its report) stops: it is measuring apparatus, and it would take CPU from the server it measures.
The CPU one report costs the server (nobody listening) is compared with the bare pg insert route's CPU
per request (Koa, koa-body, one insert: \`baseline-pg-insert.ts\`), measured right after on the same database.

${table}

${routeTable}

${goalTable}

The last four columns of the first table are CPU over the steady phase, in % of one core: the load
process's own (its clients' parsing; latency figures include its event-loop delay), both app
processes together, PostgreSQL (every backend) and Redis, all sharing ${os.cpus().length} cores.`;
  return { markdown, pass: verdicts.every(([, , , ok]) => ok) };
}

async function cleanUp(): Promise<void> {
  await db.drop().catch((error: unknown) => process.stderr.write(`could not drop ${db.name}: ${String(error)}\n`));
  await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`).catch(() => undefined);
  await deleteRedisKeys(benchRedisUrl, `${BASELINE_PREFIX}:`).catch(() => undefined);
}

async function main(): Promise<void> {
  const machine = machineNote();
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
  const { markdown, pass } = report(baseline, comando, machine);
  if (process.env.BENCH_GOTV_TRACE) {
    // Per second of sending: the slowest answer and the slowest delivery (ms), to find where a tail comes from.
    const seconds = (run: Run) => Array.from(run.slowestBySecond, (slowest, s) => `${s}:${run.slowestAnswerBySecond[s]!.toFixed(0)}/${slowest.toFixed(0)}`).join(' ');
    process.stdout.write(`\nslowest answer/delivery per second, baseline:\n${seconds(baseline)}\nComando:\n${seconds(comando.live)}\n`);
    process.stdout.write(`\nwhere a report's time goes (ms; answered, first client, last client):\n${stages('baseline', baseline)}\n${stages('Comando', comando.live)}\n`);
  }
  process.stdout.write(`\n${markdown}\n`);
  if (full) writeDocSection('gotv', markdown);
  process.stdout.write(`\n${full ? 'Written to docs/benchmarks.md' : 'Not the benchmark size: not written'}. Overall: ${pass ? 'PASS' : 'FAIL'}\n`);
  if (!pass) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
