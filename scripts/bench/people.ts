/**
 * `npm run bench:people`: the people search (`GET /api/audience/contacts`) over a campaign-sized
 * people database.
 *
 * Comando's production build starts on a fresh bench database (its migrations create the search
 * indexes), ten QR campaigns are created through the API, then 1,000,000 contacts are written by
 * one `insert … select generate_series` statement: Colombian names with and without accents (one
 * or two given names, two surnames), valid mobile numbers, 60 % with an email, 80 % with a cédula,
 * 90 % placed in one of 200 barrios of 20 localidades, consent and tags in realistic shares, created
 * over a year; half of them arrived from one of the campaigns. Then 20 connections (20 staff at
 * their screens) run a mix of searches staff make: name fragments typed without accents and names
 * with them, phones in other formats than stored and their last digits, emails in capitals,
 * cédulas with dots, filters (territory, consent, tag, origin, dates) alone and with a search, and
 * next pages, without pause (the capacity) and then as 20 staff at their screens ask them, reading
 * each page before the next search. Baselines in the same run: `GET /api/test` and the unfiltered
 * first page. Each kind of search is also measured alone. Goal: the mix's p99 ≤ 100 ms for 20 staff.
 *
 * 100,000 contacts by default for a quick run; the doc records BENCH_SCALE=10 (1,000,000). Exits 1
 * when the goal is missed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type autocannon from 'autocannon';
import {
  benchDatabase,
  benchRedisUrl,
  callJson,
  comandoServer,
  commandCpuSeconds,
  cpuProfileArgs,
  defaults,
  deleteRedisKeys,
  measure,
  onInterrupt,
  registerFirstAdmin,
  scaled,
  withPg,
  withServer,
  type Measurement,
} from './lib';
import { loadTable, markdownTable, publish, runBenchmark, tableText } from './report';

const CONTACTS = scaled(100_000);
const CONNECTIONS = 20;
const CAMPAIGNS = 10;
const goals = { p99Ms: 100 };
const db = benchDatabase('comando_bench_people');
const REDIS_KEY_PREFIX = 'bench-people';
const PATH = '/api/audience/contacts';
const log = (line: string) => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// The people

const FIRST_NAMES = [
  'José',
  'María',
  'Luis',
  'Ana',
  'Carlos',
  'Juan',
  'Andrés',
  'Camila',
  'Valentina',
  'Sebastián',
  'Jhon',
  'Yuliana',
  'Óscar',
  'Ángela',
  'Jesús',
  'Luz',
  'Jorge',
  'Diana',
  'Sergio',
  'Paola',
  'Héctor',
  'Natalia',
  'Julián',
  'Marcela',
  'Fabián',
  'Sofía',
  'Germán',
  'Lucía',
  'Nicolás',
  'Daniela',
  'Édgar',
  'Mónica',
  'Iván',
  'Yolanda',
  'Ramón',
  'Mariana',
  'Efraín',
  'Leidy',
  'Wílmar',
  'Dayana',
];
const SURNAMES = [
  'Rodríguez',
  'Gómez',
  'González',
  'Martínez',
  'García',
  'López',
  'Hernández',
  'Sánchez',
  'Ramírez',
  'Pérez',
  'Díaz',
  'Muñoz',
  'Rojas',
  'Moreno',
  'Jiménez',
  'Vargas',
  'Castro',
  'Gutiérrez',
  'Álvarez',
  'Ruiz',
  'Suárez',
  'Ortiz',
  'Torres',
  'Romero',
  'Quintero',
  'Cárdenas',
  'Mosquera',
  'Palacios',
  'Londoño',
  'Restrepo',
  'Jaramillo',
  'Ospina',
  'Zapata',
  'Cañón',
  'Núñez',
  'Bermúdez',
  'Peña',
  'Ibáñez',
  'Arévalo',
  'Montaño',
  'Agudelo',
  'Salazar',
  'Valencia',
  'Córdoba',
  'Beltrán',
  'Guzmán',
  'Acosta',
  'Orozco',
  'Cifuentes',
  'Patiño',
];
const MOBILE_PREFIXES = ['300', '301', '302', '304', '305', '310', '311', '312', '313', '314', '315', '316', '317', '318', '319', '320', '321', '322', '323', '350'];
const DOMAINS = ['gmail.com', 'hotmail.com', 'yahoo.es', 'outlook.com', 'une.net.co'];
const LOCALIDADES = [
  'Usaquén',
  'Chapinero',
  'Santa Fe',
  'San Cristóbal',
  'Usme',
  'Tunjuelito',
  'Bosa',
  'Kennedy',
  'Fontibón',
  'Engativá',
  'Suba',
  'Barrios Unidos',
  'Teusaquillo',
  'Los Mártires',
  'Antonio Nariño',
  'Puente Aranda',
  'La Candelaria',
  'Rafael Uribe Uribe',
  'Ciudad Bolívar',
  'Sumapaz',
];

const sqlArray = (values: readonly string[]) => `array[${values.map((value) => `'${value.replace(/'/g, "''")}'`).join(', ')}]::text[]`;

const CONSENT_TEXT =
  'Autorizo a la Campaña Ejemplo, responsable del tratamiento, a usar mis datos para informarme de sus propuestas y actividades, según la Ley 1581 de 2012. Puedo conocer, actualizar, rectificar y suprimir mis datos escribiendo a datos@ejemplo.co.';

/** Ten poster campaigns, through the API (their names are what the list shows as origins). */
async function createCampaigns(baseUrl: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= CAMPAIGNS; i++) {
    const campaign = await callJson<{ id: string }>(`${baseUrl}/api/poster-qr/campaigns`, {
      token,
      expect: 201,
      body: {
        name: `Afiches ${LOCALIDADES[i]}`,
        status: 'active',
        landing: { title: 'Súmate', consentText: CONSENT_TEXT, privacyPolicyUrl: 'https://ejemplo.co/privacidad' },
      },
    });
    ids.push(campaign.id);
  }
  return ids;
}

/** Bogotá, its 20 localidades and 10 barrios in each; then every contact in one statement, and half of them an origin. */
async function seed(campaignIds: string[]): Promise<void> {
  await withPg(db.url, async (client) => {
    await client.query('set synchronous_commit = off');
    await client.query(`set maintenance_work_mem = '256MB'`);
    await client.query(`insert into territories (id, name, type, code, population, centroid_lat, centroid_lng, created_at, updated_at)
      values ('00000000-0000-4000-8000-000000000001', 'Bogotá', 'municipality', '11001', 7900000, 4.65, -74.1, now(), now())`);
    await client.query(
      `insert into territories (id, name, type, code, parent_id, created_at, updated_at)
       select gen_random_uuid(), l.name, 'commune', lpad(l.n::text, 2, '0'), '00000000-0000-4000-8000-000000000001', now(), now()
       from unnest(${sqlArray(LOCALIDADES)}) with ordinality as l(name, n)`,
    );
    await client.query(`insert into territories (id, name, type, parent_id, created_at, updated_at)
      select gen_random_uuid(), 'Barrio ' || t.name || ' ' || b, 'neighbourhood', t.id, now(), now()
      from territories t cross join generate_series(1, 10) b where t.type = 'commune'`);
    await client.query(
      `with pools as (
         select ${sqlArray(FIRST_NAMES)} as firsts, ${sqlArray(SURNAMES)} as lasts, ${sqlArray(MOBILE_PREFIXES)} as prefixes, ${sqlArray(DOMAINS)} as domains,
           (select array_agg(id order by id) from territories where type = 'neighbourhood') as hoods
       ), people as (
         select g,
           p.firsts[1 + abs(hashint4(g)) % cardinality(p.firsts)] as first,
           case when abs(hashint4(g + 1)) % 3 = 0 then ' ' || p.firsts[1 + abs(hashint4(g + 2)) % cardinality(p.firsts)] else '' end as second,
           p.lasts[1 + abs(hashint4(g + 3)) % cardinality(p.lasts)] as last1,
           p.lasts[1 + abs(hashint4(g + 4)) % cardinality(p.lasts)] as last2,
           '+57' || p.prefixes[1 + g % cardinality(p.prefixes)] || lpad(((g / cardinality(p.prefixes))::bigint * 7919 % 10000000)::text, 7, '0') as phone,
           p.domains[1 + abs(hashint4(g + 5)) % cardinality(p.domains)] as domain,
           abs(hashint4(g + 6)) % 100 as r,
           p.hoods[1 + abs(hashint4(g + 7)) % cardinality(p.hoods)] as hood,
           now() - (g % 365) * interval '1 day' - (abs(hashint4(g + 8)) % 86400) * interval '1 second' as created
         from generate_series(1, $1::int) g cross join pools p
       )
       insert into contacts (id, identity_key, name, phone, email, document_id, territory_id, interests, tags,
         whatsapp_opt_in, whatsapp_opted_out_at, email_opt_in, email_opted_out_at, created_at, updated_at)
       select gen_random_uuid(), 'tel:' || phone, first || second || ' ' || last1 || ' ' || last2, phone,
         case when r < 60 then people_fold(first) || '.' || people_fold(last1) || g || '@' || domain end,
         case when r % 5 <> 0 then (10000000 + (g::bigint * 7919) % 1090000000)::text end,
         case when r % 10 <> 3 then hood end,
         '{}'::text[],
         case when r < 5 then array['líder'] when r < 8 then array['transporte'] else '{}'::text[] end,
         r % 10 < 7, case when r % 20 = 1 then created + interval '3 days' end,
         r < 60 and r % 10 < 4, case when r < 60 and r % 25 = 2 then created + interval '5 days' end,
         created, created
       -- In creation order, as a campaign's contacts arrive: rows lie in the table about as a real one's do.
       from people order by created`,
      [CONTACTS],
    );
    await client.query(
      `insert into contact_origins (contact_id, kind, ref_id, first_seen_at)
       select id, 'qr_campaign', ($1::uuid[])[1 + abs(hashtext(id::text)) % cardinality($1::uuid[])], created_at
       from contacts where abs(hashtext(id::text)) % 2 = 0`,
      [campaignIds],
    );
    // What autovacuum does after a bulk load: it also moves the name index's pending entries into the index proper.
    await client.query('vacuum analyze territories, contacts, contact_origins');
  });
}

// ---------------------------------------------------------------------------------------------
// What staff type

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** A deterministic generator, so two runs ask the same questions. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface Sample {
  name: string;
  phone: string;
  email: string | null;
  document_id: string | null;
}

const KINDS = [
  // kind, share of the mix, what it is
  ['name fragments, no accents', 20, 'two words cut short, typed without accents: `jose per`'],
  ['name with accents', 10, 'a given name and a surname as written: `José Pérez`'],
  ['surname', 5, 'one common surname, no accents: `rodriguez`'],
  ['phone, other format', 15, '`300 123 4567`, `+57 300-123-4567`, `(300) 1234567`'],
  ['phone, last digits', 5, 'the last 6 digits'],
  ['email, capitals', 10, 'the whole address in capitals'],
  ['cédula with dots', 10, '`1.020.304.050`'],
  ['filters', 15, 'territory, consent, tag, origin or dates, alone or with a name, sorted by name or date'],
  ['next page', 10, 'the second page of a name search or a filter, by its cursor'],
] as const;
type Kind = (typeof KINDS)[number][0];

function dotted(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

interface Fixtures {
  samples: Sample[];
  communes: string[];
  campaigns: string[];
}

function queryOf(kind: Kind, sample: Sample, fixtures: Fixtures, next: () => number): Record<string, string> {
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  const words = sample.name.split(' ');
  const national = sample.phone.slice(3);
  switch (kind) {
    case 'name fragments, no accents':
      return { q: `${fold(words[0]!).slice(0, 4)} ${fold(words[words.length - 2]!).slice(0, 3 + Math.floor(next() * 3))}` };
    case 'name with accents':
      return { q: `${words[0]} ${words[words.length - 2]}` };
    case 'surname':
      return { q: fold(pick(SURNAMES)) };
    case 'phone, other format':
      return {
        q: pick([
          `${national.slice(0, 3)} ${national.slice(3, 6)} ${national.slice(6)}`,
          `+57 ${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)}`,
          `(${national.slice(0, 3)}) ${national.slice(3)}`,
        ]),
      };
    case 'phone, last digits':
      return { q: national.slice(-6) };
    case 'email, capitals':
      return { q: sample.email!.toUpperCase() };
    case 'cédula with dots':
      return { q: dotted(sample.document_id!) };
    case 'filters':
      return pick<Record<string, string>>([
        { territoryId: pick(fixtures.communes), sort: 'name' },
        { territoryId: pick(fixtures.communes), q: fold(words[0]!).slice(0, 4) },
        { whatsapp: 'reachable', tag: 'líder' },
        { email: 'reachable', createdFrom: new Date(Date.now() - 30 * 86_400_000).toISOString() },
        { originKind: 'qr_campaign', originRef: pick(fixtures.campaigns) },
        { whatsapp: 'opted_out', sort: '-name' },
        { q: fold(pick(SURNAMES)), sort: 'name' },
      ]);
    case 'next page':
      return pick<Record<string, string>>([{ q: fold(pick(SURNAMES)).slice(0, 5) }, { territoryId: pick(fixtures.communes) }, { q: fold(words[0]!), sort: 'name' }]);
  }
}

const pathOf = (query: Record<string, string>) => `${PATH}?${new URLSearchParams(query).toString()}`;

/** Searches of each kind, built from people actually in the database (so they find someone); next pages carry a real cursor. */
async function questions(baseUrl: string, token: string, fixtures: Fixtures): Promise<Map<Kind, string[]>> {
  const next = random(20261128);
  const byKind = new Map<Kind, string[]>();
  for (const [kind] of KINDS) {
    const paths: string[] = [];
    // An email or cédula search is made of someone who has one.
    const samples = fixtures.samples.filter((sample) => (kind === 'email, capitals' ? sample.email : kind === 'cédula with dots' ? sample.document_id : true));
    for (let i = 0; i < 200; i++) {
      const query = queryOf(kind, samples[Math.floor(next() * samples.length)]!, fixtures, next);
      if (kind === 'next page') {
        const first = await callJson<{ nextCursor: string | null }>(`${baseUrl}${pathOf(query)}`, { token });
        if (!first.nextCursor) continue;
        query.cursor = first.nextCursor;
      }
      paths.push(pathOf(query));
    }
    byKind.set(kind, paths);
  }
  return byKind;
}

/** How many searches of each kind find someone, each asked once, one after the other. */
async function hitRates(baseUrl: string, token: string, byKind: Map<Kind, string[]>): Promise<Map<Kind, { hits: number; asked: number; msMedian: number }>> {
  const rates = new Map<Kind, { hits: number; asked: number; msMedian: number }>();
  for (const [kind, paths] of byKind) {
    let hits = 0;
    const times: number[] = [];
    for (const path of paths.slice(0, 40)) {
      const started = performance.now();
      const page = await callJson<{ data: unknown[] }>(`${baseUrl}${path}`, { token });
      times.push(performance.now() - started);
      if (page.data.length) hits++;
    }
    times.sort((a, b) => a - b);
    rates.set(kind, { hits, asked: Math.min(40, paths.length), msMedian: times[Math.floor(times.length / 2)] ?? 0 });
  }
  return rates;
}

/** The mix's searches in a shuffled order, each kind as often as its share says. */
function mixPaths(byKind: Map<Kind, string[]>): string[] {
  const next = random(7);
  const pool: string[] = [];
  for (const [kind, share] of KINDS) {
    const paths = byKind.get(kind) ?? [];
    for (let i = 0; i < share * 20 && paths.length; i++) pool.push(paths[i % paths.length]!);
  }
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool;
}

/** The mix at full speed: each connection takes the next search as soon as its last is answered. */
function mixRequests(byKind: Map<Kind, string[]>, auth: Record<string, string>): autocannon.Request[] {
  const pool = mixPaths(byKind);
  let turn = 0;
  return [{ method: 'GET', path: pool[0]!, headers: auth, setupRequest: (request) => ({ ...request, path: pool[turn++ % pool.length]! }) }];
}

/** How staff at their screens pace searches: the list searches on Enter, then they read the page. */
const STAFF_THINK_MS = { min: 1000, max: 3000 };
const STAFF_SECONDS = 60;

interface StaffRun {
  answered: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  failures: number;
}

/**
 * 20 staff at their screens: each asks the mix's next search, waits for the page, reads it for
 * 1 to 3 s (uniformly drawn), and asks again — 20 to 30 searches a minute each, more than anyone
 * working a list makes. The first 5 s are a warm-up; latencies are measured by this process
 * from the request's start to the whole body.
 */
async function staffAtScreens(baseUrl: string, byKind: Map<Kind, string[]>, auth: Record<string, string>): Promise<StaffRun> {
  const pool = mixPaths(byKind);
  let turn = 0;
  const warmupEnds = performance.now() + 5000;
  const ends = warmupEnds + STAFF_SECONDS * 1000;
  const latencies: number[] = [];
  let failures = 0;
  const staffMember = async (seed: number) => {
    const next = random(seed);
    await delay(next() * STAFF_THINK_MS.max); // staff do not all press Enter at the same moment
    while (performance.now() < ends) {
      const started = performance.now();
      try {
        const response = await fetch(`${baseUrl}${pool[turn++ % pool.length]}`, { headers: auth });
        await response.arrayBuffer();
        if (!response.ok && started >= warmupEnds) failures++;
      } catch {
        if (started >= warmupEnds) failures++;
      }
      if (started >= warmupEnds) latencies.push(performance.now() - started);
      await delay(STAFF_THINK_MS.min + next() * (STAFF_THINK_MS.max - STAFF_THINK_MS.min));
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => staffMember(1000 + i)));
  latencies.sort((a, b) => a - b);
  const at = (share: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? 0);
  return { answered: latencies.length, requestsPerSecond: latencies.length / STAFF_SECONDS, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: Math.round(latencies.at(-1) ?? 0), failures };
}

function kindRequests(paths: string[], auth: Record<string, string>): autocannon.Request[] {
  let turn = 0;
  return [{ method: 'GET', path: paths[0]!, headers: auth, setupRequest: (request) => ({ ...request, path: paths[turn++ % paths.length]! }) }];
}

// ---------------------------------------------------------------------------------------------
// The run

interface Results {
  seedSeconds: number;
  counts: Record<string, number>;
  apiTest: Measurement;
  firstPage: Measurement;
  mix: Measurement;
  staff: StaffRun;
  kinds: Map<Kind, Measurement>;
  rates: Map<Kind, { hits: number; asked: number; msMedian: number }>;
}

/**
 * CPU seconds used so far by the PostgreSQL backends serving the bench database (their command
 * line names it), so other databases on a shared server do not count. Linux only.
 */
function benchBackendsCpuSeconds(): number | undefined {
  let ticks = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${db.name} `)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / 100;
}

const otherCpu = { PostgreSQL: benchBackendsCpuSeconds, 'all PostgreSQL': () => commandCpuSeconds('postgres') };

async function runAll(): Promise<Results> {
  return withServer(comandoServer({ name: 'comando-people', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX, nodeArgs: cpuProfileArgs() }), async (server) => {
    const token = await registerFirstAdmin(server.url);
    const campaigns = await createCampaigns(server.url, token);
    log(`seeding ${CONTACTS.toLocaleString('en')} contacts …`);
    const started = performance.now();
    await seed(campaigns);
    const seedSeconds = (performance.now() - started) / 1000;
    log(`seeded in ${seedSeconds.toFixed(1)} s`);
    const counts = await db.count(['contacts', 'contact_origins', 'territories']);
    const fixtures = await withPg(db.url, async (client) => ({
      // 1 % of the pages holds 500 people at the recorded size; a smaller run samples more of them.
      samples: (
        await client.query<Sample>(
          `select name, phone, email, document_id from contacts tablesample system (${Math.min(100, Math.max(1, 500_000 / CONTACTS))}) repeatable (42) limit 500`,
        )
      ).rows,
      communes: (await client.query<{ id: string }>(`select id from territories where type = 'commune' order by code`)).rows.map((row) => row.id),
      campaigns,
    }));
    const byKind = await questions(server.url, token, fixtures);
    const rates = await hitRates(server.url, token, byKind);
    const auth = { authorization: `Bearer ${token}` };
    const load = { connections: CONNECTIONS, serverPid: server.pid, otherCpu };
    log('GET /api/test …');
    const apiTest = await measure({ ...load, url: `${server.url}/api/test` });
    log('GET /api/audience/contacts (first page, no search) …');
    const firstPage = await measure({ ...load, url: `${server.url}${PATH}`, headers: auth });
    log('the search mix …');
    const mix = await measure({ ...load, url: server.url, requests: mixRequests(byKind, auth) });
    log(`${CONNECTIONS} staff at their screens (${STAFF_SECONDS} s) …`);
    const staff = await staffAtScreens(server.url, byKind, auth);
    const kinds = new Map<Kind, Measurement>();
    for (const [kind] of KINDS) {
      log(`  ${kind} alone …`);
      kinds.set(kind, await measure({ ...load, url: server.url, requests: kindRequests(byKind.get(kind)!, auth), warmupSeconds: 2, durationSeconds: 5 }));
    }
    return { seedSeconds, counts, apiTest, firstPage, mix, staff, kinds, rates };
  });
}

function report(r: Results): void {
  const fixed = (value: number, digits = 2) => value.toFixed(digits);
  const postgresCpu = (m: Measurement) => [
    m.otherCpuUsPerRequest?.PostgreSQL === undefined ? '–' : `${fixed(m.otherCpuUsPerRequest.PostgreSQL, 0)} µs`,
    m.otherCpuUsPerRequest?.['all PostgreSQL'] === undefined ? '–' : `${fixed(m.otherCpuUsPerRequest['all PostgreSQL'], 0)} µs`,
  ];
  const main = tableText(
    loadTable(
      [
        { target: 'GET /api/test', m: r.apiTest },
        { target: `GET ${PATH} (first page, no search)`, m: r.firstPage, vs: { baseline: r.apiTest, name: '/api/test' } },
        { target: '**Search mix**', m: r.mix, vs: { baseline: r.firstPage, name: 'first page' } },
      ],
      { header: ['Its PostgreSQL backends', 'All PostgreSQL'], cells: postgresCpu },
    ),
  );
  const kinds = markdownTable(
    ['Kind (alone)', 'Share of the mix', 'What staff type', 'Finds someone', 'One at a time, median (ms)', 'req/s', 'p50 (ms)', 'p99 (ms)', 'errors / non-2xx'],
    KINDS.map(([kind, share, what]) => {
      const m = r.kinds.get(kind)!;
      const rate = r.rates.get(kind)!;
      return [
        kind,
        `${share} %`,
        what,
        `${rate.hits} of ${rate.asked}`,
        fixed(rate.msMedian, 1),
        fixed(m.requestsPerSecond, 0),
        String(m.p50Ms),
        String(m.p99Ms),
        `${m.errors} / ${m.non2xx}`,
      ];
    }),
  );
  const all = [r.apiTest, r.firstPage, r.mix, ...r.kinds.values()];
  const clean = all.every((m) => m.errors === 0 && m.non2xx === 0) && r.staff.failures === 0;
  const contacts = r.counts.contacts?.toLocaleString('en');
  const verdicts: Array<[string, string, string, boolean | undefined]> = [
    [`Search mix p99, ${CONNECTIONS} staff at their screens, ${contacts} contacts`, `≤ ${goals.p99Ms} ms`, `${r.staff.p99Ms} ms`, r.staff.p99Ms <= goals.p99Ms],
    [`Search mix p99, ${CONNECTIONS} connections asking without pause (capacity)`, 'reported', `${r.mix.p99Ms} ms at ${fixed(r.mix.requestsPerSecond, 0)} req/s`, undefined],
    ['No errors or non-2xx answers', '0', clean ? '0' : 'some', clean],
  ];
  const staffTable = markdownTable(
    ['Staff', 'Pause after each answer', 'Measured for', 'Searches answered', 'req/s', 'p50 (ms)', 'p99 (ms)', 'Slowest (ms)', 'Failures'],
    [
      [
        String(CONNECTIONS),
        `${STAFF_THINK_MS.min / 1000}–${STAFF_THINK_MS.max / 1000} s`,
        `${STAFF_SECONDS} s`,
        String(r.staff.answered),
        fixed(r.staff.requestsPerSecond, 1),
        String(r.staff.p50Ms),
        String(r.staff.p99Ms),
        String(r.staff.maxMs),
        String(r.staff.failures),
      ],
    ],
  );
  const rows = Object.entries(r.counts)
    .map(([table, n]) => `${table} ${n.toLocaleString('en')}`)
    .join(', ');
  publish({
    id: 'people',
    title: 'People search (GET /api/audience/contacts)',
    command: 'npm run bench:people',
    recordedScales: [10],
    blocks: [
      `Data: ${rows}, written by one \`insert … select generate_series\` in ${fixed(r.seedSeconds, 0)} s (migrations had created the
search indexes, so the time includes keeping them). Comando's production build, one process, admin token;
autocannon ${CONNECTIONS} connections, ${defaults.warmupSeconds} s warm-up then ${defaults.durationSeconds} s measured for the baselines and the mix
(2 s and 5 s for each kind alone), all against the same server one after the other. The mix's searches are built from 500
people sampled from the table, so they find someone; each request takes the next of a shuffled list weighted by the shares below.

${main}

The mix as ${CONNECTIONS} staff ask it: each asks a search, waits for the page, reads it for a pause drawn between
${STAFF_THINK_MS.min / 1000} and ${STAFF_THINK_MS.max / 1000} s, and asks the next (the list searches when Enter is pressed; 20–30 searches a minute each is
more than anyone working a list makes). The table above asks without pause: the server's capacity, with requests
queueing once it is reached.

${staffTable}

${kinds}

"Finds someone" and "one at a time": the first 40 searches of the kind, asked once each before the load, one after the
other: how many answered at least one person, and the median time of one answer (through HTTP, from this process) with
nothing else of the run going on. The CPU columns: per answered request, the Comando process's own, that of the
PostgreSQL backends serving the bench database, and that of every PostgreSQL process on the machine (others' too).`,
      { goals: verdicts.map(([goal, target, measured, pass]) => ({ goal, target, measured, pass })) },
    ],
  });
}

runBenchmark(async () => {
  onInterrupt(db.drop);
  onInterrupt(async () => void (await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX)));
  let results: Results;
  try {
    await db.recreate();
    results = await runAll();
  } finally {
    await db.dropAtEnd();
    await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX).catch(() => undefined);
  }
  report(results);
});
