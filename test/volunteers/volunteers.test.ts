import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

const base = '/api/volunteers';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let fieldUser: TestUser;
let kennedy: string;
let barrio: string;

const create = (body: Record<string, unknown>, user: TestUser = manager) => app.http.post(base).set(user.auth).send(body);
const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  [manager, viewer, fieldUser] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'volunteer')]);
  kennedy = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Kennedy', type: 'commune' }).expect(201)).body.id;
  barrio = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Timiza', type: 'neighbourhood', parentId: kennedy }).expect(201)).body.id;
});
afterAll(() => app.close());

describe('registering volunteers', () => {
  it('creates the person as an audience contact and the volunteer with their team fields', async () => {
    const response = await create({
      name: 'Ana Rojas',
      phone: '300 111 2233',
      documentId: '1.020.304.050',
      territoryId: barrio,
      skills: ['canvassing', 'Fotografía'],
      availability: { sat: ['morning', 'afternoon'], wed: ['evening'] },
      goals: { promisedVotes: 120, posters: 40 },
      userId: fieldUser.id,
      whatsappOptIn: true,
    }).expect(201);
    expect(response.body).toMatchObject({
      name: 'Ana Rojas',
      phone: '+573001112233',
      documentId: '1020304050',
      territoryId: barrio,
      skills: ['canvassing', 'fotografía'],
      availability: { wed: ['evening'], sat: ['morning', 'afternoon'] },
      status: 'active',
      goals: { promisedVotes: 120, leads: 0, posters: 40 },
      userId: fieldUser.id,
      source: 'staff',
      locationConsent: null,
    });
    const [contact] = await app.runtime.deps.db.rows(
      sql<{ whatsapp_opt_in: boolean; consents: number }>`select whatsapp_opt_in, (select count(*)::int from consents k where k.contact_id = c.id) as consents
        from contacts c where c.id = ${response.body.contactId}`,
    );
    expect(contact).toEqual({ whatsapp_opt_in: true, consents: 1 });
    expect((await app.http.get(`${base}/${response.body.id}`).set(manager.auth).expect(200)).body.id).toBe(response.body.id);
  });

  it('refuses the same person twice with 409 and the existing id, by phone, email or cédula', async () => {
    const first = (await create({ name: 'Beto Díaz', phone: '310 222 3344', email: 'beto@example.org', documentId: '79111222' }).expect(201)).body;
    for (const body of [
      { name: 'Beto', phone: '+57 310 222 3344' },
      { name: 'Roberto Díaz', email: 'BETO@example.org' },
      { name: 'R. Díaz', phone: '311 000 0000', documentId: '79.111.222' },
    ]) {
      const problem = expectProblem(await create(body), 409, 'volunteer_exists');
      expect(problem.existingId).toBe(first.id);
    }
    // Nothing of a refused registration stays: the contact of the third body was not created.
    const [row] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from contacts where phone = '+573110000000'`);
    expect(row!.n).toBe(0);
  });

  it('promotes a QR lead by contactId without retyping, once', async () => {
    const campaign = await createCampaign(app, manager);
    const [code] = await generateCodes(app, manager, campaign.id, { count: 1 });
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(code!.code, { name: 'Carla Gómez', phone: '320 555 6677', email: 'carla@example.org' }))
      .expect(201);
    const [contact] = await app.runtime.deps.db.rows(sql<{ id: string }>`select id from contacts where phone = '+573205556677'`);
    const promoted = await create({ contactId: contact!.id, status: 'prospect' }).expect(201);
    expect(promoted.body).toMatchObject({ contactId: contact!.id, name: 'Carla Gómez', email: 'carla@example.org', source: 'lead', status: 'prospect' });
    expect(expectProblem(await create({ contactId: contact!.id }), 409, 'volunteer_exists').existingId).toBe(promoted.body.id);
  });

  it('answers bad input with 4xx and writes nothing', async () => {
    const before = await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from volunteers`);
    expect(paths(expectProblem(await create({ name: 'Sin contacto' }), 400))).toContain('body.phone');
    expect(paths(expectProblem(await create({ phone: '3001234567' }), 400))).toContain('body.name');
    expect(paths(expectProblem(await create({ name: 'Mal', phone: '12' }), 400))).toContain('body.phone');
    expect(paths(expectProblem(await create({ name: 'Mal', phone: '300 999 99' }), 400))).toContain('body.phone');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'not-an-email' }), 400))).toContain('body.email');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', documentId: '12' }), 400))).toContain('body.documentId');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', territoryId: '00000000-0000-4000-8000-000000000000' }), 400))).toContain('body.territoryId');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', leaderId: '00000000-0000-4000-8000-000000000000' }), 400))).toContain('body.leaderId');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', goals: { promisedVotes: -1 } }), 400))).toContain('body.goals.promisedVotes');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', availability: { someday: ['morning'] } }), 400))[0]).toMatch(/^body\.availability/);
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', status: 'retired' }), 400))).toContain('body.status');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', extra: 1 }), 400)).length).toBeGreaterThan(0);
    expect(paths(expectProblem(await create({ contactId: '00000000-0000-4000-8000-000000000000' }), 400))).toContain('body.contactId');
    expect(paths(expectProblem(await create({ contactId: '00000000-0000-4000-8000-000000000000', name: 'Dos cosas' }), 400))).toContain('body.name');
    expect(paths(expectProblem(await create({ contactId: '00000000-0000-4000-8000-000000000000', whatsappOptIn: true }), 400))).toContain('body.whatsappOptIn');
    // A user account must exist, be active and have a field role, and belong to one volunteer.
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', userId: viewer.id }), 400))).toContain('body.userId');
    expect(paths(expectProblem(await create({ name: 'Mal', email: 'm@example.org', userId: '00000000-0000-4000-8000-000000000000' }), 400))).toContain('body.userId');
    expectProblem(await create({ name: 'Mal', email: 'm@example.org', userId: fieldUser.id }), 409, 'user_linked');
    expectProblem(await app.http.post(base).set(manager.auth).set('Content-Type', 'application/json').send('{"name":'), 400);
    const after = await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from volunteers`);
    expect(after!.n).toBe(before!.n);
  });

  it('lets only managers register, read and change volunteers', async () => {
    expectProblem(await create({ name: 'X', email: 'x@example.org' }, viewer), 403);
    expectProblem(await create({ name: 'X', email: 'x@example.org' }, fieldUser), 403);
    expectProblem(await app.http.post(base).send({ name: 'X', email: 'x@example.org' }), 401);
    expectProblem(await app.http.get(base).set(viewer.auth), 403);
    expectProblem(await app.http.get(base).set(fieldUser.auth), 403);
    const one = (await create({ name: 'Dora', email: 'dora@example.org' }).expect(201)).body;
    expectProblem(await app.http.get(`${base}/${one.id}`).set(fieldUser.auth), 403);
    expectProblem(await app.http.patch(`${base}/${one.id}`).set(viewer.auth).send({ status: 'inactive' }), 403);
    expectProblem(await app.http.delete(`${base}/${one.id}`).set(viewer.auth), 403);
    expectProblem(await app.http.get(`${base}/not-a-uuid`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}/00000000-0000-4000-8000-000000000000`).set(manager.auth), 404);
  });
});

describe('changing volunteers and the pyramid', () => {
  it('changes fields, records and withdraws location consent, and refuses bad changes', async () => {
    const v = (await create({ name: 'Elena', email: 'elena@example.org' }).expect(201)).body;
    const changed = await app.http
      .patch(`${base}/${v.id}`)
      .set(manager.auth)
      .send({ status: 'inactive', skills: ['driving'], territoryId: kennedy, goals: { leads: 30 }, locationConsent: true })
      .expect(200);
    expect(changed.body).toMatchObject({ status: 'inactive', skills: ['driving'], territoryId: kennedy, goals: { promisedVotes: 0, leads: 30, posters: 0 } });
    expect(changed.body.locationConsent).toEqual({ at: expect.any(String), textId: expect.any(String) });
    const withdrawn = await app.http.patch(`${base}/${v.id}`).set(manager.auth).send({ locationConsent: false }).expect(200);
    expect(withdrawn.body.locationConsent).toBeNull();
    expectProblem(await app.http.patch(`${base}/${v.id}`).set(manager.auth).send({}), 400);
    expectProblem(await app.http.patch(`${base}/${v.id}`).set(manager.auth).send({ name: 'Otra' }), 400);
    expectProblem(await app.http.patch(`${base}/${v.id}`).set(manager.auth).send({ territoryId: '00000000-0000-4000-8000-000000000000' }), 400);
    expectProblem(await app.http.patch(`${base}/00000000-0000-4000-8000-000000000000`).set(manager.auth).send({ status: 'active' }), 404);
  });

  it('refuses a volunteer as their own leader and a cycle, naming it', async () => {
    const a = (await create({ name: 'Alfa', email: 'alfa@example.org' }).expect(201)).body;
    const b = (await create({ name: 'Bravo', email: 'bravo@example.org', leaderId: a.id }).expect(201)).body;
    const c = (await create({ name: 'Charlie', email: 'charlie@example.org', leaderId: b.id }).expect(201)).body;
    expect(c.leaderId).toBe(b.id);
    expectProblem(await app.http.patch(`${base}/${a.id}`).set(manager.auth).send({ leaderId: a.id }), 400, 'own_leader');
    const cycle = expectProblem(await app.http.patch(`${base}/${a.id}`).set(manager.auth).send({ leaderId: c.id }), 400, 'pyramid_cycle');
    expect(cycle.detail).toContain('Alfa → Charlie → Bravo → Alfa');
    expect(cycle.cycle).toEqual([a.id, c.id, b.id, a.id]);
    expect(paths(cycle)).toEqual(['body.leaderId']);
    expect((await app.http.get(`${base}/${a.id}`).set(manager.auth).expect(200)).body.leaderId).toBeNull();
    // Moving a branch elsewhere is fine; removing the leader too.
    await app.http.patch(`${base}/${c.id}`).set(manager.auth).send({ leaderId: a.id }).expect(200);
    await app.http.patch(`${base}/${c.id}`).set(manager.auth).send({ leaderId: null }).expect(200);
  });

  it('refuses cycles made by two changes racing each other: exactly one of them is applied', async () => {
    const x = (await create({ name: 'Xavier', email: 'xavier@example.org' }).expect(201)).body;
    const y = (await create({ name: 'Yolanda', email: 'yolanda@example.org' }).expect(201)).body;
    for (let round = 0; round < 5; round++) {
      await app.http.patch(`${base}/${x.id}`).set(manager.auth).send({ leaderId: null }).expect(200);
      await app.http.patch(`${base}/${y.id}`).set(manager.auth).send({ leaderId: null }).expect(200);
      const [first, second] = await Promise.all([
        app.http.patch(`${base}/${x.id}`).set(manager.auth).send({ leaderId: y.id }),
        app.http.patch(`${base}/${y.id}`).set(manager.auth).send({ leaderId: x.id }),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 400]);
      const rows = await app.runtime.deps.db.rows(sql<{ leader_id: string | null }>`select leader_id from volunteers where id in (${x.id}::uuid, ${y.id}::uuid)`);
      expect(rows.filter((row) => row.leader_id !== null)).toHaveLength(1);
    }
  });
});

describe('the list', () => {
  it('filters by status, territory (with those inside), skill, leader and text, pages, and exports CSV safely', async () => {
    const leader = (await create({ name: 'Líder Kennedy', email: 'lider@example.org', territoryId: kennedy }).expect(201)).body;
    const member = (await create({ name: '=HYPERLINK("x")', email: 'formula@example.org', territoryId: barrio, leaderId: leader.id, skills: ['legal'] }).expect(201)).body;
    const inKennedy = await app.http.get(`${base}?territoryId=${kennedy}&limit=200`).set(manager.auth).expect(200);
    const ids = inKennedy.body.data.map((row: { id: string }) => row.id);
    expect(ids).toEqual(expect.arrayContaining([leader.id, member.id]));
    expect(inKennedy.body.data.every((row: { territoryId: string }) => [kennedy, barrio].includes(row.territoryId))).toBe(true);
    expect((await app.http.get(`${base}?leaderId=${leader.id}`).set(manager.auth).expect(200)).body.data.map((row: { id: string }) => row.id)).toEqual([member.id]);
    expect((await app.http.get(`${base}?skill=legal`).set(manager.auth).expect(200)).body.data.map((row: { id: string }) => row.id)).toEqual([member.id]);
    expect((await app.http.get(`${base}?q=lider@exa`).set(manager.auth).expect(200)).body.data.map((row: { id: string }) => row.id)).toEqual([leader.id]);
    const inactive = (await app.http.get(`${base}?status=inactive`).set(manager.auth).expect(200)).body.data;
    expect(inactive.every((row: { status: string }) => row.status === 'inactive')).toBe(true);
    expect(inKennedy.body.data[0]).toMatchObject({ active: false, activityCount: 0, lastActivityAt: null });

    // Pages of 2 walk the whole list once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await app.http
        .get(`${base}?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        .set(manager.auth)
        .expect(200);
      seen.push(...page.body.data.map((row) => row.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from volunteers where erased_at is null`);
    expect(new Set(seen).size).toBe(all!.n);

    const csv = await app.http.get(`${base}?format=csv&leaderId=${leader.id}`).set(manager.auth).expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const records = parse(csv.text.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(1);
    expect(records[0]!.name).toBe(`'=HYPERLINK("x")`);
    expect(records[0]!.email).toBe('formula@example.org');

    expectProblem(await app.http.get(`${base}?cursor=nonsense`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}?status=retired`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}?active=maybe`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}?territoryId=kennedy`).set(manager.auth), 400);
    expectProblem(await app.http.get(`${base}?format=xlsx`).set(manager.auth), 400);
  });
});

describe('removal is the person’s erasure', () => {
  it('erases through the audience: the contact is emptied, the volunteer row stays anonymous and leaves the list', async () => {
    const leader = (await create({ name: 'Jefa', email: 'jefa@example.org' }).expect(201)).body;
    const v = (await create({ name: 'Borrable', phone: '301 444 5566', email: 'borrable@example.org', leaderId: leader.id, skills: ['legal'], locationConsent: true }).expect(201))
      .body;
    const activity = {
      clientId: randomUUID(),
      volunteerId: v.id,
      type: 'canvassing',
      occurredAt: new Date().toISOString(),
      quantity: 12,
      unit: 'doors',
      notes: 'Calle 40 sur',
      lat: 4.6,
      lng: -74.1,
    };
    await app.http
      .post(`${base}/activities`)
      .set(manager.auth)
      .send({ activities: [activity] })
      .expect(201);
    const exported = await app.http.get(`/api/audience/contacts/${v.contactId}/export`).set(manager.auth).expect(200);
    expect(exported.body.modules.volunteers.volunteer).toHaveLength(1);
    expect(exported.body.modules.volunteers.activities).toEqual([expect.objectContaining({ notes: 'Calle 40 sur', location: { lat: 4.6, lng: -74.1 }, quantity: 12 })]);
    const erased = await app.http.delete(`${base}/${v.id}`).set(manager.auth).expect(200);
    expect(erased.body.counts.volunteers).toEqual({ volunteers: 1, activitiesCleared: 1 });
    // The work stays in the team's figures; where it was and what was written about it go.
    const [kept] = await app.runtime.deps.db.rows(
      sql<{ quantity: number; notes: string | null; lat: number | null }>`select quantity, notes, lat from volunteer_activities where client_id = ${activity.clientId}`,
    );
    expect(kept).toEqual({ quantity: 12, notes: null, lat: null });
    expectProblem(await app.http.get(`${base}/${v.id}`).set(manager.auth), 404);
    expectProblem(await app.http.delete(`${base}/${v.id}`).set(manager.auth), 404);
    const [row] = await app.runtime.deps.db.rows(
      sql<{ leader_id: string; skills: string[]; location_consent_at: Date | null; status: string; name: string; phone: string | null }>`
        select v.leader_id, v.skills, v.location_consent_at, v.status, c.name, c.phone from volunteers v join contacts c on c.id = v.contact_id where v.id = ${v.id}`,
    );
    expect(row).toEqual({ leader_id: leader.id, skills: [], location_consent_at: null, status: 'inactive', name: '(datos suprimidos)', phone: null });
    // The same person may sign up again later: they are a new contact and a new volunteer.
    await create({ name: 'Borrable', phone: '301 444 5566' }).expect(201);
  });
});
