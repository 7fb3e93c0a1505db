import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let member: TestUser;
let station: string;
let voterId: string;

beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  member = await createUser(app, admin, 'brigade');
  station = (
    await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code: 'S1', name: 'Puesto 1', lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 2000 }).expect(201)
  ).body.id;
  voterId = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Rosa Pérez', documentId: '52123456', pollingStationId: station }).expect(201)).body.id;
});
afterAll(() => app.close());

describe('brigades', () => {
  it('creates a brigade with members and stations, assigns voters and lists them', async () => {
    const created = await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'Brigada Kennedy', leaderId: manager.id, memberIds: [member.id], stationIds: [station] })
      .expect(201);
    expect(created.body).toMatchObject({ name: 'Brigada Kennedy', leaderId: manager.id, memberIds: [member.id], stationIds: [station], voters: 0 });
    const assigned = await app.http
      .post(`/api/gotv/brigades/${created.body.id}/voters`)
      .set(manager.auth)
      .send({ voterIds: [voterId] })
      .expect(200);
    expect(assigned.body.voters).toBe(1);
    const list = await app.http.get('/api/gotv/brigades').set(viewer.auth).expect(200);
    expect(list.body.data.map((brigade: { name: string }) => brigade.name)).toEqual(['Brigada Kennedy']);
    expectProblem(await app.http.post('/api/gotv/brigades').set(manager.auth).send({ name: 'Brigada Kennedy' }), 409, 'brigade_name_taken');
  });

  it.each([
    [() => ({ name: 'B', memberIds: [viewer.id] }), 'body.memberIds'],
    [() => ({ name: 'B', stationIds: ['01960000-0000-7000-8000-000000000000'] }), 'body.stationIds'],
    [() => ({ name: 'B', leaderId: '01960000-0000-7000-8000-000000000000' }), 'body.leaderId'],
    [() => ({ name: '' }), 'body.name'],
    [() => ({ name: 'B', memberIds: ['x'] }), 'body.memberIds.0'],
  ])('rejects bad input %# with 400', async (body, path) => {
    const problem = expectProblem(await app.http.post('/api/gotv/brigades').set(manager.auth).send(body()), 400);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('lists the people brigades are made of: brigade users, and whoever a brigade names', async () => {
    const other = await createUser(app, admin, 'brigade', 'Zoe Brigadista');
    const people = await app.http.get('/api/gotv/brigade-people').set(viewer.auth).expect(200);
    const byId = new Map((people.body.data as { id: string; role: string; active: boolean }[]).map((person) => [person.id, person]));
    expect(byId.get(member.id)).toMatchObject({ role: 'brigade', active: true });
    expect(byId.get(other.id)).toMatchObject({ name: 'Zoe Brigadista', role: 'brigade', active: true });
    // The leader of Brigada Kennedy is a manager: named because a brigade names them.
    expect(byId.get(manager.id)).toMatchObject({ role: 'manager', active: true });
    expect(byId.has(viewer.id)).toBe(false);
    const names = (people.body.data as { name: string }[]).map((person) => person.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'es')));
    expectProblem(await app.http.get('/api/gotv/brigade-people').set(member.auth), 403);
    expectProblem(await app.http.get('/api/gotv/brigade-people'), 401);
  });

  it('names each member who cannot be one, and why', async () => {
    const press = await createUser(app, admin, 'viewer', 'Marta Ríos');
    const problem = expectProblem(
      await app.http
        .post('/api/gotv/brigades')
        .set(manager.auth)
        .send({ name: 'Brigada Errada', memberIds: [member.id, press.id, '01960000-0000-7000-8000-000000000000'] }),
      400,
    );
    expect(problem.errors).toContainEqual({
      path: 'body.memberIds',
      message: `Every member must be an active user with the brigade role: Marta Ríos is a viewer, not a brigade member; no user has id 01960000-0000-7000-8000-000000000000.`,
    });
  });

  it('guards access and ids', async () => {
    expectProblem(await app.http.post('/api/gotv/brigades').set(member.auth).send({ name: 'X' }), 403);
    expectProblem(await app.http.get('/api/gotv/brigades'), 401);
    expectProblem(
      await app.http
        .post('/api/gotv/brigades/01960000-0000-7000-8000-000000000000/voters')
        .set(manager.auth)
        .send({ voterIds: [voterId] }),
      404,
    );
    const brigades = await app.http.get('/api/gotv/brigades').set(manager.auth).expect(200);
    expectProblem(
      await app.http
        .post(`/api/gotv/brigades/${brigades.body.data[0].id}/voters`)
        .set(manager.auth)
        .send({ voterIds: ['01960000-0000-7000-8000-000000000000'] }),
      400,
    );
    expectProblem(await app.http.post(`/api/gotv/brigades/${brigades.body.data[0].id}/voters`).set(manager.auth).send({ voterIds: [] }), 400);
  });

  it('reads one brigade and changes it (name, leader, whole member and station lists)', async () => {
    const other = await createUser(app, admin, 'brigade');
    const second = (
      await app.http
        .post('/api/gotv/polling-stations')
        .set(manager.auth)
        .send({ code: 'S2', name: 'Puesto 2', lat: 4.61, lng: -74.11, tables: 3, registeredVoters: 900 })
        .expect(201)
    ).body.id;
    const created = (
      await app.http
        .post('/api/gotv/brigades')
        .set(manager.auth)
        .send({ name: 'Brigada Suba', leaderId: manager.id, memberIds: [member.id], stationIds: [station] })
        .expect(201)
    ).body;
    expect((await app.http.get(`/api/gotv/brigades/${created.id}`).set(member.auth).expect(200)).body).toEqual(created);
    expectProblem(await app.http.get(`/api/gotv/brigades/${created.id}`).set(other.auth), 403);

    const countAtSecond = (user: TestUser, n: number) =>
      app.http.post('/api/gotv/turnout').set(user.auth).send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: second, votersSoFar: n });
    expectProblem(await countAtSecond(other, 10), 403); // and its (empty) scope is now cached
    const changed = await app.http
      .patch(`/api/gotv/brigades/${created.id}`)
      .set(manager.auth)
      .send({ name: 'Brigada Suba Norte', leaderId: null, memberIds: [other.id], stationIds: [second] })
      .expect(200);
    expect(changed.body).toMatchObject({ id: created.id, name: 'Brigada Suba Norte', leaderId: null, memberIds: [other.id], stationIds: [second] });
    expect((await app.http.get(`/api/gotv/brigades/${created.id}`).set(viewer.auth).expect(200)).body).toEqual(changed.body);
    // The change reaches the members' scopes at once, not when a cache expires.
    await countAtSecond(other, 20).expect(201);
    // Only the lists given are replaced.
    const renamed = await app.http.patch(`/api/gotv/brigades/${created.id}`).set(manager.auth).send({ name: 'Brigada Suba' }).expect(200);
    expect(renamed.body).toMatchObject({ memberIds: [other.id], stationIds: [second] });
  });

  it('keeps the members and stations a new whole list repeats', async () => {
    const other = await createUser(app, admin, 'brigade');
    const id = (
      await app.http
        .post('/api/gotv/brigades')
        .set(manager.auth)
        .send({ name: 'Brigada Usme', memberIds: [member.id], stationIds: [station] })
        .expect(201)
    ).body.id;
    const sorted = (ids: string[]) => [...ids].sort();
    const same = await app.http
      .patch(`/api/gotv/brigades/${id}`)
      .set(manager.auth)
      .send({ memberIds: [member.id], stationIds: [station] })
      .expect(200);
    expect(same.body).toMatchObject({ memberIds: [member.id], stationIds: [station] });
    const grown = await app.http
      .patch(`/api/gotv/brigades/${id}`)
      .set(manager.auth)
      .send({ memberIds: [member.id, other.id] })
      .expect(200);
    expect(sorted(grown.body.memberIds)).toEqual(sorted([member.id, other.id]));
    // Both members still read their brigade: nobody was dropped on the way.
    await app.http.get(`/api/gotv/brigades/${id}`).set(member.auth).expect(200);
    await app.http.get(`/api/gotv/brigades/${id}`).set(other.auth).expect(200);
  });

  it('rejects bad changes without writing any of them', async () => {
    const id = (
      await app.http
        .post('/api/gotv/brigades')
        .set(manager.auth)
        .send({ name: 'Brigada Bosa', memberIds: [member.id] })
        .expect(201)
    ).body.id;
    const before = (await app.http.get(`/api/gotv/brigades/${id}`).set(manager.auth).expect(200)).body;
    expectProblem(
      await app.http
        .patch(`/api/gotv/brigades/${id}`)
        .set(manager.auth)
        .send({ name: 'Otra', memberIds: [viewer.id] }),
      400,
    );
    expectProblem(
      await app.http
        .patch(`/api/gotv/brigades/${id}`)
        .set(manager.auth)
        .send({ stationIds: ['01960000-0000-7000-8000-000000000000'] }),
      400,
    );
    expectProblem(await app.http.patch(`/api/gotv/brigades/${id}`).set(manager.auth).send({ name: 'Brigada Kennedy', memberIds: [] }), 409, 'brigade_name_taken');
    expectProblem(await app.http.patch(`/api/gotv/brigades/${id}`).set(manager.auth).send({}), 400);
    expectProblem(await app.http.patch(`/api/gotv/brigades/${id}`).set(member.auth).send({ name: 'X' }), 403);
    expectProblem(await app.http.patch('/api/gotv/brigades/01960000-0000-7000-8000-000000000000').set(manager.auth).send({ name: 'X' }), 404);
    expectProblem(await app.http.get('/api/gotv/brigades/01960000-0000-7000-8000-000000000000').set(manager.auth), 404);
    expectProblem(await app.http.get('/api/gotv/brigades/nope').set(manager.auth), 400);
    expect((await app.http.get(`/api/gotv/brigades/${id}`).set(manager.auth).expect(200)).body).toEqual(before);
  });
});
