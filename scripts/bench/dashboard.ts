/**
 * `npm run bench:dashboard`: the general dashboard.
 *
 * A realistic campaign is written straight into a fresh bench database (after Comando's own
 * migrations ran at start): 100,000 contacts, 17 territories, 300 polling stations, 5,000
 * volunteers with 50,000 activities over 60 days, 500 events with 20,000 RSVPs, 10,000 PQRS,
 * 20,000 ledger entries, 300 poster codes with 30,000 leads. Then, against Comando's production
 * build, `GET /api/test` and `GET /api/dashboard/overview` (admin token) are each loaded with 50
 * connections (autocannon, warm-up then measured run), in the same server process one after the
 * other. Goals: overview p99 ≤ 50 ms and ≥ 50 % of `/api/test`'s request rate. The time of one
 * uncached overview (the recount the cache saves) is reported too.
 *
 * Sizes can be shrunk for a smoke run of the harness (BENCH_SCALE=0.01). Exits 1 when a goal is
 * missed or the run fails.
 */
import { performance } from 'node:perf_hooks';
import {
  benchDatabase,
  benchRedisUrl,
  callJson,
  comandoServer,
  cpuProfileArgs,
  deleteRedisKeys,
  measure,
  onInterrupt,
  registerFirstAdmin,
  scaled,
  settings,
  withPg,
  withServer,
  defaults,
  type Measurement,
} from './lib';
import { atLeast, atMost, loadTable, noErrors, publish, runBenchmark } from './report';

const size = scaled;
const SIZES = {
  contacts: size(100_000),
  stations: size(300),
  volunteers: size(5_000),
  activities: size(50_000),
  events: size(500),
  rsvps: size(20_000),
  pqrs: size(10_000),
  ledger: size(20_000),
  codes: size(300),
  leads: size(30_000),
};
const goals = { p99Ms: 50, ratio: 0.5 };
const db = benchDatabase('comando_bench_dashboard');
const REDIS_KEY_PREFIX = 'bench-dashboard';

/** Every table filled in one session with set-based statements; ids from gen_random_uuid (v4 is fine for a bench). */
async function seed(adminId: string): Promise<void> {
  const s = SIZES;
  await withPg(db.url, async (client) => {
    const run = (text: string, values: unknown[] = []) => client.query(text, values);
    await run(`insert into territories (id, name, type, population, centroid_lat, centroid_lng, created_at, updated_at)
      values ('00000000-0000-4000-8000-000000000001', 'Medellín', 'municipality', 2600000, 6.25, -75.57, now(), now())`);
    await run(`insert into territories (id, name, type, parent_id, population, centroid_lat, centroid_lng, created_at, updated_at)
      select gen_random_uuid(), 'Comuna ' || g, 'commune', '00000000-0000-4000-8000-000000000001', 100000 + g * 7000, 6.2 + g * 0.01, -75.6 + g * 0.005, now(), now()
      from generate_series(1, 16) g`);
    await run(`create temporary table communes as select id, row_number() over (order by name) - 1 as n from territories where type = 'commune'`);
    await run(
      `insert into contacts (id, identity_key, name, phone, territory_id, created_at, updated_at)
      select gen_random_uuid(), 'phone:+5730' || lpad(g::text, 8, '0'), 'Persona ' || g, '+5730' || lpad(g::text, 8, '0'),
        (select id from communes where n = g % 16), now() - (g % 90) * interval '1 day', now()
      from generate_series(1, $1::int) g`,
      [s.contacts],
    );
    await run(`create temporary table people as select id, row_number() over (order by id) as n from contacts`);
    await run(
      `insert into gotv_polling_stations (id, code, name, territory_id, lat, lng, tables, registered_voters, status, created_at, updated_at)
      select gen_random_uuid(), 'P' || g, 'Puesto ' || g, (select id from communes where n = g % 16), 6.15 + (g % 20) * 0.01, -75.65 + (g / 20) * 0.01, 10, 3000, 'pending', now(), now()
      from generate_series(1, $1::int) g`,
      [s.stations],
    );
    await run(
      `insert into volunteers (id, contact_id, territory_id, status, joined_on, source, created_at, updated_at)
      select gen_random_uuid(), p.id, (select id from communes where n = p.n % 16), case when p.n % 5 = 0 then 'prospect' else 'active' end, '2026-01-01', 'manual', now(), now()
      from people p where p.n <= $1`,
      [s.volunteers],
    );
    await run(`create temporary table team as select id, territory_id, row_number() over (order by id) as n from volunteers`);
    await run(
      `insert into volunteer_activities (id, volunteer_id, type, occurred_at, territory_id, created_at)
      select gen_random_uuid(), t.id, 'canvassing', now() - (g % 1440) * interval '1 hour', t.territory_id, now()
      from generate_series(1, $1::int) g join team t on t.n = 1 + (g * 7919) % $2`,
      [s.activities, s.volunteers],
    );
    await run(
      `insert into agenda_events (id, title, type, starts_at, ends_at, time_zone, latitude, longitude, visibility, status, created_by_id, created_at, updated_at)
      select gen_random_uuid(), 'Evento ' || g, 'meeting', now() + (g % 60 - 20) * interval '1 day', now() + (g % 60 - 20) * interval '1 day' + interval '2 hours',
        'America/Bogota', 6.2 + (g % 10) * 0.01, -75.6, 'public', case when g % 10 = 0 then 'cancelled' else 'scheduled' end, $2, now(), now()
      from generate_series(1, $1::int) g`,
      [s.events, adminId],
    );
    await run(`create temporary table agenda as select id, row_number() over (order by id) as n from agenda_events`);
    await run(
      `insert into agenda_rsvps (id, event_id, contact_id, status, responded_at, created_at)
      select gen_random_uuid(), e.id, p.id, case when g % 4 = 0 then 'maybe' else 'going' end, now(), now()
      from generate_series(1, $1::int) g join agenda e on e.n = 1 + g % $2 join people p on p.n = 1 + g`,
      [s.rsvps, s.events],
    );
    await run(
      `insert into pqrs_requests (id, number, year, sequence, type, subject, description, channel, status, territory_id, received_at, term_days, original_due_date, due_date, due_at, updated_at)
      select gen_random_uuid(), 'PQRS-2026-' || lpad(g::text, 6, '0'), 2026, g, 'peticion', 'Alumbrado', 'Sin luz en la cuadra', 'web',
        (array['received', 'in_progress', 'waiting_citizen', 'answered', 'closed'])[1 + g % 5], (select id from communes where n = g % 16),
        now() - (g % 120) * interval '1 day', 15, to_char(now() + (g % 40 - 15) * interval '1 day', 'YYYY-MM-DD'),
        to_char(now() + (g % 40 - 15) * interval '1 day', 'YYYY-MM-DD'), now() + (g % 40 - 15) * interval '1 day', now()
      from generate_series(1, $1::int) g`,
      [s.pqrs],
    );
    await run(
      `insert into finance_entries (id, kind, date, amount, code, counterparty_name, counterparty_id_number, recorded_by_id, created_at, updated_at)
      select gen_random_uuid(), case when g % 3 = 0 then 'income' else 'expense' end, to_char(current_date - (g % 120), 'YYYY-MM-DD'), 10000 + (g * 7919) % 5000000,
        case when g % 3 = 0 then 'I-101' else 'G-203' end, 'Proveedor ' || (g % 200), '900' || lpad((g % 200)::text, 6, '0'), $2, now(), now()
      from generate_series(1, $1::int) g`,
      [s.ledger, adminId],
    );
    await run(
      `insert into consent_texts (id, sha256, text, created_at) values ('00000000-0000-4000-8000-0000000000c1', repeat('a', 64), 'Autorizo el tratamiento de mis datos.', now())`,
    );
    await run(`insert into qr_campaigns (id, name, status, landing, consent_text_id, created_at, updated_at)
      values ('00000000-0000-4000-8000-0000000000a1', 'Afiches', 'active', '{}'::jsonb, '00000000-0000-4000-8000-0000000000c1', now(), now())`);
    await run(
      `insert into qr_codes (id, campaign_id, code, label, lat, lng, territory_id, created_at)
      select gen_random_uuid(), '00000000-0000-4000-8000-0000000000a1', 'C' || g, 'Afiche ' || g, 6.2 + (g % 30) * 0.005, -75.6 + (g / 30) * 0.005,
        (select id from communes where n = g % 16), now()
      from generate_series(1, $1::int) g`,
      [s.codes],
    );
    await run(`create temporary table posters as select id, territory_id, row_number() over (order by id) as n from qr_codes`);
    await run(
      `insert into qr_leads (id, campaign_id, code_id, contact_id, territory_id, whatsapp_opt_in, email_opt_in, created_at, updated_at)
      select gen_random_uuid(), '00000000-0000-4000-8000-0000000000a1', c.id, p.id, c.territory_id, true, false, now() - (p.n % 60) * interval '1 day', now()
      from people p join posters c on c.n = 1 + p.n % $2 where p.n <= $1`,
      [s.leads, s.codes],
    );
    await run('analyze');
  });
}

interface Results {
  apiTest: Measurement;
  overview: Measurement;
  coldMs: number;
  counts: Record<string, number>;
}

async function runAll(): Promise<Results> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  return withServer(comandoServer({ name: 'comando-dashboard', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX, nodeArgs: cpuProfileArgs() }), async (server) => {
    const token = await registerFirstAdmin(server.url);
    const me = await callJson<{ id: string }>(`${server.url}/api/auth/me`, { token });
    log(`seeding (scale ${settings.scale}) …`);
    const started = performance.now();
    await seed(me.id);
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const counts = await db.count([
      'contacts',
      'volunteers',
      'volunteer_activities',
      'agenda_events',
      'agenda_rsvps',
      'pqrs_requests',
      'finance_entries',
      'qr_leads',
      'gotv_polling_stations',
    ]);

    // The recount the cache saves: the first overview after the cache expired (TTL 10 s).
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const coldStart = performance.now();
    await callJson(`${server.url}/api/dashboard/overview`, { token });
    const coldMs = performance.now() - coldStart;

    const auth = { authorization: `Bearer ${token}` };
    log('GET /api/test …');
    const apiTest = await measure({ url: `${server.url}/api/test`, serverPid: server.pid });
    log('GET /api/dashboard/overview …');
    const overview = await measure({ url: `${server.url}/api/dashboard/overview`, headers: auth, serverPid: server.pid });
    return { apiTest, overview, coldMs, counts };
  });
}

function report(r: Results): void {
  const rows = Object.entries(r.counts)
    .map(([table, n]) => `${table} ${n.toLocaleString('en')}`)
    .join(', ');
  publish({
    id: 'dashboard',
    title: 'Dashboard overview',
    command: 'npm run bench:dashboard',
    blocks: [
      `Data (scale ${settings.scale}): ${rows}. Comando's production build, one process; autocannon
${defaults.connections} connections, ${defaults.warmupSeconds} s warm-up then ${defaults.durationSeconds} s measured, \`/api/test\` then the overview
(admin token) against the same server. The overview is served from the per-process cache
(\`caches.named('dashboard-overview')\`, TTL 10 s, dropped in every process by the KPI watcher when a
figure moves), so under load almost every answer is a cache hit; one uncached overview (the recount:
about a dozen aggregate statements side by side) took **${r.coldMs.toFixed(0)} ms** on this data.`,
      loadTable([
        { target: 'GET /api/test', m: r.apiTest },
        { target: '**GET /api/dashboard/overview**', m: r.overview, vs: { baseline: r.apiTest, name: '/api/test' } },
      ]),
      {
        goals: [
          atMost('Overview p99 at 50 connections', r.overview.p99Ms, goals.p99Ms, { digits: 0, unit: ' ms' }),
          atLeast('Overview req/s vs GET /api/test', r.overview.requestsPerSecond / r.apiTest.requestsPerSecond, goals.ratio),
          noErrors('No errors or non-2xx answers', [r.apiTest, r.overview]),
        ],
      },
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
