/**
 * `npm run bench:duplicates`: the duplicate finder (`GET /api/audience/duplicates`) at campaign scale.
 *
 * Comando's production build on a throw-away database (its own migrations run at start); N contacts
 * (100,000; BENCH_SCALE=10 gives 1,000,000, the people search's size) are written
 * straight into it with two `insert … select generate_series` statements: Colombian names (60 first
 * names, 60 surnames, a second surname for three in four), an E.164 mobile each, an email for 40 %,
 * a cédula for half, a barrio (of 400) for 80 %; then 1.5 % more records of people already there,
 * by cédula (40 % of them), email (25 %), name in the same barrio (30 %: as typed, upper case,
 * without accents, doubled spaces, or a surname short), or the same ten digits under another
 * country code (5 %).
 *
 * Then, one request at a time, R rounds (BENCH_ROUNDS, default 20, after 3 warm-up rounds) of: `GET /api/test` (the floor), the people list's first page (`GET
 * /api/audience/contacts?limit=50`, a keyset page of the same table), the finder's first page, a
 * later page (the 10th, from the cursors the pages gave) and one contact's pairs. Times are until
 * the whole answer is read. A request kind that fails or takes longer than 300 s is not asked again; the bench database gets a
 * `statement_timeout` of that length and a 5 GB `temp_file_limit`, so a runaway statement cannot
 * fill the disk of a shared machine.
 *
 * Writes: capture-shaped statements on the same database (a new person's `insert … on conflict`,
 * the same person again, a correction of an email), timed by the database in blocks alternating
 * the finder's triggers on and off when the schema has them, and four imports of 5,000 supporters
 * through the API, the triggers off and on in turn; after each kind, the time the finder's next
 * page takes (it catches up first).
 *
 * Each size has its own section of docs/benchmarks.md (`duplicates-<N>`). Exits 1 when a goal is
 * missed (first and later page p50 ≤ 300 ms) or the run fails.
 */
import { performance } from 'node:perf_hooks';
import type { Client } from 'pg';
import { benchDatabase, benchRedisUrl, comandoServer, cpuProfileArgs, deleteRedisKeys, onInterrupt, registerFirstAdmin, scaled, settings, withPg, withServer } from './lib';
import { atMost, markdownTable, publish, runBenchmark, type Goal } from './report';

const CONTACTS = scaled(100_000);
const ROUNDS = settings.rounds ?? 20;
const WARMUP_ROUNDS = 3;
const TIMEOUT_S = 300;
const LATER_PAGE = 10;
const WRITES = 2000;
/** Statements in one timed block; the blocks alternate the finder's triggers on and off. */
const WRITE_BLOCK = 50;
const IMPORT_ROWS = 5_000;
const IMPORTS = 4;
const goals = { firstPageMs: 300, laterPageMs: 300 };
const db = benchDatabase('comando_bench_duplicates');
const REDIS_KEY_PREFIX = 'bench-duplicates';
const label = CONTACTS >= 1_000_000 && CONTACTS % 1_000_000 === 0 ? `${CONTACTS / 1_000_000}m` : `${Math.round(CONTACTS / 1000)}k`;

const log = (line: string) => process.stdout.write(`${line}\n`);
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const thousands = (value: number) => value.toLocaleString('en');

/** The people of the campaign: `base` people, then `extra` second records of some of them (see the header). */
export async function seedContacts(client: Client, total: number): Promise<{ seconds: number }> {
  const started = performance.now();
  const base = Math.round(total * 0.985);
  const run = (text: string, values: unknown[] = []) => client.query(text, values);
  // The bench database's statement_timeout is for the requests measured, not for writing a million people.
  await run('set statement_timeout = 0');
  await run('begin');
  await run(`insert into territories (id, name, type, population, created_at, updated_at)
    values ('00000000-0000-4000-8000-000000000001', 'Bogotá', 'municipality', 7900000, now(), now())`);
  await run(`insert into territories (id, name, type, code, parent_id, created_at, updated_at)
    select ('00000000-0000-4000-8001-' || lpad(g::text, 12, '0'))::uuid, 'Localidad ' || g, 'commune', 'L-' || g, '00000000-0000-4000-8000-000000000001', now(), now()
    from generate_series(1, 20) g`);
  await run(`insert into territories (id, name, type, code, parent_id, created_at, updated_at)
    select ('00000000-0000-4000-8002-' || lpad(g::text, 12, '0'))::uuid, 'Barrio ' || g, 'neighbourhood', 'B-' || g,
      ('00000000-0000-4000-8001-' || lpad((1 + g % 20)::text, 12, '0'))::uuid, now(), now()
    from generate_series(1, 400) g`);
  // Person g: phones are a bijection of g (7919 is prime to 10⁹), cédulas too (104729), emails carry g.
  await run(
    `create temporary table seed_people on commit drop as
    with names as (
      select array['María','José','Luis','Ana','Carlos','Juan','Sandra','Andrés','Diana','Jorge','Claudia','Óscar','Paola','Jhon','Luz','Édgar','Martha','Camilo','Ángela','Julián',
        'Gloria','Fernando','Natalia','Hernán','Yolanda','Sebastián','Lucía','Felipe','Marisol','Héctor','Carolina','Germán','Adriana','Iván','Alejandra','Rubén','Sofía','Mauricio','Valentina','Ramón',
        'Beatriz','Álvaro','Liliana','Víctor','Daniela','Nelson','Mónica','Wílmer','Esperanza','Raúl','Patricia','Darío','Johana','Fabio','Lorena','Gustavo','Milena','Rodrigo','Yesenia','Mario'] as first,
      array['Rodríguez','Gómez','González','Martínez','García','López','Hernández','Sánchez','Ramírez','Pérez','Díaz','Muñoz','Rojas','Moreno','Jiménez','Vargas','Castro','Gutiérrez','Álvarez','Romero',
        'Ortiz','Suárez','Torres','Ruiz','Valencia','Quintero','Restrepo','Mejía','Cárdenas','Arango','Ospina','Zapata','Ríos','Castaño','Giraldo','Osorio','Bedoya','Salazar','Marín','Londoño',
        'Patiño','Cardona','Agudelo','Henao','Montoya','Correa','Úsuga','Betancur','Duque','Acevedo','Ocampo','Guzmán','Peña','Rincón','Parra','Cruz','Niño','Beltrán','Mendoza','Reyes'] as last
    )
    select g,
      n.first[1 + abs(hashint4extended(g, 1)) % 60] || ' ' || n.last[1 + abs(hashint4extended(g, 2)) % 60] ||
        case when g % 4 <> 0 then ' ' || n.last[1 + abs(hashint4extended(g, 3)) % 60] else '' end as name,
      '+573' || lpad(((g::bigint * 7919) % 1000000000)::text, 9, '0') as phone,
      case when g % 5 < 2 then regexp_replace(people_fold(n.first[1 + abs(hashint4extended(g, 1)) % 60]), '[^a-z]', '', 'g') || '.' ||
        regexp_replace(people_fold(n.last[1 + abs(hashint4extended(g, 2)) % 60]), '[^a-z]', '', 'g') || g || '@' ||
        (array['gmail.com','hotmail.com','yahoo.es','outlook.com','une.net.co'])[1 + g % 5] end as email,
      case when g % 2 = 0 then (10000000 + (g::bigint * 104729) % 1090000000)::text end as document_id,
      case when g % 10 < 8 then ('00000000-0000-4000-8002-' || lpad((1 + abs(hashint4extended(g, 4)) % 400)::text, 12, '0'))::uuid end as territory_id,
      now() - (abs(hashint4extended(g, 5)) % (180 * 86400)) * interval '1 second' as created_at
    from generate_series(1, $1::int) g, names n`,
    [base],
  );
  await run(`insert into contacts (id, identity_key, name, phone, email, document_id, territory_id, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
    select gen_random_uuid(), 'tel:' || phone, name, phone, email, document_id, territory_id, '{}', g % 3 <> 0, email is not null and g % 2 = 0, created_at, created_at
    from seed_people`);
  // Record k of someone already there: kind by k % 20 (0-7 cédula, 8-12 email, 13-19 name and barrio, 19 also the same ten digits after +1);
  // the person is one of every 20 whose g has what the kind needs (g ≡ 2: a cédula; g ≡ 1: an email; g ≡ 3: a barrio).
  await run(
    `insert into contacts (id, identity_key, name, phone, email, document_id, territory_id, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
    select gen_random_uuid(), 'tel:' || d.phone, d.name, d.phone, d.email, d.document_id, d.territory_id, '{}', true, false, d.created_at, d.created_at
    from (
      select p.created_at + interval '3 days' as created_at,
        case k % 5 when 0 then p.name when 1 then upper(p.name) when 2 then people_fold(p.name) when 3 then replace(p.name, ' ', '  ')
          else split_part(p.name, ' ', 1) || ' ' || split_part(p.name, ' ', 2) end as name,
        case when k % 20 = 19 then '+1' || right(p.phone, 10) else '+573' || lpad((($1::int + k)::bigint * 7919 % 1000000000)::text, 9, '0') end as phone,
        case when k % 20 between 8 and 12 then p.email end as email,
        case when k % 20 between 0 and 7 then p.document_id end as document_id,
        case when k % 20 between 13 and 19 or k % 3 = 0 then p.territory_id end as territory_id
      from generate_series(1, $2::int) k
      join seed_people p on p.g = (abs(hashint4extended(k, 9)) % ($1::int / 20)) * 20 + case when k % 20 between 0 and 7 then 2 when k % 20 between 8 and 12 then 1 else 3 end
    ) d
    on conflict (identity_key) do nothing`,
    [base, total - base],
  );
  await run('commit');
  await run('analyze');
  return { seconds: (performance.now() - started) / 1000 };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Latency {
  count: number;
  p50: number;
  p95: number;
  max: number;
  /** Why the kind stopped being asked, when it did. */
  failure?: string;
}

function latencyOf(samples: readonly number[], failure?: string): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted.at(-1) ?? NaN, ...(failure ? { failure } : {}) };
}

interface Answer<T> {
  ms: number;
  status: number;
  body: T | undefined;
  failure?: string;
}

/** One GET, timed until the whole answer is read; a timeout or a non-200 is an answer with `failure`. */
async function timedGet<T>(url: string, token?: string): Promise<Answer<T>> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(TIMEOUT_S * 1000) });
    const text = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 200) return { ms, status: response.status, body: undefined, failure: `HTTP ${response.status} after ${fixed(ms / 1000)} s` };
    return { ms, status: 200, body: JSON.parse(text) as T };
  } catch (error) {
    const ms = performance.now() - started;
    return { ms, status: 0, body: undefined, failure: `${(error as Error).name} after ${fixed(ms / 1000)} s` };
  }
}

interface PairPage {
  data: { contacts: { id: string }[]; score: number; reasons: string[] }[];
  nextCursor: string | null;
}

interface WriteCost {
  kind: string;
  /** Median µs per statement, by trigger state. */
  on: number;
  off: number | undefined;
  /** The finder's next page after these writes (it takes in what changed first). */
  nextPageMs: number | undefined;
}

interface Results {
  seedSeconds: number;
  contacts: number;
  firstAfterSeed: Answer<PairPage>;
  pairs: number | undefined;
  laterPageNumber: number;
  latencies: Record<string, Latency>;
  writes: WriteCost[];
  /** Each import's time (ms), by the state of the finder's triggers. */
  imports: Record<'on' | 'off', (number | undefined)[]>;
  importNextPageMs: number | undefined;
  triggers: string[];
}

/** The finder's own triggers on contacts, if this schema has them. */
async function finderTriggers(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ tgname: string }>(
    `select tgname from pg_trigger where tgrelid = 'contacts'::regclass and not tgisinternal and tgname like 'contacts\\_duplicates%' order by tgname`,
  );
  return rows.map((row) => row.tgname);
}

/**
 * Capture-shaped statements run by the database itself in blocks of `WRITE_BLOCK` (a loop in one
 * function call and transaction, timed with clock_timestamp(), so neither the network nor this
 * process's scheduling blurs a difference of microseconds), `WRITES` of each kind, the blocks
 * alternating the finder's triggers on and off (when there are triggers); the median of the blocks'
 * µs per statement for each state.
 */
async function measureWrites(client: Client, triggers: string[], nextPage: () => Promise<number | undefined>): Promise<WriteCost[]> {
  const toggle = async (on: boolean) => {
    for (const trigger of triggers) await client.query(`alter table contacts ${on ? 'enable' : 'disable'} trigger ${client.escapeIdentifier(trigger)}`);
  };
  await client.query(`create function pg_temp.bench_writes(kind text, first int, n int) returns double precision language plpgsql as $$
    declare
      started timestamptz := clock_timestamp();
      number text;
    begin
      for i in first .. first + n - 1 loop
        number := '+57310' || lpad(i::text, 7, '0');
        if kind = 'correction' then
          update contacts set email = 'persona.nueva.' || i || '@example.org', updated_at = now() where identity_key = 'tel:' || number;
        else
          insert into contacts as k (id, identity_key, name, phone, email, document_id, territory_id, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
          values (gen_random_uuid(), 'tel:' || number, 'Persona Nueva ' || i, number, null, null, '00000000-0000-4000-8002-000000000007', '{}', true, false, now(), now())
          on conflict (identity_key) do update set name = excluded.name, phone = coalesce(excluded.phone, k.phone), territory_id = coalesce(excluded.territory_id, k.territory_id),
            whatsapp_opt_in = k.whatsapp_opt_in or excluded.whatsapp_opt_in, updated_at = excluded.updated_at;
        end if;
      end loop;
      return extract(epoch from clock_timestamp() - started) * 1e6 / n;
    end $$`);
  const kinds = [
    { kind: 'new', label: 'a new person arrives (capture: insert … on conflict)' },
    { kind: 'again', label: 'the same person again (capture; nothing the finder reads changes)' },
    { kind: 'correction', label: 'a correction (a new email)' },
  ];
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  const costs: WriteCost[] = [];
  for (const { kind, label } of kinds) {
    const blocks: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let block = 0; block * WRITE_BLOCK < WRITES; block++) {
      const on = !triggers.length || block % 2 === 0;
      await toggle(on);
      const { rows } = await client.query<{ us: number }>('select pg_temp.bench_writes($1, $2, $3) as us', [kind, block * WRITE_BLOCK, WRITE_BLOCK]);
      blocks[on ? 'on' : 'off'].push(Number(rows[0]?.us));
    }
    await toggle(true);
    costs.push({ kind: label, on: median(blocks.on), off: blocks.off.length ? median(blocks.off) : undefined, nextPageMs: await nextPage() });
  }
  return costs;
}

/** The `file`-th file of `IMPORT_ROWS` new supporters; one in ten shares the inbox of the row before it (a pair each). */
async function importSupporters(url: string, token: string, file: number): Promise<number | undefined> {
  const lines = ['name,phone,email,cedula,codigoTerritorio'];
  for (let row = 0; row < IMPORT_ROWS; row++) {
    const i = file * IMPORT_ROWS + row;
    const inbox = row % 10 === 1 ? i - 1 : i;
    lines.push(
      `Importado ${i} Pérez,+57320${String(i).padStart(7, '0')},importado.${inbox}@example.org,${row % 5 === 0 ? '' : `9${String(i).padStart(9, '0')}`},B-${1 + (i % 400)}`,
    );
  }
  const started = performance.now();
  try {
    const response = await fetch(`${url}/api/audience/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
      body: lines.join('\n'),
      signal: AbortSignal.timeout(TIMEOUT_S * 1000),
    });
    const text = await response.text();
    if (response.status !== 200) {
      log(`import answered ${response.status}: ${text.slice(0, 300)}`);
      return undefined;
    }
    return performance.now() - started;
  } catch (error) {
    log(`import failed after ${fixed((performance.now() - started) / 1000)} s: ${String(error)} ${String((error as Error).cause ?? '')}`);
    return undefined;
  }
}

async function runAll(): Promise<Results> {
  await db.recreate();
  // A runaway statement (the old finder's later pages) must neither run for ever nor fill a shared disk.
  await withPg(db.url, async (client) => {
    await client.query(`alter database ${db.name} set statement_timeout = '${TIMEOUT_S}s'`);
    await client.query(`alter database ${db.name} set temp_file_limit = '5GB'`);
  });
  onInterrupt(() => db.drop());
  return withServer(
    comandoServer({ name: 'comando-duplicates', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX, logLevel: 'warn', nodeArgs: cpuProfileArgs() }),
    async (server) => {
      const token = await registerFirstAdmin(server.url);
      log(`seeding ${thousands(CONTACTS)} contacts …`);
      const { seconds: seedSeconds } = await withPg(db.url, (client) => seedContacts(client, CONTACTS));
      const contacts = (await db.count(['contacts'])).contacts ?? 0;
      log(`seeded ${thousands(contacts)} in ${fixed(seedSeconds)} s`);
      const triggers = await withPg(db.url, finderTriggers);
      const finder = (query = '') => timedGet<PairPage>(`${server.url}/api/audience/duplicates?limit=50${query}`, token);

      log('the finder’s first page after the seed …');
      const firstAfterSeed = await finder();
      log(`  ${fixed(firstAfterSeed.ms)} ms ${firstAfterSeed.failure ?? ''}`);
      const pairs = await withPg(db.url, async (client) => {
        const { rows } = await client.query<{ n: string }>(`select count(*) as n from pg_tables where tablename = 'contact_duplicate_pairs'`);
        if (Number(rows[0]?.n) === 0) return undefined;
        return Number((await client.query<{ n: string }>('select count(*) as n from contact_duplicate_pairs')).rows[0]?.n);
      });

      // The later page's cursor: walk the pages as a screen would.
      const first = firstAfterSeed.body ?? (await finder()).body;
      let cursor = first?.nextCursor ?? null;
      let laterPageNumber = 2;
      let walkFailure: string | undefined;
      for (; laterPageNumber < LATER_PAGE && cursor; laterPageNumber++) {
        const page = await finder(`&cursor=${cursor}`);
        if (page.failure || !page.body?.nextCursor) {
          walkFailure = page.failure;
          break;
        }
        cursor = page.body.nextCursor;
      }
      const contactId = first?.data[Math.min(7, first.data.length - 1)]?.contacts[1]?.id;

      const kinds: Record<string, () => Promise<Answer<unknown>>> = {
        'GET /api/test (baseline)': () => timedGet(`${server.url}/api/test`),
        'GET /api/audience/contacts?limit=50 (people list, first page)': () => timedGet(`${server.url}/api/audience/contacts?limit=50`, token),
        'duplicates, first page': () => finder(),
        [`duplicates, page ${laterPageNumber}`]: () =>
          cursor ? finder(`&cursor=${cursor}`) : Promise.resolve({ ms: NaN, status: 0, body: undefined, failure: walkFailure ?? 'no such page' }),
        'duplicates of one contact (contactId)': () =>
          contactId ? finder(`&contactId=${contactId}`) : Promise.resolve({ ms: NaN, status: 0, body: undefined, failure: 'no pair' }),
      };
      const samples: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
      const failures: Record<string, string> = {};
      for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
        for (const [kind, ask] of Object.entries(kinds)) {
          if (failures[kind]) continue;
          const answer = await ask();
          if (answer.failure) {
            failures[kind] = answer.failure;
            log(`  ${kind}: ${answer.failure} (not asked again)`);
            continue;
          }
          if (round >= WARMUP_ROUNDS) samples[kind]!.push(answer.ms);
        }
        if (round === 0 || (round + 1) % 5 === 0) log(`round ${round + 1}/${WARMUP_ROUNDS + ROUNDS}`);
      }
      const latencies = Object.fromEntries(Object.entries(samples).map(([kind, values]) => [kind, latencyOf(values, failures[kind])]));

      const nextPage = async () => {
        const answer = await finder();
        return answer.failure ? undefined : answer.ms;
      };
      log('writes …');
      const writes = await withPg(db.url, (client) => measureWrites(client, triggers, nextPage));
      log('import …');
      // Files with the finder's triggers off and on in turn, on last; then the finder takes in the last one.
      const imports: Record<'on' | 'off', (number | undefined)[]> = { on: [], off: [] };
      for (let file = 0; file < IMPORTS; file++) {
        const on = !triggers.length || file % 2 === 1 || file === IMPORTS - 1;
        await withPg(db.url, async (client) => {
          for (const trigger of triggers) await client.query(`alter table contacts ${on ? 'enable' : 'disable'} trigger ${client.escapeIdentifier(trigger)}`);
        });
        imports[on ? 'on' : 'off'].push(await importSupporters(server.url, token, file));
      }
      const importNextPageMs = imports.on.at(-1) === undefined ? undefined : await nextPage();
      return { seedSeconds, contacts, firstAfterSeed, pairs, laterPageNumber, latencies, writes, imports, importNextPageMs, triggers };
    },
  );
}

/** How the imports alternated. */
const triggers = (r: Results) => (r.triggers.length ? 'off and on in turn' : '(none)');
const importTimes = (r: Results) =>
  (['on', 'off'] as const)
    .filter((state) => r.imports[state].length && (r.triggers.length || state === 'on'))
    .map((state) => `${r.triggers.length ? `${state} ` : ''}${r.imports[state].map((ms) => (ms === undefined ? 'failed' : `${fixed(ms / 1000, 2)} s`)).join(', ')}`)
    .join('; ');

function report(r: Results): void {
  const baseline = r.latencies['GET /api/test (baseline)']!;
  const people = r.latencies['GET /api/audience/contacts?limit=50 (people list, first page)']!;
  const rows = Object.entries(r.latencies).map(([kind, lat]) => [
    kind,
    String(lat.count),
    lat.count ? fixed(lat.p50) : '–',
    lat.count ? fixed(lat.p95) : '–',
    lat.count ? fixed(lat.max) : '–',
    lat.count ? `${fixed(lat.p50 / baseline.p50, 1)} ×` : '–',
    lat.count ? `${fixed(lat.p50 / people.p50, 2)} ×` : '–',
    lat.failure ?? '',
  ]);
  const first = r.latencies['duplicates, first page']!;
  const later = r.latencies[`duplicates, page ${r.laterPageNumber}`]!;
  const pageGoal = (goal: string, lat: Latency, max: number): Goal =>
    lat.count ? atMost(goal, lat.p50, max, { digits: 1, unit: ' ms' }) : { goal, target: `≤ ${max} ms`, measured: lat.failure ?? '–', pass: false };
  const writeRows = r.writes.map((w) => [
    w.kind,
    fixed(w.on, 0),
    w.off === undefined ? '–' : fixed(w.off, 0),
    w.off === undefined ? '–' : `${fixed(w.on - w.off, 0)} µs`,
    w.nextPageMs === undefined ? 'failed' : fixed(w.nextPageMs),
  ]);
  const intro = `Data: ${thousands(r.contacts)} contacts seeded in ${fixed(r.seedSeconds)} s (1.5 % second records of someone: by cédula, email, name in the same barrio, ten digits under +1);
${r.pairs === undefined ? 'candidate pairs computed on each request' : `${thousands(r.pairs)} candidate pairs kept`}. The finder's triggers: ${r.triggers.length ? r.triggers.map((t) => `\`${t}\``).join(', ') : 'none'}.
First request after the seed: ${r.firstAfterSeed.failure ?? `${fixed(r.firstAfterSeed.ms)} ms`}.
One request at a time, ${WARMUP_ROUNDS} warm-up then ${ROUNDS} measured rounds, each asking every kind below once.

${markdownTable(['Request', 'n', 'p50 (ms)', 'p95 (ms)', 'max (ms)', 'p50 ÷ /api/test', 'p50 ÷ people list', 'Stopped'], rows)}

Writes: ${thousands(WRITES)} statements of each kind run by the database in blocks of ${WRITE_BLOCK} (one function call and transaction each, timed inside),
the blocks alternating the finder's triggers on and off; median µs per statement over the blocks. Then the finder's first page, which takes in what changed first:

${markdownTable(['Write', 'µs, finder on', 'µs, finder off', 'Difference', 'Next first page (ms)'], writeRows)}

Imports of ${thousands(IMPORT_ROWS)} supporters each (\`POST /api/audience/contacts/import\`, one in ten sharing an inbox with the row before), the finder's triggers ${triggers(r)}: ${importTimes(r)}; the finder's next first page ${r.importNextPageMs === undefined ? 'failed' : `${fixed(r.importNextPageMs)} ms`}.`;
  publish({
    id: `duplicates-${label}`,
    title: `Duplicate finder at ${thousands(r.contacts)} contacts`,
    command: 'npm run bench:duplicates',
    recordedScales: [1, 10],
    blocks: [intro, { goals: [pageGoal('First page p50', first, goals.firstPageMs), pageGoal(`Later page (${r.laterPageNumber}) p50`, later, goals.laterPageMs)] }],
  });
}

runBenchmark(async () => {
  let results: Results;
  try {
    results = await runAll();
  } finally {
    await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX).catch(() => 0);
    await db.drop();
  }
  report(results);
  process.exit();
});
