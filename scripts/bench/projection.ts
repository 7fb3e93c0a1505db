/**
 * `npm run bench:projection`: the projection at national size. The same day is measured twice in
 * one run: on the 300 stations of the other GOTV benchmarks (the baseline) and on the
 * Registraduría's national puestos file (fixtures/co-puestos, 12,922 rows), each station with
 * registered voters and a previous turnout, and four in five with two counts. Per size: the
 * overall answer (`GET /api/gotv/projection`), the paged station list
 * (`GET /api/gotv/projection/stations`, every page), and the `gotv:projection` push to SCREENS
 * war-room sockets (its bytes, report → last screen, and the server's CPU per push).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync, gunzipSync } from 'node:zlib';
import { io, type Socket } from 'socket.io-client';
import {
  benchDatabase,
  benchRedisUrl,
  callJson,
  comandoServer,
  cpuProfileArgs,
  cpuSeconds,
  deleteRedisKeys,
  onInterrupt,
  registerFirstAdmin,
  repoRoot,
  scaled,
  withPg,
  withServer,
  type RunningServer,
} from './lib';
import { atMost, publish, runBenchmark, type Table } from './report';

const db = benchDatabase('comando_bench_projection');
const REDIS_KEY_PREFIX = 'bench-projection';
const SCREENS = scaled(500);
const SMALL = 300;
const REQUESTS = 10;
const PUSHES = 5;
/**
 * The national day's answers against the 300-station one's: the overall answer and the push stay
 * about the size of the 300-station ones, and the time and the CPU per push grow no faster than
 * the stations do (up to half as fast again).
 */
const GOALS = { overallBytes: 10, pushBytes: 1.5, timePerStation: 1.5 };

const national = gunzipSync(readFileSync(path.join(repoRoot, 'fixtures', 'co-puestos', 'Camara_Senado_2026_georreferenciada.csv.gz'))).toString('utf8');

interface SizeResult {
  stations: number;
  territories: number;
  overall: { ms: number[]; bytes: number; gzip: number };
  pages: { count: number; ms: number[]; bytes: number; totalMs: number };
  push: { bytes: number; deliveryMs: number[]; cpuMsPerPush: number };
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const worst = (values: number[]) => Math.max(...values);

async function postCsv(url: string, token: string, csv: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` }, body: csv });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 400)}`);
}

function smallFile(): string {
  const rows = Array.from({ length: SMALL }, (_, i) => `BENCH-${i},Puesto ${i},"Calle ${i} # 1-2",${(6 + i / 1000).toFixed(5)},${(-75.5 - i / 1000).toFixed(5)},10,1000`);
  return ['code,name,address,lat,lng,tables,registeredVoters', ...rows].join('\n');
}

/** Registered voters and a previous turnout for every station, spread by a hash of its id so both sizes get the same mix. */
async function shapeStations(): Promise<{ ids: string[]; territories: number }> {
  return withPg(db.url, async (client) => {
    await client.query(`update gotv_polling_stations set registered_voters = 800 + abs(hashtext(id::text)) % 7000, status = 'open'`);
    await client.query(`update gotv_polling_stations set previous_turnout = round(registered_voters * (0.45 + (abs(hashtext(code)) % 20) / 100.0))`);
    const { rows } = await client.query<{ id: string }>('select id from gotv_polling_stations order by id');
    const territories = await client.query<{ n: string }>('select count(distinct territory_id) as n from gotv_polling_stations');
    return { ids: rows.map((row) => row.id), territories: Number(territories.rows[0]?.n ?? 0) };
  });
}

/** Two counts for four stations in five, 90 and 30 minutes ago, at about 45 % and 55 % of the previous turnout. */
async function reportCounts(baseUrl: string, token: string, ids: string[]): Promise<void> {
  const now = Date.now();
  const reports = ids
    .filter((_, i) => i % 5 !== 0)
    .flatMap((id, i) =>
      [0.45, 0.55].map((share, k) => ({
        kind: 'count',
        clientReportId: randomUUID(),
        pollingStationId: id,
        votersSoFar: Math.round(400 * share + (i % 50)),
        reportedAt: new Date(now - (90 - 60 * k) * 60_000).toISOString(),
      })),
    );
  for (let from = 0; from < reports.length; from += 500) {
    // As the brigade app does: a batch answered 503 (a station busy) is sent again; what was recorded is a duplicate then.
    for (;;) {
      const response = await fetch(`${baseUrl}/api/gotv/turnout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ reports: reports.slice(from, from + 500) }),
      });
      if (response.status === 201 || response.status === 200) break;
      if (response.status !== 503) throw new Error(`POST /api/gotv/turnout answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

async function getText(url: string, token: string): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

async function connectScreens(baseUrl: string, token: string): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < SCREENS; i += 50) {
    const batch = Array.from({ length: Math.min(50, SCREENS - i) }, () => io(baseUrl, { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true }));
    await Promise.all(batch.map((socket) => socket.timeout(20_000).emitWithAck('subscribe', { rooms: ['gotv'] })));
    sockets.push(...batch);
  }
  return sockets;
}

/** Sends one count and waits until every screen holds a push generated after it. */
async function onePush(baseUrl: string, token: string, stationId: string, sockets: Socket[], figure: number): Promise<{ ms: number; bytes: number }> {
  const sentAt = Date.now();
  let bytes = 0;
  const received = sockets.map(
    (socket) =>
      new Promise<void>((resolve) => {
        const listener = (push: { generatedAt: string; overall: { votersSoFar: number } }) => {
          if (Date.parse(push.generatedAt) < sentAt) return;
          bytes = Buffer.byteLength(JSON.stringify(push));
          socket.off('gotv:projection', listener);
          resolve();
        };
        socket.on('gotv:projection', listener);
      }),
  );
  await callJson(`${baseUrl}/api/gotv/turnout`, { token, body: { kind: 'count', clientReportId: randomUUID(), pollingStationId: stationId, votersSoFar: figure }, expect: 201 });
  await Promise.race([Promise.all(received), new Promise((_, reject) => setTimeout(() => reject(new Error('a push did not reach every screen in 60 s')), 60_000))]);
  return { ms: Date.now() - sentAt, bytes };
}

async function measureSize(server: RunningServer, token: string, ids: string[], territories: number): Promise<SizeResult> {
  const overall: SizeResult['overall'] = { ms: [], bytes: 0, gzip: 0 };
  for (let i = 0; i < REQUESTS; i++) {
    const { ms, value } = await timed(() => getText(`${server.url}/api/gotv/projection`, token));
    overall.ms.push(ms);
    overall.bytes = Buffer.byteLength(value);
    overall.gzip = gzipSync(value).length;
  }
  const pages: SizeResult['pages'] = { count: 0, ms: [], bytes: 0, totalMs: 0 };
  let cursor: string | null = null;
  const walkStarted = performance.now();
  do {
    const query: string = cursor ? `?limit=200&cursor=${cursor}` : '?limit=200';
    const { ms, value } = await timed(() => getText(`${server.url}/api/gotv/projection/stations${query}`, token));
    const page = JSON.parse(value) as { data: unknown[]; nextCursor: string | null };
    pages.count++;
    pages.ms.push(ms);
    pages.bytes = Math.max(pages.bytes, Buffer.byteLength(value));
    cursor = page.nextCursor;
  } while (cursor);
  pages.totalMs = performance.now() - walkStarted;
  const sockets = await connectScreens(server.url, token);
  const push: SizeResult['push'] = { bytes: 0, deliveryMs: [], cpuMsPerPush: 0 };
  try {
    const cpuBefore = cpuSeconds(server.pid) ?? 0;
    for (let i = 0; i < PUSHES; i++) {
      const one = await onePush(server.url, token, ids[1]!, sockets, 1000 + i);
      push.deliveryMs.push(one.ms);
      push.bytes = one.bytes;
      // The pushes are at most one per GOTV_PROJECTION_PUSH (1 s here): wait it out.
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
    push.cpuMsPerPush = (((cpuSeconds(server.pid) ?? 0) - cpuBefore) * 1000) / PUSHES;
  } finally {
    for (const socket of sockets) socket.close();
  }
  return { stations: ids.length, territories, overall, pages, push };
}

async function run(): Promise<{ small: SizeResult; large: SizeResult }> {
  const env = { GOTV_PROJECTION_PUSH: '1' };
  return withServer(
    comandoServer({ name: 'comando-projection', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX, logLevel: 'warn', env, nodeArgs: cpuProfileArgs() }),
    async (server) => {
      const token = await registerFirstAdmin(server.url);
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date());
      const put = await fetch(`${server.url}/api/gotv/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ electionDate: today, opensAt: '00:00', closesAt: '23:59' }),
      });
      if (put.status !== 200) throw new Error(`PUT /api/gotv/settings: ${put.status} ${await put.text()}`);

      await postCsv(`${server.url}/api/gotv/polling-stations/import`, token, smallFile());
      const smallDay = await shapeStations();
      await reportCounts(server.url, token, smallDay.ids);
      log(`${smallDay.ids.length} stations: measuring`);
      const small = await measureSize(server, token, smallDay.ids, smallDay.territories);

      await withPg(db.url, (client) => client.query('truncate gotv_polling_stations cascade'));
      await postCsv(`${server.url}/api/territories/import`, token, national);
      await postCsv(`${server.url}/api/gotv/polling-stations/import`, token, national);
      const largeDay = await shapeStations();
      await reportCounts(server.url, token, largeDay.ids);
      log(`${largeDay.ids.length} stations in ${largeDay.territories} territories: measuring`);
      const large = await measureSize(server, token, largeDay.ids, largeDay.territories);
      return { small, large };
    },
  );
}

function report({ small, large }: { small: SizeResult; large: SizeResult }): void {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const row = (name: string, a: string, b: string, ratio: number) => [name, a, b, `${ratio.toFixed(1)}×`];
  const table: Table = {
    header: [
      'Measure',
      `${small.stations} stations (baseline)`,
      `${large.stations.toLocaleString('en-US')} stations, ${large.territories.toLocaleString('en-US')} territories`,
      'Ratio',
    ],
    rows: [
      row(
        '`GET /api/gotv/projection`: median / worst of 10',
        `${ms(median(small.overall.ms))} / ${ms(worst(small.overall.ms))}`,
        `${ms(median(large.overall.ms))} / ${ms(worst(large.overall.ms))}`,
        median(large.overall.ms) / median(small.overall.ms),
      ),
      row(
        '`GET /api/gotv/projection`: JSON (gzip)',
        `${kb(small.overall.bytes)} (${kb(small.overall.gzip)})`,
        `${kb(large.overall.bytes)} (${kb(large.overall.gzip)})`,
        large.overall.bytes / small.overall.bytes,
      ),
      row(
        '`GET /api/gotv/projection/stations?limit=200`: pages, median page',
        `${small.pages.count}, ${ms(median(small.pages.ms))}`,
        `${large.pages.count}, ${ms(median(large.pages.ms))}`,
        median(large.pages.ms) / median(small.pages.ms),
      ),
      row('Every page, one after another', ms(small.pages.totalMs), ms(large.pages.totalMs), large.pages.totalMs / small.pages.totalMs),
      row('`gotv:projection` push: JSON', kb(small.push.bytes), kb(large.push.bytes), large.push.bytes / small.push.bytes),
      row(
        `Report → push at all ${SCREENS} screens: median / worst of ${PUSHES}`,
        `${ms(median(small.push.deliveryMs))} / ${ms(worst(small.push.deliveryMs))}`,
        `${ms(median(large.push.deliveryMs))} / ${ms(worst(large.push.deliveryMs))}`,
        median(large.push.deliveryMs) / median(small.push.deliveryMs),
      ),
      row(
        'Server CPU per push (its report and the recomputation included)',
        ms(small.push.cpuMsPerPush),
        ms(large.push.cpuMsPerPush),
        large.push.cpuMsPerPush / small.push.cpuMsPerPush,
      ),
    ],
  };
  const stationsRatio = large.stations / small.stations;
  const perStation = (large: number, small: number) => large / small / stationsRatio;
  publish({
    id: 'projection',
    title: 'Projection at national size',
    command: 'npm run bench:projection',
    blocks: [
      `One Comando process in its production configuration (\`GOTV_PROJECTION_PUSH=1\` so the pushes come quickly), the same day
measured on ${small.stations} stations (baseline) and on the national puestos file (\`fixtures/co-puestos/\`): every station open
with registered voters and a previous turnout spread by a hash of its id, four in five with two counts. ${SCREENS} war-room
sockets (one client process) listen to \`gotv:projection\`. The per-station figures are a page at a time
(\`GET /api/gotv/projection/stations\`); the push carries the overall projection and the day's curve only.`,
      table,
      {
        goals: [
          atMost("Overall answer's size, national vs baseline", large.overall.bytes / small.overall.bytes, GOALS.overallBytes, { digits: 1, unit: '×' }),
          atMost('Push size, national vs baseline', large.push.bytes / small.push.bytes, GOALS.pushBytes, { digits: 1, unit: '×' }),
          atMost("Overall answer's median time per station, national vs baseline", perStation(median(large.overall.ms), median(small.overall.ms)), GOALS.timePerStation, {
            digits: 1,
            unit: '×',
          }),
          atMost('Server CPU per push per station, national vs baseline', perStation(large.push.cpuMsPerPush, small.push.cpuMsPerPush), GOALS.timePerStation, {
            digits: 1,
            unit: '×',
          }),
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
  let results: { small: SizeResult; large: SizeResult };
  try {
    await db.recreate();
    results = await run();
  } finally {
    await cleanUp();
  }
  report(results);
});
