import type { Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

/** Polling stations registered and updated in bulk from CSV, by code. */
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let territoryId: string;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  [manager, viewer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer')]);
  const territory = await app.http.post('/api/territories').set(manager.auth).send({ name: 'Comuna 10', type: 'commune', code: '05001-10' }).expect(201);
  territoryId = territory.body.id as string;
  // The same code at two levels: a code alone cannot say which.
  await app.http.post('/api/territories').set(manager.auth).send({ name: 'Comuna 7', type: 'commune', code: '07' }).expect(201);
  await app.http.post('/api/territories').set(manager.auth).send({ name: 'Bolívar', type: 'department', code: '07' }).expect(201);
  await app.http
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code: 'P-01', name: 'Puesto 1', address: 'Cra 1 # 2-3', lat: 4.6, lng: -74.1, tables: 10, registeredVoters: 9000 })
    .expect(201);
});
afterAll(() => app.close());

const upload = (csv: string, user = manager) => app.http.post('/api/gotv/polling-stations/import').set(user.auth).set('Content-Type', 'text/csv').send(csv);
const station = async (code: string) => {
  const page = await app.http
    .get(`/api/gotv/polling-stations?q=${encodeURIComponent(code)}`)
    .set(manager.auth)
    .expect(200);
  return (page.body.data as { code: string }[]).find((s) => s.code === code) as Record<string, unknown> | undefined;
};
const stationCount = async () => (await app.runtime.deps.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from gotv_polling_stations'))[0]!.n;

describe('polling station CSV import', () => {
  it('registers new codes, changes only the filled fields of registered ones, and reports bad rows by line', async () => {
    const csv = [
      'code,name,address,territoryId,lat,lng,tables,registeredVoters,previousTurnout',
      `P-02,I.E. San José,"Cra 50 # 45-10, Centro",${territoryId},6.2518,-75.5636,12,4200,2900`,
      'P-01,,,,,,,,6100',
      'P-03,Sin mesas,,,6.25,-75.56,,3000,',
      'P-04,Coliseo,,,6.25,-75.56,8,2000,2500',
      'P-05,Lejos,,,95,-75.56,8,2000,',
      'P-02,Repetido,,,6.25,-75.56,8,2000,',
      'P-06,Colegio,,00000000-0000-7000-8000-000000000000,6.25,-75.56,8,2000,',
      'P-07,Biblioteca,,,6.2,-75.5,4,1500.5,',
      'P-08,Parque,,,6.24,-75.58,6,1800,',
    ].join('\n');
    const answer = await upload(csv).expect(200);
    expect(answer.body).toMatchObject({ created: 2, updated: 1, unchanged: 0, rejectedCount: 6 });
    const lines = (answer.body.rejected as { line: number; message: string }[]).map((item) => item.line);
    expect(lines).toEqual([4, 5, 6, 7, 8, 9]);
    const message = (line: number) => (answer.body.rejected as { line: number; message: string }[]).find((item) => item.line === line)!.message;
    expect(message(4)).toContain('needs tables');
    expect(message(5)).toContain('previousTurnout (2500) cannot exceed registeredVoters (2000)');
    expect(message(6)).toMatch(/^lat:/);
    expect(message(7)).toContain('appears earlier');
    expect(message(8)).toContain('territoryId');
    expect(message(9)).toMatch(/^registeredVoters:/);

    expect(await station('P-02')).toMatchObject({
      name: 'I.E. San José',
      address: 'Cra 50 # 45-10, Centro',
      territoryId,
      tables: 12,
      registeredVoters: 4200,
      previousTurnout: 2900,
      status: 'pending',
    });
    expect(await station('P-08')).toMatchObject({ name: 'Parque', tables: 6, registeredVoters: 1800, previousTurnout: null });
    // The registered station got its previous turnout and kept everything else.
    expect(await station('P-01')).toMatchObject({ name: 'Puesto 1', address: 'Cra 1 # 2-3', tables: 10, registeredVoters: 9000, previousTurnout: 6100 });
    expect(await station('P-03')).toBeUndefined();
  });

  it('is safe to send again: rows that change nothing are counted as unchanged', async () => {
    const csv = ['code,previousTurnout', 'P-01,6100', 'P-02,'].join('\n');
    const before = await stationCount();
    const answer = await upload(csv).expect(200);
    expect(answer.body).toMatchObject({ created: 0, updated: 0, unchanged: 2, rejectedCount: 0 });
    expect(await stationCount()).toBe(before);
    expect(await station('P-01')).toMatchObject({ previousTurnout: 6100 });
    // The same place read back from the database is the same number; one field moved is an update.
    const place = await upload(['code,lat,lng,tables', 'P-02,6.2518,-75.5636,12', 'P-08,6.24,-75.58,7'].join('\n')).expect(200);
    expect(place.body).toMatchObject({ updated: 1, unchanged: 1 });
    expect(await station('P-08')).toMatchObject({ tables: 7, lat: 6.24 });
  });

  it('checks previousTurnout against the registered voters the row leaves, raised or lowered in the same row', async () => {
    const answer = await upload(['code,registeredVoters,previousTurnout', 'P-01,5000,', 'P-08,2500,2400'].join('\n')).expect(200);
    expect(answer.body).toMatchObject({ updated: 1, rejectedCount: 1 });
    expect(answer.body.rejected[0]).toMatchObject({ line: 2, message: 'previousTurnout (6100) cannot exceed registeredVoters (5000)' });
    expect(await station('P-01')).toMatchObject({ registeredVoters: 9000, previousTurnout: 6100 });
    expect(await station('P-08')).toMatchObject({ registeredVoters: 2500, previousTurnout: 2400 });
  });

  it('places stations by the territory code campaigns have (DANE), when it names one territory', async () => {
    const csv = [
      'code,name,lat,lng,tables,registeredVoters,territoryCode,territoryId',
      'P-20,Escuela,6.2,-75.5,4,1000,05001-10,',
      'P-21,Capilla,6.2,-75.5,4,1000,07,',
      'P-22,Cancha,6.2,-75.5,4,1000,99999,',
      `P-23,Plaza,6.2,-75.5,4,1000,05001-10,${territoryId}`,
    ].join('\n');
    const answer = await upload(csv).expect(200);
    expect(answer.body).toMatchObject({ created: 1, rejectedCount: 3 });
    expect(answer.body.rejected).toEqual([
      { line: 3, message: 'territoryCode: 07 names 2 territories (one per type); use territoryId' },
      { line: 4, message: 'territoryCode: 99999 names no territory' },
      { line: 5, message: 'territoryCode: fill territoryId or territoryCode, not both' },
    ]);
    expect(await station('P-20')).toMatchObject({ territoryId });
  });

  it('pushes the changed stations to the war room', async () => {
    const socket: Socket = await connectSocket(app.url, manager.token);
    try {
      const events: { id: string; previousTurnout?: number | null }[] = [];
      socket.on('gotv:station', (event: { id: string }) => events.push(event));
      expect((await subscribe(socket, ['gotv'])).joined).toEqual(['gotv']);
      await upload(['code,name,lat,lng,tables,registeredVoters', 'P-09,Estadio,6.26,-75.59,20,8000'].join('\n')).expect(200);
      const created = await station('P-09');
      await until(() => events.find((event) => event.id === created!.id));
    } finally {
      socket.close();
    }
  });

  it('tells screens to reload instead of sending an event per station when more than 100 change', async () => {
    const socket: Socket = await connectSocket(app.url, manager.token);
    try {
      const resyncs: { rooms: string[]; reason: string }[] = [];
      let stationEvents = 0;
      socket.on('resync', (event: { rooms: string[]; reason: string }) => resyncs.push(event));
      socket.on('gotv:station', () => stationEvents++);
      expect((await subscribe(socket, ['gotv'])).joined).toEqual(['gotv']);
      const rows = Array.from({ length: 101 }, (_, i) => `B-${i},Puesto B${i},6.2,-75.5,2,500`);
      expect((await upload(['code,name,lat,lng,tables,registeredVoters', ...rows].join('\n')).expect(200)).body).toMatchObject({ created: 101 });
      const resync = await until(() => resyncs[0]);
      expect(resync).toMatchObject({ rooms: [], reason: 'bulk_change' });
      expect(stationEvents).toBe(0);
    } finally {
      socket.close();
    }
  });

  it('refuses files it cannot read as a whole, with nothing written', async () => {
    const before = await stationCount();
    expectProblem(await upload(['name,lat', 'Sin código,6.2'].join('\n')), 400, 'missing_columns');
    expectProblem(await upload('code,name\n"P-10,Roto\n'), 400, 'malformed_csv');
    const rows = Array.from({ length: 20_001 }, (_, i) => `X-${i},Puesto ${i},6.2,-75.5,1,100`);
    expectProblem(await upload(['code,name,lat,lng,tables,registeredVoters', ...rows].join('\n')), 413, 'too_many_rows');
    expect(await stationCount()).toBe(before);
  });

  it('takes CSV only, from roles that manage stations', async () => {
    expectProblem(await upload('code,previousTurnout\nP-01,1', viewer), 403);
    expectProblem(await app.http.post('/api/gotv/polling-stations/import').send('code\nP-01').set('Content-Type', 'text/csv'), 401);
    expectProblem(await app.http.post('/api/gotv/polling-stations/import').set(manager.auth).send({ code: 'P-01' }), 415);
  });

  it('answers a header with no rows with nothing done', async () => {
    expect((await upload('code,previousTurnout\n').expect(200)).body).toEqual({ dryRun: false, created: 0, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0 });
  });

  it('checks a file with dryRun: the same counts and errors, nothing written or pushed', async () => {
    const csv = ['code,name,lat,lng,tables,registeredVoters,previousTurnout', 'D-01,Puesto Seco,6.2,-75.5,4,800,', 'P-01,,,,,,1234', 'D-02,Sin mesas,6.2,-75.5,,800,'].join('\n');
    const before = await stationCount();
    const previous = await station('P-01');
    const socket: Socket = await connectSocket(app.url, manager.token);
    try {
      const events: { id: string }[] = [];
      socket.on('gotv:station', (event: { id: string }) => events.push(event));
      expect((await subscribe(socket, ['gotv'])).joined).toEqual(['gotv']);
      const dry = await app.http.post('/api/gotv/polling-stations/import?dryRun=true').set(manager.auth).set('Content-Type', 'text/csv').send(csv).expect(200);
      expect(dry.body).toMatchObject({ dryRun: true, created: 1, updated: previous!.previousTurnout === 1234 ? 0 : 1, rejectedCount: 1 });
      expect(dry.body.rejected[0]).toMatchObject({ line: 4, message: expect.stringContaining('tables') });
      expect(await stationCount()).toBe(before);
      expect(await station('D-01')).toBeUndefined();
      expect((await station('P-01'))!.previousTurnout).toBe(previous!.previousTurnout);
      // The real import answers what the dry run said.
      const real = await upload(csv).expect(200);
      expect({ ...real.body, dryRun: true }).toEqual(dry.body);
      expect(await stationCount()).toBe(before + 1);
      // Events reach the socket in the order they were published: a dry run's would come before these.
      const created = await station('D-01');
      await until(() => events.find((event) => event.id === created!.id));
      expect(events.length).toBe(real.body.created + real.body.updated);
    } finally {
      socket.close();
    }
  });

  it('refuses a dryRun that is not true or false with 400, reading nothing', async () => {
    const before = await stationCount();
    const problem = expectProblem(
      await app.http
        .post('/api/gotv/polling-stations/import?dryRun=yes')
        .set(manager.auth)
        .set('Content-Type', 'text/csv')
        .send('code,name,lat,lng,tables,registeredVoters\nD-09,X,6.2,-75.5,1,10'),
      400,
    );
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'query.dryRun' })]);
    expect(await stationCount()).toBe(before);
    expectProblem(await app.http.post('/api/gotv/polling-stations/import?dryRun=true').set(viewer.auth).set('Content-Type', 'text/csv').send('code\nP-01'), 403);
  });
});
