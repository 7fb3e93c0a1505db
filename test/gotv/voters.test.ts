import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { station, territory } from '../helpers/factories';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { connectSocket, subscribe } from '../helpers/sockets';
import { until } from '../helpers/wait';

let app: TestApp;
let manager: TestUser;
let brigade: TestUser;
let stationA: string;
let stationB: string;
let kennedy: string;

const puesto = async (code: string, territoryId?: string) => (await station(app, manager, { code, name: `Puesto ${code}`, tables: 10, registeredVoters: 4000, territoryId })).id;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  brigade = await createUser(app, admin, 'brigade');
  kennedy = (await territory(app, manager, { name: 'Kennedy', type: 'commune' })).id;
  stationA = await puesto('A', kennedy);
  stationB = await puesto('B');
});
afterAll(() => app.close());

const voter = (overrides: Record<string, unknown> = {}) => ({
  name: 'Rosa Pérez',
  documentId: '52.123.456',
  phone: '310 555 0101',
  pollingStationId: stationA,
  tableNumber: 3,
  ...overrides,
});

async function voterCount(): Promise<number> {
  return (await app.runtime.deps.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from gotv_voters'))[0]!.n;
}

describe('confirmed voters', () => {
  it('registers a voter with a normalised document and phone', async () => {
    const created = await app.http.post('/api/gotv/voters').set(manager.auth).send(voter()).expect(201);
    expect(created.body).toMatchObject({ documentId: '52123456', phone: '+573105550101', status: 'pending', priority: 'normal', tableNumber: 3, pollingStationId: stationA });
    await app.http.get(`/api/gotv/voters/${created.body.id}`).set(manager.auth).expect(200);
  });

  it('refuses a second voter with the same document with 409', async () => {
    expectProblem(
      await app.http
        .post('/api/gotv/voters')
        .set(manager.auth)
        .send(voter({ documentId: '52123456', name: 'Otra' })),
      409,
      'voter_document_taken',
    );
  });

  it('filters the call list by station, territory, status and search', async () => {
    await app.http
      .post('/api/gotv/voters')
      .set(manager.auth)
      .send(voter({ name: 'Luis Gómez', documentId: '1020304050', pollingStationId: stationB, tableNumber: undefined, priority: 'high' }))
      .expect(201);
    const pending = await app.http.get('/api/gotv/voters?status=pending').set(manager.auth).expect(200);
    expect(pending.body.data.map((row: { name: string }) => row.name)).toEqual(['Luis Gómez', 'Rosa Pérez']);
    const inKennedy = await app.http.get(`/api/gotv/voters?territoryId=${kennedy}`).set(manager.auth).expect(200);
    expect(inKennedy.body.data.map((row: { name: string }) => row.name)).toEqual(['Rosa Pérez']);
    const atB = await app.http.get(`/api/gotv/voters?pollingStationId=${stationB}&priority=high`).set(manager.auth).expect(200);
    expect(atB.body.data).toHaveLength(1);
    const byDocument = await app.http.get('/api/gotv/voters?q=1020').set(manager.auth).expect(200);
    expect(byDocument.body.data.map((row: { name: string }) => row.name)).toEqual(['Luis Gómez']);
  });

  it('includes the territories inside the one asked for when filtering by territory', async () => {
    const city = (await territory(app, manager, { name: 'Soacha', type: 'municipality' })).id;
    const commune = (await territory(app, manager, { name: 'Comuna 1', type: 'commune', parentId: city })).id;
    const barrio = (await territory(app, manager, { name: 'La Despensa', type: 'neighbourhood', parentId: commune })).id;
    const inCommune = await puesto('C', commune);
    const inBarrio = await puesto('D', barrio);
    await app.http
      .post('/api/gotv/voters')
      .set(manager.auth)
      .send(voter({ name: 'Marta Comuna', documentId: '3000000001', pollingStationId: inCommune, tableNumber: 1 }))
      .expect(201);
    await app.http
      .post('/api/gotv/voters')
      .set(manager.auth)
      .send(voter({ name: 'Nico Barrio', documentId: '3000000002', pollingStationId: inBarrio, tableNumber: 1 }))
      .expect(201);
    const names = async (query: string) => (await app.http.get(`/api/gotv/voters?${query}`).set(manager.auth).expect(200)).body.data.map((row: { name: string }) => row.name);
    expect(await names(`territoryId=${city}`)).toEqual(['Marta Comuna', 'Nico Barrio']);
    expect(await names(`territoryId=${commune}`)).toEqual(['Marta Comuna', 'Nico Barrio']);
    expect(await names(`territoryId=${barrio}`)).toEqual(['Nico Barrio']);
    expect(await names(`territoryId=${kennedy}`)).toEqual(['Rosa Pérez']);
    expect(await names(`territoryId=${city}&pollingStationId=${inBarrio}`)).toEqual(['Nico Barrio']);
    expect(await names('territoryId=01960000-0000-7000-8000-000000000000')).toEqual([]);
  });

  it.each([
    [{ pollingStationId: '01960000-0000-7000-8000-000000000000' }, 'body.pollingStationId'],
    [{ pollingStationId: 'nope' }, 'body.pollingStationId'],
    [{ tableNumber: 11 }, 'body.tableNumber'],
    [{ documentId: '12' }, 'body.documentId'],
    [{ phone: '123' }, 'body.phone'],
    [{ priority: 'urgent' }, 'body.priority'],
    [{ contactId: '01960000-0000-7000-8000-000000000000' }, 'body.contactId'],
  ])('rejects %j with 400 and writes nothing', async (overrides, path) => {
    const before = await voterCount();
    const problem = expectProblem(
      await app.http
        .post('/api/gotv/voters')
        .set(manager.auth)
        .send(voter({ documentId: '9988776655', ...overrides })),
      400,
    );
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await voterCount()).toBe(before);
  });

  it('keeps voters (personal data) to managers and, for their own voters only, brigade members', async () => {
    expectProblem(await app.http.get('/api/gotv/voters'), 401);
    // A brigade member outside any brigade sees nobody (chase.test.ts covers members of a brigade).
    expect((await app.http.get('/api/gotv/voters').set(brigade.auth).expect(200)).body.data).toEqual([]);
    expectProblem(await app.http.post('/api/gotv/voters').set(brigade.auth).send(voter()), 403);
    expectProblem(await app.http.get('/api/gotv/voters/xyz').set(manager.auth), 400);
    expectProblem(await app.http.get('/api/gotv/voters/01960000-0000-7000-8000-000000000000').set(manager.auth), 404);
  });
});

describe('exporting voters', () => {
  it('streams the filtered list as CSV with station, territory and brigade by name, phones as they are', async () => {
    const formula = await app.http
      .post('/api/gotv/voters')
      .set(manager.auth)
      .send(voter({ name: '=HYPERLINK("http://evil")', documentId: '4000000001', phone: '311 555 0102', tableNumber: 2 }))
      .expect(201);
    const csv = await app.http.get(`/api/gotv/voters?format=csv&territoryId=${kennedy}`).set(manager.auth).expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="votantes-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toBe('name,documentId,phone,stationCode,station,territory,tableNumber,brigade,priority,status,votedAt,createdAt,id,pollingStationId,brigadeId,contactId');
    // Kennedy's voters only, in the list's order (by name): the formula is defused, the phone is not.
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^"'=HYPERLINK\(""http:\/\/evil""\)",4000000001,\+573115550102,A,Puesto A,Kennedy,2,,normal,pending,,/);
    expect(lines[1]!.split(',').slice(-4)).toEqual([formula.body.id, stationA, '', '']);
    expect(lines[2]).toMatch(/^Rosa Pérez,52123456,\+573105550101,A,Puesto A,Kennedy,3,/);
  });

  it('is for managers only, and a brigade member asking gets 403 before any row', async () => {
    expectProblem(await app.http.get('/api/gotv/voters?format=csv').set(brigade.auth), 403);
    expectProblem(await app.http.get('/api/gotv/voters?format=xlsx').set(manager.auth), 400);
  });
});

describe('correcting a voter', () => {
  const fresh = async (documentId: string, overrides: Record<string, unknown> = {}) =>
    (
      await app.http
        .post('/api/gotv/voters')
        .set(manager.auth)
        .send(voter({ name: 'Para Corregir', documentId, ...overrides }))
        .expect(201)
    ).body as { id: string };
  const patch = (id: string, body: unknown, user = manager) =>
    app.http
      .patch(`/api/gotv/voters/${id}`)
      .set(user.auth)
      .send(body as object);
  const mapFigures = async () => {
    const map = await app.http.get('/api/gotv/live-map').set(manager.auth).expect(200);
    const of = (id: string) => map.body.features.find((item: { properties: { id: string } }) => item.properties.id === id).properties;
    return { a: of(stationA).confirmedVoters as number, b: of(stationB).confirmedVoters as number };
  };

  it('corrects the phone, table and priority, and removes the phone with null', async () => {
    const { id } = await fresh('7100000001');
    const corrected = await patch(id, { phone: '(311) 555-0199', tableNumber: 7, priority: 'high', name: ' Para  Corregida ' }).expect(200);
    expect(corrected.body).toMatchObject({ phone: '+573115550199', tableNumber: 7, priority: 'high', pollingStationId: stationA, status: 'pending' });
    // A move to a station with fewer tables than the voter's table needs the new table too.
    const small = (
      await app.http
        .post('/api/gotv/polling-stations')
        .set(manager.auth)
        .send({ code: 'SMALL', name: 'Puesto pequeño', lat: 4.6, lng: -74.1, tables: 2, registeredVoters: 500 })
        .expect(201)
    ).body.id;
    const problem = expectProblem(await patch(id, { pollingStationId: small }), 400);
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'body.pollingStationId', message: expect.stringContaining('table 7') })]);
    expect((await patch(id, { pollingStationId: small, tableNumber: 2 }).expect(200)).body).toMatchObject({ pollingStationId: small, tableNumber: 2 });
    const cleared = await patch(id, { phone: null, tableNumber: null }).expect(200);
    expect(cleared.body).toMatchObject({ phone: null, tableNumber: null, priority: 'high' });
    expect((await app.http.get(`/api/gotv/voters/${id}`).set(manager.auth).expect(200)).body).toMatchObject({ phone: null, tableNumber: null });
  });

  it("moves a voter to another station in both stations' figures, and tells both stations' rooms", async () => {
    const { id } = await fresh('7100000002');
    const before = await mapFigures();
    const watcher = await connectSocket(app.url, manager.token);
    try {
      const seen: { id: string; confirmedVoters: number }[] = [];
      watcher.on('gotv:station', (event: { id: string; confirmedVoters: number }) => seen.push(event));
      await subscribe(watcher, [`gotv:station:${stationB}`]);
      // A socket that starts following a station gets its figures once; then the move is pushed.
      await until(() => seen.find((event) => event.id === stationB && event.confirmedVoters === before.b));
      expect((await patch(id, { pollingStationId: stationB }).expect(200)).body).toMatchObject({ pollingStationId: stationB });
      expect(await until(() => seen.find((event) => event.id === stationB && event.confirmedVoters === before.b + 1))).toBeDefined();
    } finally {
      watcher.close();
    }
    expect(await mapFigures()).toEqual({ a: before.a - 1, b: before.b + 1 });
  });

  it.each([
    [{}, 'body'],
    [{ pollingStationId: '01960000-0000-7000-8000-000000000000' }, 'body.pollingStationId'],
    [{ tableNumber: 11 }, 'body.tableNumber'],
    [{ phone: '123' }, 'body.phone'],
    [{ documentId: 'abc' }, 'body.documentId'],
    [{ priority: 'urgent' }, 'body.priority'],
    [{ contactId: '01960000-0000-7000-8000-000000000000' }, 'body.contactId'],
  ])('rejects %j with 400 and changes nothing', async (body, path) => {
    const { id } = await fresh(`72${Math.floor(Math.random() * 1e8)}`);
    const before = (await app.http.get(`/api/gotv/voters/${id}`).set(manager.auth).expect(200)).body;
    const problem = expectProblem(await patch(id, body), 400);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect((await app.http.get(`/api/gotv/voters/${id}`).set(manager.auth).expect(200)).body).toEqual(before);
  });

  it('refuses a document number already registered (409), an unknown voter (404), and anyone but a manager (403)', async () => {
    const { id } = await fresh('7100000003');
    expectProblem(await patch(id, { documentId: '52.123.456' }), 409, 'voter_document_taken');
    expect((await app.http.get(`/api/gotv/voters/${id}`).set(manager.auth).expect(200)).body.documentId).toBe('7100000003');
    expectProblem(await patch('01960000-0000-7000-8000-000000000000', { priority: 'low' }), 404);
    expectProblem(await patch('xyz', { priority: 'low' }), 400);
    expectProblem(await patch(id, { priority: 'low' }, brigade), 403);
    expectProblem(await app.http.patch(`/api/gotv/voters/${id}`).send({ priority: 'low' }), 401);
  });
});

describe('removing a voter', () => {
  const sql = <T extends object>(query: string, params: unknown[]) => app.runtime.deps.orm.em.fork().execute<T[]>(query, params);
  const figuresAtA = async () => {
    const map = await app.http.get('/api/gotv/live-map').set(manager.auth).expect(200);
    const { confirmedVoters, confirmedVoted } = map.body.features.find((item: { properties: { id: string } }) => item.properties.id === stationA).properties;
    return { confirmedVoters, confirmedVoted };
  };
  const hourlyVoterReports = async () =>
    (await app.http.get('/api/gotv/dashboard').set(manager.auth).expect(200)).body.hourly.reduce((sum: number, hour: { voterReports: number }) => sum + hour.voterReports, 0);

  it('removes the person and their contact log, keeps their turnout report as a fact without them, and updates the figures', async () => {
    const { id } = (
      await app.http
        .post('/api/gotv/voters')
        .set(manager.auth)
        .send(voter({ name: 'Se Retira', documentId: '7300000001' }))
        .expect(201)
    ).body;
    await app.http.post(`/api/gotv/voters/${id}/contacts`).set(manager.auth).send({ outcome: 'reached', note: 'Pidió no ser contactada más' }).expect(201);
    const clientReportId = randomUUID();
    await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId, voterId: id }).expect(201);
    const before = await figuresAtA();
    const reportsBefore = await hourlyVoterReports();

    await app.http.delete(`/api/gotv/voters/${id}`).set(manager.auth).expect(204);

    expectProblem(await app.http.get(`/api/gotv/voters/${id}`).set(manager.auth), 404);
    expect(await figuresAtA()).toEqual({ confirmedVoters: before.confirmedVoters - 1, confirmedVoted: before.confirmedVoted - 1 });
    expect(await sql('select 1 from gotv_voter_contacts where voter_id = ?', [id])).toEqual([]);
    expect(await sql('select station_id, voter_id from gotv_turnout_reports where client_report_id = ?', [clientReportId])).toEqual([{ station_id: stationA, voter_id: null }]);
    expect(await hourlyVoterReports()).toBe(reportsBefore);
    expectProblem(await app.http.delete(`/api/gotv/voters/${id}`).set(manager.auth), 404);
  });

  it('is for managers only, and answers bad ids', async () => {
    const { id } = (
      await app.http
        .post('/api/gotv/voters')
        .set(manager.auth)
        .send(voter({ name: 'Se Queda', documentId: '7300000002' }))
        .expect(201)
    ).body;
    expectProblem(await app.http.delete(`/api/gotv/voters/${id}`).set(brigade.auth), 403);
    expectProblem(await app.http.delete(`/api/gotv/voters/${id}`), 401);
    expectProblem(await app.http.delete('/api/gotv/voters/xyz').set(manager.auth), 400);
    await app.http.get(`/api/gotv/voters/${id}`).set(manager.auth).expect(200);
  });
});
