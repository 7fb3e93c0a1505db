import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { POINTS_PER_ACTIVITY, POINTS_PER_UNIT } from '../../src/modules/volunteers/volunteers.pyramid';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

const base = '/api/volunteers';
const DAY = 86_400_000;
const TYPES = ['canvassing', 'phone_bank', 'event_staff', 'poster_placement', 'whatsapp_outreach', 'training', 'gotv', 'other'] as const;
const UNITS = ['doors', 'calls', 'posters', 'voters_registered', 'messages', 'people'] as const;

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let fieldUser: TestUser;

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  id: string;
  leaderId: string | null;
  level: number;
  promised: number;
  active: boolean;
  linked: number;
  voted: number;
}

interface Activity {
  volunteerId: string;
  type: (typeof TYPES)[number];
  occurredAt: Date;
  quantity: number | null;
  unit: (typeof UNITS)[number] | null;
}

const tree: Generated[] = [];
const activities: Activity[] = [];

/**
 * 2,000 volunteers in five levels (each one's leader drawn from the level above), with goals, some
 * activities in and out of the active window, and confirmed GOTV voters linked to them, some voted.
 */
async function generate(): Promise<void> {
  const next = random(19);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const sizes = [8, 40, 200, 600, 1152];
  const levels: Generated[][] = [];
  sizes.forEach((size, level) => {
    levels.push(
      Array.from({ length: size }, () => ({
        id: randomUUID(),
        leaderId: level ? pick(levels[level - 1]!).id : null,
        level,
        promised: Math.floor(next() * 200),
        active: false,
        linked: 0,
        voted: 0,
      })),
    );
  });
  tree.push(...levels.flat());
  const now = Date.now();
  for (const node of tree) {
    const count = Math.floor(next() * 3);
    for (let i = 0; i < count; i++) {
      // Up to 30 days back: about half fall inside the 14-day window.
      const occurredAt = new Date(now - Math.floor(next() * 30 * DAY) - 60_000);
      const unit = next() < 0.3 ? null : pick(UNITS);
      activities.push({ volunteerId: node.id, type: pick(TYPES), occurredAt, quantity: unit ? Math.floor(next() * 50) : null, unit });
      if (occurredAt.getTime() >= now - 14 * DAY) node.active = true;
    }
  }
  const db = app.runtime.deps.db;
  const contactIds = tree.map(() => randomUUID());
  await db.write(sql`insert into contacts (id, identity_key, name, email, created_at, updated_at)
    select c, 'mail:v' || n || '@example.org', 'Voluntario ' || lpad(n::text, 4, '0'), 'v' || n || '@example.org', now(), now()
    from unnest(${contactIds}::uuid[]) with ordinality as t(c, n)`);
  await db.write(sql`insert into volunteers (id, contact_id, leader_id, goal_promised_votes, joined_on, source, status, created_at, updated_at)
    select id, contact, leader, promised, '2026-01-01', 'staff', 'active', now(), now()
    from unnest(${tree.map((node) => node.id)}::uuid[], ${contactIds}::uuid[], ${tree.map((node) => node.leaderId)}::uuid[], ${tree.map((node) => node.promised)}::int[])
      as t(id, contact, leader, promised)`);
  await db.write(sql`insert into volunteer_activities (id, source, source_id, volunteer_id, type, occurred_at, quantity, unit, created_at)
    select id, 'manual', id, volunteer, type, at, quantity, unit, now()
    from unnest(${activities.map(() => randomUUID())}::uuid[], ${activities.map((item) => item.volunteerId)}::uuid[], ${activities.map((item) => item.type)}::text[],
      ${activities.map((item) => item.occurredAt)}::timestamptz[], ${activities.map((item) => item.quantity)}::int[], ${activities.map((item) => item.unit)}::text[])
      as t(id, volunteer, type, at, quantity, unit)`);

  const station = randomUUID();
  await db.write(sql`insert into gotv_polling_stations (id, code, name, lat, lng, tables, registered_voters, created_at, updated_at)
    values (${station}, 'PYR', 'Puesto pirámide', 4.6, -74.1, 10, 100000, now(), now())`);
  const voters = Array.from({ length: 3000 }, (_, index) => ({ id: randomUUID(), owner: pick(tree), voted: next() < 0.4, document: String(50_000_000 + index) }));
  await db.write(sql`insert into gotv_voters (id, name, document_id, polling_station_id, status, voted_at, created_at, updated_at)
    select id, 'Votante', doc, ${station}::uuid, case when voted then 'voted' else 'pending' end, case when voted then now() end, now(), now()
    from unnest(${voters.map((voter) => voter.id)}::uuid[], ${voters.map((voter) => voter.document)}::text[], ${voters.map((voter) => voter.voted)}::boolean[]) as t(id, doc, voted)`);
  // Four in five are linked to the volunteer who brings them; the rest stay free.
  const linked = voters.filter(() => next() < 0.8);
  await db.write(sql`insert into volunteer_voters (voter_id, volunteer_id, linked_at)
    select * , now() from unnest(${linked.map((voter) => voter.id)}::uuid[], ${linked.map((voter) => voter.owner.id)}::uuid[])`);
  for (const voter of linked) {
    voter.owner.linked++;
    if (voter.voted) voter.owner.voted++;
  }
}

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  [manager, viewer, fieldUser] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'volunteer')]);
  await generate();
}, 120_000);
afterAll(() => app.close());

/** The figures recounted node by node in TypeScript, by walking each volunteer's chain of leaders. */
function recount(rootId?: string) {
  const byId = new Map(tree.map((node) => [node.id, node]));
  const figures = new Map(tree.map((node) => [node.id, { direct: 0, people: 0, activePeople: 0, teamPromisedVotes: 0, estimatedVotes: node.linked, voted: node.voted }]));
  for (const node of tree) {
    if (node.leaderId) figures.get(node.leaderId)!.direct++;
    for (let above = node.leaderId; above; above = byId.get(above)!.leaderId) {
      const figure = figures.get(above)!;
      figure.people++;
      if (node.active) figure.activePeople++;
      figure.teamPromisedVotes += node.promised;
      figure.estimatedVotes += node.linked;
      figure.voted += node.voted;
    }
  }
  const inside = (node: Generated) => {
    if (!rootId) return true;
    for (let at: string | null = node.id; at; at = byId.get(at)!.leaderId) if (at === rootId) return true;
    return false;
  };
  return new Map(
    tree.filter(inside).map((node) => [node.id, { leaderId: node.leaderId, level: node.level, active: node.active, promisedVotes: node.promised, ...figures.get(node.id)! }]),
  );
}

describe('GET /api/volunteers/pyramid', () => {
  it('agrees with a recount on a generated tree of depth 5 with 2,000 volunteers', async () => {
    const response = await app.http.get(`${base}/pyramid`).set(viewer.auth).expect(200);
    const expected = recount();
    expect(response.body.nodes).toHaveLength(2000);
    expect(response.body.window.days).toBe(14);
    for (const node of response.body.nodes) {
      const want = expected.get(node.id)!;
      expect({
        leaderId: node.leaderId,
        level: node.level,
        active: node.active,
        promisedVotes: node.promisedVotes,
        direct: node.direct,
        people: node.people,
        activePeople: node.activePeople,
        teamPromisedVotes: node.teamPromisedVotes,
        estimatedVotes: node.estimatedVotes,
        voted: node.voted,
      }).toEqual(want);
      expect(node.activeShare).toBe(want.people ? Math.round((want.activePeople / want.people) * 1000) / 1000 : null);
      expect(node.goalProgress).toBe(want.promisedVotes ? Math.round((want.estimatedVotes / want.promisedVotes) * 1000) / 1000 : null);
      expect(node.pace).toBeNull(); // no election date set
    }
    // The roots hold everyone.
    const roots = response.body.nodes.filter((node: { level: number }) => node.level === 0);
    expect(roots.reduce((sum: number, node: { people: number }) => sum + node.people + 1, 0)).toBe(2000);
  });

  it('keeps one branch with rootId, with the same figures', async () => {
    const root = tree.find((node) => node.level === 1)!;
    const response = await app.http.get(`${base}/pyramid?rootId=${root.id}`).set(manager.auth).expect(200);
    const expected = recount(root.id);
    expect(response.body.nodes.map((node: { id: string }) => node.id).sort()).toEqual([...expected.keys()].sort());
    const top = response.body.nodes.find((node: { id: string }) => node.id === root.id);
    expect(top).toMatchObject({ people: expected.get(root.id)!.people, estimatedVotes: expected.get(root.id)!.estimatedVotes, level: 1 });
  });

  it('measures pace against the election date', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date());
    const electionDate = new Date(Date.parse(`${today}T12:00:00Z`) + 60 * DAY).toISOString().slice(0, 10);
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate }).expect(200);
    const response = await app.http.get(`${base}/pyramid`).set(manager.auth).expect(200);
    expect(response.body.electionDate).toBe(electionDate);
    const node = response.body.nodes.find((item: { promisedVotes: number; estimatedVotes: number }) => item.promisedVotes > 0 && item.estimatedVotes > 0);
    const total = (Date.parse(electionDate) - Date.parse('2026-01-01')) / DAY;
    const elapsed = (Date.parse(today) - Date.parse('2026-01-01')) / DAY;
    expect(node.pace).toBeCloseTo(node.estimatedVotes / ((node.promisedVotes * elapsed) / total), 2);
  });

  it('answers 4xx for bad input and roles', async () => {
    expectProblem(await app.http.get(`${base}/pyramid?rootId=nope`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}/pyramid?rootId=00000000-0000-4000-8000-000000000000`).set(manager.auth), 404);
    expectProblem(await app.http.get(`${base}/pyramid`).set(fieldUser.auth), 403);
    expectProblem(await app.http.get(`${base}/pyramid`), 401);
  });
});

describe('GET /api/volunteers/leaderboard', () => {
  it('ranks by points and by quantity in a window, as a recount does', async () => {
    const to = new Date();
    const from = new Date(to.getTime() - 10 * DAY);
    const inWindow = activities.filter((item) => item.occurredAt >= from && item.occurredAt <= to);
    const totals = new Map<string, { quantity: number; points: number; activities: number }>();
    for (const item of inWindow) {
      const total = totals.get(item.volunteerId) ?? { quantity: 0, points: 0, activities: 0 };
      total.activities++;
      total.quantity += item.quantity ?? 0;
      total.points += POINTS_PER_ACTIVITY[item.type] + (item.quantity ?? 0) * (item.unit ? POINTS_PER_UNIT[item.unit] : 0);
      totals.set(item.volunteerId, total);
    }
    const byPoints = await app.http.get(`${base}/leaderboard?from=${from.toISOString()}&to=${to.toISOString()}&limit=50`).set(viewer.auth).expect(200);
    expect(byPoints.body.data).toHaveLength(50);
    const bestPoints = Math.max(...[...totals.values()].map((total) => total.points));
    expect(byPoints.body.data[0].points).toBeCloseTo(bestPoints, 1);
    for (const row of byPoints.body.data) {
      const want = totals.get(row.id)!;
      expect(row.activities).toBe(want.activities);
      expect(row.quantity).toBe(want.quantity);
      expect(row.points).toBeCloseTo(want.points, 1);
    }
    const points = byPoints.body.data.map((row: { points: number }) => row.points);
    expect(points).toEqual([...points].sort((a, b) => b - a));

    const byQuantity = await app.http.get(`${base}/leaderboard?metric=quantity&from=${from.toISOString()}&to=${to.toISOString()}&limit=5`).set(fieldUser.auth).expect(200);
    expect(byQuantity.body.data[0].quantity).toBe(Math.max(...[...totals.values()].map((total) => total.quantity)));
    expect(byQuantity.body.data.map((row: { rank: number }) => row.rank)).toEqual([1, 2, 3, 4, 5]);

    // Without territories every activity falls in one group (no territory).
    const byTerritory = await app.http.get(`${base}/leaderboard?groupBy=territory&from=${from.toISOString()}&to=${to.toISOString()}`).set(viewer.auth).expect(200);
    expect(byTerritory.body.data).toEqual([expect.objectContaining({ id: null, activities: inWindow.length })]);

    expectProblem(await app.http.get(`${base}/leaderboard?metric=likes`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/leaderboard?from=${to.toISOString()}&to=${from.toISOString()}`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/leaderboard?limit=0`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/leaderboard`), 401);
  });
});

describe('voters a volunteer brings', () => {
  it('links GOTV voters by id or cédula, each to one volunteer, and counts them in the pyramid', async () => {
    const station = (
      await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code: 'V1', name: 'V1', lat: 4.6, lng: -74.1, tables: 2, registeredVoters: 500 }).expect(201)
    ).body.id;
    const voter = async (documentId: string) =>
      (
        await app.http
          .post('/api/gotv/voters')
          .set(manager.auth)
          .send({ name: `Votante ${documentId}`, documentId, pollingStationId: station })
          .expect(201)
      ).body.id as string;
    const [one, two, three] = [await voter('80000001'), await voter('80000002'), await voter('80000003')];
    const ana = (
      await app.http
        .post(base)
        .set(manager.auth)
        .send({ name: 'Ana Amarra', email: 'ana.amarra@example.org', goals: { promisedVotes: 4 } })
        .expect(201)
    ).body.id;
    const beto = (await app.http.post(base).set(manager.auth).send({ name: 'Beto Amarra', email: 'beto.amarra@example.org', leaderId: ana }).expect(201)).body.id;

    const set = await app.http
      .put(`${base}/${ana}/voters`)
      .set(manager.auth)
      .send({ voterIds: [one], documentIds: ['80.000.002'] })
      .expect(200);
    expect(set.body).toMatchObject({ volunteerId: ana, total: 2, voted: 0 });
    await app.http
      .post(`${base}/${beto}/voters`)
      .set(manager.auth)
      .send({ voterIds: [three] })
      .expect(200);
    const taken = expectProblem(
      await app.http
        .post(`${base}/${beto}/voters`)
        .set(manager.auth)
        .send({ voterIds: [one] }),
      409,
      'voter_linked',
    );
    expect(taken.taken).toEqual([{ voterId: one, volunteerId: ana }]);
    // Replacing the list frees the voters left out.
    await app.http
      .put(`${base}/${ana}/voters`)
      .set(manager.auth)
      .send({ voterIds: [two] })
      .expect(200);
    await app.http
      .post(`${base}/${beto}/voters`)
      .set(manager.auth)
      .send({ voterIds: [one] })
      .expect(200);

    // A report of one of Beto's voters before election day is a rehearsal: it does not count as voted.
    await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId: randomUUID(), voterId: three }).expect(201);
    const node = (await app.http.get(`${base}/pyramid?rootId=${ana}`).set(manager.auth).expect(200)).body.nodes.find((item: { id: string }) => item.id === ana);
    expect(node).toMatchObject({ people: 1, promisedVotes: 4, estimatedVotes: 3, goalProgress: 0.75 });
    expect(node.voted).toBe(0);
    expect((await app.http.get(`${base}/${beto}/voters`).set(manager.auth).expect(200)).body.total).toBe(2);

    expect(
      paths(
        expectProblem(
          await app.http
            .put(`${base}/${ana}/voters`)
            .set(manager.auth)
            .send({ documentIds: ['99999999'] }),
          400,
          'unknown_voter',
        ),
      ),
    ).toEqual(['body.documentIds.0']);
    expectProblem(await app.http.put(`${base}/${ana}/voters`).set(manager.auth).send({}), 400);
    expectProblem(
      await app.http
        .put(`${base}/${ana}/voters`)
        .set(manager.auth)
        .send({ voterIds: ['x'] }),
      400,
    );
    expectProblem(
      await app.http
        .put(`${base}/00000000-0000-4000-8000-000000000000/voters`)
        .set(manager.auth)
        .send({ voterIds: [one] }),
      404,
    );
    expectProblem(await app.http.get(`${base}/00000000-0000-4000-8000-000000000000/voters`).set(manager.auth), 404);
    expectProblem(
      await app.http
        .put(`${base}/${ana}/voters`)
        .set(viewer.auth)
        .send({ voterIds: [one] }),
      403,
    );
  });
});

const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);
