import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { activeVolunteers, volunteersByStatus } from '../../src/modules/volunteers';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

const base = '/api/volunteers';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let leaderUser: TestUser;
let memberUser: TestUser;
let loneUser: TestUser;
let leader: string;
let member: string;
let subMember: string;
let outsider: string;
let kennedy: string;

const log = (user: TestUser, activities: unknown[]) => app.http.post(`${base}/activities`).set(user.auth).send({ activities });
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const canvass = (volunteerId: string, extra: Record<string, unknown> = {}) => ({
  clientId: randomUUID(),
  volunteerId,
  type: 'canvassing',
  occurredAt: minutesAgo(30),
  durationMinutes: 120,
  quantity: 40,
  unit: 'doors',
  ...extra,
});
const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);
const activityCount = async () => (await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from volunteer_activities`))!.n;

async function volunteer(body: Record<string, unknown>): Promise<string> {
  return (await app.http.post(base).set(manager.auth).send(body).expect(201)).body.id;
}

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  [manager, viewer, leaderUser, memberUser, loneUser] = await Promise.all([
    createUser(app, admin, 'manager'),
    createUser(app, admin, 'viewer'),
    createUser(app, admin, 'volunteer'),
    createUser(app, admin, 'brigade'),
    createUser(app, admin, 'volunteer'),
  ]);
  kennedy = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Kennedy', type: 'commune' }).expect(201)).body.id;
  leader = await volunteer({ name: 'Lidia Líder', email: 'lidia@example.org', userId: leaderUser.id, locationConsent: true });
  member = await volunteer({ name: 'Mario Miembro', email: 'mario@example.org', userId: memberUser.id, leaderId: leader });
  subMember = await volunteer({ name: 'Sara Sub', email: 'sara@example.org', leaderId: member });
  outsider = await volunteer({ name: 'Otto Otro', email: 'otto@example.org' });
});
afterAll(() => app.close());

describe('POST /api/volunteers/activities', () => {
  it('records a batch once however many times the phone resends it', async () => {
    const batch = [canvass(leader), canvass(member, { type: 'phone_bank', quantity: 25, unit: 'calls' }), canvass(subMember, { clientId: undefined })];
    const first = await log(manager, batch).expect(201);
    expect(first.body).toMatchObject({ created: 3, duplicates: 0 });
    const ids = first.body.results.map((result: { id: string }) => result.id);
    const resent = batch.slice(0, 2);
    for (let i = 0; i < 3; i++) {
      const again = await log(manager, resent).expect(200);
      expect(again.body).toMatchObject({ created: 0, duplicates: 2 });
      expect(again.body.results.map((result: { id: string; status: string }) => [result.id, result.status])).toEqual([
        [ids[0], 'duplicate'],
        [ids[1], 'duplicate'],
      ]);
    }
    // Two phones racing with the same batch: each item is stored once.
    const racing = [canvass(leader), canvass(member)];
    const answers = await Promise.all([log(manager, racing), log(manager, racing), log(manager, racing)]);
    expect(answers.reduce((sum, answer) => sum + answer.body.created, 0)).toBe(2);
    expect(answers.reduce((sum, answer) => sum + answer.body.duplicates, 0)).toBe(4);
    const [row] = await app.runtime.deps.db.rows(
      sql<{ n: number }>`select count(*)::int as n from volunteer_activities where client_id = any(${racing.map((item) => item.clientId)}::uuid[])`,
    );
    expect(row!.n).toBe(2);
  });

  it('lets a volunteer log for themself, a leader for the people under them, and refuses anyone else (nothing written)', async () => {
    await log(leaderUser, [canvass(leader), canvass(member), canvass(subMember)]).expect(201);
    await log(memberUser, [canvass(member), canvass(subMember)]).expect(201);
    const before = await activityCount();
    const refused = expectProblem(await log(memberUser, [canvass(member), canvass(leader)]), 403);
    expect(refused.detail).toContain('Item 1');
    expectProblem(await log(leaderUser, [canvass(outsider)]), 403);
    expect(expectProblem(await log(loneUser, [canvass(outsider)]), 403).detail).toContain('not linked');
    expectProblem(await log(viewer, [canvass(leader)]), 403);
    expectProblem(await app.http.post(`${base}/activities`).send({ activities: [canvass(leader)] }), 401);
    expect(await activityCount()).toBe(before);
  });

  it('keeps GPS points only for volunteers who consented', async () => {
    const answer = await log(manager, [canvass(leader, { lat: 4.61, lng: -74.15 }), canvass(member, { lat: 4.62, lng: -74.16 })]).expect(201);
    expect(answer.body.results.map((result: { locationStored: boolean }) => result.locationStored)).toEqual([true, false]);
    const rows = await app.runtime.deps.db.rows(
      sql<{
        volunteer_id: string;
        lat: number | null;
      }>`select volunteer_id, lat from volunteer_activities where id = any(${answer.body.results.map((result: { id: string }) => result.id)}::uuid[])`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.volunteer_id, row.lat]))).toEqual({ [leader]: 4.61, [member]: null });
  });

  it('refuses a batch with anything wrong in it, naming the item, and writes nothing', async () => {
    const before = await activityCount();
    const cases: [unknown[], string][] = [
      [[canvass(leader), canvass(leader, { quantity: 100_000 })], 'body.activities.1.quantity'],
      [[canvass(leader, { quantity: 5, unit: undefined })], 'body.activities.0.unit'],
      [[canvass(leader, { lat: 91, lng: 0 })], 'body.activities.0.lat'],
      [[canvass(leader, { lat: 4, lng: -181 })], 'body.activities.0.lng'],
      [[canvass(leader, { lat: 4 })], 'body.activities.0.lat'],
      [[canvass(leader, { occurredAt: new Date(Date.now() + 3_600_000).toISOString() })], 'body.activities.0.occurredAt'],
      [[canvass(leader, { occurredAt: new Date(Date.now() - 400 * 86_400_000).toISOString() })], 'body.activities.0.occurredAt'],
      [[canvass(leader, { occurredAt: 'yesterday' })], 'body.activities.0.occurredAt'],
      [[canvass(leader, { durationMinutes: 2000 })], 'body.activities.0.durationMinutes'],
      [[canvass(leader, { quantity: -1 })], 'body.activities.0.quantity'],
      [[canvass(leader, { type: 'sleeping' })], 'body.activities.0.type'],
      [[canvass(leader), canvass('00000000-0000-4000-8000-000000000000')], 'body.activities.1.volunteerId'],
      [[canvass(leader, { territoryId: '00000000-0000-4000-8000-000000000000' })], 'body.activities.0.territoryId'],
      [[canvass(leader, { clientId: 'abc' })], 'body.activities.0.clientId'],
      [[canvass(leader, { extra: true })], 'body.activities.0'],
    ];
    for (const [batch, path] of cases) {
      const problem = expectProblem(await log(manager, batch), 400);
      expect(paths(problem).some((found) => found.startsWith(path))).toBe(true);
    }
    const repeated = canvass(leader);
    expect(paths(expectProblem(await log(manager, [repeated, { ...repeated }]), 400))).toEqual(['body.activities.1.clientId']);
    expectProblem(await log(manager, []), 400);
    expectProblem(
      await log(
        manager,
        Array.from({ length: 501 }, () => canvass(leader)),
      ),
      400,
    );
    expectProblem(await app.http.post(`${base}/activities`).set(manager.auth).send(canvass(leader)), 400);
    expect(await activityCount()).toBe(before);
    // A valid batch of 500 goes through.
    const full = await log(
      manager,
      Array.from({ length: 500 }, () => canvass(outsider, { territoryId: kennedy, quantity: 1 })),
    ).expect(201);
    expect(full.body.created).toBe(500);
  });
});

describe('GET /api/volunteers/activities', () => {
  it('filters, pages and totals by type; volunteers see only their team', async () => {
    const all = await app.http.get(`${base}/activities?volunteerId=${outsider}&limit=200`).set(manager.auth).expect(200);
    expect(all.body.data).toHaveLength(200);
    expect(all.body.totals).toEqual({ canvassing: { count: 500, quantity: 500 } });
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await app.http
        .get(`${base}/activities?volunteerId=${outsider}&limit=150${cursor ? `&cursor=${cursor}` : ''}`)
        .set(manager.auth)
        .expect(200);
      page.body.data.forEach((row) => seen.add(row.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.size).toBe(500);

    const inKennedy = await app.http.get(`${base}/activities?territoryId=${kennedy}&type=canvassing`).set(manager.auth).expect(200);
    expect(inKennedy.body.totals.canvassing.count).toBe(500);
    const mine = await app.http.get(`${base}/activities?limit=200`).set(memberUser.auth).expect(200);
    expect(new Set(mine.body.data.map((row: { volunteerId: string }) => row.volunteerId))).toEqual(new Set([member, subMember]));
    const none = await app.http.get(`${base}/activities`).set(loneUser.auth).expect(200);
    expect(none.body).toEqual({ data: [], nextCursor: null, totals: {} });

    expectProblem(await app.http.get(`${base}/activities?cursor=bad`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}/activities?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}/activities?type=sleeping`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}/activities`).set(viewer.auth), 403);
  });
});

describe('the active definition', () => {
  it('counts a volunteer active with an activity within the last 14 days, both edges included', async () => {
    const at = new Date(Date.now() - 86_400_000);
    const edge = new Date(at.getTime() - 14 * 86_400_000);
    const ids = await Promise.all(
      ['edge', 'before', 'after', 'inside'].map((name) => volunteer({ name: `Ventana ${name}`, email: `ventana-${name}@example.org`, territoryId: kennedy })),
    );
    const [atEdge, justBefore, justAfter, inside] = ids as [string, string, string, string];
    await log(manager, [
      canvass(atEdge, { occurredAt: edge.toISOString() }),
      canvass(justBefore, { occurredAt: new Date(edge.getTime() - 1).toISOString() }),
      canvass(justAfter, { occurredAt: new Date(at.getTime() + 1).toISOString() }),
      canvass(inside, { occurredAt: at.toISOString() }),
    ]).expect(201);
    const deps = app.runtime.deps;
    const [row] = await deps.db.rows(
      sql<{ ids: string[] }>`select array_agg(id) as ids from volunteers where id = any(${ids}::uuid[])
        and exists (select 1 from volunteer_activities a where a.volunteer_id = volunteers.id and a.occurred_at >= ${edge}::timestamptz and a.occurred_at <= ${at}::timestamptz)`,
    );
    expect(new Set(row!.ids)).toEqual(new Set([atEdge, inside]));
    expect(await activeVolunteers(deps, at, [kennedy])).toBe(2);
    // One millisecond later the edge one has left and the one just after has come in.
    expect(await activeVolunteers(deps, new Date(at.getTime() + 1), [kennedy])).toBe(2);
    // One millisecond earlier the one just before the edge is in, and the one at `at` is not yet.
    expect(await activeVolunteers(deps, new Date(at.getTime() - 1), [kennedy])).toBe(2);
    expect(await activeVolunteers(deps, at)).toBeGreaterThanOrEqual(2);

    // The list applies the same definition at the present: `at` was a day ago, so the edge one is now out too.
    const listed = await app.http.get(`${base}?territoryId=${kennedy}&active=true&limit=200`).set(manager.auth).expect(200);
    expect(new Set(listed.body.data.map((item: { id: string }) => item.id))).toEqual(new Set([justAfter, inside]));
    const inactive = await app.http.get(`${base}?territoryId=${kennedy}&active=false&limit=200`).set(manager.auth).expect(200);
    expect(new Set(inactive.body.data.map((item: { id: string }) => item.id))).toEqual(new Set([atEdge, justBefore]));
    expect(inactive.body.data.find((item: { id: string }) => item.id === justBefore)).toMatchObject({ active: false, activityCount: 0 });
    expect(listed.body.data.find((item: { id: string }) => item.id === inside)).toMatchObject({ active: true, activityCount: 1, lastActivityAt: at.toISOString() });

    expect(await volunteersByStatus(deps.db)).toEqual({ prospect: 0, active: 8, inactive: 0 });
  });

  it('follows VOLUNTEER_ACTIVE_DAYS', async () => {
    const other = await startTestApp({ VOLUNTEER_ACTIVE_DAYS: '3' }, { workers: false });
    try {
      const admin = await registerAdmin(other);
      const boss = await createUser(other, admin, 'manager');
      const id = (await other.http.post(base).set(boss.auth).send({ name: 'Tres Días', email: 'tres@example.org' }).expect(201)).body.id;
      const at = new Date();
      await other.http
        .post(`${base}/activities`)
        .set(boss.auth)
        .send({ activities: [canvass(id, { occurredAt: new Date(at.getTime() - 4 * 86_400_000).toISOString() })] })
        .expect(201);
      expect(await activeVolunteers(other.runtime.deps, at)).toBe(0);
      expect(await activeVolunteers(other.runtime.deps, new Date(at.getTime() - 86_400_000))).toBe(1);
      const listed = await other.http.get(`${base}`).set(boss.auth).expect(200);
      expect(listed.body.window.days).toBe(3);
      expect(listed.body.data[0]).toMatchObject({ active: false });
    } finally {
      await other.close();
    }
  });
});
