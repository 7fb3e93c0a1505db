import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, roundTrip, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';
import { until } from '../helpers/wait';

/** Two app instances sharing PostgreSQL and Redis: a war-room screen on one sees reports made on the other. */
let app: TestApp;
let other: Awaited<ReturnType<TestApp['sibling']>>;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let station: string;

beforeAll(async () => {
  app = await startTestApp();
  other = await app.sibling();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  station = (
    await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code: 'X1', name: 'X1', lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 }).expect(201)
  ).body.id;
});
afterAll(() => app.close());

it('delivers gotv:turnout and gotv:station from one instance to a socket on the other', async () => {
  const screen = await connectSocket(app.url, viewer.token);
  try {
    await subscribe(screen, ['gotv', `gotv:station:${station}`]);
    const turnout: { items: unknown[][] }[] = [];
    const stations: { status: string; lastCount: number }[] = [];
    screen.on('gotv:turnout', (message: TurnoutMessage) => turnout.push({ items: decodeTurnout(message) }));
    screen.on('gotv:station', (message: { status: string; lastCount: number }) => stations.push(message));
    await other.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar: 77 }).expect(201);
    await until(() => (turnout.some((message) => message.items.some((item) => item[0] === 'count' && item[1] === station && item[3] === 77)) ? true : undefined));
    // The station's new figures too, found by this instance's watch of the stations its sockets follow.
    await until(() => (stations.some((message) => message.lastCount === 77) ? true : undefined), 4000);
    await other.http.patch(`/api/gotv/polling-stations/${station}`).set(manager.auth).send({ status: 'open' }).expect(200);
    await until(() => (stations.some((message) => message.status === 'open') ? true : undefined));
  } finally {
    screen.close();
  }
});

it("takes a brigade member's socket on the other instance out of a station's room their brigade stopped covering", async () => {
  const member = await createUser(app, admin, 'brigade');
  const brigadeId = (
    await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'Brigada X1', memberIds: [member.id], stationIds: [station] })
      .expect(201)
  ).body.id;
  const room = `gotv:station:${station}`;
  const phone = await connectSocket(other.url, member.token);
  const screen = await connectSocket(other.url, viewer.token);
  try {
    expect((await subscribe(phone, [room])).joined).toEqual([room]);
    await subscribe(screen, [room]);
    const heardByPhone: { status: string }[] = [];
    const heardByScreen: { status: string }[] = [];
    phone.on('gotv:station', (message: { status: string }) => heardByPhone.push(message));
    screen.on('gotv:station', (message: { status: string }) => heardByScreen.push(message));
    // The change is made through the first instance; the socket lives on the second.
    await app.http.patch(`/api/gotv/brigades/${brigadeId}`).set(manager.auth).send({ stationIds: [] }).expect(200);
    await app.http.patch(`/api/gotv/polling-stations/${station}`).set(manager.auth).send({ status: 'incident' }).expect(200);
    await until(() => (heardByScreen.some((message) => message.status === 'incident') ? true : undefined));
    // Both sockets live on the same instance, which emits to the room's sockets at once: had the
    // phone been sent the change, it has it after a round trip on its own connection.
    await roundTrip(phone);
    expect(heardByPhone.filter((message) => message.status === 'incident')).toEqual([]);
  } finally {
    phone.close();
    screen.close();
  }
});

it('merges reports accepted by both instances within a window into one message per window', async () => {
  const screen = await connectSocket(app.url, viewer.token);
  try {
    await subscribe(screen, ['gotv']);
    const messages: { items: unknown[][] }[] = [];
    screen.on('gotv:turnout', (message: TurnoutMessage) => messages.push({ items: decodeTurnout(message) }));
    // Counts 100 + i through this instance, 200 + i through the other, all sent at once.
    const count = (votersSoFar: number) => ({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar });
    const posts = Array.from({ length: 10 }, (_, i) => [
      app.http
        .post('/api/gotv/turnout')
        .set(manager.auth)
        .send({ reports: [count(100 + i)] }),
      other.http
        .post('/api/gotv/turnout')
        .set(manager.auth)
        .send({ reports: [count(200 + i)] }),
    ]).flat();
    await Promise.all(posts);
    const ours = (message: { items: unknown[][] }) => message.items.filter((item) => item[1] === station && Number(item[3]) >= 100 && Number(item[3]) < 300);
    await until(() => (messages.flatMap(ours).length === 20 ? true : undefined));
    // One window holds items from both instances: with a window per process, no message would.
    const mixed = messages.filter((message) => ours(message).some((item) => Number(item[3]) < 200) && ours(message).some((item) => Number(item[3]) >= 200));
    expect(mixed.length).toBeGreaterThan(0);
    // Each report exactly once, whichever instance took it.
    expect(new Set(messages.flatMap(ours).map((item) => item[2])).size).toBe(20);
  } finally {
    screen.close();
  }
});

it('sends what a process that died with the window open left in it, once its lease expires', async () => {
  const screen = await connectSocket(other.url, viewer.token);
  try {
    await subscribe(screen, ['gotv']);
    const items: unknown[][] = [];
    screen.on('gotv:turnout', (message: TurnoutMessage) => items.push(...decodeTurnout(message)));
    // A window opened by a process that is gone: one item in it, its lease still running.
    const { redis, config } = app.runtime.deps;
    const listKey = `${config.redisKeyPrefix}:window:gotv:gotv:turnout`;
    const orphan = ['count', station, randomUUID(), 500, false];
    await redis!.rpush(listKey, JSON.stringify({ id: 'orphan', items: [orphan] }));
    await redis!.set(`${listKey}:open`, '1', 'PX', 300);
    const report = await app.http
      .post('/api/gotv/turnout')
      .set(manager.auth)
      .send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar: 501 })
      .expect(201);
    expect(report.body.accepted).toBe(1);
    await until(() => (items.some((item) => item[3] === 501) ? true : undefined), 5000);
    expect(items.filter((item) => item[2] === orphan[2])).toEqual([orphan]);
    // Nothing stays behind. Another process's watchdog may still open (and then flush) an empty
    // window of its own, so the list is allowed a moment to drain rather than read once.
    await until(async () => (await redis!.llen(listKey)) === 0, 3000, 'the window list to drain');
  } finally {
    screen.close();
  }
});
