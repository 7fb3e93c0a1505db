import { addDays, localClock } from '../../src/kernel/calendar';
import { newId } from '../../src/kernel/ids';
import { sql } from '../../src/kernel/sql';
import { dropOverview } from '../../src/modules/dashboard/dashboard.overview';
import { dueSoonHorizon, endOfLocalDay } from '../../src/modules/pqrs/pqrs.clock';
import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

const TZ = 'America/Bogota';
const HOUR = 3_600_000;
const ACTIVE_DAYS = 14;

/** A small seeded generator, so a failure can be replayed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/** An hour offset from now that keeps clear of the window edges, so the seconds between seeding and asking cannot move a row across one. */
function clearOf(rand: ReturnType<typeof generator>, min: number, max: number, edges: number[]): number {
  for (;;) {
    const hours = rand.int(min, max);
    if (edges.every((edge) => Math.abs(hours - edge) > 3)) return hours;
  }
}

const localDay = (at: Date) => localClock(at, TZ).date;

interface Seeded {
  active: number;
  activeBefore: number;
  upcoming: number;
  going: number;
  pending: number;
  overdue: number;
  dueSoon: number;
  income: number;
  expenses: number;
  activitiesPerDay: Map<string, number>;
  pqrsPerDay: Map<string, number>;
  spendPerDay: Map<string, number>;
  events: { id: string; lat: number; lng: number; startsInHours: number; scheduled: boolean }[];
}

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let treasurer: TestUser;
let volunteer: TestUser;
let brigade: TestUser;
let seeded: Seeded;
let now: Date;

const bump = (map: Map<string, number>, key: string, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

/** Volunteers, activities, events with RSVPs and PQRS written straight into their tables; the ledger through its API. */
async function seed(): Promise<Seeded> {
  const rand = generator(20);
  const db = app.runtime.deps.db;
  now = new Date();
  const today = localDay(now);

  const contacts = Array.from({ length: 80 }, () => newId());
  await db.write(sql`
    insert into contacts (id, identity_key, name, created_at, updated_at)
    select id, 'test:' || id, 'Persona', now(), now() from unnest(${contacts}::uuid[]) as c(id)`);

  // Volunteers: 50, three of them erased; activities over the last 40 days.
  const volunteers = contacts.slice(0, 50).map((contactId, index) => ({ id: newId(), contactId, erased: index % 17 === 5 }));
  await db.write(sql`
    insert into volunteers (id, contact_id, status, joined_on, source, erased_at, created_at, updated_at)
    select v.id, v.contact_id, 'active', ${today}, 'manual', case when v.erased then now() else null end, now(), now()
    from unnest(${volunteers.map((v) => v.id)}::uuid[], ${volunteers.map((v) => v.contactId)}::uuid[], ${volunteers.map((v) => v.erased)}::boolean[]) as v(id, contact_id, erased)`);
  const activeNow = new Set<string>();
  const activeBefore = new Set<string>();
  const activitiesPerDay = new Map<string, number>();
  const activities = Array.from({ length: 400 }, () => {
    const volunteer = rand.pick(volunteers);
    const hoursAgo = clearOf(rand, 1, 40 * 24, [ACTIVE_DAYS * 24, 2 * ACTIVE_DAYS * 24]);
    const at = new Date(now.getTime() - hoursAgo * HOUR);
    if (!volunteer.erased && hoursAgo < ACTIVE_DAYS * 24) activeNow.add(volunteer.id);
    if (!volunteer.erased && hoursAgo > ACTIVE_DAYS * 24 && hoursAgo < 2 * ACTIVE_DAYS * 24) activeBefore.add(volunteer.id);
    bump(activitiesPerDay, localDay(at));
    return { id: newId(), volunteerId: volunteer.id, at: at.toISOString() };
  });
  await db.write(sql`
    insert into volunteer_activities (id, volunteer_id, type, occurred_at, created_at)
    select a.id, a.volunteer_id, 'canvassing', a.at, now()
    from unnest(${activities.map((a) => a.id)}::uuid[], ${activities.map((a) => a.volunteerId)}::uuid[], ${activities.map((a) => a.at)}::timestamptz[]) as a(id, volunteer_id, at)`);

  // Events from 3 days ago to 12 days ahead, some cancelled or drafts, with RSVPs.
  let upcoming = 0;
  let going = 0;
  const events: Seeded['events'] = [];
  for (let index = 0; index < 30; index += 1) {
    const startsInHours = clearOf(rand, -72, 12 * 24, [-24, 0, 7 * 24]);
    const status = rand.next() < 0.7 ? 'scheduled' : rand.pick(['cancelled', 'draft']);
    const startsAt = new Date(now.getTime() + startsInHours * HOUR);
    const event = { id: newId(), lat: 4 + rand.next() * 4, lng: -76 + rand.next() * 2, startsInHours, scheduled: status === 'scheduled' };
    events.push(event);
    await db.write(sql`
      insert into agenda_events (id, title, type, starts_at, ends_at, time_zone, latitude, longitude, visibility, status, created_by_id, created_at, updated_at)
      values (${event.id}, ${`Evento ${index}`}, 'meeting', ${startsAt}, ${new Date(startsAt.getTime() + 2 * HOUR)}, ${TZ}, ${event.lat}, ${event.lng}, 'public', ${status}, ${admin.id}, now(), now())`);
    const answers = contacts.slice(0, rand.int(0, 12)).map((contactId) => ({ contactId, status: rand.pick(['going', 'going', 'maybe', 'declined']) }));
    if (answers.length)
      await db.write(sql`
        insert into agenda_rsvps (id, event_id, contact_id, status, responded_at, created_at)
        select gen_random_uuid(), ${event.id}, r.contact_id, r.status, now(), now()
        from unnest(${answers.map((a) => a.contactId)}::uuid[], ${answers.map((a) => a.status)}::text[]) as r(contact_id, status)`);
    if (status === 'scheduled' && startsInHours > 0 && startsInHours < 7 * 24) {
      upcoming += 1;
      going += answers.filter((answer) => answer.status === 'going').length;
    }
  }

  // PQRS: received over the last 20 days, due from 10 days ago to 20 days ahead, in every status.
  const horizon = dueSoonHorizon(today, { timeZone: TZ, holidayCountry: 'CO' });
  let pending = 0;
  let overdue = 0;
  let dueSoon = 0;
  const pqrsPerDay = new Map<string, number>();
  for (let index = 0; index < 60; index += 1) {
    const status = rand.pick(['received', 'in_progress', 'waiting_citizen', 'answered', 'closed'] as const);
    const dueDate = addDays(today, rand.int(-10, 20));
    const dueAt = endOfLocalDay(dueDate, TZ);
    const receivedAt = new Date(now.getTime() - clearOf(rand, 1, 20 * 24, []) * HOUR);
    bump(pqrsPerDay, localDay(receivedAt));
    const open = status === 'received' || status === 'in_progress' || status === 'waiting_citizen';
    if (open) {
      pending += 1;
      if (dueAt < now) overdue += 1;
      else if (dueDate <= horizon) dueSoon += 1;
    }
    const answeredAt = status === 'answered' ? now : null;
    const closedAt = status === 'closed' ? now : null;
    await db.write(sql`
      insert into pqrs_requests (id, number, year, sequence, type, subject, description, channel, status, received_at, term_days, original_due_date, due_date, due_at,
        answered_at, closed_at, updated_at)
      values (${newId()}, ${`PQRS-2026-${String(index + 1).padStart(6, '0')}`}, 2026, ${index + 1}, 'peticion', 'Alumbrado', 'Sin luz en la cuadra', 'web', ${status},
        ${receivedAt}, 15, ${dueDate}, ${dueDate}, ${dueAt}, ${answeredAt}, ${closedAt}, now())`);
  }

  // The ledger, through its API: incomes and expenses over the last 40 days.
  let income = 0;
  let expenses = 0;
  const spendPerDay = new Map<string, number>();
  for (let index = 0; index < 24; index += 1) {
    const kind = index % 3 === 0 ? 'income' : 'expense';
    const amount = rand.int(1, 5_000) * 1_000 + rand.int(0, 999);
    const date = addDays(today, -rand.int(0, 40));
    const body =
      kind === 'income'
        ? { kind, date, amount, code: 'I-101', counterparty: { name: 'Candidata', idNumber: '52.111.222' } }
        : { kind, date, amount, code: 'G-203', counterparty: { name: 'Vallas S.A.S.', idNumber: '900.555.111-2' } };
    await app.http.post('/api/finance/entries').set(manager.auth).send(body).expect(201);
    if (kind === 'income') income += amount;
    else {
      expenses += amount;
      bump(spendPerDay, date, amount);
    }
  }
  return {
    active: activeNow.size,
    activeBefore: activeBefore.size,
    upcoming,
    going,
    pending,
    overdue,
    dueSoon,
    income,
    expenses,
    activitiesPerDay,
    pqrsPerDay,
    spendPerDay,
    events,
  };
}

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  [manager, viewer, treasurer, volunteer, brigade] = await Promise.all([
    createUser(app, admin, 'manager'),
    createUser(app, admin, 'viewer'),
    createUser(app, admin, 'treasurer'),
    createUser(app, admin, 'volunteer'),
    createUser(app, admin, 'brigade'),
  ]);
  seeded = await seed();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('GET /api/dashboard/overview', () => {
  it('gives the KPIs a recount of the generated data gives', async () => {
    const { body } = await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
    expect(body.activeVolunteers).toMatchObject({
      value: seeded.active,
      previous: seeded.activeBefore,
      change: seeded.active - seeded.activeBefore,
      href: '/api/volunteers?active=true',
      window: { label: `last ${ACTIVE_DAYS} days` },
    });
    expect(body.upcomingEvents).toMatchObject({ value: seeded.upcoming, going: seeded.going, window: { label: 'next 7 days' } });
    expect(body.upcomingEvents.href).toMatch(/^\/api\/agenda\/events\?from=/);
    expect(body.pendingPqrs).toMatchObject({ value: seeded.pending, overdue: seeded.overdue, dueSoon: seeded.dueSoon, href: '/api/pqrs' });
    expect(body.financialBalance).toMatchObject({
      value: seeded.income - seeded.expenses,
      income: seeded.income,
      spent: seeded.expenses,
      cap: null,
      capUsedPct: null,
      href: '/api/finance/summary',
    });
    expect(body.leads).toMatchObject({ value: 0, previous: 0, change: 0, changePct: null });
    expect(body.whatsappReach).toMatchObject({ value: 0, sent: 0, replies: 0 });
    expect(body.emailReach).toMatchObject({ value: 0, opened: 0, clicked: 0 });
    expect(body.socialAlerts).toMatchObject({ value: 0, latest: [] });
    // No election date is set: not election day.
    expect(body.gotv).toBeNull();
    expect(body.timeZone).toBe(TZ);
    for (const key of ['activeVolunteers', 'upcomingEvents', 'pendingPqrs', 'financialBalance', 'leads', 'whatsappReach', 'emailReach', 'socialAlerts'])
      expect(body[key].window.to).toEqual(expect.any(String));
  });

  it('shows viewers the money totals (finance lets them read its summary) and a treasurer the money only', async () => {
    const asViewer = await app.http.get('/api/dashboard/overview').set(viewer.auth).expect(200);
    expect(asViewer.body.financialBalance.value).toBe(seeded.income - seeded.expenses);
    expect(asViewer.body.activeVolunteers.value).toBe(seeded.active);

    const asTreasurer = await app.http.get('/api/dashboard/overview').set(treasurer.auth).expect(200);
    expect(asTreasurer.body.financialBalance.income).toBe(seeded.income);
    expect(Object.keys(asTreasurer.body).sort()).toEqual(['asOf', 'cachedFor', 'financialBalance', 'timeZone']);

    await app.http.get('/api/dashboard/overview').set(admin.auth).expect(200);
  });

  it('refuses other roles, anonymous callers and parameters it does not take', async () => {
    expectProblem(await app.http.get('/api/dashboard/overview').set(volunteer.auth), 403);
    expectProblem(await app.http.get('/api/dashboard/overview').set(brigade.auth), 403);
    expectProblem(await app.http.get('/api/dashboard/overview'), 401);
    expectProblem(await app.http.get('/api/dashboard/overview?fresh=1').set(manager.auth), 400);
  });
});

describe('the overview on election day', () => {
  it('adds the GOTV summary from the station tallies', async () => {
    const db = app.runtime.deps.db;
    const stationId = newId();
    await db.write(sql`
      insert into gotv_polling_stations (id, code, name, lat, lng, tables, registered_voters, created_at, updated_at)
      values (${stationId}, 'P-1', 'Colegio Central', 6.25, -75.57, 10, 3000, now(), now())`);
    await db.write(sql`
      insert into gotv_voters (id, name, document_id, polling_station_id, status, created_at, updated_at)
      select gen_random_uuid(), 'Votante', v.doc, ${stationId}, v.status, now(), now()
      from unnest(${['1001', '1002', '1003']}::text[], ${['voted', 'pending', 'contacted']}::text[]) as v(doc, status)`);
    await app.http
      .put('/api/gotv/settings')
      .set(manager.auth)
      .send({ electionDate: localDay(new Date()) })
      .expect(200);
    // Not waiting out the cache's 10 s: the watcher would drop it this way when a figure moves.
    await dropOverview(app.runtime.deps);
    const { body } = await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
    expect(body.gotv).toMatchObject({
      value: 1,
      confirmedVoters: 3,
      turnoutPct: 33.3,
      stations: 1,
      stationsOpen: 0,
      href: '/api/gotv/dashboard',
      window: { label: 'election day' },
    });
  });
});

describe('GET /api/dashboard/trends', () => {
  const today = () => localDay(new Date());

  it('aligns zero-filled daily series, one value per local day', async () => {
    const from = addDays(today(), -29);
    const { body } = await app.http.get(`/api/dashboard/trends?metrics=activities,pqrs_opened,pqrs_closed,spend,leads&from=${from}&to=${today()}`).set(manager.auth).expect(200);
    const days = Array.from({ length: 30 }, (_, index) => addDays(from, index));
    expect(body.buckets).toEqual(days);
    const series = Object.fromEntries(body.series.map((row: { metric: string }) => [row.metric, row]));
    expect(series.activities.values).toEqual(days.map((day) => seeded.activitiesPerDay.get(day) ?? 0));
    expect(series.pqrs_opened.values).toEqual(days.map((day) => seeded.pqrsPerDay.get(day) ?? 0));
    expect(series.spend.values).toEqual(days.map((day) => seeded.spendPerDay.get(day) ?? 0));
    // The generated answers and closures all happened at seeding time.
    expect(series.pqrs_closed.values).toEqual(days.map((day) => (day === localDay(now) ? 60 - seeded.pending : 0)));
    expect(series.spend).toMatchObject({ unit: 'pesos', aggregation: 'sum', scope: 'campaign' });
    expect(series.leads.values).toEqual(days.map(() => 0));
    // The generated data leaves some days empty: they are there, as zeros.
    expect(series.activities.values.filter((value: number) => value === 0).length + series.pqrs_opened.values.filter((value: number) => value === 0).length).toBeGreaterThan(0);
    expect(series.activities.total).toBe(days.reduce((sum, day) => sum + (seeded.activitiesPerDay.get(day) ?? 0), 0));
  });

  it('sums days into weeks from Monday, and levels (active volunteers) read at each bucket’s end', async () => {
    const { body } = await app.http.get(`/api/dashboard/trends?metrics=activities,volunteers_active&interval=week&to=${today()}`).set(viewer.auth).expect(200);
    for (const bucket of body.buckets) expect(new Date(`${bucket}T12:00:00Z`).getUTCDay()).toBe(1);
    const activities = body.series.find((row: { metric: string }) => row.metric === 'activities');
    const expected = body.buckets.map((monday: string) => {
      let sum = 0;
      for (let offset = 0; offset < 7; offset += 1) sum += seeded.activitiesPerDay.get(addDays(monday, offset)) ?? 0;
      return sum;
    });
    expect(activities.values).toEqual(expected);
    const active = body.series.find((row: { metric: string }) => row.metric === 'volunteers_active');
    expect(active.aggregation).toBe('end_of_bucket');
    // The running week ends now: the same count as the overview's.
    expect(active.values.at(-1)).toBe(seeded.active);
  });

  it('narrows territorial series to a territory and says which series cannot be', async () => {
    const territory = await app.http.post('/api/territories').set(manager.auth).send({ name: 'Vereda Sin Actividad', type: 'zone' }).expect(201);
    const { body } = await app.http.get(`/api/dashboard/trends?metrics=activities,pqrs_opened&territoryId=${territory.body.id}`).set(manager.auth).expect(200);
    const [activities, pqrs] = body.series;
    expect(activities).toMatchObject({ metric: 'activities', scope: 'territory', total: 0 });
    expect(pqrs.scope).toBe('campaign');
    expect(pqrs.total).toBeGreaterThan(0);
  });

  it('lets a treasurer read spend alone', async () => {
    await app.http.get('/api/dashboard/trends?metrics=spend').set(treasurer.auth).expect(200);
    const refused = expectProblem(await app.http.get('/api/dashboard/trends?metrics=spend,leads').set(treasurer.auth), 403);
    expect(refused.detail).toContain('leads');
    expectProblem(await app.http.get('/api/dashboard/trends?metrics=leads').set(volunteer.auth), 403);
    expectProblem(await app.http.get('/api/dashboard/trends?metrics=leads'), 401);
  });

  it('answers bad parameters with a 400 that says what is wrong', async () => {
    const unknown = expectProblem(await app.http.get('/api/dashboard/trends?metrics=leads,bogus,votes').set(manager.auth), 400);
    const message = (unknown.errors as { path: string; message: string }[]).find((error) => error.path === 'query.metrics')!.message;
    expect(message).toContain('"bogus"');
    expect(message).toContain('"votes"');
    expect(message).not.toContain('"leads"');
    for (const query of [
      '',
      'metrics=',
      'metrics=leads&from=25/11/2026',
      'metrics=leads&from=2026-13-01',
      'metrics=leads&to=2026-02-30',
      'metrics=leads&from=2026-11-20&to=2026-11-10',
      'metrics=leads&from=2024-01-01&to=2026-01-01',
      'metrics=leads&interval=month',
      'metrics=leads&territoryId=not-a-uuid',
      'metrics=leads&colour=red',
    ])
      expectProblem(await app.http.get(`/api/dashboard/trends?${query}`).set(manager.auth), 400);
  });
});

describe('GET /api/territories/heatmap', () => {
  /** Communes with known volunteer counts (one commune's partly through a barrio inside it) and populations. */
  const plan = [
    { name: 'A', volunteers: 1, population: 1_000 },
    { name: 'B', volunteers: 2, population: 1_000 },
    { name: 'C', volunteers: 2, population: 4_000 },
    { name: 'D', volunteers: 10, population: 2_000 },
    { name: 'E', volunteers: 11, population: 11_000 },
    { name: 'F', volunteers: 30, population: null },
  ];
  const ids = new Map<string, string>();

  beforeAll(async () => {
    const city = await app.http.post('/api/territories').set(manager.auth).send({ name: 'Ciudad', type: 'municipality', population: 19_000 }).expect(201);
    for (const [index, commune] of plan.entries()) {
      const square = [
        [-75 + index * 0.1, 6],
        [-74.95 + index * 0.1, 6],
        [-74.95 + index * 0.1, 6.05],
        [-75 + index * 0.1, 6.05],
        [-75 + index * 0.1, 6],
      ];
      const created = await app.http
        .post('/api/territories')
        .set(manager.auth)
        .send({
          name: `Comuna ${commune.name}`,
          type: 'commune',
          parentId: city.body.id,
          geometry: { type: 'Polygon', coordinates: [square] },
          ...(commune.population === null ? {} : { population: commune.population }),
        })
        .expect(201);
      ids.set(commune.name, created.body.id);
    }
    const barrio = await app.http
      .post('/api/territories')
      .set(manager.auth)
      .send({ name: 'Barrio D1', type: 'neighbourhood', parentId: ids.get('D') })
      .expect(201);
    // More communes than any other type: the default level. D's volunteers: half in the commune, half in its barrio.
    const db = app.runtime.deps.db;
    const rows: { territoryId: string }[] = [];
    for (const commune of plan)
      for (let index = 0; index < commune.volunteers; index += 1) rows.push({ territoryId: commune.name === 'D' && index % 2 === 0 ? barrio.body.id : ids.get(commune.name)! });
    // One in the city itself: above the communes, so not placed on their map.
    rows.push({ territoryId: city.body.id });
    const contactIds = rows.map(() => newId());
    await db.write(sql`
      insert into contacts (id, identity_key, name, created_at, updated_at)
      select id, 'heat:' || id, 'Persona', now(), now() from unnest(${contactIds}::uuid[]) as c(id)`);
    await db.write(sql`
      insert into volunteers (id, contact_id, territory_id, status, joined_on, source, created_at, updated_at)
      select gen_random_uuid(), c.id, c.territory_id, 'active', '2026-01-01', 'manual', now(), now()
      from unnest(${contactIds}::uuid[], ${rows.map((row) => row.territoryId)}::uuid[]) as c(id, territory_id)`);
  });

  type Feature = { properties: { name: string; count: number; value: number | null; class: number | null; colour: string; normalised: number | null }; geometry: unknown };
  const byName = (features: Feature[]) => new Map(features.map((feature) => [feature.properties.name, feature.properties]));

  it('classes a known distribution with natural breaks, rolled up from the barrios, as GeoJSON', async () => {
    const { body } = await app.http.get('/api/territories/heatmap?metric=volunteers&classes=3').set(manager.auth).expect(200);
    expect(body).toMatchObject({ type: 'FeatureCollection', level: 'commune', method: 'jenks', per: 'absolute', breaks: [1, 2, 11, 30] });
    const features = byName(body.features);
    expect([...features.keys()].sort()).toEqual(plan.map((commune) => `Comuna ${commune.name}`));
    expect(plan.map((commune) => features.get(`Comuna ${commune.name}`)!.count)).toEqual([1, 2, 2, 10, 11, 30]);
    expect(plan.map((commune) => features.get(`Comuna ${commune.name}`)!.class)).toEqual([0, 0, 0, 1, 1, 2]);
    expect(features.get('Comuna A')!.normalised).toBe(0);
    expect(features.get('Comuna F')!.normalised).toBe(1);
    expect(body.classes.map((row: { territories: number }) => row.territories)).toEqual([3, 2, 1]);
    expect(features.get('Comuna A')!.colour).toBe(body.classes[0].colour);
    expect(body.features[0].geometry.type).toBe('Polygon');
    expect(body.unplaced).toBe(1);
  });

  it('per capita divides by the population and leaves territories without one uncoloured', async () => {
    const { body } = await app.http.get('/api/territories/heatmap?metric=volunteers&per=capita&method=quantile&classes=2').set(viewer.auth).expect(200);
    const features = byName(body.features);
    // Per 1000: A 1, B 2, C 0.5, D 5, E 1; F has no population.
    expect(plan.map((commune) => features.get(`Comuna ${commune.name}`)!.value)).toEqual([1, 2, 0.5, 5, 1, null]);
    expect(body.breaks).toEqual([0.5, 1, 5]);
    expect(features.get('Comuna F')).toMatchObject({ value: null, class: null, colour: body.noDataColour });
    expect(features.get('Comuna C')!.class).toBe(0);
    expect(features.get('Comuna D')!.class).toBe(1);
    expect(body.unit).toContain('per 1000');
  });

  it('reads the level asked for, and metrics with no data yet', async () => {
    const { body } = await app.http.get('/api/territories/heatmap?metric=volunteers&level=municipality').set(manager.auth).expect(200);
    expect(body.features).toHaveLength(1);
    expect(body.features[0].properties).toMatchObject({ name: 'Ciudad', count: 57 });
    const turnout = await app.http.get('/api/territories/heatmap?metric=turnout').set(manager.auth).expect(200);
    expect(turnout.body.breaks).toEqual([]);
    for (const feature of turnout.body.features) expect(feature.properties).toMatchObject({ value: null, class: null });
    for (const metric of ['leads', 'supporters', 'activities', 'pqrs', 'scans']) await app.http.get(`/api/territories/heatmap?metric=${metric}`).set(manager.auth).expect(200);
  });

  it('maps supporters and turnout from the stations in each territory', async () => {
    const db = app.runtime.deps.db;
    const stations = [
      { commune: 'B', voters: ['voted', 'voted', 'voted', 'pending'] },
      { commune: 'E', voters: ['voted', 'contacted'] },
    ];
    for (const [index, station] of stations.entries()) {
      const stationId = newId();
      await db.write(sql`
        insert into gotv_polling_stations (id, code, name, territory_id, lat, lng, tables, registered_voters, created_at, updated_at)
        values (${stationId}, ${`HM-${index}`}, ${`Puesto ${station.commune}`}, ${ids.get(station.commune)}, 6.02, ${-74.97 + index * 0.1}, 5, 1000, now(), now())`);
      await db.write(sql`
        insert into gotv_voters (id, name, document_id, polling_station_id, status, created_at, updated_at)
        select gen_random_uuid(), 'Votante', ${`77${index}`} || n, ${stationId}, v.status, now(), now()
        from unnest(${station.voters}::text[]) with ordinality as v(status, n)`);
    }
    const turnout = await app.http.get('/api/territories/heatmap?metric=turnout&classes=4').set(manager.auth).expect(200);
    const rates = byName(turnout.body.features);
    expect(rates.get('Comuna B')).toMatchObject({ count: 3, value: 75 });
    expect(rates.get('Comuna E')).toMatchObject({ count: 1, value: 50 });
    expect(rates.get('Comuna A')).toMatchObject({ value: null, class: null });
    // Two distinct values, two natural classes: [50, 50] and (50, 75].
    expect(turnout.body.breaks).toEqual([50, 50, 75]);
    expect([rates.get('Comuna E')!.class, rates.get('Comuna B')!.class]).toEqual([0, 1]);
    expect(turnout.body.unit).toContain('percent');
    const supporters = await app.http.get('/api/territories/heatmap?metric=supporters&per=capita').set(manager.auth).expect(200);
    // 4 confirmed in B (1,000 people), 2 in E (11,000).
    expect(byName(supporters.body.features).get('Comuna B')).toMatchObject({ count: 4, value: 4 });
    expect(byName(supporters.body.features).get('Comuna E')).toMatchObject({ count: 2, value: 0.182 });

    const map = await app.http.get('/api/dashboard/geospatial?layers=stations&bbox=-75,6,-74.9,6.1').set(manager.auth).expect(200);
    expect(map.body.features.map((feature: { properties: { name: string; supporters: number; voted: number } }) => feature.properties)).toEqual([
      expect.objectContaining({ layer: 'stations', name: 'Puesto B', supporters: 4, voted: 3 }),
    ]);
  });

  it('refuses bad parameters and roles without the map', async () => {
    for (const query of [
      '',
      'metric=votes',
      'metric=leads&per=household',
      'metric=leads&level=planet',
      'metric=leads&classes=1',
      'metric=leads&classes=x',
      'metric=leads&method=equal',
      'metric=leads&zoom=3',
    ])
      expectProblem(await app.http.get(`/api/territories/heatmap?${query}`).set(manager.auth), 400);
    expectProblem(await app.http.get('/api/territories/heatmap?metric=leads').set(treasurer.auth), 403);
    expectProblem(await app.http.get('/api/territories/heatmap?metric=leads').set(volunteer.auth), 403);
    expectProblem(await app.http.get('/api/territories/heatmap?metric=leads'), 401);
  });
});

describe('GET /api/dashboard/geospatial', () => {
  it('returns the layers as one FeatureCollection, narrowed by layer and bbox', async () => {
    const { body } = await app.http.get('/api/dashboard/geospatial').set(manager.auth).expect(200);
    expect(body.type).toBe('FeatureCollection');
    const territories = body.features.filter((feature: { properties: { layer: string } }) => feature.properties.layer === 'territories');
    const city = territories.find((feature: { properties: { name: string } }) => feature.properties.name === 'Ciudad');
    expect(city.properties.volunteers).toBe(57);
    const d = territories.find((feature: { properties: { name: string } }) => feature.properties.name === 'Comuna D');
    expect(d.properties.volunteers).toBe(10);
    expect(d.geometry.type).toBe('Polygon');

    // Events on the map: scheduled, from a day ago to 30 days ahead.
    const box = [-75.5, 5, -74.5, 7];
    const events = await app.http
      .get(`/api/dashboard/geospatial?layers=events&bbox=${box.join(',')}`)
      .set(viewer.auth)
      .expect(200);
    const expected = seeded.events
      .filter((event) => event.scheduled && event.startsInHours > -24 && event.lng >= box[0]! && event.lng <= box[2]! && event.lat >= box[1]! && event.lat <= box[3]!)
      .map((event) => event.id)
      .sort();
    expect(events.body.layers).toEqual(['events']);
    expect(events.body.features.map((feature: { properties: { id: string } }) => feature.properties.id).sort()).toEqual(expected);
    for (const feature of events.body.features) expect(feature.geometry.type).toBe('Point');

    const inside = await app.http.get(`/api/dashboard/geospatial?layers=territories&territoryId=${d.properties.id}`).set(manager.auth).expect(200);
    expect(inside.body.features.map((feature: { properties: { name: string } }) => feature.properties.name).sort()).toEqual(['Barrio D1', 'Comuna D']);
  });

  it('refuses bad layers, bad boxes and roles without the map', async () => {
    for (const query of ['layers=roads', 'bbox=1,2,3', 'bbox=10,10,0,0', 'bbox=a,b,c,d', 'bbox=-200,0,0,10', 'bbox=1,2,3,', 'territoryId=12', 'zoom=4'])
      expectProblem(await app.http.get(`/api/dashboard/geospatial?${query}`).set(manager.auth), 400);
    expectProblem(await app.http.get('/api/dashboard/geospatial').set(treasurer.auth), 403);
    expectProblem(await app.http.get('/api/dashboard/geospatial'), 401);
  });
});

describe('leads in every view', () => {
  it('counts captured leads in the overview, the trends, the heat map and the poster-code layer', async () => {
    const zone = await app.http
      .post('/api/territories')
      .set(manager.auth)
      .send({ name: 'Zona Afiches', type: 'zone', centroid: { lat: 6.3, lng: -75.5 } })
      .expect(201);
    const campaign = await createCampaign(app, manager);
    const [code] = await generateCodes(app, manager, campaign.id, { count: 1, placements: [{ label: 'Parque principal', lat: 6.3, lng: -75.5, territoryId: zone.body.id }] });
    for (const [index, phone] of ['300 111 0001', '300 111 0002', '300 111 0003'].entries())
      await app.http
        .post('/api/qr-leads/capture')
        .send(lead(code!.code, { phone, email: `persona${index}@example.org` }))
        .expect(201);

    // Two people scan the poster, and a crawler.
    const page = new URL(code!.url, app.url).pathname;
    for (const agent of [
      'Mozilla/5.0 (Linux; Android 12) Chrome/120 Mobile',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1',
      'Googlebot/2.1 (+http://www.google.com/bot.html)',
    ])
      await app.http.get(page).set('User-Agent', agent).expect(200);

    await dropOverview(app.runtime.deps);
    const overview = await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
    expect(overview.body.leads).toMatchObject({ value: 3, previous: 0, change: 3, href: '/api/qr-leads' });

    const today = localDay(new Date());
    const trends = await app.http
      .get(`/api/dashboard/trends?metrics=leads&from=${addDays(today, -2)}&to=${today}&territoryId=${zone.body.id}`)
      .set(manager.auth)
      .expect(200);
    expect(trends.body.series[0]).toMatchObject({ metric: 'leads', scope: 'territory', values: [0, 0, 3], total: 3 });
    const scans = await app.http.get(`/api/dashboard/trends?metrics=scans&from=${today}&to=${today}&territoryId=${zone.body.id}`).set(manager.auth).expect(200);
    expect(scans.body.series[0]).toMatchObject({ metric: 'scans', values: [2] });
    const scanHeat = await app.http.get('/api/territories/heatmap?metric=scans&level=zone').set(manager.auth).expect(200);
    expect(scanHeat.body.features.find((feature: { id: string }) => feature.id === zone.body.id).properties.count).toBe(2);

    const heat = await app.http.get('/api/territories/heatmap?metric=leads&level=zone').set(viewer.auth).expect(200);
    const place = heat.body.features.find((feature: { id: string }) => feature.id === zone.body.id);
    expect(place.properties).toMatchObject({ count: 3, value: 3 });
    expect(place.geometry).toBeNull();

    const map = await app.http.get('/api/dashboard/geospatial?layers=posterCodes').set(manager.auth).expect(200);
    expect(map.body.features).toEqual([
      expect.objectContaining({
        id: `posterCode:${code!.id}`,
        geometry: { type: 'Point', coordinates: [-75.5, 6.3] },
        properties: expect.objectContaining({ leads: 3, scans: 2, territoryId: zone.body.id }),
      }),
    ]);
  });
});

describe('WhatsApp reach and replies', () => {
  it('counts what was sent, delivered and read this week, and replies per day', async () => {
    const db = app.runtime.deps.db;
    const contactId = newId();
    await db.write(sql`insert into contacts (id, identity_key, name, created_at, updated_at) values (${contactId}, ${`wa:${contactId}`}, 'Persona', now(), now())`);
    const day = 86_400_000;
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * day);
    // [accepted, sent, delivered, read] days ago (null: never); this week is the last 7 local days.
    const outbound: (number | null)[][] = [
      [1, 1, 1, 1],
      [2, 2, 2, null],
      [3, 3, null, null],
      [20, 20, 20, 2], // read this week, sent long before
      [20, 20, 20, 20],
    ];
    for (const [accepted, sent, delivered, read] of outbound)
      await db.write(sql`
        insert into wa_messages (id, contact_id, phone, direction, kind, status, status_rank, next_attempt_at, accepted_at, sent_at, delivered_at, read_at, created_at)
        values (${newId()}, ${contactId}, '+573001112233', 'out', 'template', 'sent', 1, now(), ${at(accepted!)}, ${at(sent!)},
          ${delivered === null ? null : at(delivered!)}, ${read === null ? null : at(read!)}, ${at(accepted!)})`);
    for (const daysAgo of [0.1, 1.1, 1.2, 15])
      await db.write(sql`
        insert into wa_messages (id, contact_id, phone, direction, kind, body, status, status_rank, next_attempt_at, created_at)
        values (${newId()}, ${contactId}, '+573001112233', 'in', 'text', 'Hola', 'received', 0, now(), ${at(daysAgo)})`);

    await dropOverview(app.runtime.deps);
    const { body } = await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
    expect(body.whatsappReach).toMatchObject({ value: 2, sent: 3, delivered: 2, read: 2, replies: 3 });

    const today = localDay(new Date());
    const trends = await app.http
      .get(`/api/dashboard/trends?metrics=whatsapp_replies&from=${addDays(today, -20)}&to=${today}`)
      .set(manager.auth)
      .expect(200);
    const expected = new Map<string, number>();
    for (const daysAgo of [0.1, 1.1, 1.2, 15]) bump(expected, localDay(at(daysAgo)));
    expect(trends.body.series[0].values).toEqual(trends.body.buckets.map((bucket: string) => expected.get(bucket) ?? 0));
  });
});

describe('email and social alerts', () => {
  it('counts people who opened and clicked this week, clicks per day, and the latest alerts not dismissed', async () => {
    const db = app.runtime.deps.db;
    const campaignId = newId();
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000);
    // [recipient, kind, days ago, machine]: recipient 1 clicks twice (one person), 4's open is a privacy proxy's, 5's is too old.
    const events: [number, string, number, boolean][] = [
      [1, 'open', 1, false],
      [1, 'click', 1, false],
      [1, 'click', 1.01, false],
      [2, 'open', 2, false],
      [3, 'click', 3, false],
      [4, 'open', 1, true],
      [5, 'click', 12, false],
    ];
    for (const [recipient, kind, daysAgo, machine] of events)
      await db.write(sql`insert into email_events (campaign_id, recipient_id, kind, machine, at) values (${campaignId}, ${recipient}, ${kind}, ${machine}, ${at(daysAgo)})`);
    const alerts = [
      { kind: 'keyword', daysAgo: 0.5, state: 'new', title: 'Mención de "metro"' },
      { kind: 'keyword', daysAgo: 1, state: 'seen', title: 'Mención de "reforma"' },
      { kind: 'negative_sentiment', daysAgo: 2, state: 'new', title: 'Sentimiento negativo' },
      { kind: 'engagement_spike', daysAgo: 0.2, state: 'dismissed', title: 'Pico descartado' },
      { kind: 'new_post', daysAgo: 10, state: 'new', title: 'Publicación antigua' },
    ];
    for (const alert of alerts)
      await db.write(sql`
        insert into social_alerts (id, kind, dedupe_key, severity, title, details, state, created_at)
        values (${newId()}, ${alert.kind}, ${newId()}, 'warning', ${alert.title}, '{}'::jsonb, ${alert.state}, ${at(alert.daysAgo)})`);

    await dropOverview(app.runtime.deps);
    const { body } = await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
    expect(body.emailReach).toMatchObject({ sent: 0, opened: 2, clicked: 2 });
    expect(body.socialAlerts).toMatchObject({ value: 3, byKind: { keyword: 2, negative_sentiment: 1 } });
    expect(body.socialAlerts.latest.map((alert: { title: string }) => alert.title)).toEqual([
      'Mención de "metro"',
      'Mención de "reforma"',
      'Sentimiento negativo',
      'Publicación antigua',
    ]);

    const today = localDay(new Date());
    const trends = await app.http
      .get(`/api/dashboard/trends?metrics=email_clicks&from=${addDays(today, -13)}&to=${today}`)
      .set(manager.auth)
      .expect(200);
    const expected = new Map<string, number>();
    // People who clicked, per day: one recipient's two clicks on a day count once.
    const clickers = new Set(events.filter(([, kind, , machine]) => kind === 'click' && !machine).map(([recipient, , daysAgo]) => `${recipient}@${localDay(at(daysAgo))}`));
    for (const key of clickers) bump(expected, key.split('@')[1]!);
    expect(trends.body.series[0].values).toEqual(trends.body.buckets.map((bucket: string) => expected.get(bucket) ?? 0));
  });
});

describe('poll average', () => {
  it('follows our candidate’s poll average, null before any poll', async () => {
    const competitor = async (name: string, isOwn: boolean) =>
      (await app.http.post('/api/social-monitoring/competitors').set(manager.auth).send({ name, isOwn, profiles: [] }).expect(201)).body.id as string;
    const ours = await competitor('Nuestra', true);
    const rival = await competitor('Rival', false);
    const today = localDay(new Date());
    await app.http
      .post('/api/popularity/polls')
      .set(manager.auth)
      .send({
        pollster: 'Invamer',
        sponsor: 'Noticias Caracol',
        fieldworkStart: addDays(today, -6),
        fieldworkEnd: addDays(today, -4),
        publishedAt: addDays(today, -3),
        scope: 'national',
        universe: 'Personas de 18 años o más, hogares urbanos',
        sampleSize: 2000,
        method: 'face_to_face',
        probabilistic: true,
        marginOfError: 2.2,
        confidenceLevel: 95,
        question: 'Si las elecciones fueran mañana, ¿por quién votaría?',
        results: [
          { competitorId: ours, percentage: 34 },
          { competitorId: rival, percentage: 30 },
          { option: 'undecided', percentage: 36 },
        ],
      })
      .expect(201);
    const { body } = await app.http
      .get(`/api/dashboard/trends?metrics=poll_average&from=${addDays(today, -20)}&to=${today}`)
      .set(viewer.auth)
      .expect(200);
    const [series] = body.series;
    expect(series).toMatchObject({ metric: 'poll_average', unit: 'percent', aggregation: 'end_of_bucket', total: 34 });
    expect(series.values[0]).toBeNull();
    expect(series.values.at(-1)).toBe(34);
  });
});
