import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import { authModule } from '../../src/modules/auth';
import { territoriesModule } from '../../src/modules/territories';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { connectedClients, cuttableRelay, freePort, startRedis, stopRedis, type CuttableRelay } from '../helpers/redis-server';
import { until } from '../helpers/wait';

/**
 * Two processes on a Redis of this test's own, each reaching it through a relay the test can cut:
 * a process must notice within seconds that its link to the other processes is gone, even when
 * the network just goes silent, and the screens that missed events must hear `resync` soon after
 * the link is back, including when only the publishing process lost it.
 */
jest.setTimeout(90_000);

/** Generous bounds for a shared 2-core machine; the figures themselves are in docs/benchmarks.md. */
const DETECTION_BOUND_MS = 5000;
const RESYNC_BOUND_MS = 5000;

let port: number;
let redis: ChildProcess;
let relayA: CuttableRelay;
let relayB: CuttableRelay;
let app: TestApp;
let other: Awaited<ReturnType<TestApp['sibling']>>;
let manager: TestUser;
let viewer: TestUser;

beforeAll(async () => {
  port = await freePort();
  redis = await startRedis(port);
  [relayA, relayB] = await Promise.all([cuttableRelay(port), cuttableRelay(port)]);
  app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${relayA.port}/0`, REDIS_COMMAND_TIMEOUT: '300' }, { modules: [authModule, territoriesModule] });
  other = await app.sibling({ REDIS_URL: `redis://127.0.0.1:${relayB.port}/0` });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
});
afterAll(async () => {
  relayA.restore();
  relayB.restore();
  await app.close();
  await Promise.all([relayA.close(), relayB.close()]);
  await stopRedis(redis);
});

interface Heard {
  at: number;
  name: string;
  payload: { rooms?: string[]; reason?: string; name?: string };
}

/** A screen following `territories`, recording what it hears and when. */
async function screen(url: string): Promise<{ socket: Socket; heard: Heard[] }> {
  const socket = await connectSocket(url, viewer.token);
  const heard: Heard[] = [];
  socket.onAny((name: string, payload: Heard['payload']) => heard.push({ at: Date.now(), name, payload }));
  expect((await subscribe(socket, ['territories'])).joined).toEqual(['territories']);
  return { socket, heard };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let names = 0;
const createTerritory = (http: TestApp['http']) =>
  http
    .post('/api/territories')
    .set(manager.auth)
    .timeout(8000)
    .send({ name: `Barrio ${(names += 1)}`, type: 'neighbourhood' })
    .expect(201);

const linkUp = (target: { runtime: TestApp['runtime'] }) => target.runtime.deps.realtime.linkUp;
const resyncFor = (heard: Heard[], since: number, room: string, reason: string) =>
  heard.find(
    (event) => event.name === 'resync' && event.at >= since && event.payload.reason === reason && (event.payload.rooms!.length === 0 || event.payload.rooms!.includes(room)),
  );

it('notices a silent network within seconds, and tells every screen to resync soon after it is back', async () => {
  const screens = [await screen(app.url), await screen(other.url)];
  try {
    // Until a process has read its first stream entry, the adapter reads from the stream's end ('$')
    // afresh at each poll, so an event added between two polls of a loaded machine can pass it by:
    // the link is proven live by one event that arrives, sent again if need be.
    await until(
      async () => {
        const live = await createTerritory(other.http);
        const heard = (name: string) => screens[0]!.heard.find((event) => event.name === 'territories:created' && event.payload.name === name);
        return until(() => heard(live.body.name as string), 5000).catch(() => undefined);
      },
      30_000,
      'an event from the other process',
    );

    const clients = await connectedClients(port);
    const cutAt = Date.now();
    relayA.cut('silent');
    relayB.cut('silent');
    // Published before either process can know: it may never reach the stream.
    await createTerritory(other.http);
    await until(async () => !linkUp(app) && !linkUp(other), DETECTION_BOUND_MS);
    const detectedMs = Date.now() - cutAt;
    await createTerritory(other.http);
    // A screen whose own network drops meanwhile: its session cannot be saved for recovery, and the process carries on.
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    const dropped = await screen(other.url);
    dropped.socket.io.engine.close();
    dropped.socket.close();
    await createTerritory(other.http);
    // Nothing shows that the session save has failed (the link is cut): a second for a rejection to surface.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    process.off('unhandledRejection', record);
    expect(unhandled).toEqual([]);

    const restoredAt = Date.now();
    relayA.restore();
    relayB.restore();
    // Each process finds its link back and tells its own screens; the publisher also tells the rooms it may have missed.
    for (const { heard } of screens) await until(() => resyncFor(heard, restoredAt, 'territories', 'redis_outage'), RESYNC_BOUND_MS);
    await until(() => resyncFor(screens[0]!.heard, restoredAt, 'territories', 'publish_failed'), RESYNC_BOUND_MS);
    expect(detectedMs).toBeLessThan(DETECTION_BOUND_MS);
    expect(linkUp(app) && linkUp(other)).toBe(true);

    const after = await createTerritory(other.http);
    await until(() => screens[0]!.heard.find((event) => event.name === 'territories:created' && event.payload.name === after.body.name), 8000);
    await until(async () => (await connectedClients(port)) >= clients);
  } finally {
    for (const { socket } of screens) socket.close();
  }
});

it('tells the other processes’ screens to resync when only the publishing process lost Redis', async () => {
  const { socket, heard } = await screen(app.url);
  try {
    const clients = await connectedClients(port);
    relayB.cut('reset');
    await until(async () => !linkUp(other), DETECTION_BOUND_MS);
    expect(linkUp(app)).toBe(true);
    const lost = await createTerritory(other.http);

    const restoredAt = Date.now();
    relayB.restore();
    const told = await until(() => resyncFor(heard, restoredAt, 'territories', 'publish_failed'), RESYNC_BOUND_MS);
    expect(told.payload.rooms).toEqual(['territories']);
    expect(heard.some((event) => event.name === 'territories:created' && event.payload.name === lost.body.name)).toBe(false);
    await until(async () => (await connectedClients(port)) >= clients);
  } finally {
    socket.close();
  }
});

it('tells a room of failed publishes at most every two seconds while Redis answers but refuses writes', async () => {
  const { socket, heard } = await screen(app.url);
  const admin = new Redis(port, '127.0.0.1');
  try {
    await admin.config('SET', 'maxmemory', '1');
    const from = Date.now();
    await createTerritory(app.http);
    // The window is the subject: at most one announcement every two seconds over three seconds.
    await sleep(3000);
    await admin.config('SET', 'maxmemory', '0');
    // Each announcement fails too and is counted again; twice a second without the pause.
    const told = heard.filter((event) => event.name === 'resync' && event.at >= from && event.payload.reason === 'publish_failed');
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(told.length).toBeLessThanOrEqual(3);
    const after = await createTerritory(other.http);
    await until(() => heard.find((event) => event.name === 'territories:created' && event.payload.name === after.body.name), 8000);
  } finally {
    await admin.config('SET', 'maxmemory', '0');
    admin.disconnect();
    socket.close();
  }
});
