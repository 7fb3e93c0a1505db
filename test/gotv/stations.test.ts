import { startTestApp, type TestApp } from '../helpers/app';
import { territory } from '../helpers/factories';
import { connectSocket, roundTrip, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let brigade: TestUser;
let kennedy: string;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  brigade = await createUser(app, admin, 'brigade');
  kennedy = (await territory(app, manager, { name: 'Kennedy', type: 'commune' })).id;
});
afterAll(() => app.close());

const station = (overrides: Record<string, unknown> = {}) => ({
  code: `11-001-${Math.floor(Math.random() * 1e6)}`,
  name: 'Colegio Distrital Kennedy',
  address: 'Cra 78 # 38-10 Sur',
  territoryId: kennedy,
  lat: 4.627,
  lng: -74.152,
  tables: 24,
  registeredVoters: 9600,
  ...overrides,
});

async function stationCount(): Promise<number> {
  const rows = await app.runtime.deps.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from gotv_polling_stations');
  return rows[0]!.n;
}

describe('polling stations', () => {
  it('registers a station, lists and reads it', async () => {
    const created = await app.http
      .post('/api/gotv/polling-stations')
      .set(manager.auth)
      .send(station({ code: 'KEN-01' }))
      .expect(201);
    expect(created.body).toMatchObject({ code: 'KEN-01', status: 'pending', tables: 24, registeredVoters: 9600, territoryId: kennedy, lat: 4.627 });
    const list = await app.http.get(`/api/gotv/polling-stations?territoryId=${kennedy}&q=ken-01`).set(brigade.auth).expect(200);
    expect(list.body.data.map((row: { id: string }) => row.id)).toEqual([created.body.id]);
    await app.http.get(`/api/gotv/polling-stations/${created.body.id}`).set(viewer.auth).expect(200);
  });

  it("takes a brigade member out of a station's room once their brigade no longer covers it", async () => {
    const covered = await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(station()).expect(201);
    const brigadeId = (
      await app.http
        .post('/api/gotv/brigades')
        .set(manager.auth)
        .send({ name: 'Brigada que se va', memberIds: [brigade.id], stationIds: [covered.body.id] })
        .expect(201)
    ).body.id;
    const room = `gotv:station:${covered.body.id}`;
    const warRoom = await connectSocket(app.url, viewer.token);
    const brigadeSocket = await connectSocket(app.url, brigade.token);
    try {
      expect((await subscribe(warRoom, [room])).joined).toEqual([room]);
      expect((await subscribe(brigadeSocket, [room])).joined).toEqual([room]);
      await app.http.patch(`/api/gotv/brigades/${brigadeId}`).set(manager.auth).send({ stationIds: [] }).expect(200);
      const heardByBrigade: unknown[] = [];
      brigadeSocket.on('gotv:station', (event: unknown) => heardByBrigade.push(event));
      // The watch may first push the station's figures as they were when the room was joined.
      const seenByWarRoom: { id: string; status: string }[] = [];
      warRoom.on('gotv:station', (event: { id: string; status: string }) => seenByWarRoom.push(event));
      await app.http.patch(`/api/gotv/polling-stations/${covered.body.id}`).set(manager.auth).send({ status: 'incident' }).expect(200);
      await until(() => (seenByWarRoom.some((event) => event.id === covered.body.id && event.status === 'incident') ? true : undefined));
      // One emit reaches every socket of the room at once: had the brigade's socket been sent it, it has it after a round trip.
      await roundTrip(brigadeSocket);
      expect(heardByBrigade).toEqual([]);
    } finally {
      warRoom.close();
      brigadeSocket.close();
    }
  });

  it('keeps a station’s previous turnout, never above its registered voters (400 naming the field)', async () => {
    const created = await app.http
      .post('/api/gotv/polling-stations')
      .set(manager.auth)
      .send(station({ registeredVoters: 1000, previousTurnout: 610 }))
      .expect(201);
    expect(created.body).toMatchObject({ registeredVoters: 1000, previousTurnout: 610 });
    const path = (body: Record<string, unknown>) => (body.errors as { path: string }[]).map((e) => e.path);
    expect(
      path(
        expectProblem(
          await app.http
            .post('/api/gotv/polling-stations')
            .set(manager.auth)
            .send(station({ registeredVoters: 1000, previousTurnout: 1001 })),
          400,
        ),
      ),
    ).toEqual(['body.previousTurnout']);
    for (const previousTurnout of [-1, 2.5, 'many']) {
      expect(path(expectProblem(await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(station({ previousTurnout })), 400))).toEqual(['body.previousTurnout']);
    }
    const id = created.body.id as string;
    expect(path(expectProblem(await app.http.patch(`/api/gotv/polling-stations/${id}`).set(manager.auth).send({ previousTurnout: 1200 }), 400))).toEqual(['body.previousTurnout']);
    expect(path(expectProblem(await app.http.patch(`/api/gotv/polling-stations/${id}`).set(manager.auth).send({ registeredVoters: 600 }), 400))).toEqual(['body.registeredVoters']);
    expect((await app.http.patch(`/api/gotv/polling-stations/${id}`).set(manager.auth).send({ previousTurnout: 700 }).expect(200)).body.previousTurnout).toBe(700);
    expect((await app.http.patch(`/api/gotv/polling-stations/${id}`).set(manager.auth).send({ previousTurnout: null }).expect(200)).body.previousTurnout).toBeNull();
    expect((await app.http.get(`/api/gotv/polling-stations/${id}`).set(viewer.auth).expect(200)).body.previousTurnout).toBeNull();
  });

  it('refuses a duplicate code with 409', async () => {
    await app.http
      .post('/api/gotv/polling-stations')
      .set(manager.auth)
      .send(station({ code: 'DUP-1' }))
      .expect(201);
    expectProblem(
      await app.http
        .post('/api/gotv/polling-stations')
        .set(manager.auth)
        .send(station({ code: 'DUP-1' })),
      409,
      'station_code_taken',
    );
  });

  it('pushes gotv:station to the war room and the station room when a station opens', async () => {
    const created = await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(station()).expect(201);
    const notTheirs = await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(station()).expect(201);
    await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'Brigada Sede B', memberIds: [brigade.id], stationIds: [created.body.id] })
      .expect(201);
    const warRoom = await connectSocket(app.url, viewer.token);
    const brigadeSocket = await connectSocket(app.url, brigade.token);
    try {
      expect((await subscribe(warRoom, ['gotv', `gotv:station:${notTheirs.body.id}`])).joined).toEqual(['gotv', `gotv:station:${notTheirs.body.id}`]);
      // A brigade member follows their brigades' stations only, as on the REST routes.
      const brigadeAck = await subscribe(brigadeSocket, ['gotv', `gotv:station:${created.body.id}`, `gotv:station:${notTheirs.body.id}`]);
      expect(brigadeAck.joined).toEqual([`gotv:station:${created.body.id}`]);
      expect(brigadeAck.denied).toEqual([
        { room: 'gotv', code: 'forbidden' },
        { room: `gotv:station:${notTheirs.body.id}`, code: 'forbidden' },
      ]);
      // The watch may first push a joined station's figures as they were (still pending).
      const seenByWarRoom: { id: string; status: string }[] = [];
      const seenByBrigade: { id: string; status: string }[] = [];
      warRoom.on('gotv:station', (event: { id: string; status: string }) => seenByWarRoom.push(event));
      brigadeSocket.on('gotv:station', (event: { id: string; status: string }) => seenByBrigade.push(event));
      await app.http.patch(`/api/gotv/polling-stations/${created.body.id}`).set(manager.auth).send({ status: 'open' }).expect(200);
      const opened = (seen: { id: string; status: string }[]) => () => (seen.some((event) => event.id === created.body.id && event.status === 'open') ? true : undefined);
      await until(opened(seenByWarRoom));
      await until(opened(seenByBrigade));
      // A later change of another field leaves the status alone.
      const renamed = await app.http.patch(`/api/gotv/polling-stations/${created.body.id}`).set(manager.auth).send({ name: 'Sede B' }).expect(200);
      expect(renamed.body).toMatchObject({ name: 'Sede B', status: 'open' });
    } finally {
      warRoom.close();
      brigadeSocket.close();
    }
  });

  it.each([
    [{ lat: undefined }, 'body.lat'],
    [{ lat: 95 }, 'body.lat'],
    [{ tables: 0 }, 'body.tables'],
    [{ registeredVoters: -5 }, 'body.registeredVoters'],
    [{ status: 'burning' }, 'body.status'],
    [{ territoryId: '01960000-0000-7000-8000-000000000000' }, 'body.territoryId'],
    [{ code: '' }, 'body.code'],
  ])('rejects %j with 400 and writes nothing', async (overrides, path) => {
    const before = await stationCount();
    const problem = expectProblem(await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(station(overrides)), 400);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await stationCount()).toBe(before);
  });

  it('needs a manager to write and a staff role to read', async () => {
    expectProblem(await app.http.post('/api/gotv/polling-stations').send(station()), 401);
    expectProblem(await app.http.post('/api/gotv/polling-stations').set(brigade.auth).send(station()), 403);
    expectProblem(await app.http.get('/api/gotv/polling-stations'), 401);
  });

  it('answers bad and unknown ids', async () => {
    expectProblem(await app.http.get('/api/gotv/polling-stations/xyz').set(viewer.auth), 400);
    expectProblem(await app.http.get('/api/gotv/polling-stations/01960000-0000-7000-8000-000000000000').set(viewer.auth), 404);
    expectProblem(await app.http.patch('/api/gotv/polling-stations/01960000-0000-7000-8000-000000000000').set(manager.auth).send({ status: 'open' }), 404);
    expectProblem(await app.http.patch('/api/gotv/polling-stations/01960000-0000-7000-8000-000000000000').set(manager.auth).send({}), 400);
  });
});
