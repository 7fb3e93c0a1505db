/**
 * `npm run bench:scale`: how far election day scales, and what to add first.
 *
 * Three Comando processes in production configuration share one PostgreSQL and
 * one Redis. Election day is the national one: the Registraduría's puestos file
 * (fixtures/co-puestos, 12,922 rows) imported through the API as territories and stations, each
 * station given registered voters (a second stations import, by code), brigades of at most 500
 * stations with one brigade phone each, and enough confirmed voters for every report of the run,
 * spread over every station. 2,000 screens (× BENCH_SCALE), from this load process's worker
 * threads (gotv-listeners.ts), spread over the processes: nine in ten are war-room screens in
 * `gotv` (every report, `gotv:turnout`), one in ten a brigade phone following its station
 * (`gotv:station:<id>`, the station's figures at most once a second).
 *
 * Reports (one voter a request, alternating over the processes, each from the phone of the
 * station's brigade) step through STEPS per second (100 doubled up to BENCH_RATE, 3,200), WARMUP +
 * DURATION seconds each (BENCH_WARMUP, BENCH_SECONDS); per step:
 * HTTP answer p50/p99; report → war-room screen p50/p99 (every screen must receive every accepted
 * report exactly once: lost and doubled counted); report → station screen (its figure counts the
 * report) p50/p99 and reports it never showed; the CPU of each process, PostgreSQL, Redis and the
 * load process. A step breaks on a war-room p99 over 1 s, a report refused or not answered, or a
 * delivery lost or doubled; the stepping stops there and the knee is the last step that held and
 * the first that broke. The baseline, in the same run: the bare Socket.IO broadcast of bench:gotv
 * (baseline-socket-broadcast.ts) on as many processes, stepped alike with the war-room screens.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { importVoters, openElectionDay } from './gotv-fixtures';
import { Histogram } from './gotv-listeners';
import {
  agent,
  collectLatencies,
  cpuReadings,
  cpuUsed,
  delivery,
  drive,
  newRun,
  post,
  receivedSoFar,
  startListeners,
  stopListeners,
  type CpuReading,
  type Listeners,
  type Run,
} from './gotv-load';
import {
  benchDatabase,
  benchRedisUrl,
  callJson,
  comandoServer,
  deleteRedisKeys,
  onInterrupt,
  registerFirstAdmin,
  repoRoot,
  scaled,
  settings,
  startServer,
  withPg,
  type RunningServer,
} from './lib';
import { loadAverage, markdownTable, publish, runBenchmark } from './report';

const db = benchDatabase('comando_bench_scale');
const PREFIX = 'bench-scale';
const BASELINE_PREFIX = 'bench-scale-bare';
const PROCESSES = 3;
const SCREENS = scaled(2000);
/** One screen in ten is a brigade phone following its station; the rest are war-room screens. */
const STATION_SCREENS = Math.round(SCREENS / 10);
const WAR_ROOM_SCREENS = SCREENS - STATION_SCREENS;
/** 100 reports a second, doubled up to BENCH_RATE. */
const STEPS = Array.from({ length: Math.max(1, Math.floor(Math.log2((settings.rate ?? 3200) / 100)) + 1) }, (_, i) => 100 * 2 ** i);
/**
 * Seconds of each step before it is measured (a rate the processes have not met yet), and measured.
 * The first step warms longer: cold processes (JIT, statements prepared on each pooled connection,
 * tables just imported) answered the first seconds slowly enough to break a 50/s step.
 */
const WARMUP = settings.warmup ?? 5;
const FIRST_WARMUP = settings.warmup ?? 15;
const DURATION = settings.seconds ?? 20;
/** After each step: the last 100 ms window, Redis, and a station watch tick (1 s) with its commit lag. */
const SETTLE_MS = 3500;
/**
 * After a step that broke, before its deliveries are counted again: a report still on its way
 * (a p99 of several seconds) is late, not lost; one missing after this is lost.
 */
const LATE_MS = 20_000;
/** A brigade covers at most 500 stations (`createBrigadeBody`). */
const BRIGADE_STATIONS = 500;
const goal = { processes: 3, rate: 1000, p99Ms: 1000 };
const breakAt = { p99Ms: 1000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);
const warmupOf = (step: number) => (step === 0 ? FIRST_WARMUP : WARMUP);
const stepReports = (rate: number, step: number) => rate * (warmupOf(step) + DURATION);
const TOTAL_REPORTS = STEPS.reduce((sum, rate, step) => sum + stepReports(rate, step), 0);

const national = gunzipSync(readFileSync(path.join(repoRoot, 'fixtures', 'co-puestos', 'Camara_Senado_2026_georreferenciada.csv.gz'))).toString('utf8');

// ---------------------------------------------------------------------------------------------
// Election day on the national fixture, through the API

interface Day {
  viewerToken: string;
  /** Station i's id and the token of the phone of its brigade. */
  stationIds: string[];
  phoneOfStation: string[];
  /** Report seq is voter seq's, at station seq % stationIds.length. */
  voterIds: string[];
}

async function postCsv(url: string, token: string, csv: string): Promise<{ created?: number; updated?: number; rejectedCount?: number }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` }, body: csv });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 400)}`);
  return JSON.parse(text) as { created?: number; updated?: number; rejectedCount?: number };
}

async function registerUser(url: string, adminToken: string, role: string, n: number): Promise<{ id: string; token: string }> {
  const body = await callJson<{ user: { id: string }; token: string }>(`${url}/api/auth/register`, {
    token: adminToken,
    expect: 201,
    body: { email: `bench-${role}-${n}@example.org`, password: 'bench-password-123', name: `Bench ${role} ${n}`, role },
  });
  return { id: body.user.id, token: body.token };
}

/** A station's registered voters, 800 to 7,799, spread by its code so that every run gets the same (and 10 tables or more: the voters' table numbers go to 10). */
function registeredVotersOf(code: string): number {
  let hash = 0;
  for (const char of code) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return 800 + (Math.abs(hash) % 7000);
}

async function setUpNationalDay(url: string): Promise<Day> {
  const adminToken = await registerFirstAdmin(url);
  const viewer = await registerUser(url, adminToken, 'viewer', 0);
  const territories = await postCsv(`${url}/api/territories/import`, adminToken, national);
  const stations = await postCsv(`${url}/api/gotv/polling-stations/import`, adminToken, national);
  log(`  national puestos file: ${territories.created} territories, ${stations.created} stations (${stations.rejectedCount} rows refused)`);
  const rows = await withPg(db.url, async (client) => (await client.query<{ id: string; code: string }>('select id, code from gotv_polling_stations order by code')).rows);
  // The puestos file has no voter counts: a second import, by code, gives each station its own.
  const census = rows.map(({ code }) => {
    const registered = registeredVotersOf(code);
    return `"${code.replace(/"/g, '""')}",${Math.max(10, Math.ceil(registered / 350))},${registered}`;
  });
  const updated = await postCsv(`${url}/api/gotv/polling-stations/import`, adminToken, ['code,tables,registeredVoters', ...census].join('\n'));
  if (updated.updated !== rows.length) throw new Error(`registered voters: ${JSON.stringify(updated)}`);
  // Brigades of at most 500 stations, one brigade phone each, as a campaign would split the country.
  const phoneOfStation: string[] = [];
  for (let first = 0, n = 0; first < rows.length; first += BRIGADE_STATIONS, n++) {
    const phone = await registerUser(url, adminToken, 'brigade', n);
    const stationIds = rows.slice(first, first + BRIGADE_STATIONS).map((row) => row.id);
    await callJson(`${url}/api/gotv/brigades`, { token: adminToken, expect: 201, body: { name: `Brigada ${n + 1}`, memberIds: [phone.id], stationIds } });
    phoneOfStation.push(...stationIds.map(() => phone.token));
  }
  await openElectionDay(url, adminToken);
  log(
    `  ${rows.length} stations with registered voters, ${Math.ceil(rows.length / BRIGADE_STATIONS)} brigades; importing ${TOTAL_REPORTS.toLocaleString('en-US')} confirmed voters …`,
  );
  await importVoters(url, adminToken, TOTAL_REPORTS, (i) => rows[i % rows.length]!.code, 50_000);
  const voterIds = await withPg(db.url, async (client) => (await client.query<{ id: string }>('select id from gotv_voters order by document_id')).rows.map((row) => row.id));
  return { viewerToken: viewer.token, stationIds: rows.map((row) => row.id), phoneOfStation, voterIds };
}

// ---------------------------------------------------------------------------------------------
// Stepping

interface Step {
  rate: number;
  /** Accepted reports per second of the measured part. */
  achieved: number;
  sent: number;
  refused: number;
  sendErrors: number;
  http: { p50: number; p99: number };
  warRoom: { p50: number; p99: number; lost: number; clientsMissing: number; doubled: number };
  /** Station screens: undefined for the baseline. */
  stations?: { p50: number; p99: number; lost: number; reports: number };
  /** CPU over the measured part, in cores (CPU seconds per second). */
  cpu: CpuReading;
  held: boolean;
}

interface Stepping {
  steps: Step[];
  /** The last step that held and the first that broke (undefined: none held / none broke). */
  knee: { held?: Step; broke?: Step };
}

interface Target {
  name: string;
  servers: RunningServer[];
  listeners: Listeners;
  run: Run;
  /** Sends report seq to server `seq % servers.length`; answers whether it was accepted. */
  send: (seq: number, server: RunningServer) => Promise<boolean>;
  /** The run's database, whose backends' CPU is PostgreSQL's (none for the bare baseline). */
  database?: string;
  /** Station screens' stations (index into the day's stations), and how many stations there are. */
  stationScreens?: { stationOf: number[]; stations: number; levels: number };
}

const percentiles = (histogram: Histogram) => ({ p50: histogram.percentile(50), p99: histogram.percentile(99) });

/** Report → station screen for the reports of [from, to): when the screen of its station first showed its rank there. */
function stationDeliveries(target: Target, listeners: Listeners, from: number, measuredFrom: number, to: number): Step['stations'] {
  const screens = target.stationScreens;
  const seenAt = listeners.stationSeenAt;
  if (!screens || !seenAt) return undefined;
  const { run } = target;
  const histogram = new Histogram();
  let lost = 0;
  let reports = 0;
  screens.stationOf.forEach((station, screen) => {
    // Reports to one station are `stations` apart; the k-th accepted makes its confirmedVoted k.
    let rank = 0;
    for (let seq = station; seq < to; seq += screens.stations) {
      if (!run.accepted[seq]) continue;
      rank++;
      if (seq < from) continue;
      reports++;
      const shown = rank < screens.levels ? seenAt[screen * screens.levels + rank]! : 0;
      if (!shown) lost++;
      else if (seq >= measuredFrom) histogram.record(shown - run.sentAt[seq]!);
    }
  });
  return { ...percentiles(histogram), lost, reports };
}

async function stepThrough(target: Target): Promise<Stepping> {
  const { run, servers, listeners } = target;
  const steps: Step[] = [];
  const pids = servers.map((server) => server.pid);
  let from = 0;
  for (const [index, rate] of STEPS.entries()) {
    const to = from + stepReports(rate, index);
    const measuredFrom = from + rate * warmupOf(index);
    const errorsBefore = run.sendErrors;
    const doubledBefore = collectLatencies(listeners).duplicates;
    // The backends of the run's database (its pools are open by now): PostgreSQL's share is theirs.
    const postgresPids = target.database
      ? await withPg(target.database, async (client) =>
          (await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()')).rows.map((row) => row.pid),
        )
      : [];
    let cpuBefore: CpuReading | undefined;
    log(`  ${target.name}: ${rate} reports/s for ${warmupOf(index)} + ${DURATION} s …`);
    const { measuredSeconds } = await drive(run, { from, to, rate, measuredFrom, step: index, onMeasured: () => (cpuBefore = cpuReadings(pids, postgresPids)) }, (seq) =>
      target.send(seq, servers[seq % servers.length]!),
    );
    const used = cpuUsed(cpuBefore!, cpuReadings(pids, postgresPids));
    await sleep(SETTLE_MS);
    const collected = collectLatencies(listeners);
    const warRoom = delivery(run, receivedSoFar(listeners), from, to);
    let acceptedMeasured = 0;
    for (let seq = measuredFrom; seq < to; seq++) acceptedMeasured += run.accepted[seq]!;
    const perSecond = (seconds: number) => seconds / measuredSeconds;
    const step: Step = {
      rate,
      achieved: acceptedMeasured / measuredSeconds,
      sent: to - from,
      refused: to - from - warRoom.accepted - (run.sendErrors - errorsBefore),
      sendErrors: run.sendErrors - errorsBefore,
      http: percentiles(run.httpLatencies[index]!),
      warRoom: { ...percentiles(collected.latencies[index]!), lost: warRoom.lost, clientsMissing: warRoom.clientsMissing, doubled: collected.duplicates - doubledBefore },
      stations: stationDeliveries(target, listeners, from, measuredFrom, to),
      cpu: { load: perSecond(used.load), servers: used.servers.map(perSecond), postgres: perSecond(used.postgres), redis: perSecond(used.redis) },
      held: false,
    };
    step.held =
      step.warRoom.p99 <= breakAt.p99Ms && step.warRoom.lost === 0 && step.warRoom.doubled === 0 && step.refused === 0 && step.sendErrors === 0 && (step.stations?.lost ?? 0) === 0;
    steps.push(step);
    log(
      `    accepted ${step.achieved.toFixed(0)}/s; HTTP p99 ${step.http.p99.toFixed(0)} ms; war room p50/p99 ${step.warRoom.p50.toFixed(0)}/${step.warRoom.p99.toFixed(0)} ms, lost ${step.warRoom.lost}, doubled ${step.warRoom.doubled}` +
        (step.stations ? `; stations p99 ${step.stations.p99.toFixed(0)} ms, not shown ${step.stations.lost}` : '') +
        `; refused ${step.refused}, errors ${step.sendErrors}; CPU app ${step.cpu.servers.map((c) => c.toFixed(2)).join('+')}, pg ${step.cpu.postgres.toFixed(2)}, redis ${step.cpu.redis.toFixed(2)}, load ${step.cpu.load.toFixed(2)} → ${step.held ? 'held' : 'BROKE'}`,
    );
    if (!step.held) {
      await sleep(LATE_MS);
      const late = delivery(run, receivedSoFar(listeners), from, to);
      const after = collectLatencies(listeners);
      step.warRoom = { ...percentiles(after.latencies[index]!), lost: late.lost, clientsMissing: late.clientsMissing, doubled: after.duplicates - doubledBefore };
      const stations = stationDeliveries(target, listeners, from, measuredFrom, to);
      if (stations) step.stations = stations;
      log(`    ${LATE_MS / 1000} s later: war room lost ${step.warRoom.lost}, doubled ${step.warRoom.doubled}${stations ? `; station figures not shown ${stations.lost}` : ''}`);
      break;
    }
    from = to;
  }
  const held = steps.filter((step) => step.held);
  return { steps, knee: { held: held.at(-1), broke: steps.find((step) => !step.held) } };
}

// ---------------------------------------------------------------------------------------------
// Phases

async function startAll(names: string[], start: (name: string, first: boolean) => Promise<RunningServer>): Promise<RunningServer[]> {
  const servers: RunningServer[] = [];
  try {
    // The first alone: Comando's runs the migrations.
    for (const [i, name] of names.entries()) servers.push(await start(name, i === 0));
    return servers;
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
}

async function baselinePhase(): Promise<Stepping> {
  const names = Array.from({ length: PROCESSES }, (_, i) => `bare-socket-${i}`);
  const servers = await startAll(names, (name, first) =>
    startServer({
      name,
      script: 'dist/scripts/bench/baseline-socket-broadcast.js',
      readyPath: '/healthz',
      // No DATABASE_URL: the bare broadcast writes nothing (one set in the shell would have it insert each report).
      env: { REDIS_URL: benchRedisUrl, REDIS_KEY_PREFIX: BASELINE_PREFIX, WINDOW_OWNER: first ? '1' : '0', DATABASE_URL: '' },
    }),
  );
  try {
    const run = newRun(TOTAL_REPORTS, STEPS.length);
    // UUIDs like Comando's voter and station ids, so that both carry the same bytes.
    const voterIds = Array.from({ length: run.totalReports }, () => randomUUID());
    const stationIds = Array.from({ length: 12_922 }, () => randomUUID());
    const listeners = await startListeners({ urls: servers.map((server) => server.url), token: undefined, clients: WAR_ROOM_SCREENS, threads: 1, voterIds }, run);
    log(`  ${WAR_ROOM_SCREENS} screens connected to ${PROCESSES} bare Socket.IO processes`);
    try {
      return await stepThrough({
        name: 'bare Socket.IO',
        servers,
        listeners,
        run,
        send: async (seq, server) => {
          const body = JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[seq], stationId: stationIds[seq % stationIds.length] });
          return (await post(`${server.url}/report`, body, {})).status === 201;
        },
      });
    } finally {
      await stopListeners(listeners);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function comandoPhase(): Promise<{ stepping: Stepping; stations: number }> {
  const jwtSecret = randomBytes(32).toString('hex');
  const names = Array.from({ length: PROCESSES }, (_, i) => `comando-scale-${i}`);
  const servers = await startAll(names, (name) => startServer(comandoServer({ name, databaseUrl: db.url, redisKeyPrefix: PREFIX, jwtSecret })));
  try {
    log('  setting up election day on the national puestos file through the API …');
    const day = await setUpNationalDay(servers[0]!.url);
    const stations = day.stationIds.length;
    const run = newRun(TOTAL_REPORTS, STEPS.length);
    // Station screens spread over the country; report seq goes to station seq % stations.
    const stationOf = Array.from({ length: STATION_SCREENS }, (_, i) => Math.floor((i * stations) / STATION_SCREENS));
    const levels = Math.ceil(TOTAL_REPORTS / stations) + 2;
    const listeners = await startListeners(
      {
        urls: servers.map((server) => server.url),
        token: day.viewerToken,
        clients: WAR_ROOM_SCREENS,
        threads: 1,
        voterIds: day.voterIds,
        stations: { ids: stationOf.map((i) => day.stationIds[i]!), tokens: stationOf.map((i) => day.phoneOfStation[i]!), levels },
      },
      run,
    );
    log(`  ${WAR_ROOM_SCREENS} war-room screens and ${STATION_SCREENS} station screens connected to ${PROCESSES} processes and subscribed`);
    try {
      const stepping = await stepThrough({
        name: 'Comando',
        servers,
        listeners,
        run,
        database: db.url,
        stationScreens: { stationOf, stations, levels },
        send: async (seq, server) => {
          const body = JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: day.voterIds[seq] });
          const response = await post(`${server.url}/api/gotv/turnout`, body, { authorization: `Bearer ${day.phoneOfStation[seq % stations]}` });
          return response.status === 201 && (JSON.parse(response.body) as { accepted: number }).accepted === 1;
        },
      });
      return { stepping, stations };
    } finally {
      await stopListeners(listeners);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');
const cores = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
const appCores = (step: Step) => step.cpu.servers.reduce((sum, c) => sum + c, 0);

function kneeText(stepping: Stepping): string {
  const { held, broke } = stepping.knee;
  return `${held ? `held ${held.rate.toLocaleString('en-US')}/s` : 'no step held'}, ${broke ? `broke at ${broke.rate.toLocaleString('en-US')}/s` : `did not break up to ${STEPS.at(-1)!.toLocaleString('en-US')}/s`}`;
}

function report(baseline: Stepping, comando: { stepping: Stepping; stations: number }, loadAfter: string): void {
  const steps = comando.stepping.steps;
  const baseOf = (rate: number) => baseline.steps.find((step) => step.rate === rate);
  const table = markdownTable(
    [
      'Reports/s (accepted)',
      'HTTP p50 / p99 (ms)',
      'War room p50 / p99 (ms)',
      'p99 vs bare',
      'Lost / doubled',
      'Station screens p50 / p99 (ms), not shown',
      'Refused / errors',
      'CPU per process (cores)',
      'PostgreSQL',
      'Redis',
      'Load process',
      'Step',
    ],
    steps.map((step) => {
      const base = baseOf(step.rate);
      return [
        `${step.rate.toLocaleString('en-US')} (${step.achieved.toFixed(0)})`,
        `${ms(step.http.p50)} / ${ms(step.http.p99)}`,
        `${ms(step.warRoom.p50)} / ${ms(step.warRoom.p99)}`,
        base ? `${(step.warRoom.p99 / base.warRoom.p99).toFixed(2)}×` : '–',
        `${step.warRoom.lost}${step.warRoom.clientsMissing ? ` (${step.warRoom.clientsMissing} screens)` : ''} / ${step.warRoom.doubled}`,
        step.stations ? `${ms(step.stations.p50)} / ${ms(step.stations.p99)}, ${step.stations.lost} of ${step.stations.reports}` : '–',
        `${step.refused} / ${step.sendErrors}`,
        step.cpu.servers.map(cores).join(' + '),
        cores(step.cpu.postgres),
        cores(step.cpu.redis),
        cores(step.cpu.load),
        step.held ? 'held' : '**broke**',
      ];
    }),
  );
  const baseTable = markdownTable(
    ['Reports/s (accepted)', 'HTTP p50 / p99 (ms)', 'Screens p50 / p99 (ms)', 'Lost / doubled', 'CPU per process (cores)', 'Redis', 'Load process', 'Step'],
    baseline.steps.map((step) => [
      `${step.rate.toLocaleString('en-US')} (${step.achieved.toFixed(0)})`,
      `${ms(step.http.p50)} / ${ms(step.http.p99)}`,
      `${ms(step.warRoom.p50)} / ${ms(step.warRoom.p99)}`,
      `${step.warRoom.lost} / ${step.warRoom.doubled}`,
      step.cpu.servers.map(cores).join(' + '),
      cores(step.cpu.redis),
      cores(step.cpu.load),
      step.held ? 'held' : '**broke**',
    ]),
  );
  const knee = comando.stepping.knee.held;
  const baseKnee = baseline.knee.held;
  const met = steps.find((step) => step.held && step.rate >= goal.rate);
  const best = [...steps].filter((step) => step.held).sort((a, b) => b.rate - a.rate)[0];
  const serverCores = (step: Step) => appCores(step) + step.cpu.postgres + step.cpu.redis;
  const goals = [
    {
      goal: `${goal.processes} processes: reports/s with report → war-room p99 ≤ ${goal.p99Ms} ms, 0 lost, 0 doubled`,
      target: `≥ ${goal.rate.toLocaleString('en-US')}/s`,
      measured: best ? `${best.rate.toLocaleString('en-US')}/s held (p99 ${ms(best.warRoom.p99)} ms)` : 'no step held',
      pass: Boolean(met),
    },
    {
      goal: 'Knee vs the bare Socket.IO broadcast on as many processes',
      target: '(no goal)',
      measured: `${knee ? knee.rate.toLocaleString('en-US') : 0} vs ${baseKnee ? baseKnee.rate.toLocaleString('en-US') : 0} reports/s${knee && baseKnee ? `: ${(knee.rate / baseKnee.rate).toFixed(2)}×` : ''}`,
    },
  ];
  const perCore = knee
    ? `At the last step that held (${knee.rate.toLocaleString('en-US')}/s), the app processes used ${cores(appCores(knee))} cores, PostgreSQL ${cores(knee.cpu.postgres)} and Redis ${cores(knee.cpu.redis)}: ` +
      `${(knee.achieved / appCores(knee)).toFixed(0)} reports/s and ${(SCREENS / appCores(knee)).toFixed(0)} screens per app core, ` +
      `${(knee.achieved / serverCores(knee)).toFixed(0)} reports/s per core of the whole server side (app + PostgreSQL + Redis).`
    : 'No step held, so no per-core figure.';
  const intro = `Load average at the end of the run: ${loadAfter}.

${PROCESSES} Comando processes in production configuration (\`comandoServer\`) on one PostgreSQL (\`${db.name}\`, created for the run)
and one Redis, election day on the national fixture set up through the API: the Registraduría's puestos file
(\`fixtures/co-puestos/\`) as territories and ${comando.stations.toLocaleString('en-US')} stations, each given registered voters by a second
stations import, brigades of ${BRIGADE_STATIONS} stations with one brigade phone each, and ${TOTAL_REPORTS.toLocaleString('en-US')} confirmed voters spread
over every station. ${SCREENS.toLocaleString('en-US')} screens from the load process's worker threads, spread over the processes:
${WAR_ROOM_SCREENS.toLocaleString('en-US')} war-room screens in \`gotv\` and ${STATION_SCREENS} brigade phones each following its station (\`gotv:station:<id>\`, with its brigade's token).
One voter report per request, alternating over the processes, stepped ${STEPS.join(' → ')} per second, ${WARMUP} s of warm-up
(${FIRST_WARMUP} s before the first step: cold processes) then ${DURATION} s measured per step. War room: report sent → item received in \`gotv:turnout\` at every screen (every accepted report
exactly once: lost and doubled counted). Station screens: report sent → the first \`gotv:station\` whose \`confirmedVoted\` counts it
(the station watch pushes at most once a second, so about a second is the floor). A step breaks on a war-room p99 over
${breakAt.p99Ms} ms, a report refused or unanswered, or a delivery lost or doubled (station figures included); the stepping stops there. CPU is
over the measured part, in cores (CPU seconds per second); PostgreSQL's is the backends of the run's database (shared
background work, WAL writer and checkpointer, is not in it), Redis's the whole \`redis-server\` (shared with anything else using it). Lost and doubled of a step that broke are counted
${LATE_MS / 1000} s after it (what came late is in its latency, not lost). The baseline, in the same run: the bare Socket.IO broadcast of
\`bench:gotv\` (\`baseline-socket-broadcast.ts\`: no authentication, validation or database, the same packed windows) on ${PROCESSES} processes
with the ${WAR_ROOM_SCREENS.toLocaleString('en-US')} war-room screens, stepped alike.

Comando: ${kneeText(comando.stepping)}.

${table}

Baseline, bare Socket.IO broadcast, ${PROCESSES} processes: ${kneeText(baseline)}.

${baseTable}`;
  publish({
    id: 'scale',
    title: 'Scale: reports per second until it breaks',
    command: 'npm run bench:scale',
    blocks: [
      intro,
      { goals },
      `${perCore} All of it shares ${os.cpus().length} cores with the load process (the screens' parsing and the phones), so the knee here
is the machine's, not Comando's alone: read the CPU split, not the knee, to size a deployment.`,
    ],
  });
}

async function cleanUp(): Promise<void> {
  await db.dropAtEnd();
  await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`).catch(() => undefined);
  await deleteRedisKeys(benchRedisUrl, `${BASELINE_PREFIX}:`).catch(() => undefined);
}

runBenchmark(async () => {
  onInterrupt(cleanUp);
  let baseline: Stepping;
  let comando: { stepping: Stepping; stations: number };
  try {
    await db.recreate();
    await deleteRedisKeys(benchRedisUrl, `${PREFIX}:`);
    await deleteRedisKeys(benchRedisUrl, `${BASELINE_PREFIX}:`);
    log(`bare Socket.IO broadcast, ${PROCESSES} processes …`);
    baseline = await baselinePhase();
    log(`Comando, ${PROCESSES} processes …`);
    comando = await comandoPhase();
  } finally {
    agent.destroy();
    await cleanUp();
  }
  report(baseline, comando, loadAverage());
});
