import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let member: TestUser;
let covered: string;
let other: string;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  member = await createUser(app, admin, 'brigade');
  const station = async (code: string) =>
    (
      await app.http
        .post('/api/gotv/polling-stations')
        .set(manager.auth)
        .send({ code, name: code, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000, status: 'open' })
        .expect(201)
    ).body.id as string;
  covered = await station('COVERED');
  other = await station('OTHER');
  await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: 'B1', memberIds: [member.id], stationIds: [covered] })
    .expect(201);
});
afterAll(() => app.close());

const incident = (pollingStationId: string, overrides: Record<string, unknown> = {}) => ({
  pollingStationId,
  type: 'vote_buying',
  severity: 'high',
  description: 'Compra de votos en la entrada',
  ...overrides,
});

describe('incidents', () => {
  it('turns the station red and tells the war room', async () => {
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, ['gotv']);
      const alert = nextEvent<{ stationId: string; severity: string }>(socket, 'gotv:incident');
      const created = await app.http.post('/api/gotv/incidents').set(member.auth).send(incident(covered)).expect(201);
      expect(created.body).toMatchObject({ pollingStationId: covered, type: 'vote_buying', severity: 'high', reportedBy: member.id });
      expect(await alert).toMatchObject({ stationId: covered, severity: 'high' });
      const station = await app.http.get(`/api/gotv/polling-stations/${covered}`).set(viewer.auth).expect(200);
      expect(station.body.status).toBe('incident');
    } finally {
      socket.close();
    }
  });

  it('keeps brigade members to their own stations', async () => {
    expectProblem(await app.http.post('/api/gotv/incidents').set(member.auth).send(incident(other)), 403);
    expectProblem(await app.http.post('/api/gotv/incidents').set(viewer.auth).send(incident(other)), 403);
    expectProblem(await app.http.post('/api/gotv/incidents').send(incident(other)), 401);
    const station = await app.http.get(`/api/gotv/polling-stations/${other}`).set(viewer.auth).expect(200);
    expect(station.body.status).toBe('open');
  });

  it.each([
    [{ type: 'alien_invasion' }, 'body.type'],
    [{ severity: 'extreme' }, 'body.severity'],
    [{ description: '' }, 'body.description'],
    [{ pollingStationId: '01960000-0000-7000-8000-000000000000' }, 'body.pollingStationId'],
  ])('rejects %j with 400', async (overrides, path) => {
    const problem = expectProblem(await app.http.post('/api/gotv/incidents').set(manager.auth).send(incident(other, overrides)), 400);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });
});
