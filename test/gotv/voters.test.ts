import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let brigade: TestUser;
let stationA: string;
let stationB: string;
let kennedy: string;

const station = (code: string, territoryId?: string) =>
  app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code, name: `Puesto ${code}`, lat: 4.6, lng: -74.1, tables: 10, registeredVoters: 4000, territoryId });

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  brigade = await createUser(app, admin, 'brigade');
  kennedy = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Kennedy', type: 'commune' }).expect(201)).body.id;
  stationA = (await station('A', kennedy).expect(201)).body.id;
  stationB = (await station('B').expect(201)).body.id;
});
afterAll(() => app.close());

const voter = (overrides: Record<string, unknown> = {}) => ({ name: 'Rosa Pérez', documentId: '52.123.456', phone: '310 555 0101', pollingStationId: stationA, tableNumber: 3, ...overrides });

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
    expectProblem(await app.http.post('/api/gotv/voters').set(manager.auth).send(voter({ documentId: '52123456', name: 'Otra' })), 409, 'voter_document_taken');
  });

  it('filters the call list by station, territory, status and search', async () => {
    await app.http.post('/api/gotv/voters').set(manager.auth).send(voter({ name: 'Luis Gómez', documentId: '1020304050', pollingStationId: stationB, tableNumber: undefined, priority: 'high' })).expect(201);
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
    const territory = async (name: string, type: string, parentId?: string) =>
      (await app.http.post('/api/territories').set(manager.auth).send({ name, type, parentId }).expect(201)).body.id as string;
    const city = await territory('Soacha', 'municipality');
    const commune = await territory('Comuna 1', 'commune', city);
    const barrio = await territory('La Despensa', 'neighbourhood', commune);
    const inCommune = (await station('C', commune).expect(201)).body.id;
    const inBarrio = (await station('D', barrio).expect(201)).body.id;
    await app.http.post('/api/gotv/voters').set(manager.auth).send(voter({ name: 'Marta Comuna', documentId: '3000000001', pollingStationId: inCommune, tableNumber: 1 })).expect(201);
    await app.http.post('/api/gotv/voters').set(manager.auth).send(voter({ name: 'Nico Barrio', documentId: '3000000002', pollingStationId: inBarrio, tableNumber: 1 })).expect(201);
    const names = async (query: string) =>
      (await app.http.get(`/api/gotv/voters?${query}`).set(manager.auth).expect(200)).body.data.map((row: { name: string }) => row.name);
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
    const problem = expectProblem(await app.http.post('/api/gotv/voters').set(manager.auth).send(voter({ documentId: '9988776655', ...overrides })), 400);
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
