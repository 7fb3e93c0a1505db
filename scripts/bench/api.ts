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
import {
  benchDatabase,
  benchRedisUrl,
  comandoServer,
  cpuProfileArgs,
  productionNodeArgs,
  defaults,
  deleteRedisKeys,
  measure,
  onInterrupt,
  registerFirstAdmin,
  withServer,
  type LoadOptions,
  type Measurement,
  type RunningServer,
  type ServerOptions,
} from './lib';
import { atLeast, atMost, noErrors, loadTable, publish, runBenchmark } from './report';

const db = benchDatabase('comando_bench');
const REDIS_KEY_PREFIX = 'bench-api';

const territoryBody = JSON.stringify({ name: 'Barrio La Esperanza', type: 'neighbourhood' });
const jsonHeaders = { 'content-type': 'application/json' };

const goals = { getRatio: 0.8, postRatio: 0.4, postP99Factor: 3 };

async function countRows(table: string): Promise<number> {
  // Requests still in flight when autocannon stopped commit a moment later.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return (await db.count([table]))[table] ?? 0;
}

async function cleanUp(): Promise<void> {
  await db.dropAtEnd();
  await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`).catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------
// Targets

const jwtSecret = randomBytes(32).toString('hex');

/** Comando as `npm start` runs it (its node options), `BENCH_CPU_PROF=<dir>` profiling it. */
function comando(logLevel: 'info' | 'warn'): ServerOptions {
  return comandoServer({ name: `comando-${logLevel}`, databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX, jwtSecret, logLevel, nodeArgs: cpuProfileArgs() });
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
  const pg = await withServer(baseline('baseline-pg-insert', 'baseline-pg-insert.js', '/healthz', { DATABASE_URL: db.url }), async (s) => ({
    m: await measure(postTerritory(s, undefined)),
    rows: await countRows('bench_territories'),
  }));

  log('Comando (LOG_LEVEL=info), GET /api/test and POST /api/territories …');
  let token = '';
  const info = await withServer(comando('info'), async (s) => {
    const get = await measure({ url: `${s.url}/api/test`, serverPid: s.pid });
    token = await registerFirstAdmin(s.url);
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

function report(r: Results): void {
  const koa = { baseline: r.koa, name: 'bare Koa' };
  const pg = { baseline: r.pgInsert, name: 'pg insert' };
  const comandoRows = rowCheck(r.comandoRows, r.postInfo);
  const pgRows = rowCheck(r.pgRows, r.pgInsert);
  const cpuFactor = (m: Measurement, base: Measurement) =>
    m.serverCpuUsPerRequest && base.serverCpuUsPerRequest ? `${fixed(m.serverCpuUsPerRequest / base.serverCpuUsPerRequest, 1)}×` : 'n/a ×';
  const logCost = (warn: Measurement, info: Measurement) => {
    const rate = `${fixed((warn.requestsPerSecond / info.requestsPerSecond - 1) * 100, 0)}% more req/s`;
    if (warn.serverCpuUsPerRequest === undefined || info.serverCpuUsPerRequest === undefined) return rate;
    return `${rate}, ${fixed(info.serverCpuUsPerRequest - warn.serverCpuUsPerRequest, 0)} µs less server CPU per request`;
  };
  publish({
    id: 'api',
    title: 'API baseline',
    command: 'npm run bench',
    blocks: [
      `autocannon, ${defaults.connections} connections, ${defaults.warmupSeconds} s warm-up then ${defaults.durationSeconds} s measured, one target at a time.
Each server runs alone in its own child process; the load generator is the parent process, so on
this 2-core machine server and load generator get a core each. Comando runs its production
configuration (\`node ${productionNodeArgs().join(' ')} dist/src/main.js\` as \`npm start\` runs it, \`NODE_ENV=production\`, PostgreSQL \`${db.name}\`,
\`LOG_LEVEL=info\`, the default: one access-log line per request, written to a file). The POST body is
\`${territoryBody}\`, sent by an admin token to Comando and as is to the baseline,
which inserts into a table of the same column types, key and (type, name) index with one \`pg\`
query (pool of 10, as Comando's \`DATABASE_POOL_MAX\` default). The CPU column is the server
process's CPU time per answered request and its load (100% = one core busy; PostgreSQL's own CPU is
not in it): it moves less than req/s when other programs share the cores, so it shows where cost goes.`,
      loadTable([
        { target: 'bare node:http — GET /api/test (for information)', m: r.http, vs: koa },
        { target: 'bare Koa + @koa/router — GET /api/test', m: r.koa },
        { target: '**Comando — GET /api/test**', m: r.getInfo, vs: koa },
        { target: 'Comando, LOG_LEVEL=warn — GET /api/test', m: r.getWarn, vs: koa },
        { target: 'bare Koa + koa-body + pg insert — POST', m: r.pgInsert },
        { target: '**Comando — POST /api/territories**', m: r.postInfo, vs: pg },
        { target: 'Comando, LOG_LEVEL=warn — POST /api/territories', m: r.postWarn, vs: pg },
      ]),
      {
        goals: [
          atLeast('GET /api/test req/s vs bare Koa', r.getInfo.requestsPerSecond / r.koa.requestsPerSecond, goals.getRatio),
          atLeast('POST /api/territories req/s vs pg insert', r.postInfo.requestsPerSecond / r.pgInsert.requestsPerSecond, goals.postRatio),
          atMost('POST /api/territories p99 vs pg insert p99', r.postInfo.p99Ms / r.pgInsert.p99Ms, goals.postP99Factor, { digits: 1, unit: '×' }),
          noErrors('No errors or non-2xx answers in the compared runs', [r.koa, r.getInfo, r.pgInsert, r.postInfo]),
          { goal: 'Territory rows inserted match 201 answers', target: 'match', measured: comandoRows.ok ? 'match' : 'mismatch', pass: comandoRows.ok },
        ],
      },
      `By server CPU per request (steadier than req/s), Comando costs ${cpuFactor(r.getInfo, r.koa)} bare Koa on GET /api/test and
${cpuFactor(r.postInfo, r.pgInsert)} the bare pg-insert route on POST /api/territories.

Sanity: Comando ${comandoRows.text}; baseline ${pgRows.text}.

Logging cost, \`LOG_LEVEL=warn\` (no access-log lines) against the default \`info\`: GET /api/test
${logCost(r.getWarn, r.getInfo)}; POST /api/territories ${logCost(r.postWarn, r.postInfo)}.
The goals are judged on the default \`info\`. On this shared 2-core VM, req/s of one target moves by
about ±10% from run to run (more when another program is busy: see the load average above);
compare ratios and CPU per request rather than absolute numbers.`,
    ],
  });
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
