import { randomUUID } from 'node:crypto';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/** A polling station is deleted only once nothing points at it. */
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let brigadist: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  [manager, viewer, brigadist] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'brigade')]);
});
afterAll(() => app.close());

async function station(code: string): Promise<string> {
  const created = await app.http
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code, name: `Puesto ${code}`, lat: 10.4, lng: -75.5, tables: 4, registeredVoters: 900 })
    .expect(201);
  return created.body.id as string;
}
const remove = (id: string, user = manager) => app.http.delete(`/api/gotv/polling-stations/${id}`).set(user.auth);
const onMap = async (id: string) =>
  ((await app.http.get('/api/gotv/live-map').set(viewer.auth).expect(200)).body.features as { properties: { id: string } }[]).some((feature) => feature.properties.id === id);

describe('DELETE /api/gotv/polling-stations/:id', () => {
  it('refuses while voters, reports, brigades or incidents point at it, naming each with its count', async () => {
    const id = await station('DEL-A');
    const voters = await Promise.all(
      ['11223344', '11223345'].map(
        async (documentId) =>
          (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Votante de prueba', documentId, pollingStationId: id }).expect(201)).body.id as string,
      ),
    );
    await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'Brigada borrado', memberIds: [brigadist.id], stationIds: [id] })
      .expect(201);
    await app.http.post('/api/gotv/incidents').set(manager.auth).send({ pollingStationId: id, type: 'other', severity: 'low', description: 'Falta una mesa' }).expect(201);
    await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: id, votersSoFar: 12 }).expect(201);
    const refused = expectProblem(await remove(id), 409, 'station_in_use');
    expect(refused.detail).toContain('2 votantes, 1 reporte de votación, 1 brigada, 1 incidente');
    expect(refused.references).toEqual([
      { count: 2, one: 'votante', many: 'votantes' },
      { count: 1, one: 'reporte de votación', many: 'reportes de votación' },
      { count: 1, one: 'brigada', many: 'brigadas' },
      { count: 1, one: 'incidente', many: 'incidentes' },
    ]);
    await app.http.delete(`/api/gotv/voters/${voters[0]}`).set(manager.auth).expect(204);
    expect(expectProblem(await remove(id), 409, 'station_in_use').detail).toContain('1 votante,');
    expect(await onMap(id)).toBe(true);
  });

  it('deletes an unused station, takes it off the live map and tells screens following it to reload', async () => {
    const id = await station('DEL-B');
    expect(await onMap(id)).toBe(true);
    const socket = await connectSocket(app.url, manager.token);
    try {
      expect((await subscribe(socket, ['gotv'])).joined).toEqual(['gotv']);
      const resync = nextEvent<{ reason: string }>(socket, 'resync');
      await remove(id).expect(204);
      expect(await resync).toMatchObject({ reason: 'bulk_change' });
    } finally {
      socket.close();
    }
    expect(await onMap(id)).toBe(false);
    expectProblem(await app.http.get(`/api/gotv/polling-stations/${id}`).set(manager.auth), 404);
    expectProblem(await remove(id), 404, 'not_found');
    // Its code may be registered again.
    await station('DEL-B');
  });

  it('answers 400 for a bad id and 401/403 without the role', async () => {
    const id = await station('DEL-C');
    expectProblem(await remove('nope'), 400);
    expectProblem(await remove(id, viewer), 403);
    expectProblem(await app.http.delete(`/api/gotv/polling-stations/${id}`), 401);
  });
});
