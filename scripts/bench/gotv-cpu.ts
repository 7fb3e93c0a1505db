/**
 * `npm run bench:gotv-cpu`: what one turnout report costs the server's CPU, against the
 * bare pg insert route (`baseline-pg-insert.ts`: Koa, koa-body, one insert) in the same run.
 *
 * One Comando process in production configuration with nobody listening: one brigade phone posts
 * one voter report per request at full speed (autocannon, 50 connections) to confirmed voters at
 * 300 stations. CPU per request is the server process's user + system time over the measured part
 * divided by the answers, which holds better than req/s when the machine's speed varies. Each
 * target is measured ROUNDS times (BENCH_ROUNDS), alternating, and the median is reported.
 */
import { randomUUID } from 'node:crypto';
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
  measure,
  onInterrupt,
  registerFirstAdmin,
  settings,
  startServer,
  withPg,
  withServer,
  type Measurement,
  type RunningServer,
} from './lib';
import { publish, runBenchmark } from './report';

const db = benchDatabase('comando_bench_gotv_cpu');
const PREFIX = 'bench-gotv-cpu';
const STATIONS = 300;
const ROUNDS = settings.rounds ?? 3;
/** Enough voters that no request of any round reports a voter twice at up to ~3,000 req/s. */
const VOTERS = 75_000 * Math.ceil((ROUNDS * (defaults.durationSeconds + defaults.warmupSeconds) * 3000) / 75_000);
const goal = 2.5;
const postgresCpu = { postgres: () => commandCpuSeconds('postgres') };
const log = (line: string) => process.stdout.write(`${line}\n`);
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
}

async function runAll(): Promise<Results> {
  await db.recreate();
  const bare: Measurement[] = [];
  const comando: Measurement[] = [];
  const server: RunningServer = await startServer(comandoServer({ name: 'comando-gotv-cpu', databaseUrl: db.url, redisKeyPrefix: PREFIX, nodeArgs: cpuProfileArgs() }));
  let accepted = 0;
  try {
    log(`  setting up ${STATIONS} stations, a brigade and ${VOTERS.toLocaleString('en')} confirmed voters through the API …`);
    const { phoneToken } = await setUp(server.url);
    const voterIds = await callVoterIds();
    let next = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      log(`  round ${round}/${ROUNDS}: bare Koa + pg insert, POST /api/territories …`);
      bare.push(await withServer(barePgInsertServer(db.url, cpuProfileArgs()), (s) => measure({ ...barePgInsertLoad(s), otherCpu: postgresCpu })));
      log(`  round ${round}/${ROUNDS}: Comando, POST /api/gotv/turnout, nobody listening …`);
      const result = await measure({
        url: server.url,
        serverPid: server.pid,
        otherCpu: postgresCpu,
        requests: [
          {
            method: 'POST',
            path: '/api/gotv/turnout',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${phoneToken}` },
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[next++ % voterIds.length] }) }),
          },
        ],
      });
      comando.push(result);
      accepted += result.statusCounts['201'] ?? 0;
      if (next > voterIds.length) log(`  note: ${next - voterIds.length} requests re-used voters (answered as duplicates)`);
    }
  } finally {
    await server.stop();
    await deleteRedisKeys(benchRedisUrl, PREFIX);
  }
  return { bare, comando, accepted };
}

function callVoterIds(): Promise<string[]> {
  return withPg(db.url, async (client) => (await client.query<{ id: string }>('select id from gotv_voters order by document_id')).rows.map((row) => row.id));
}

function report(r: Results): void {
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
  publish({
    id: 'gotv-cpu',
    title: 'GOTV report CPU',
    command: 'npm run bench:gotv-cpu',
    blocks: [
      `One Comando process (production configuration), nobody listening; one brigade phone posts one voter report per request at full speed (autocannon, ${defaults.connections} connections, ${defaults.warmupSeconds} s warm-up + ${defaults.durationSeconds} s measured) to ${VOTERS.toLocaleString('en')} confirmed voters at ${STATIONS} stations. The baseline is the bare Koa + pg insert route, measured in the same run, alternating with Comando, ${ROUNDS} rounds; medians compared. CPU is the server process's user + system time per answer.`,
      {
        header: ['Round', 'Target', 'req/s', 'p99 (ms)', 'Server CPU/request (µs)', 'PostgreSQL CPU/request (µs)'],
        rows: r.bare.flatMap((b, i) => [row(i + 1, 'bare Koa + pg insert, POST /api/territories', b), row(i + 1, 'Comando, POST /api/gotv/turnout', r.comando[i]!)]),
      },
      {
        goals: [
          {
            goal: 'Server CPU per report vs the bare pg insert route',
            target: `≤ ${goal}×`,
            measured: `${comandoCpu.toFixed(0)} µs vs ${bareCpu.toFixed(0)} µs: ${ratio.toFixed(2)}×`,
            pass: ratio <= goal,
          },
          {
            goal: 'Reports accepted',
            target: 'every one',
            measured: `${r.accepted} (201), non-2xx ${r.comando.reduce((sum, m) => sum + m.non2xx, 0)}`,
            pass: r.comando.every((m) => m.non2xx === 0 && m.errors === 0),
          },
        ],
      },
    ],
  });
}

runBenchmark(async () => {
  onInterrupt(async () => {
    await db.drop();
  });
  try {
    report(await runAll());
  } finally {
    await db.drop();
  }
});
