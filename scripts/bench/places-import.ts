/**
 * `npm run bench:places-import`: the Registraduría's national puestos file (12,922 rows,
 * fixtures/co-puestos) through `POST /api/territories/import` and then
 * `POST /api/gotv/polling-stations/import`, against a baseline measured in the same run: the
 * stations import of a small file in the API's own layout (300 stations), per row. Also the server's
 * peak resident memory (VmHWM) before and after the national imports. Each target runs ROUNDS times
 * on emptied tables; the best round of each is compared.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { benchDatabase, benchRedisUrl, comandoServer, deleteRedisKeys, onInterrupt, registerFirstAdmin, repoRoot, settings, withPg, withServer } from './lib';
import { atMost, markdownTable, publish, runBenchmark } from './report';

const db = benchDatabase('comando_bench_places_import');
const REDIS_KEY_PREFIX = 'bench-places-import';
const ROUNDS = settings.rounds ?? 3;
const SMALL = 300;
/** The national file may cost at most this many times the small file's time per row. */
const goal = 3;

const national = gunzipSync(readFileSync(path.join(repoRoot, 'fixtures', 'co-puestos', 'Camara_Senado_2026_georreferenciada.csv.gz'))).toString('utf8');
const nationalRows = national.trimEnd().split('\n').length - 1;

function smallFile(): string {
  const rows = Array.from(
    { length: SMALL },
    (_, i) => `BENCH-${i},Puesto ${i},"Calle ${i} # 1-2",${(6 + i / 1000).toFixed(5)},${(-75.5 - i / 1000).toFixed(5)},${1 + (i % 20)},${1000 + i}`,
  );
  return ['code,name,address,lat,lng,tables,registeredVoters', ...rows].join('\n');
}

async function empty(): Promise<void> {
  await withPg(db.url, async (client) => {
    await client.query('truncate gotv_polling_stations, territories cascade');
    await client.query('vacuum analyze gotv_polling_stations, territories');
  });
}

/** The server's peak resident memory so far, in MiB (Linux). */
function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

async function post(url: string, token: string, csv: string): Promise<{ seconds: number; answer: { created: number; rejectedCount: number } }> {
  const started = process.hrtime.bigint();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` }, body: csv });
  const answer = (await response.json()) as { created: number; rejectedCount: number };
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(answer).slice(0, 400)}`);
  return { seconds, answer };
}

interface Results {
  small: number[];
  territories: number[];
  stations: number[];
  created: { territories: number; stations: number; rejected: number };
  memory: { before: number; after: number };
}

async function run(): Promise<Results> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const results: Results = { small: [], territories: [], stations: [], created: { territories: 0, stations: 0, rejected: 0 }, memory: { before: 0, after: 0 } };
  await withServer(comandoServer({ name: 'comando-places-import', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX }), async (server) => {
    const token = await registerFirstAdmin(server.url);
    const small = smallFile();
    log(`${nationalRows} rows in the national file (${(Buffer.byteLength(national) / 1e6).toFixed(1)} MB); baseline ${SMALL} stations; ${ROUNDS} rounds each`);
    for (let round = 0; round < ROUNDS; round++) {
      await empty();
      const baseline = await post(`${server.url}/api/gotv/polling-stations/import`, token, small);
      results.small.push(baseline.seconds);
      log(`  small stations file   round ${round + 1}: ${baseline.seconds.toFixed(3)} s`);
    }
    results.memory.before = peakMiB(server.pid);
    for (let round = 0; round < ROUNDS; round++) {
      await empty();
      const territories = await post(`${server.url}/api/territories/import`, token, national);
      const stations = await post(`${server.url}/api/gotv/polling-stations/import`, token, national);
      results.territories.push(territories.seconds);
      results.stations.push(stations.seconds);
      results.created = { territories: territories.answer.created, stations: stations.answer.created, rejected: stations.answer.rejectedCount };
      log(`  national: territories ${territories.seconds.toFixed(2)} s, stations ${stations.seconds.toFixed(2)} s (round ${round + 1})`);
    }
    results.memory.after = peakMiB(server.pid);
  });
  return results;
}

function report(r: Results): void {
  const best = (rounds: number[]) => Math.min(...rounds);
  const perRow = (seconds: number, rows: number) => (seconds / rows) * 1e6;
  const smallPerRow = perRow(best(r.small), SMALL);
  const nationalPerRow = perRow(best(r.territories) + best(r.stations), nationalRows);
  const ratio = nationalPerRow / smallPerRow;
  const line = (name: string, rounds: number[], rows: number) => [
    name,
    rounds.map((s) => s.toFixed(2)).join(' / '),
    best(rounds).toFixed(2),
    perRow(best(rounds), rows).toFixed(0),
  ];
  const table = markdownTable(
    ['Target', 'Seconds per round', 'Best (s)', 'µs per row (best)'],
    [
      line(`Stations import, ${SMALL}-row file in the API's layout (baseline)`, r.small, SMALL),
      line(`**Territories import, national puestos file**`, r.territories, nationalRows),
      line(`**Stations import, national puestos file**`, r.stations, nationalRows),
    ],
  );
  const countsOk = r.created.stations + r.created.rejected === nationalRows;
  const intro = `The Registraduría's ${nationalRows.toLocaleString('en-US')}-row puestos file (\`fixtures/co-puestos/\`) sent as one \`text/csv\`
request to \`POST /api/territories/import\` (${r.created.territories.toLocaleString('en-US')} departamentos, municipios and comunas made)
and then to \`POST /api/gotv/polling-stations/import\` (${r.created.stations.toLocaleString('en-US')} stations, ${r.created.rejected} rows refused for
unreadable coordinates), on emptied tables, against the stations import of a ${SMALL}-row file in the API's own layout
measured in the same run, per row. Comando in its production configuration, its own child process. The server's
peak resident memory (VmHWM) was ${r.memory.before.toFixed(0)} MiB after the baseline rounds and ${r.memory.after.toFixed(0)} MiB after
the national rounds (+${(r.memory.after - r.memory.before).toFixed(0)} MiB: the file's rows are held until the whole file is read).`;
  publish({
    id: 'places-import',
    title: 'Places import: the national puestos file',
    command: 'npm run bench:places-import',
    blocks: [
      intro,
      table,
      {
        goals: [
          atMost('Both national imports, time per row vs the baseline', ratio, goal, { unit: '×' }),
          { goal: 'Every row a station or a refused line', target: 'exact', measured: `${r.created.stations} + ${r.created.rejected}`, pass: countsOk },
        ],
      },
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
    results = await run();
  } finally {
    await cleanUp();
  }
  report(results);
});
