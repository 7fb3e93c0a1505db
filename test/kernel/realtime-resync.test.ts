import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { connectedClients, freePort, startRedis, stopRedis } from '../helpers/redis-server';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';
import { until } from '../helpers/wait';

/**
 * Two processes on a Redis of this test's own: reports accepted by one while Redis is down never
 * reach the other's sockets. When Redis is back, those screens must hear `resync` and, reloading
 * from REST as a screen does, end with the same figures as REST.
 */
jest.setTimeout(90_000);

let port: number;
let redis: ChildProcess;
let app: TestApp;
let other: Awaited<ReturnType<TestApp['sibling']>>;
let manager: TestUser;
let viewer: TestUser;
const stations: string[] = [];

beforeAll(async () => {
  port = await freePort();
  redis = await startRedis(port);
  app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}/0`, REDIS_COMMAND_TIMEOUT: '300' });
  other = await app.sibling();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  for (const code of ['R1', 'R2', 'R3']) {
    const created = await app.http
      .post('/api/gotv/polling-stations')
      .set(manager.auth)
      .send({ code, name: `Puesto ${code}`, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 5000 })
      .expect(201);
    stations.push(created.body.id as string);
  }
});
afterAll(async () => {
  await app.close();
  await stopRedis(redis);
});

/** A war-room screen's state: figures from REST, then kept current by `gotv:turnout`; a `resync` reloads from REST. */
class Screen {
  readonly counts = new Map<string, number>();
  readonly resyncs: { rooms: string[]; reason: string }[] = [];
  private reloading: Promise<void> = Promise.resolve();

  constructor(
    readonly socket: Socket,
    private readonly http: TestApp['http'],
    private readonly token: string,
  ) {
    socket.on('gotv:turnout', (message: TurnoutMessage) => {
      for (const item of decodeTurnout(message)) if (item[0] === 'count') this.counts.set(item[1] as string, Math.max(this.counts.get(item[1] as string) ?? 0, item[3] as number));
    });
    socket.on('resync', (event: { rooms: string[]; reason: string }) => {
      this.resyncs.push(event);
      if (event.rooms.length === 0 || event.rooms.includes('gotv')) this.reloading = this.reload();
    });
  }

  async reload(): Promise<void> {
    const map = await this.http.get('/api/gotv/live-map').set('authorization', `Bearer ${this.token}`).expect(200);
    for (const feature of map.body.features as { properties: { id: string; lastCount: number } }[]) this.counts.set(feature.properties.id, feature.properties.lastCount);
  }

  settled(): Promise<void> {
    return this.reloading;
  }

  close(): void {
    this.socket.close();
  }
}

async function restCounts(http: TestApp['http']): Promise<Map<string, number>> {
  const map = await http.get('/api/gotv/live-map').set(manager.auth).expect(200);
  return new Map((map.body.features as { properties: { id: string; lastCount: number } }[]).map((feature) => [feature.properties.id, feature.properties.lastCount]));
}

function report(http: TestApp['http'], station: string, votersSoFar: number) {
  return http.post('/api/gotv/turnout').set(manager.auth).timeout(8000).send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar });
}

it('tells the screens of every process to resync after a Redis outage, and they end with the REST figures', async () => {
  const screens = [
    new Screen(await connectSocket(app.url, viewer.token), app.http, viewer.token),
    new Screen(await connectSocket(other.url, viewer.token), other.http, viewer.token),
  ];
  try {
    for (const screen of screens) {
      await subscribe(screen.socket, ['gotv']);
      await screen.reload();
    }
    // Live before the outage: a report made on one process reaches the other's screen.
    await report(app.http, stations[0]!, 10).expect(201);
    await until(() => (screens[1]!.counts.get(stations[0]!) === 10 ? true : undefined));

    const clients = await connectedClients(port);
    redis.kill('SIGKILL');
    await new Promise((resolve) => redis.once('exit', resolve));
    // Under load while Redis is down: both processes keep accepting reports (the database is the record).
    let count = 10;
    for (let round = 0; round < 10; round += 1) {
      count += 7;
      const answers = await Promise.all(stations.map((station, index) => report(index % 2 ? other.http : app.http, station, count + index)));
      for (const answer of answers) expect(answer.status).toBe(201);
    }

    redis = await startRedis(port);
    await until(async () => (await app.http.get('/readyz')).status === 200 && (await other.http.get('/readyz')).status === 200);
    for (const screen of screens) {
      await until(() => (screen.resyncs.some((event) => event.reason === 'redis_outage' && event.rooms.includes('gotv')) ? true : undefined), 15_000);
      await screen.settled();
    }
    const truth = await restCounts(app.http);
    for (const station of stations) expect(truth.get(station)).toBeGreaterThan(10);
    for (const screen of screens) for (const station of stations) expect(screen.counts.get(station)).toBe(truth.get(station));

    // And live again afterwards, across processes.
    await report(other.http, stations[2]!, 4000).expect(201);
    await until(() => (screens[0]!.counts.get(stations[2]!) === 4000 ? true : undefined), 8000);
    // Every connection of both processes comes back, job workers' included; closing one that is
    // still reconnecting leaves library timers behind that outlive this file.
    await until(async () => (await connectedClients(port)) >= clients);
  } finally {
    for (const screen of screens) screen.close();
  }
});
