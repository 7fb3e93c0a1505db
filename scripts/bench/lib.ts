/**
 * Shared pieces of the benchmarks in scripts/bench/: the settings every script reads (its `BENCH_*`
 * environment knobs), a server in a child process, a throw-away database and API data, and load
 * with autocannon. The report (tables, goals, docs/benchmarks.md) is report.ts.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { z } from 'zod';

/** Repository root: dist/scripts/bench/lib.js → three levels up. */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** Server logs go to files here rather than to pipes the load generator would have to drain. */
export const logDir = path.join(os.tmpdir(), 'comando-bench');

// ---------------------------------------------------------------------------------------------
// Settings: the few knobs every benchmark shares, read here once

const positiveNumber = z.coerce.number().positive().finite();
const positiveInteger = z.coerce.number().int().positive();
const settingsSchema = z
  .object({
    /** Measured seconds of each load (each step, each phase); every script has its own default. */
    BENCH_SECONDS: positiveNumber.optional(),
    /** Warm-up seconds before each measured load. */
    BENCH_WARMUP: z.coerce.number().min(0).finite().optional(),
    /** Multiplies the data and the clients of a run (contacts, voters, recipients, posts, screens). */
    BENCH_SCALE: positiveNumber.default(1),
    /** Rounds of the benchmarks that repeat a target and keep the best or the median. */
    BENCH_ROUNDS: positiveInteger.optional(),
    /** Reports a second the election-day benchmarks send (bench:scale: the highest step). */
    BENCH_RATE: positiveInteger.optional(),
    /** Appended to every bench database's name, so two people's runs do not drop each other's. */
    BENCH_DB_SUFFIX: z
      .string()
      .regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and _ only')
      .default(''),
    BENCH_REDIS_URL: z.url().default('redis://127.0.0.1:6379/14'),
    /** A superuser connection of the local PostgreSQL, used to create and drop bench databases. */
    BENCH_PG_ADMIN_URL: z.url().default('postgres://postgres@127.0.0.1:5432/postgres'),
    /** A folder: Comando (and the baselines it is compared with) write V8 CPU profiles there. */
    BENCH_CPU_PROF: z.string().min(1).optional(),
  })
  .strict();

/** Parses the knobs and the one switch; a bad value stops the run with a message naming it. */
export function parseSettings(env: NodeJS.ProcessEnv, argv: readonly string[]) {
  const parsed = settingsSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([key, value]) => key.startsWith('BENCH_') && value !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      // A knob of an earlier harness would otherwise be ignored without a word.
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')}: not a benchmark setting (docs/benchmarks.md lists them under "Knobs")`
        : `${issue.path.join('.')}=${JSON.stringify(env[String(issue.path[0])])}: ${issue.message}`,
    );
    throw new Error(`bad benchmark setting: ${problems.join('; ')}`);
  }
  const knobs = parsed.data;
  return {
    seconds: knobs.BENCH_SECONDS,
    warmup: knobs.BENCH_WARMUP,
    scale: knobs.BENCH_SCALE,
    rounds: knobs.BENCH_ROUNDS,
    rate: knobs.BENCH_RATE,
    dbSuffix: knobs.BENCH_DB_SUFFIX,
    redisUrl: knobs.BENCH_REDIS_URL,
    pgAdminUrl: knobs.BENCH_PG_ADMIN_URL,
    cpuProfileDir: knobs.BENCH_CPU_PROF === undefined ? undefined : path.resolve(knobs.BENCH_CPU_PROF),
    /** `--write-doc`: the run rewrites its section of docs/benchmarks.md. */
    writeDoc: argv.includes('--write-doc'),
  };
}

export type Settings = ReturnType<typeof parseSettings>;

function loadSettings(): Settings {
  try {
    return parseSettings(process.env, process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
}

export const settings = loadSettings();

/** A size of the benchmark multiplied by BENCH_SCALE (at least 1). */
export function scaled(size: number): number {
  return Math.max(1, Math.round(size * settings.scale));
}

/**
 * A run whose timing knobs are the script's own and that is not profiled: the only runs written to
 * docs/benchmarks.md (BENCH_SCALE is judged by each script: some record more than one size).
 */
export const timingIsTheBenchmarks =
  settings.seconds === undefined && settings.warmup === undefined && settings.rounds === undefined && settings.rate === undefined && settings.cpuProfileDir === undefined;

// ---------------------------------------------------------------------------------------------
// Servers in child processes

/** A port the OS reports free now (a tiny race with other programs is acceptable here). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerOptions {
  /** Short name for messages and the log file name. */
  name: string;
  /** Script run with this same node binary; relative paths are from the repository root. */
  script: string;
  /** Options for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Extra environment (PORT and HOST are set by startServer). */
  env?: Record<string, string>;
  /** Path polled until it answers 200. */
  readyPath: string;
  readyTimeoutMs?: number;
}

export interface RunningServer {
  name: string;
  url: string;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

/**
 * Work to do should the run be interrupted (Ctrl-C), e.g. dropping a database. On normal
 * completion and on errors the caller's own finally blocks do it.
 */
export function onInterrupt(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

// Last resort: never leave a server behind, whatever way the harness ends.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping servers and cleaning up\n`);
    for (const child of children) child.kill('SIGKILL');
    const deadline = new Promise((resolve) => setTimeout(resolve, 5000).unref());
    const done = Promise.allSettled(cleanups.map((cleanup) => cleanup()));
    void Promise.race([done, deadline]).then(() => process.exit(130));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function waitUntilReady(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

/** The parts of package.json the benchmarks follow: the Node it asks for and how `npm start` runs Comando. */
function projectManifest(): { engines?: { node?: string }; scripts?: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { engines?: { node?: string }; scripts?: Record<string, string> };
}

/**
 * The Node major package.json's `engines` asks for. Servers run on this process's node binary, and
 * `node dist/scripts/bench/….js` typed by hand reaches the machine's own Node (20 here), which
 * measures another runtime: `npm run` puts the project's Node 24 first on PATH.
 */
function requireProjectNode(): void {
  const wanted = Number(/(\d+)/.exec(projectManifest().engines?.node ?? '')?.[1] ?? 0);
  const running = Number(process.versions.node.split('.')[0]);
  if (running < wanted) {
    throw new Error(
      `the benchmarks run on Node ${wanted} or later (package.json engines), this is ${process.version}: run them with npm run, or put node_modules/.bin first on PATH`,
    );
  }
}

/** Spawns `node <script>` on a free port of 127.0.0.1 and resolves once readyPath answers 200. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  requireProjectNode();
  const port = await freePort();
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${options.name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.log`);
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.resolve(repoRoot, options.script)], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    // A file, not a pipe: a pipe nobody drains would stall the server, and draining it would
    // cost the load generator CPU.
    stdio: ['ignore', log, log],
  });
  closeSync(log); // the child holds its own copy
  children.add(child);
  child.once('exit', () => children.delete(child));

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.kill('SIGTERM'); // graceful: lets Comando close its DB and Redis connections
    await exited(child);
    clearTimeout(killer);
  };
  try {
    await waitUntilReady(child, url + options.readyPath, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${options.name} ${(error as Error).message}; log ${logFile}:\n${tail(logFile)}`, { cause: error });
  }
  return { name: options.name, url, pid: child.pid ?? 0, logFile, stop };
}

/**
 * The bare pg insert route (`baseline-pg-insert.ts`: Koa, koa-body, one insert per POST) on a
 * database of the run: the cost floor a write route is compared with.
 */
export function barePgInsertServer(databaseUrl: string, nodeArgs: string[] = []): ServerOptions {
  return { name: 'baseline-pg-insert', script: 'dist/scripts/bench/baseline-pg-insert.js', readyPath: '/healthz', env: { DATABASE_URL: databaseUrl }, nodeArgs };
}

/** Full-speed POSTs to the bare pg insert route, with its server's CPU per request. */
export function barePgInsertLoad(server: RunningServer): LoadOptions {
  return {
    url: `${server.url}/api/territories`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Barrio de prueba', type: 'neighbourhood' }),
    serverPid: server.pid,
  };
}

/** Runs fn with a started server and always stops it afterwards. */
export async function withServer<T>(options: ServerOptions, fn: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(options);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** Node options that profile a process into BENCH_CPU_PROF's folder (none without it); such runs are not written to the doc. */
export function cpuProfileArgs(): string[] {
  return settings.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`] : [];
}

export interface ComandoServerOptions {
  name: string;
  databaseUrl: string;
  /** Keeps this run's Redis keys apart, so they can be deleted afterwards. */
  redisKeyPrefix: string;
  /** Processes that must accept each other's tokens share one; otherwise a random one. */
  jwtSecret?: string;
  nodeArgs?: string[];
  /** `info` (production's default) unless given. */
  logLevel?: string;
  /** The module's own settings. */
  env?: Record<string, string>;
}

/**
 * The node options of the `start` script in package.json (`node <options> dist/src/main.js`), so
 * a benchmark runs Comando exactly as production starts it.
 */
export function productionNodeArgs(): string[] {
  const start = projectManifest().scripts?.start;
  const words = start?.trim().split(/\s+/) ?? [];
  if (words[0] !== 'node' || words.at(-1) !== 'dist/src/main.js') throw new Error(`unexpected start script: ${start}`);
  return words.slice(1, -1);
}

/** Comando in its production configuration (`npm start`'s node options) on a bench database and Redis. */
export function comandoServer(options: ComandoServerOptions): ServerOptions {
  return {
    name: options.name,
    script: 'dist/src/main.js',
    nodeArgs: [...productionNodeArgs(), ...(options.nodeArgs ?? [])],
    readyPath: '/readyz',
    readyTimeoutMs: 60_000, // migrations run at start
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: benchRedisUrl,
      REDIS_KEY_PREFIX: options.redisKeyPrefix,
      JWT_SECRET: options.jwtSecret ?? randomBytes(32).toString('hex'),
      LOG_LEVEL: options.logLevel ?? 'info',
      DATA_DIR: path.join(logDir, 'data'), // unused with DATABASE_URL; kept out of the checkout
      ...options.env,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL, Redis and API set-up

export const pgAdminUrl = settings.pgAdminUrl;
export const benchRedisUrl = settings.redisUrl;

export async function withPg<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  name: string;
  url: string;
  /** Drops (ending any sessions left behind) and creates it empty. */
  recreate(): Promise<void>;
  drop(): Promise<void>;
  /** Drops it at the end of a run: a failure is said on stderr, not thrown, so the run's result stands. */
  dropAtEnd(): Promise<void>;
  /** `select count(*)` of each table, in one connection. */
  count(tables: readonly string[]): Promise<Record<string, number>>;
}

/**
 * A throw-away database beside pgAdminUrl's; the name must be a plain identifier. BENCH_DB_SUFFIX
 * is appended to it, so that two people running the same benchmark on one PostgreSQL do not drop
 * each other's database (each run recreates its database at the start and drops it at the end).
 */
export function benchDatabase(base: string): BenchDatabase {
  const name = `${base}${settings.dbSuffix}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const url = Object.assign(new URL(pgAdminUrl), { pathname: `/${name}` }).toString();
  const drop = async (): Promise<void> => {
    // FORCE ends sessions a killed server may have left behind.
    await withPg(pgAdminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
  };
  return {
    name,
    url,
    drop,
    dropAtEnd: () => drop().catch((error: unknown) => void process.stderr.write(`could not drop ${name}: ${String(error)}\n`)),
    async recreate() {
      await drop();
      await withPg(pgAdminUrl, (client) => client.query(`create database ${name}`));
    },
    count: (tables) =>
      withPg(url, async (client) => {
        const counts: Record<string, number> = {};
        for (const table of tables) {
          const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${client.escapeIdentifier(table)}`);
          counts[table] = Number(rows[0]?.n ?? 0);
        }
        return counts;
      }),
  };
}

/** Deletes the keys under one prefix (a server's REDIS_KEY_PREFIX), leaving the rest of the db alone. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined); // connect() rejects with the same error
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) deleted += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** A JSON call to a server under test; throws unless it answers the expected status. */
export async function callJson<T>(url: string, options: { method?: 'GET' | 'POST' | 'PATCH'; body?: unknown; token?: string; expect?: number } = {}): Promise<T> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const response = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const expected = options.expect ?? 200;
  if (response.status !== expected) {
    throw new Error(`${method} ${url} answered ${response.status} (expected ${expected}): ${text.slice(0, 500)}`);
  }
  return JSON.parse(text) as T;
}

/** The first account of a fresh database is the admin; returns its token. */
export async function registerFirstAdmin(baseUrl: string): Promise<string> {
  const body = await callJson<{ token?: string }>(`${baseUrl}/api/auth/register`, {
    body: { email: 'bench-admin@example.org', password: 'bench-password-123', name: 'Bench Admin' },
    expect: 201,
  });
  if (!body.token) throw new Error('register answered no token');
  return body.token;
}

// ---------------------------------------------------------------------------------------------
// Load

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * A request sequence instead of method/headers/body; a `setupRequest` function in it builds
   * each request anew (e.g. a different body every time). Each connection cycles through it.
   */
  requests?: autocannon.Request[];
  connections?: number;
  /** Requests per second over all connections (autocannon's overallRate); full speed if unset. */
  overallRate?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  /** The server's process, to report the CPU it spends per request. */
  serverPid?: number;
  /**
   * More CPU to report per request, by name: functions returning CPU seconds used so far
   * (e.g. `() => commandCpuSeconds('postgres')`), read before and after the measured run.
   */
  otherCpu?: Record<string, () => number | undefined>;
}

export interface Measurement {
  /** Mean of the per-second request counts. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /** 2xx responses in the warm-up and the measurement together (for row-count checks). */
  total2xx: number;
  /**
   * Requests sent but not answered when the warm-up and the measured run stopped: the server
   * may still complete them (a row count may exceed total2xx by up to this many).
   */
  inFlightAtStop: number;
  /** Count per HTTP status, warm-up and measured run together. */
  statusCounts: Record<string, number>;
  /**
   * Server CPU time per answered request (µs) and its share of one core, when serverPid is
   * given. Less sensitive than req/s to other programs taking the cores, so it shows cost.
   */
  serverCpuUsPerRequest?: number;
  serverCpuPercent?: number;
  /** The otherCpu probes' CPU time per answered request (µs), by name. */
  otherCpuUsPerRequest?: Record<string, number>;
}

/** The fields of /proc/<pid>/stat after the parenthesised command name, and that name. */
function procStat(pid: number | string): { comm: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(') ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds a process has used so far (Linux /proc; undefined elsewhere). */
export function cpuSeconds(pid: number): number | undefined {
  const fields = procStat(pid)?.fields ?? [];
  // utime and stime are the 14th and 15th fields of the whole line.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / 100 : undefined; // USER_HZ is 100 on Linux
}

/**
 * CPU seconds used so far by every process whose command name is `comm` (e.g. `postgres`: the
 * postmaster and its backends), including children they have reaped (backends that ended), so
 * that the difference of two readings covers all of the server's work. Linux only.
 */
export function commandCpuSeconds(comm: string): number | undefined {
  let ticks = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat?.comm !== comm) continue;
    // utime, stime, cutime, cstime: fields 14 to 17.
    const [utime, stime, cutime, cstime] = stat.fields.slice(11, 15).map(Number);
    ticks += (utime ?? 0) + (stime ?? 0) + (cutime ?? 0) + (cstime ?? 0);
    found = true;
  }
  return found ? ticks / 100 : undefined;
}

/** Busy CPU seconds of the whole machine so far, all cores (Linux /proc/stat; undefined elsewhere). */
export function machineCpuSeconds(): number | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal …
    const [user, nice, system, , , irq, softirq, steal] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const ticks = [user, nice, system, irq, softirq, steal].reduce<number>((sum, value) => sum + (value ?? 0), 0);
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds this process (the load generator) has used so far. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Defaults of the autocannon loads; BENCH_SECONDS / BENCH_WARMUP shorten a smoke run. */
export const defaults = {
  connections: 50,
  durationSeconds: settings.seconds ?? 10,
  warmupSeconds: settings.warmup ?? 3,
};

function run(options: LoadOptions, durationSeconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.requests === undefined ? {} : { requests: options.requests }),
    connections: options.connections ?? defaults.connections,
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    duration: durationSeconds,
  });
}

function answeredCount(result: autocannon.Result): number {
  return result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
}

/** autocannon reports the requests it sent as `requests.sent` (missing from its type definitions). */
function inFlight(result: autocannon.Result): number {
  const sent = (result.requests as autocannon.Histogram & { sent?: number }).sent;
  return sent === undefined ? 0 : Math.max(0, sent - answeredCount(result) - result.errors - result.timeouts);
}

/**
 * A warm-up (JIT, connection pools, caches) then the measured run, both with the same
 * connections. Only the measured run's numbers are reported.
 */
export async function measure(options: LoadOptions): Promise<Measurement> {
  const warmup = await run(options, options.warmupSeconds ?? defaults.warmupSeconds);
  const otherProbes = Object.entries(options.otherCpu ?? {});
  const otherBefore = otherProbes.map(([, probe]) => probe());
  const cpuBefore = options.serverPid ? cpuSeconds(options.serverPid) : undefined;
  const result = await run(options, options.durationSeconds ?? defaults.durationSeconds);
  const cpuAfter = options.serverPid ? cpuSeconds(options.serverPid) : undefined;
  const otherAfter = otherProbes.map(([, probe]) => probe());
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  const answered = answeredCount(result);
  const otherCpuUsPerRequest: Record<string, number> = {};
  otherProbes.forEach(([name], i) => {
    const before = otherBefore[i];
    const after = otherAfter[i];
    if (before !== undefined && after !== undefined && answered > 0) otherCpuUsPerRequest[name] = ((after - before) * 1e6) / answered;
  });
  const statusCounts: Record<string, number> = {};
  for (const stats of [warmup.statusCodeStats, result.statusCodeStats]) {
    for (const [status, { count }] of Object.entries(stats ?? {})) statusCounts[status] = (statusCounts[status] ?? 0) + (count ?? 0);
  }
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total2xx: warmup['2xx'] + result['2xx'],
    inFlightAtStop: inFlight(warmup) + inFlight(result),
    statusCounts,
    ...(cpu === undefined || answered === 0 ? {} : { serverCpuUsPerRequest: (cpu * 1e6) / answered, serverCpuPercent: (cpu * 100) / result.duration }),
    ...(otherProbes.length ? { otherCpuUsPerRequest } : {}),
  };
}
