/**
 * `npm run bench:capture`: lead capture through the full stack.
 *
 *   POST /api/qr-leads/capture  vs bare Koa + koa-body + one plain pg INSERT of a lead-shaped row
 *
 * Every request is a different citizen (a new valid Colombian mobile number, name, email, one or
 * two of the offered interests, consent, WhatsApp opt-in) on one of the campaign's codes in turn,
 * so every accepted request creates a contact, its origin, a lead and a consent record. Both
 * servers run alone in their own child process; this process only generates load.
 */
import os from 'node:os';
import type autocannon from 'autocannon';
import {
  benchDatabase,
  comandoServer,
  cpuProfileArgs,
  benchRedisUrl,
  callJson,
  commandCpuSeconds,
  defaults,
  deleteRedisKeys,
  machineCpuSeconds,
  measure,
  onInterrupt,
  ownCpuSeconds,
  registerFirstAdmin,
  withServer,
  type Measurement,
  type ServerOptions,
} from './lib';
import { atLeast, atMost, loadTable, noErrors, publish, runBenchmark, type Table } from './report';

const db = benchDatabase('comando_bench_capture');
const REDIS_KEY_PREFIX = 'bench-capture';
const CAPTURE_PATH = '/api/qr-leads/capture';
const BASELINE_PATH = '/api/leads';
const CODE_COUNT = 20;
const INTERESTS = ['salud', 'seguridad', 'empleo', 'educacion', 'movilidad'] as const;
/** Tables that get exactly one row per accepted (new) citizen. */
const LEAD_TABLES = ['qr_leads', 'consents', 'contacts', 'contact_origins'] as const;

const goals = { ratio: 0.35, p99Ms: 50 };

// ---------------------------------------------------------------------------------------------
// Citizens

const FIRST_NAMES = ['Ana María', 'Luis Fernando', 'Yuliana', 'Jhon Jairo', 'Paola Andrea', 'Andrés Felipe', 'Luz Marina', 'Carlos Arturo'];
const LAST_NAMES = ['Rojas', 'Gómez Restrepo', 'Mosquera', 'Cárdenas Ortiz', 'Rodríguez', 'Londoño', 'Palacios', 'Jaramillo Díaz'];

/** Shared by the warm-up and measured runs of both targets: no number is ever sent twice. */
let citizens = 0;

function citizenBody(codes: readonly string[]): string {
  const n = ++citizens;
  // +57 300 xxx xxxx is a valid Colombian mobile range; 7 digits leave room for 10 million people.
  const phone = `+57300${String(n).padStart(7, '0')}`;
  const interests = n % 3 === 0 ? [INTERESTS[n % 5]!, INTERESTS[(n + 2) % 5]!] : [INTERESTS[n % 5]!];
  return JSON.stringify({
    code: codes[n % codes.length],
    name: `${FIRST_NAMES[n % FIRST_NAMES.length]} ${LAST_NAMES[(n >> 3) % LAST_NAMES.length]}`,
    phone,
    email: `ciudadano${n}@example.org`,
    interests,
    consent: true,
    whatsappOptIn: true,
  });
}

/** One request whose setupRequest gives it a new citizen each time it is sent. */
function citizenRequests(requestPath: string, codes: readonly string[]): autocannon.Request[] {
  return [
    {
      method: 'POST',
      path: requestPath,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Mozilla/5.0 (Linux; Android 12; SM-A125M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
      },
      setupRequest: (request) => ({ ...request, body: citizenBody(codes) }),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Targets

function comando(): ServerOptions {
  return comandoServer({
    name: 'comando-capture',
    databaseUrl: db.url,
    redisKeyPrefix: REDIS_KEY_PREFIX,
    nodeArgs: cpuProfileArgs(),
    // The issue: "the per-IP limit must not turn real people away; the benchmark raises them".
    env: { CAPTURE_MAX_PER_IP: '100000000', CAPTURE_MAX_PER_PERSON: '1000' },
  });
}

const CONSENT_TEXT =
  'Autorizo a la Campaña Ejemplo, responsable del tratamiento, a usar mis datos para informarme de sus propuestas y actividades, según la Ley 1581 de 2012. Puedo conocer, actualizar, rectificar y suprimir mis datos escribiendo a datos@ejemplo.co.';

/** An admin, an active campaign offering INTERESTS, and its poster codes — all through the API. */
async function setUpCampaign(baseUrl: string): Promise<{ campaignId: string; codes: string[] }> {
  const token = await registerFirstAdmin(baseUrl);
  const campaign = await callJson<{ id: string }>(`${baseUrl}/api/poster-qr/campaigns`, {
    token,
    expect: 201,
    body: {
      name: 'Afiches benchmark',
      status: 'active',
      landing: {
        title: 'Súmate a la campaña',
        intro: 'Déjanos tus datos y te contamos.',
        interests: [...INTERESTS],
        consentText: CONSENT_TEXT,
        privacyPolicyUrl: 'https://ejemplo.co/privacidad',
      },
    },
  });
  const generated = await callJson<{ codes: { code: string }[] }>(`${baseUrl}/api/poster-qr/campaigns/${campaign.id}/generate-codes`, {
    token,
    expect: 201,
    body: { count: CODE_COUNT },
  });
  const codes = generated.codes.map((code) => code.code);
  if (codes.length !== CODE_COUNT) throw new Error(`generate-codes gave ${codes.length} codes`);
  return { campaignId: campaign.id, codes };
}

/** Where the machine's CPU goes per request, beside the server process's own. */
const otherCpu = {
  PostgreSQL: () => commandCpuSeconds('postgres'),
  Redis: () => commandCpuSeconds('redis-server'),
  'load generator': ownCpuSeconds,
  'whole machine': machineCpuSeconds,
};

/** Requests in flight when autocannon stopped commit a moment later. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

interface Results {
  baseline: Measurement;
  baselineRows: number;
  capture: Measurement;
  captureRows: Record<string, number>;
}

async function runAll(): Promise<Results> {
  const log = (line: string) => process.stdout.write(`${line}\n`);

  log('bare Koa + koa-body + pg lead insert, POST /api/leads …');
  const baseline = await withServer(
    { name: 'baseline-pg-lead-insert', script: 'dist/scripts/bench/baseline-pg-lead-insert.js', readyPath: '/healthz', env: { DATABASE_URL: db.url } },
    async (server) => {
      // The baseline ignores the code; any string keeps the body the same size as Comando's.
      const codes = Array.from({ length: CODE_COUNT }, (_, i) => `bench${String(i).padStart(5, '0')}`);
      const m = await measure({ url: server.url, serverPid: server.pid, otherCpu, requests: citizenRequests(BASELINE_PATH, codes) });
      await settle();
      return { m, rows: (await db.count(['bench_leads'])).bench_leads ?? 0 };
    },
  );

  log('Comando (production configuration), POST /api/qr-leads/capture …');
  const capture = await withServer(comando(), async (server) => {
    const { codes } = await setUpCampaign(server.url);
    const before = await db.count(LEAD_TABLES);
    if (Object.values(before).some((n) => n !== 0)) throw new Error(`lead tables not empty before the run: ${JSON.stringify(before)}`);
    const m = await measure({ url: server.url, serverPid: server.pid, otherCpu, requests: citizenRequests(CAPTURE_PATH, codes) });
    await settle();
    return { m, rows: await db.count(LEAD_TABLES) };
  });

  return { baseline: baseline.m, baselineRows: baseline.rows, capture: capture.m, captureRows: capture.rows };
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Rows vs 2xx answers: equal but for requests in flight when a run stopped, which may still commit. */
function rowCheck(rows: number, m: Measurement): { ok: boolean; text: string } {
  const extra = rows - m.total2xx;
  const ok = extra >= 0 && extra <= m.inFlightAtStop;
  return { ok, text: `${rows} rows for ${m.total2xx} 2xx answers + ${extra} of ${m.inFlightAtStop} requests in flight at stop — ${ok ? 'OK' : 'MISMATCH'}` };
}

function statusText(m: Measurement): string {
  return Object.entries(m.statusCounts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
}

function report(r: Results): void {
  const us = (m: Measurement, name: keyof typeof otherCpu) => {
    const value = m.otherCpuUsPerRequest?.[name];
    return value === undefined ? '–' : fixed(value, 0);
  };
  const machineBusy = (m: Measurement) => {
    const value = m.otherCpuUsPerRequest?.['whole machine'];
    return value === undefined ? '' : ` (${fixed((value * m.requestsPerSecond) / 1e4 / os.cpus().length, 0)}% busy)`;
  };
  /** What the machine spent beyond the four processes measured: should be near 0 on a quiet machine. */
  const otherPrograms = (m: Measurement) => {
    const cpu = m.otherCpuUsPerRequest;
    const whole = cpu?.['whole machine'];
    if (!cpu || whole === undefined || m.serverCpuUsPerRequest === undefined) return '–';
    const known = m.serverCpuUsPerRequest + (cpu.PostgreSQL ?? 0) + (cpu.Redis ?? 0) + (cpu['load generator'] ?? 0);
    return fixed(Math.max(0, whole - known), 0);
  };
  const cpuTable: Table = {
    header: ['CPU µs per request', 'server process', 'PostgreSQL', 'Redis', 'load generator', 'other programs', `whole machine, ${os.cpus().length} cores`],
    rows: (
      [
        ['bare pg lead insert', r.baseline],
        ['Comando capture', r.capture],
      ] as const
    ).map(([name, m]) => [
      name,
      m.serverCpuUsPerRequest === undefined ? '–' : fixed(m.serverCpuUsPerRequest, 0),
      us(m, 'PostgreSQL'),
      us(m, 'Redis'),
      us(m, 'load generator'),
      otherPrograms(m),
      us(m, 'whole machine') + machineBusy(m),
    ]),
  };

  const rowChecks = LEAD_TABLES.map((table) => ({ table, ...rowCheck(r.captureRows[table] ?? 0, r.capture) }));
  const rowsTable: Table = {
    header: ['Table', 'Rows', '2xx answers (warm-up + run)', 'In flight at stop', 'Check'],
    rows: [
      ...rowChecks.map(({ table, ok }) => [
        `\`${table}\``,
        String(r.captureRows[table] ?? 0),
        String(r.capture.total2xx),
        String(r.capture.inFlightAtStop),
        ok ? 'OK' : 'MISMATCH',
      ]),
      [
        '`bench_leads` (baseline)',
        String(r.baselineRows),
        String(r.baseline.total2xx),
        String(r.baseline.inFlightAtStop),
        rowCheck(r.baselineRows, r.baseline).ok ? 'OK' : 'MISMATCH',
      ],
    ],
  };

  const created = r.capture.statusCounts['201'] ?? 0;
  const allNew = created === r.capture.total2xx;
  const rowsOk = rowChecks.every((check) => check.ok) && allNew;
  const cpuFactor =
    r.capture.serverCpuUsPerRequest && r.baseline.serverCpuUsPerRequest ? `${fixed(r.capture.serverCpuUsPerRequest / r.baseline.serverCpuUsPerRequest, 1)}×` : 'n/a';

  publish({
    id: 'capture',
    title: 'Lead capture',
    command: 'npm run bench:capture',
    blocks: [
      `autocannon, ${defaults.connections} connections, ${defaults.warmupSeconds} s warm-up then ${defaults.durationSeconds} s measured, one target at a time,
each server alone in its own child process (the load generator is the parent process). Comando runs
its production configuration (\`node dist/src/main.js\`, \`NODE_ENV=production\`, PostgreSQL
\`${db.name}\` created for the run and dropped after it, Redis under its own key prefix,
\`LOG_LEVEL=info\`) with the capture rate limits raised (\`CAPTURE_MAX_PER_IP=100000000\`,
\`CAPTURE_MAX_PER_PERSON=1000\`); the admin, an active campaign offering ${INTERESTS.length} interests and its
${CODE_COUNT} poster codes are created through the API first. Every request is a different citizen: a new
valid Colombian mobile (\`+57300\` + a 7-digit counter), a name, an email, one or two of the offered
interests, \`consent: true\`, \`whatsappOptIn: true\`, the codes in turn — so each one is a new
contact, contact origin, lead and consent record in one SQL statement. The baseline gets the same
bodies and stores name, phone, email and interests with one plain \`pg\` INSERT (pool of 10, as
Comando's \`DATABASE_POOL_MAX\` default) into a table with only its UUID v7 key. The CPU column is the
server process's CPU per answered request and its load (100% = one core; PostgreSQL's CPU is not in it).`,
      loadTable([
        { target: 'bare Koa + koa-body + pg lead insert — POST /api/leads', m: r.baseline },
        { target: '**Comando — POST /api/qr-leads/capture**', m: r.capture, vs: { baseline: r.baseline, name: 'pg lead insert' } },
      ]),
      {
        goals: [
          atLeast('Capture req/s vs bare pg lead insert', r.capture.requestsPerSecond / r.baseline.requestsPerSecond, goals.ratio),
          atMost('Capture p99 latency', r.capture.p99Ms, goals.p99Ms, { digits: 0, unit: ' ms' }),
          noErrors('No errors or non-2xx answers (capture and baseline)', [r.capture, r.baseline]),
          {
            goal: `Rows in ${LEAD_TABLES.map((t) => `\`${t}\``).join(', ')} = accepted requests (all 201, new leads)`,
            target: 'match',
            measured: rowsOk ? 'match' : 'mismatch',
            pass: rowsOk,
          },
        ],
      },
      `Where the CPU goes, per answered request of the measured run (PostgreSQL: the server and all its
backends; "other programs" is the rest of the whole machine's busy time, e.g. a test run sharing the
cores — when it is large, req/s and latency of that run are understated):`,
      cpuTable,
      rowsTable,
      `Status codes, warm-up + run: Comando ${statusText(r.capture)}; baseline ${statusText(r.baseline)}.
By server CPU per request (steadier than req/s on this shared 2-core VM), capture costs ${cpuFactor} the bare insert route.
Both share the 2 cores with PostgreSQL and the load generator, so req/s moves by about ±10% from run to run.`,
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
    await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`);
    results = await runAll();
  } finally {
    await cleanUp();
  }
  report(results);
});
