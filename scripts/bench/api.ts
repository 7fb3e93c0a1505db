/**
 * `npm run bench`: Comando's API against bare baselines measured in the same run.
 *
 *   GET  /api/test         vs bare Koa + @koa/router (and bare node:http, for information)
 *   POST /api/territories  vs bare Koa + koa-body + one pg insert
 *
 * Every server runs alone in its own child process; this process only generates load. Results
 * are printed and written to the "api" section of docs/benchmarks.md.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  withPg,
  benchRedisUrl,
  comandoServer,
  cpuProfileArgs,
  productionNodeArgs,
  defaults,
  machineNote,
  markdownTable,
  measure,
  onInterrupt,
  withServer,
  writeDocSection,
  type LoadOptions,
  type Measurement,
  type RunningServer,
  type ServerOptions,
} from './lib';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'comando_bench';
const DATABASE_URL = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${DB_NAME}` }).toString();

const territoryBody = JSON.stringify({ name: 'Barrio La Esperanza', type: 'neighbourhood' });
const jsonHeaders = { 'content-type': 'application/json' };

const goals = { getRatio: 0.8, postRatio: 0.4, postP99Factor: 3 };

// ---------------------------------------------------------------------------------------------
// Database and Redis set-up

async function dropDatabase(): Promise<void> {
  // FORCE ends sessions a killed server may have left behind.
  await withPg(PG_ADMIN_URL, (client) => client.query(`drop database if exists ${DB_NAME} with (force)`));
}

async function recreateDatabase(): Promise<void> {
  await dropDatabase();
  await withPg(PG_ADMIN_URL, (client) => client.query(`create database ${DB_NAME}`));
}

async function countRows(table: string): Promise<number> {
  // Requests still in flight when autocannon stopped commit a moment later.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return withPg(DATABASE_URL, async (client) => {
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${table}`);
    return Number(rows[0]?.n ?? 0);
  });
}

/** Redis db 14 belongs to the benchmark: rate-limit counters and queues start empty each run. */
async function flushRedis(): Promise<void> {
  const redis = new Redis(benchRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined); // connect() rejects with the same error
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Targets

const jwtSecret = randomBytes(32).toString('hex');

/** Comando as `npm start` runs it (its node options), `BENCH_CPU_PROF=<dir>` profiling it. */
function comando(logLevel: 'info' | 'warn'): ServerOptions {
  return comandoServer({ name: `comando-${logLevel}`, databaseUrl: DATABASE_URL, redisKeyPrefix: 'bench', jwtSecret, logLevel, nodeArgs: cpuProfileArgs() });
}

async function registerAdmin(baseUrl: string): Promise<string> {
  // The first account of a fresh database is the admin.
  const response = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({ email: 'bench-admin@example.org', password: 'bench-password-123', name: 'Bench Admin' }),
  });
  const body = (await response.json()) as { token?: string };
  if (response.status !== 201 || !body.token) throw new Error(`register answered ${response.status}`);
  return body.token;
}

function postTerritory(server: RunningServer, token: string | undefined): LoadOptions {
  return {
    url: `${server.url}/api/territories`,
    serverPid: server.pid,
    method: 'POST',
    headers: token ? { ...jsonHeaders, authorization: `Bearer ${token}` } : jsonHeaders,
    body: territoryBody,
  };
}

interface Results {
  http: Measurement;
  koa: Measurement;
  pgInsert: Measurement;
  pgRows: number;
  getInfo: Measurement;
  postInfo: Measurement;
  comandoRows: number;
  getWarn: Measurement;
  postWarn: Measurement;
}

async function runAll(): Promise<Results> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const baseline = (name: string, script: string, readyPath: string, env: Record<string, string> = {}): ServerOptions => ({
    name,
    script: `dist/scripts/bench/${script}`,
    readyPath,
    env,
  });

  log('bare node:http, GET /api/test …');
  const http = await withServer(baseline('baseline-http', 'baseline-http.js', '/api/test'), (s) => measure({ url: `${s.url}/api/test`, serverPid: s.pid }));
  log('bare Koa, GET /api/test …');
  const koa = await withServer(baseline('baseline-koa', 'baseline-koa.js', '/api/test'), (s) => measure({ url: `${s.url}/api/test`, serverPid: s.pid }));
  log('bare Koa + pg insert, POST /api/territories …');
  const pg = await withServer(baseline('baseline-pg-insert', 'baseline-pg-insert.js', '/healthz', { DATABASE_URL }), async (s) => ({
    m: await measure(postTerritory(s, undefined)),
    rows: await countRows('bench_territories'),
  }));

  log('Comando (LOG_LEVEL=info), GET /api/test and POST /api/territories …');
  let token = '';
  const info = await withServer(comando('info'), async (s) => {
    const get = await measure({ url: `${s.url}/api/test`, serverPid: s.pid });
    token = await registerAdmin(s.url);
    const before = await countRows('territories');
    const post = await measure(postTerritory(s, token));
    return { get, post, rows: (await countRows('territories')) - before };
  });

  // Same server with per-request access logs off: how much of the gap is logging.
  log('Comando (LOG_LEVEL=warn), same two routes …');
  const warn = await withServer(comando('warn'), async (s) => ({
    get: await measure({ url: `${s.url}/api/test`, serverPid: s.pid }),
    post: await measure(postTerritory(s, token)),
  }));

  return {
    http,
    koa,
    pgInsert: pg.m,
    pgRows: pg.rows,
    getInfo: info.get,
    postInfo: info.post,
    comandoRows: info.rows,
    getWarn: warn.get,
    postWarn: warn.post,
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Rows inserted vs 201s counted: equal but for requests in flight when a run stopped. */
function rowCheck(rows: number, m: Measurement): { ok: boolean; text: string } {
  const slack = rows - m.total2xx;
  const ok = slack >= 0 && slack <= 2 * defaults.connections;
  return { ok, text: `${rows} rows for ${m.total2xx} 2xx answers (warm-up + run; ${slack} in flight at stop) — ${ok ? 'OK' : 'MISMATCH'}` };
}

function report(r: Results, machine: string): { markdown: string; pass: boolean } {
  const row = (target: string, m: Measurement, ratio: string) => [
    target,
    fixed(m.requestsPerSecond, 0),
    String(m.p99Ms),
    `${m.errors} / ${m.non2xx}`,
    ratio,
    m.serverCpuUsPerRequest === undefined ? '–' : `${fixed(m.serverCpuUsPerRequest, 0)} µs (${fixed(m.serverCpuPercent ?? 0, 0)}%)`,
  ];
  const vsKoa = (m: Measurement) => `${fixed(m.requestsPerSecond / r.koa.requestsPerSecond)} × bare Koa`;
  const vsPg = (m: Measurement) => `${fixed(m.requestsPerSecond / r.pgInsert.requestsPerSecond)} × req/s, ${fixed(m.p99Ms / r.pgInsert.p99Ms, 1)} × p99 of pg insert`;
  const table = markdownTable(
    ['Target', 'req/s', 'p99 (ms)', 'errors / non-2xx', 'Ratio to baseline', 'Server CPU/request (% of a core)'],
    [
      row('bare node:http — GET /api/test (for information)', r.http, vsKoa(r.http)),
      row('bare Koa + @koa/router — GET /api/test', r.koa, 'baseline'),
      row('**Comando — GET /api/test**', r.getInfo, vsKoa(r.getInfo)),
      row('Comando, LOG_LEVEL=warn — GET /api/test', r.getWarn, vsKoa(r.getWarn)),
      row('bare Koa + koa-body + pg insert — POST', r.pgInsert, 'baseline'),
      row('**Comando — POST /api/territories**', r.postInfo, vsPg(r.postInfo)),
      row('Comando, LOG_LEVEL=warn — POST /api/territories', r.postWarn, vsPg(r.postWarn)),
    ],
  );

  const clean = [r.koa, r.getInfo, r.pgInsert, r.postInfo].every((m) => m.errors === 0 && m.non2xx === 0);
  const getRatio = r.getInfo.requestsPerSecond / r.koa.requestsPerSecond;
  const postRatio = r.postInfo.requestsPerSecond / r.pgInsert.requestsPerSecond;
  const p99Factor = r.postInfo.p99Ms / r.pgInsert.p99Ms;
  const comandoRows = rowCheck(r.comandoRows, r.postInfo);
  const pgRows = rowCheck(r.pgRows, r.pgInsert);
  const verdicts: Array<[string, string, string, boolean]> = [
    ['GET /api/test req/s vs bare Koa', `≥ ${goals.getRatio}`, fixed(getRatio), getRatio >= goals.getRatio],
    ['POST /api/territories req/s vs pg insert', `≥ ${goals.postRatio}`, fixed(postRatio), postRatio >= goals.postRatio],
    ['POST /api/territories p99 vs pg insert p99', `≤ ${goals.postP99Factor}×`, `${fixed(p99Factor, 1)}×`, p99Factor <= goals.postP99Factor],
    ['No errors or non-2xx answers in the compared runs', '0', clean ? '0' : 'some', clean],
    ['Territory rows inserted match 201 answers', 'match', comandoRows.ok ? 'match' : 'mismatch', comandoRows.ok],
  ];
  const goalTable = markdownTable(
    ['Goal', 'Target', 'Measured', 'Result'],
    verdicts.map(([goal, target, measured, ok]) => [goal, target, measured, ok ? 'PASS' : 'FAIL']),
  );

  const cpuFactor = (m: Measurement, base: Measurement) =>
    m.serverCpuUsPerRequest && base.serverCpuUsPerRequest ? `${fixed(m.serverCpuUsPerRequest / base.serverCpuUsPerRequest, 1)}×` : 'n/a ×';
  const logCost = (warn: Measurement, info: Measurement) => {
    const rate = `${fixed((warn.requestsPerSecond / info.requestsPerSecond - 1) * 100, 0)}% more req/s`;
    if (warn.serverCpuUsPerRequest === undefined || info.serverCpuUsPerRequest === undefined) return rate;
    return `${rate}, ${fixed(info.serverCpuUsPerRequest - warn.serverCpuUsPerRequest, 0)} µs less server CPU per request`;
  };
  const markdown = `## API baseline

Command: \`npm run bench\` (\`scripts/bench/api.ts\`) · run ${new Date().toISOString()} · machine: ${machine}.

autocannon, ${defaults.connections} connections, ${defaults.warmupSeconds} s warm-up then ${defaults.durationSeconds} s measured, one target at a time.
Each server runs alone in its own child process; the load generator is the parent process, so on
this 2-core machine server and load generator get a core each. Comando runs its production
configuration (\`node ${productionNodeArgs().join(' ')} dist/src/main.js\` as \`npm start\` runs it, \`NODE_ENV=production\`, PostgreSQL \`${DB_NAME}\`, Redis db 14,
\`LOG_LEVEL=info\`, the default: one access-log line per request, written to a file). The POST body is
\`${territoryBody}\`, sent by an admin token to Comando and as is to the baseline,
which inserts into a table of the same column types, key and (type, name) index with one \`pg\`
query (pool of 10, as Comando's \`DATABASE_POOL_MAX\` default). The last column is the server
process's CPU time per answered request and its load (100% = one core busy; PostgreSQL's own CPU is
not in it): it moves less than req/s when other programs share the cores, so it shows where cost goes.

${table}

${goalTable}

By server CPU per request (steadier than req/s), Comando costs ${cpuFactor(r.getInfo, r.koa)} bare Koa on GET /api/test and
${cpuFactor(r.postInfo, r.pgInsert)} the bare pg-insert route on POST /api/territories.

Sanity: Comando ${comandoRows.text}; baseline ${pgRows.text}.

Logging cost, \`LOG_LEVEL=warn\` (no access-log lines) against the default \`info\`: GET /api/test
${logCost(r.getWarn, r.getInfo)}; POST /api/territories ${logCost(r.postWarn, r.postInfo)}.
The goals are judged on the default \`info\`. On this shared 2-core VM, req/s of one target moves by
about ±10% from run to run (more when another program is busy: see the load average above);
compare ratios and CPU per request rather than absolute numbers.`;
  return { markdown, pass: verdicts.every(([, , , ok]) => ok) };
}

async function main(): Promise<void> {
  const machine = machineNote(); // before our own load raises the load average
  onInterrupt(dropDatabase);
  onInterrupt(flushRedis);
  let results: Results;
  try {
    await recreateDatabase();
    await flushRedis();
    results = await runAll();
  } finally {
    await dropDatabase().catch((error: unknown) => process.stderr.write(`could not drop ${DB_NAME}: ${String(error)}\n`));
    await flushRedis().catch(() => undefined);
  }
  const { markdown, pass } = report(results, machine);
  process.stdout.write(`\n${markdown}\n`);
  writeDocSection('api', markdown);
  process.stdout.write(`\nWritten to docs/benchmarks.md. Overall: ${pass ? 'PASS' : 'FAIL'}\n`);
  if (!pass) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
