/**
 * `npm run bench:gotv-import`: the 100,000-row confirmed-voter CSV import against
 * PostgreSQL's own bulk path, `psql \copy`, writing the same rows into the same table.
 *
 * Comando gets the file as people export it (name, cédula with dots, phone as typed, station code,
 * table, priority) through `POST /api/gotv/voters/import` and must validate, normalise and resolve
 * every row. `\copy` gets the rows already in their final form (UUID, digits-only cédula, E.164
 * phone, station id), which is the upper bound of how fast these rows can enter `gotv_voters` with
 * its indexes and constraints. Each target runs ROUNDS times on an emptied table; the best round of
 * each is compared.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createStations, stationCode } from './gotv-fixtures';
import { benchDatabase, comandoServer, benchRedisUrl, deleteRedisKeys, logDir, onInterrupt, registerFirstAdmin, scaled, settings, withPg, withServer } from './lib';
import { atLeast, markdownTable, publish, runBenchmark } from './report';

const db = benchDatabase('comando_bench_gotv_import');
const REDIS_KEY_PREFIX = 'bench-gotv-import';
const ROWS = scaled(100_000);
const STATIONS = 300;
const ROUNDS = settings.rounds ?? 3;
const goal = 0.25;

interface Voter {
  name: string;
  cedula: string;
  phoneTyped: string;
  phoneE164: string;
  station: number;
  table: number;
  priority: string;
}

const FIRST = ['Ana María', 'Luis Fernando', 'Yuliana', 'Jhon Jairo', 'Paola Andrea', 'Andrés Felipe', 'Luz Marina', 'Carlos Arturo'];
const LAST = ['Rojas', 'Gómez Restrepo', 'Mosquera', 'Cárdenas Ortiz', 'Rodríguez', 'Londoño', 'Palacios', 'Jaramillo Díaz'];
const PRIORITIES = ['normal', 'normal', 'normal', 'high', 'low'];

function voters(): Voter[] {
  return Array.from({ length: ROWS }, (_, i) => {
    const cedula = String(10_000_000 + i * 7);
    const mobile = String(1_000_000 + i).padStart(7, '0');
    return {
      name: `${FIRST[i % FIRST.length]} ${LAST[(i >> 3) % LAST.length]}`,
      cedula,
      phoneTyped: `310 ${mobile.slice(0, 3)} ${mobile.slice(3)}`,
      phoneE164: `+57310${mobile}`,
      station: i % STATIONS,
      table: 1 + (i % 10),
      priority: PRIORITIES[i % PRIORITIES.length]!,
    };
  });
}

/** "10.000.007" the way a spreadsheet export writes a cédula. */
const dotted = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;

function comandoCsv(rows: Voter[]): string {
  const lines = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  for (const v of rows) lines.push([quoted(v.name), dotted(v.cedula), v.phoneTyped, stationCode(v.station), v.table, v.priority].join(','));
  return `${lines.join('\n')}\n`;
}

function copyCsv(rows: Voter[], stationIds: string[]): string {
  const now = new Date().toISOString();
  const lines = rows.map((v) => [randomUUID(), quoted(v.name), v.cedula, v.phoneE164, stationIds[v.station], v.table, v.priority, 'pending', now, now].join(','));
  return `${lines.join('\n')}\n`;
}

async function emptyVoters(): Promise<void> {
  await withPg(db.url, async (client) => {
    await client.query('truncate gotv_voters cascade');
    await client.query('vacuum analyze gotv_voters');
  });
}

async function countVoters(): Promise<number> {
  return withPg(db.url, async (client) => Number((await client.query<{ n: string }>('select count(*) as n from gotv_voters')).rows[0]?.n ?? 0));
}

function psqlCopy(file: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(
    'psql',
    [
      db.url,
      '-v',
      'ON_ERROR_STOP=1',
      '-qc',
      `\\copy gotv_voters (id, name, document_id, phone, polling_station_id, table_number, priority, status, created_at, updated_at) from '${file}' with (format csv)`,
    ],
    { encoding: 'utf8' },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`psql \\copy failed: ${result.stderr}`);
  return seconds;
}

interface Round {
  seconds: number;
  rows: number;
}

/** One person erased before the import (any row of `erased_identifiers`): the import then checks every cédula and phone against the erased ones. */
async function setErasedPerson(present: boolean): Promise<void> {
  await withPg(db.url, async (client) => {
    await client.query('delete from erased_identifiers');
    if (present) await client.query(`insert into erased_identifiers (hash, kind, erased_at) values (repeat('0', 64), 'document', now())`);
  });
}

async function run(): Promise<{ copy: Round[]; comando: Round[]; checked: Round[]; answer: unknown }> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const rows = voters();
  const csv = comandoCsv(rows);
  const copy: Round[] = [];
  const comando: Round[] = [];
  const checked: Round[] = [];
  let answer: unknown;
  await withServer(comandoServer({ name: 'comando-gotv-import', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX }), async (server) => {
    const token = await registerFirstAdmin(server.url);
    const stationIds = await createStations(server.url, token, STATIONS);
    const copyFile = path.join(logDir, 'gotv-import-copy.csv');
    writeFileSync(copyFile, copyCsv(rows, stationIds));
    log(`${ROWS} rows, ${(Buffer.byteLength(csv) / 1e6).toFixed(1)} MB CSV; ${ROUNDS} rounds each`);
    for (let round = 0; round < ROUNDS; round++) {
      await emptyVoters();
      const seconds = psqlCopy(copyFile);
      copy.push({ seconds, rows: await countVoters() });
      log(`  psql \\copy   round ${round + 1}: ${seconds.toFixed(2)} s`);

      for (const erased of [false, true]) {
        await emptyVoters();
        await setErasedPerson(erased);
        const started = process.hrtime.bigint();
        const response = await fetch(`${server.url}/api/gotv/voters/import`, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` },
          body: csv,
        });
        answer = await response.json();
        const took = Number(process.hrtime.bigint() - started) / 1e9;
        if (response.status !== 200) throw new Error(`import answered ${response.status}: ${JSON.stringify(answer).slice(0, 400)}`);
        (erased ? checked : comando).push({ seconds: took, rows: await countVoters() });
        log(`  Comando import${erased ? ', an erased person on record,' : ''} round ${round + 1}: ${took.toFixed(2)} s`);
      }
      await setErasedPerson(false);
    }
  });
  return { copy, comando, checked, answer };
}

function report(r: { copy: Round[]; comando: Round[]; checked: Round[]; answer: unknown }): void {
  const best = (rounds: Round[]) => Math.min(...rounds.map((round) => round.seconds));
  const rate = (seconds: number) => ROWS / seconds;
  const ratio = rate(best(r.comando)) / rate(best(r.copy));
  const checkedRatio = rate(best(r.checked)) / rate(best(r.copy));
  const rowsOk = [...r.copy, ...r.comando, ...r.checked].every((round) => round.rows === ROWS);
  const answer = r.answer as { created?: number; updated?: number; unchanged?: number; rejectedCount?: number };
  const answerOk = answer.created === ROWS && answer.rejectedCount === 0 && answer.updated === 0 && answer.unchanged === 0;
  const line = (name: string, rounds: Round[]) => [
    name,
    rounds.map((round) => round.seconds.toFixed(2)).join(' / '),
    best(rounds).toFixed(2),
    Math.round(rate(best(rounds))).toLocaleString('en-US'),
  ];
  const table = markdownTable(
    ['Target', 'Seconds per round', 'Best (s)', 'Rows/s (best)'],
    [
      line('psql `\\copy` of the final rows (baseline)', r.copy),
      line('**Comando `POST /api/gotv/voters/import`**', r.comando),
      line('**Comando import, an erased person on record**', r.checked),
    ],
  );
  const intro = `${ROWS.toLocaleString('en-US')} confirmed voters over ${STATIONS} polling stations. Comando (production configuration, its own
child process) receives the CSV as a spreadsheet export writes it — cédula with dots, phone as typed,
station by code — in one \`text/csv\` request, and validates, normalises and resolves every row before
writing it (2,000-row batches, one \`insert … select from unnest\` statement each). The baseline is
\`psql \\copy\` of the same rows already in their final form (id, digits-only cédula, E.164 phone, station
id) into the same table with the same indexes. ${ROUNDS} rounds each on an emptied, vacuumed table; best round compared.
Once anyone has been erased, the import also checks every cédula and phone against the erased people's
keyed hashes (one statement in which PostgreSQL computes each value's HMAC): the third line has one
erased person on record.`;
  publish({
    id: 'gotv-import',
    title: 'GOTV voter import',
    command: 'npm run bench:gotv-import',
    blocks: [
      intro,
      table,
      {
        goals: [
          atLeast('Import rows/s vs `\\copy`', ratio, goal),
          atLeast('Import rows/s vs `\\copy`, an erased person on record', checkedRatio, goal),
          {
            goal: `Every round leaves exactly ${ROWS} voters; the answer reports ${ROWS} imported, none rejected`,
            target: 'exact',
            measured: rowsOk && answerOk ? 'exact' : 'mismatch',
            pass: rowsOk && answerOk,
          },
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
  let results: Awaited<ReturnType<typeof run>>;
  try {
    await db.recreate();
    results = await run();
  } finally {
    await cleanUp();
  }
  report(results);
});
