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
import http from 'node:http';
import os from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { setUpElectionDay } from './gotv-fixtures';
import { HISTOGRAM_BUCKETS, Histogram, sharedNow, type ListenerCommand, type ListenerEvent, type ListenerJob } from './gotv-listeners';
import {
  barePgInsertLoad,
  barePgInsertServer,
  benchDatabase,
  comandoServer,
  cpuProfileArgs,
  benchRedisUrl,
  callJson,
  commandCpuSeconds,
  cpuSeconds,
  deleteRedisKeys,
  logDir,
  machineNote,
  markdownTable,
  measure,
  onInterrupt,
  ownCpuSeconds,
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
// One run's record: send times and deliveries in shared memory, written by the listener threads

interface Run {
  totalReports: number;
  /** Absolute send time of each report (`sharedNow()`), read by the listener threads. */
  sentAt: Float64Array;
  /** BENCH_GOTV_TRACE: when each report was answered, and first and last received by any client. */
  answeredAt: Float64Array;
  firstReceivedAt: Float64Array;
  lastReceivedAt: Float64Array;
  accepted: Uint8Array;
  httpLatency: Histogram;
  sendErrors: number;
  loadCpuSeconds: number;
  /** CPU seconds over the steady phase: both app processes, PostgreSQL (all backends), Redis. */
  serversCpuSeconds: number;
  postgresCpuSeconds: number;
  redisCpuSeconds: number;
  elapsedSeconds: number;
  // Filled by the listeners:
  latency: Histogram;
  received: Uint8Array[];
  messages: number;
  duplicates: number;
  projectionPushes: number[][];
  /** The size of each gotv:projection push as JSON, as the first client on each process read it. */
  projectionBytes: number[];
  /** Per second of sending: the slowest delivery (all listener threads write it) and the slowest answer. */
  slowestBySecond: Float64Array;
  slowestAnswerBySecond: Float64Array;
}

function newRun(): Run {
  const totalReports = REPORT_RATE * (WARMUP + DURATION);
  return {
    totalReports,
    sentAt: new Float64Array(new SharedArrayBuffer(totalReports * 8)),
    answeredAt: new Float64Array(totalReports),
    firstReceivedAt: new Float64Array(new SharedArrayBuffer(totalReports * 8)),
    lastReceivedAt: new Float64Array(new SharedArrayBuffer(totalReports * 8)),
    accepted: new Uint8Array(totalReports),
    httpLatency: new Histogram(),
    sendErrors: 0,
    loadCpuSeconds: 0,
    serversCpuSeconds: 0,
    postgresCpuSeconds: 0,
    redisCpuSeconds: 0,
    elapsedSeconds: 0,
    latency: new Histogram(),
    received: [],
    messages: 0,
    duplicates: 0,
    projectionPushes: [],
    projectionBytes: [],
    slowestBySecond: new Float64Array(new SharedArrayBuffer((WARMUP + DURATION) * 8)),
    slowestAnswerBySecond: new Float64Array(WARMUP + DURATION),
  };
}

// ---------------------------------------------------------------------------------------------
// Clients: CLIENTS socket.io clients spread over LISTENER_THREADS worker threads of this process

interface Thread {
  worker: Worker;
  histogram: Histogram;
  counters: Int32Array;
  received: Uint8Array[];
}

interface Listeners {
  run: Run;
  threads: Thread[];
}

function nextEvent(worker: Worker, type: ListenerEvent['type']): Promise<ListenerEvent> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: ListenerEvent) => {
      if (event.type === 'error') reject(new Error(`listener thread: ${event.message}`));
      else if (event.type === type) resolve(event);
      else return;
      worker.off('message', onMessage);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

/** Connects every client (client i to urls[i % urls.length]) and, with a token, joins them to `gotv`. */
async function startListeners(urls: string[], token: string | undefined, run: Run, voterIds: string[]): Promise<Listeners> {
  const perThread = Math.ceil(CLIENTS / LISTENER_THREADS);
  const threads: Thread[] = [];
  for (let firstClient = 0; firstClient < CLIENTS; firstClient += perThread) {
    const clients = Math.min(perThread, CLIENTS - firstClient);
    const job: ListenerJob = {
      urls,
      token,
      firstClient,
      clients,
      totalReports: run.totalReports,
      measuredFrom: REPORT_RATE * WARMUP,
      voterIds,
      sentAt: run.sentAt.buffer as SharedArrayBuffer,
      firstReceivedAt: run.firstReceivedAt.buffer as SharedArrayBuffer,
      lastReceivedAt: run.lastReceivedAt.buffer as SharedArrayBuffer,
      received: new SharedArrayBuffer(clients * run.totalReports),
      histogram: new SharedArrayBuffer(HISTOGRAM_BUCKETS * 4),
      counters: new SharedArrayBuffer(8),
      slowestBySecond: run.slowestBySecond.buffer as SharedArrayBuffer,
      reportRate: REPORT_RATE,
    };
    const worker = new Worker(path.join(__dirname, 'gotv-listeners.js'), { workerData: job });
    threads.push({
      worker,
      histogram: new Histogram(job.histogram),
      counters: new Int32Array(job.counters),
      received: Array.from({ length: clients }, (_, c) => new Uint8Array(job.received, c * run.totalReports, run.totalReports)),
    });
  }
  await Promise.all(threads.map((thread) => nextEvent(thread.worker, 'ready')));
  return { run, threads };
}

/** Closes the clients, ends the threads and gathers what they recorded into the run. */
async function stopListeners({ run, threads }: Listeners): Promise<void> {
  const pushes: number[][] = [];
  for (const thread of threads) {
    const closed = nextEvent(thread.worker, 'closed');
    thread.worker.postMessage({ type: 'close' } satisfies ListenerCommand);
    const event = (await closed) as Extract<ListenerEvent, { type: 'closed' }>;
    event.projectionPushes.forEach((list, i) => (pushes[i] = [...(pushes[i] ?? []), ...list]));
    run.projectionBytes.push(...event.projectionBytes);
    await thread.worker.terminate();
    run.latency.add(thread.histogram);
    run.received.push(...thread.received);
    run.messages += thread.counters[0]!;
    run.duplicates += thread.counters[1]!;
  }
  run.projectionPushes = pushes;
}

// ---------------------------------------------------------------------------------------------
// Brigade phones: a steady rate of single-report POSTs over keep-alive connections

// Idle connections are dropped before any server's keep-alive timeout (the baseline's is Node's
// default, 5 s; Comando's HTTP_KEEP_ALIVE_TIMEOUT, 65 s), so a request never goes out on a
// connection the server is closing at that moment (ECONNRESET).
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo', timeout: 4000 });

function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** CPU seconds so far of the load process, the app processes, PostgreSQL and Redis (NaN where unreadable). */
function cpuReadings(serverPids: number[]): { load: number; servers: number; postgres: number; redis: number } {
  return {
    load: ownCpuSeconds(),
    servers: serverPids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? Number.NaN), 0),
    postgres: commandCpuSeconds('postgres') ?? Number.NaN,
    redis: commandCpuSeconds('redis-server') ?? Number.NaN,
  };
}

async function drive(run: Run, serverPids: number[], send: (seq: number) => Promise<boolean>): Promise<void> {
  const cpuBefore = cpuReadings(serverPids);
  const startedUs = process.hrtime.bigint() / 1000n;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let seq = 0;
  while (seq < run.totalReports) {
    const due = Math.min(run.totalReports, Math.floor(((performance.now() - started) / 1000) * REPORT_RATE));
    for (; seq < due; seq++) {
      const mine = seq;
      run.sentAt[mine] = sharedNow();
      const promise = send(mine)
        .then((accepted) => {
          run.answeredAt[mine] = sharedNow();
          const answeredIn = run.answeredAt[mine] - run.sentAt[mine]!;
          run.httpLatency.record(answeredIn);
          const second = Math.floor(mine / REPORT_RATE);
          run.slowestAnswerBySecond[second] = Math.max(run.slowestAnswerBySecond[second]!, answeredIn);
          if (accepted) run.accepted[mine] = 1;
        })
        .catch((error: unknown) => {
          if (!run.sendErrors++) log(`  a report could not be sent: ${String(error)}`);
        })
        .finally(() => inFlight.delete(promise));
      inFlight.add(promise);
    }
    await sleep(2);
  }
  await Promise.all(inFlight);
  run.elapsedSeconds = (performance.now() - started) / 1000;
  // The profile's clock: cut a BENCH_CPU_PROF profile to this phase with cpuprofile-layers.
  if (process.env.BENCH_CPU_PROF) log(`  steady phase, monotonic µs: ${startedUs} ${process.hrtime.bigint() / 1000n}`);
  await sleep(2000); // the last window, and anything still crossing Redis
  const cpuAfter = cpuReadings(serverPids);
  run.loadCpuSeconds = cpuAfter.load - cpuBefore.load;
  run.serversCpuSeconds = cpuAfter.servers - cpuBefore.servers;
  run.postgresCpuSeconds = cpuAfter.postgres - cpuBefore.postgres;
  run.redisCpuSeconds = cpuAfter.redis - cpuBefore.redis;
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

async function baselinePhase(): Promise<Run> {
  const servers: RunningServer[] = [];
  try {
    for (const name of ['bare-socket-a', 'bare-socket-b']) {
      const env = {
        REDIS_URL: benchRedisUrl,
        REDIS_KEY_PREFIX: BASELINE_PREFIX,
        WINDOW_OWNER: name.endsWith('-a') ? '1' : '0',
        ...(BARE_INSERT ? { DATABASE_URL: db.url } : {}),
      };
      const nodeArgs = name.endsWith('-a') ? cpuProfileArgs() : [];
      servers.push(await startServer({ name, script: 'dist/scripts/bench/baseline-socket-broadcast.js', readyPath: '/healthz', env, nodeArgs }));
    }
    const run = newRun();
    // UUIDs like Comando's voter and station ids, so that both runs carry the same bytes.
    const voterIds = Array.from({ length: run.totalReports }, () => randomUUID());
    const stationIds = Array.from({ length: STATIONS }, () => randomUUID());
    const listeners = await startListeners(
      servers.map((server) => server.url),
      undefined,
      run,
      voterIds,
    );
    log(`  ${CLIENTS} clients connected (${listeners.threads.length} listener threads); ${REPORT_RATE} reports/s for ${WARMUP} + ${DURATION} s …`);
    await drive(
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
  live: Run;
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
    const live = newRun();
    const listeners = await startListeners([a.url, b.url], setup.viewerToken, live, setup.voterIds);
    log(`  ${CLIENTS} clients connected and subscribed (${listeners.threads.length} listener threads); ${REPORT_RATE} reports/s for ${WARMUP} + ${DURATION} s …`);
    const projectionFrom = Date.now();
    await drive(live, [a.pid, b.pid], async (seq) => {
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
    for (const thread of listeners.threads) thread.worker.postMessage({ type: 'stop-recording' } satisfies ListenerCommand);
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

interface Delivery {
  accepted: number;
  lost: number;
  clientsMissing: number;
}

function delivery(run: Run): Delivery {
  let accepted = 0;
  for (let seq = 0; seq < run.totalReports; seq++) accepted += run.accepted[seq]!;
  let lost = 0;
  let clientsMissing = 0;
  for (const seen of run.received) {
    let missing = 0;
    for (let seq = 0; seq < run.totalReports; seq++) if (run.accepted[seq] && !seen[seq]) missing++;
    lost += missing;
    if (missing) clientsMissing++;
  }
  return { accepted, lost, clientsMissing };
}

/**
 * BENCH_GOTV_TRACE: each measured report's time split into its answer (sent → answered), the wait
 * for its window (answered → first client), and the delivery's spread (first → last client), at
 * the median and averaged over the slowest 1 % of reports by their last delivery.
 */
function stages(name: string, run: Run): string {
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

function report(baseline: Run, comando: ComandoResults, machine: string): { markdown: string; pass: boolean } {
  const live = comando.live;
  const [bd, cd] = [delivery(baseline), delivery(live)];
  const row = (name: string, run: Run, d: Delivery) => [
    name,
    (d.accepted / run.elapsedSeconds).toFixed(0),
    run.latency.percentile(50).toFixed(1),
    run.latency.percentile(99).toFixed(1),
    run.httpLatency.percentile(99).toFixed(1),
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
  const p99 = live.latency.percentile(99);
  const baseP99 = baseline.latency.percentile(99);
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
  let baseline: Run;
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
