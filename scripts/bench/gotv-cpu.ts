/**
 * `npm run bench:gotv-cpu`: what one turnout report costs the server's CPU, against the
 * bare pg insert route (`baseline-pg-insert.ts`: Koa, koa-body, one insert) in the same run.
 *
 * One Comando process in production configuration with nobody listening: one brigade phone posts
 * one voter report per request at full speed (autocannon, 50 connections) to confirmed voters at
 * 300 stations. CPU per request is the server process's user + system time over the measured part
 * divided by the answers, which holds better than req/s when the machine's speed varies. Each
 * target is measured ROUNDS times, alternating, and the median is reported.
 *
 * BENCH_CPU_PROF=<dir> profiles the Comando process and adds the split by layer
 * (`cpuprofile-layers.ts`) of the samples taken during the measured parts only.
 */
import { readdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { layerRows, profileLayers, readProfile } from './cpuprofile-layers';
import { setUpElectionDay } from './gotv-fixtures';
import {
  barePgInsertLoad,
  barePgInsertServer,
  benchDatabase,
  benchRedisUrl,
  callJson,
  commandCpuSeconds,
  comandoServer,
  cpuProfileArgs,
  deleteRedisKeys,
  defaults,
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
} from './lib';

const db = benchDatabase('comando_bench_gotv_cpu');
const PREFIX = 'bench-gotv-cpu';
const STATIONS = 300;
const ROUNDS = Number(process.env.BENCH_GOTV_CPU_ROUNDS ?? 3);
/** Enough voters that no request of any round reports a voter twice at up to ~3,000 req/s. */
const VOTERS = 75_000 * Math.ceil((ROUNDS * (defaults.durationSeconds + defaults.warmupSeconds) * 3000) / 75_000);
const goal = 2.5;
/**
 * BENCH_GOTV_CPU_RATE=<n> sends n requests a second (10 connections) to both targets instead of
 * full speed: what a request costs when requests do not queue, as election day's reports do not.
 * autocannon paces each connection on its own, so the 10 connections' requests arrive in step.
 */
const RATE = process.env.BENCH_GOTV_CPU_RATE ? Number(process.env.BENCH_GOTV_CPU_RATE) : undefined;
const pace = RATE === undefined ? {} : { overallRate: RATE, connections: 10 };
const postgresCpu = { postgres: () => commandCpuSeconds('postgres') };
const full = ROUNDS === 3 && defaults.durationSeconds === 10 && !cpuProfileArgs().length && RATE === undefined && !process.env.BENCH_GOTV_CPU_SQL;
const log = (line: string) => process.stdout.write(`${line}\n`);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function setUp(url: string): Promise<{ phoneToken: string }> {
  const adminToken = await registerFirstAdmin(url);
  const phone = await callJson<{ user: { id: string }; token: string }>(`${url}/api/auth/register`, {
    token: adminToken,
    expect: 201,
    body: { email: 'bench-brigade@example.org', password: 'bench-password-123', name: 'Bench brigade', role: 'brigade' },
  });
  await setUpElectionDay(url, adminToken, { stations: STATIONS, voters: VOTERS, memberIds: [phone.user.id] });
  return { phoneToken: phone.token };
}

interface Results {
  bare: Measurement[];
  comando: Measurement[];
  accepted: number;
  /** Per layer: µs per request in the bare route and in Comando's. */
  layers?: string[][];
}

async function runAll(): Promise<Results> {
  await db.recreate();
  const bare: Measurement[] = [];
  const comando: Measurement[] = [];
  const windows: [number, number][] = [];
  const bareWindows: [number, number][] = [];
  const barePids: number[] = [];
  const server: RunningServer = await startServer(comandoServer({ name: 'comando-gotv-cpu', databaseUrl: db.url, redisKeyPrefix: PREFIX, nodeArgs: cpuProfileArgs() }));
  let accepted = 0;
  try {
    log(`  setting up ${STATIONS} stations, a brigade and ${VOTERS.toLocaleString('en')} confirmed voters through the API …`);
    const { phoneToken } = await setUp(server.url);
    const voterIds = await callVoterIds();
    // BENCH_GOTV_CPU_SQL: statements run on the set-up database before the rounds (a diagnostic: a
    // different index or storage setting, measured against the same load).
    if (process.env.BENCH_GOTV_CPU_SQL) await withPg(db.url, (client) => client.query(process.env.BENCH_GOTV_CPU_SQL!));
    let next = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      log(`  round ${round}/${ROUNDS}: bare Koa + pg insert, POST /api/territories …`);
      bare.push(
        await withServer(barePgInsertServer(db.url, cpuProfileArgs()), async (s) => {
          barePids.push(s.pid);
          const from = monotonicUs();
          const measured = await measure({ ...barePgInsertLoad(s), ...pace, otherCpu: postgresCpu });
          bareWindows.push([from, monotonicUs()]);
          return measured;
        }),
      );
      log(`  round ${round}/${ROUNDS}: Comando, POST /api/gotv/turnout, nobody listening …`);
      const from = monotonicUs();
      const result = await measure({
        url: server.url,
        serverPid: server.pid,
        otherCpu: postgresCpu,
        ...pace,
        requests: [
          {
            method: 'POST',
            path: '/api/gotv/turnout',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${phoneToken}` },
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[next++ % voterIds.length] }) }),
          },
        ],
      });
      windows.push([from, monotonicUs()]);
      comando.push(result);
      accepted += result.statusCounts['201'] ?? 0;
      if (next > voterIds.length) log(`  note: ${next - voterIds.length} requests re-used voters (answered as duplicates)`);
    }
  } finally {
    await server.stop();
    await deleteRedisKeys(benchRedisUrl, PREFIX);
  }
  const profileDir = process.env.BENCH_CPU_PROF;
  if (!profileDir) return { bare, comando, accepted };
  const answered = (runs: Measurement[]) => runs.reduce((sum, m) => sum + m.requestsPerSecond * defaults.durationSeconds, 0);
  const bareLayers = layersOf(profileDir, barePids, bareWindows);
  const comandoLayers = layersOf(profileDir, [server.pid], windows);
  return { bare, comando, accepted, layers: layerRows(bareLayers, answered(bare), comandoLayers, answered(comando)) };
}

/** CPU per layer in the profiles of these processes, during the measured parts only (each window's warm-up left out). */
function layersOf(profileDir: string, pids: number[], windows: [number, number][]): Map<string, number> {
  const files = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile') && pids.some((pid) => name.includes(`.${pid}.`)));
  const totals = new Map<string, number>();
  for (const file of files) {
    const profile = readProfile(path.join(profileDir, file));
    for (const [from, to] of windows) {
      for (const [layer, us] of profileLayers(profile, from + defaults.warmupSeconds * 1e6, to)) totals.set(layer, (totals.get(layer) ?? 0) + us);
    }
  }
  return totals;
}

function callVoterIds(): Promise<string[]> {
  return withPg(db.url, async (client) => (await client.query<{ id: string }>('select id from gotv_voters order by document_id')).rows.map((row) => row.id));
}

function report(r: Results): string {
  const cpu = (m: Measurement) => m.serverCpuUsPerRequest ?? Number.NaN;
  const bareCpu = median(r.bare.map(cpu));
  const comandoCpu = median(r.comando.map(cpu));
  const ratio = comandoCpu / bareCpu;
  const row = (round: number, target: string, m: Measurement) => [
    `${round}`,
    target,
    m.requestsPerSecond.toFixed(0),
    m.p99Ms.toFixed(0),
    cpu(m).toFixed(0),
    (m.otherCpuUsPerRequest?.postgres ?? Number.NaN).toFixed(0),
  ];
  const rows = r.bare.flatMap((b, i) => [row(i + 1, 'bare Koa + pg insert, POST /api/territories', b), row(i + 1, 'Comando, POST /api/gotv/turnout', r.comando[i]!)]);
  const lines = [
    '## GOTV report CPU',
    '',
    `Command: \`npm run bench:gotv-cpu\` (\`scripts/bench/gotv-cpu.ts\`) · ${machineNote()}`,
    '',
    `One Comando process (production configuration), nobody listening; one brigade phone posts one voter report per request ${RATE === undefined ? `at full speed (autocannon, ${defaults.connections} connections` : `at ${RATE} a second (autocannon, 10 connections`}, ${defaults.warmupSeconds} s warm-up + ${defaults.durationSeconds} s measured) to ${VOTERS.toLocaleString('en')} confirmed voters at ${STATIONS} stations. The baseline is the bare Koa + pg insert route, measured in the same run, alternating with Comando, ${ROUNDS} rounds; medians compared. CPU is the server process's user + system time per answer.`,
    '',
    markdownTable(['Round', 'Target', 'req/s', 'p99 (ms)', 'Server CPU/request (µs)', 'PostgreSQL CPU/request (µs)'], rows),
    '',
    markdownTable(
      ['Goal', 'Target', 'Measured', 'Result'],
      [
        [
          'Server CPU per report vs the bare pg insert route',
          `≤ ${goal}×`,
          `${comandoCpu.toFixed(0)} µs vs ${bareCpu.toFixed(0)} µs: ${ratio.toFixed(2)}×`,
          ratio <= goal ? 'PASS' : 'FAIL',
        ],
        [
          'Reports accepted',
          'every one',
          `${r.accepted} (201), non-2xx ${r.comando.reduce((sum, m) => sum + m.non2xx, 0)}`,
          r.comando.every((m) => m.non2xx === 0 && m.errors === 0) ? 'PASS' : 'FAIL',
        ],
      ],
    ),
  ];
  if (r.layers)
    lines.push(
      '',
      'Where a report’s CPU goes (profile of the measured parts, µs per report):',
      '',
      markdownTable(['Layer', 'bare route µs/request', 'Comando µs/report', 'difference'], r.layers),
    );
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  onInterrupt(async () => {
    await db.drop();
  });
  const results = await runAll();
  const text = report(results);
  log(`\n${text}`);
  if (full) {
    writeDocSection('gotv-cpu', text);
    log('written to docs/benchmarks.md');
  }
  // BENCH_KEEP_DB=1 keeps the set-up database for a closer look at the statement (e.g. with pgbench).
  if (!process.env.BENCH_KEEP_DB) await db.drop();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
