import { io, type Socket } from 'socket.io-client';
import { authModule } from '../../src/modules/auth';
import { territoriesModule } from '../../src/modules/territories';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

/** A room only managers may join, to prove the per-room role check. */
const staffOnly = { name: 'probe', entities: [], rooms: () => [{ pattern: /^staff-only$/, roles: ['manager' as const], description: 'probe' }] };

let app: TestApp;
let other: Awaited<ReturnType<TestApp['sibling']>>;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
const sockets: Socket[] = [];

async function connect(url: string, token: string | undefined) {
  const socket = await connectSocket(url, token);
  sockets.push(socket);
  return socket;
}

beforeAll(async () => {
  app = await startTestApp({}, { modules: [authModule, territoriesModule, staffOnly] });
  other = await app.sibling();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await app.close();
});

describe('socket handshake', () => {
  it('refuses a connection without a token', async () => {
    await expect(connectSocket(app.url, undefined)).rejects.toMatchObject({ message: 'unauthorized' });
  });

  it('refuses a connection with a bad token', async () => {
    await expect(connectSocket(app.url, 'eyJhbGciOiJub25lIn0.e30.')).rejects.toMatchObject({ message: 'unauthorized' });
  });
});

describe('rooms', () => {
  it('joins allowed rooms and says why others were denied', async () => {
    const socket = await connect(app.url, viewer.token);
    const ack = await subscribe(socket, ['territories', 'staff-only', 'no-such-room']);
    expect(ack).toEqual({
      ok: true,
      joined: ['territories'],
      denied: [
        { room: 'staff-only', code: 'forbidden' },
        { room: 'no-such-room', code: 'unknown_room' },
      ],
    });
    const managerSocket = await connect(app.url, manager.token);
    expect((await subscribe(managerSocket, ['staff-only'])).joined).toEqual(['staff-only']);
  });

  it('answers a malformed subscribe with an error ack', async () => {
    const socket = await connect(app.url, viewer.token);
    const ack = await subscribe(socket, 'territories');
    expect(ack).toMatchObject({ ok: false, joined: [] });
  });
});

describe('publishing across processes', () => {
  it('delivers an event published by one instance to a client of another, through Redis', async () => {
    const socket = await connect(app.url, viewer.token);
    await subscribe(socket, ['territories']);
    // Through Redis to the other instance: on a loaded CI machine this took over 5 s.
    const received = nextEvent<{ id: string; name: string }>(socket, 'territories:created', 15_000);
    const created = await other.http.post('/api/territories').set(manager.auth).send({ name: 'Suba', type: 'commune' }).expect(201);
    expect(await received).toEqual({ id: created.body.id, name: 'Suba', type: 'commune', parentId: null });
  });

  it('does not deliver to clients that did not subscribe', async () => {
    const socket = await connect(app.url, viewer.token);
    let got = false;
    socket.on('territories:created', () => (got = true));
    const subscribed = await connect(other.url, viewer.token);
    await subscribe(subscribed, ['territories']);
    const arrived = nextEvent(subscribed, 'territories:created', 15_000);
    await app.http.post('/api/territories').set(manager.auth).send({ name: 'Usme', type: 'commune' }).expect(201);
    await arrived;
    expect(got).toBe(false);
  });

  it('publish is harmless when nobody listens', () => {
    expect(() => app.runtime.deps.realtime.publish('territories', 'territories:created', { id: 'x', name: 'y', type: 'zone', parentId: null })).not.toThrow();
  });
});

describe('ending tokens ends sockets', () => {
  it('disconnects every socket of a user who logs out, on every instance', async () => {
    const user = await createUser(app, admin, 'viewer');
    const here = await connect(app.url, user.token);
    const there = await connect(other.url, user.token);
    const closedHere = nextEvent(here, 'disconnect');
    const closedThere = nextEvent(there, 'disconnect');
    await app.http.post('/api/auth/logout').set(user.auth).expect(204);
    await Promise.all([closedHere, closedThere]);
    await expect(connectSocket(other.url, user.token)).rejects.toMatchObject({ message: 'unauthorized' });
  });

  it('keeps a socket that asked to leave its own user room within reach of a logout', async () => {
    const user = await createUser(app, admin, 'manager');
    const socket = await connect(other.url, user.token);
    expect(await socket.timeout(5000).emitWithAck('unsubscribe', { rooms: [`user:${user.id}`] })).toEqual({ ok: true });
    expect((await subscribe(socket, [`user:${viewer.id}`])).denied).toEqual([{ room: `user:${viewer.id}`, code: 'unknown_room' }]);
    const closed = nextEvent(socket, 'disconnect');
    await app.http.post('/api/auth/logout').set(user.auth).expect(204);
    await closed;
  });

  it('checks the session again before each request a socket makes', async () => {
    const user = await createUser(app, admin, 'manager');
    const socket = await connect(app.url, user.token);
    expect((await subscribe(socket, ['staff-only'])).joined).toEqual(['staff-only']);
    // The role changes while the message that would cut the socket is lost: the next request finds out.
    app.runtime.deps.realtime.io.local.in(`user:${user.id}`).socketsLeave(`user:${user.id}`);
    other.runtime.deps.realtime.io.local.in(`user:${user.id}`).socketsLeave(`user:${user.id}`);
    await app.http.patch(`/api/users/${user.id}`).set(admin.auth).send({ role: 'viewer' }).expect(200);
    const closed = nextEvent(socket, 'disconnect');
    const answer = await socket.timeout(5000).emitWithAck('subscribe', { rooms: ['staff-only'] });
    expect(answer).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    await closed;
  });
});

describe('connection-state recovery', () => {
  it('replays events missed during a short disconnection, across instances', async () => {
    const socket = io(app.url, { transports: ['websocket'], auth: { token: viewer.token }, reconnectionDelay: 50, forceNew: true });
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    await subscribe(socket, ['territories']);
    const received: string[] = [];
    socket.on('territories:created', (event: { name: string }) => received.push(event.name));
    // Wait for one event so the client holds an offset to recover from.
    await other.http.post('/api/territories').set(manager.auth).send({ name: 'Antes', type: 'zone' }).expect(201);
    await until(() => received.includes('Antes'), 10_000, 'the first event');
    const reconnected = new Promise<void>((resolve) => socket.io.once('reconnect', () => resolve()));
    socket.io.engine.close(); // the network drops, not a deliberate disconnect
    await other.http.post('/api/territories').set(manager.auth).send({ name: 'Durante', type: 'zone' }).expect(201);
    await reconnected;
    await until(() => received.length >= 2, 10_000, 'the missed event');
    expect(socket.recovered).toBe(true);
    expect(received).toEqual(['Antes', 'Durante']);
  });
});

describe('coalesced aggregates', () => {
  it('computes at most once per interval across processes, and never loses the last trigger', async () => {
    const interval = 300;
    const computedAt: number[] = [];
    let changes = 0;
    let seenByLastCompute = 0;
    const compute = async () => {
      computedAt.push(Date.now());
      seenByLastCompute = changes;
      return undefined; // nothing to publish: the test counts computations
    };
    const triggers = [app, other].map(({ runtime }) => runtime.deps.realtime.coalesced('probe-room', 'gotv:projection', compute, interval));
    const started = Date.now();
    while (Date.now() - started < 1500) {
      changes++;
      triggers[changes % 2]!();
      // Pacing: a trigger every 10 ms for 1.5 s, so that many fall inside each interval (time is the subject).
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The last trigger is computed, however long the machine takes to get to it.
    await until(() => seenByLastCompute === changes, 10_000, 'a computation after the last trigger');
    const gaps = computedAt.slice(1).map((at, i) => at - computedAt[i]!);
    expect(computedAt.length).toBeGreaterThanOrEqual(3);
    // A little slack for timers firing early by a millisecond or two and Redis expiry precision.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(interval - 20);
    expect(seenByLastCompute).toBe(changes);
  });
});

describe('batched events', () => {
  it('sends from the process itself when Redis cannot take the shared window', async () => {
    const { realtime } = other.runtime.deps;
    const redis = realtime['options'].redis!.commands;
    const published: unknown[] = [];
    const publish = jest.spyOn(realtime, 'publish').mockImplementation((_room, _event, payload) => void published.push(payload));
    const add = realtime.batched('probe-fallback', 'qr:lead', 50); // defines the window's Redis commands
    const appendToWindow = jest.spyOn(redis as unknown as { appendToWindow: () => Promise<number> }, 'appendToWindow');
    try {
      appendToWindow.mockRejectedValue(new Error('Connection is closed.'));
      add({ id: 'a', campaignId: 'c', codeId: 'k', created: true });
      add({ id: 'b', campaignId: 'c', codeId: 'k', created: true });
      await until(() => published.length > 0, 10_000, 'the window sent by the process');
      expect(published).toEqual([{ items: [expect.objectContaining({ id: 'a' }), expect.objectContaining({ id: 'b' })] }]);
    } finally {
      publish.mockRestore();
      appendToWindow.mockRestore();
    }
  });

  it('neither loses nor doubles items when Redis carries out commands after they timed out', async () => {
    const processes = [app, other].map(({ runtime }) => runtime.deps.realtime);
    const published: string[] = [];
    const publishes = processes.map((realtime) =>
      jest.spyOn(realtime, 'publish').mockImplementation((_room, _event, payload) => {
        for (const item of (payload as { items: { id: string }[] }).items) published.push(item.id);
      }),
    );
    const adds = processes.map((realtime) => realtime.batched('probe-slow', 'qr:lead', 50));
    const redis = processes[0]!['options'].redis!.commands as unknown as { withdrawFromWindow: (...args: unknown[]) => Promise<string> };
    const withdraws = jest.spyOn(redis, 'withdrawFromWindow');
    const pauser = app.runtime.deps.redis!.duplicate({ enableOfflineQueue: true, lazyConnect: false, commandTimeout: 10_000 });
    try {
      const lead = (id: string) => ({ id, campaignId: 'c', codeId: 'k', created: true });
      adds[0]!(lead('before'));
      await until(() => published.includes('before'), 10_000, 'the item sent before Redis slows down');
      // Redis holds every write for longer than a command may wait (REDIS_COMMAND_TIMEOUT, 500 ms),
      // then carries them all out: appends and takes time out here but happen there.
      await pauser.call('client', 'pause', '1500', 'WRITE');
      const ids = Array.from({ length: 12 }, (_, index) => `slow-${index}`);
      for (const [index, id] of ids.entries()) {
        adds[index % 2]!(lead(id));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await until(() => ids.every((id) => published.includes(id)), 20_000, 'every item sent');
      // Windows go out in order: once an item added after them is sent, nothing of theirs is left to send twice.
      adds[1]!(lead('after'));
      await until(() => published.includes('after'), 20_000, 'the item sent after Redis is back');
      expect(withdraws).toHaveBeenCalled();
      expect(published.filter((id) => id.startsWith('slow-')).sort()).toEqual([...ids].sort());
    } finally {
      for (const publish of publishes) publish.mockRestore();
      withdraws.mockRestore();
      await pauser.call('client', 'unpause').catch(() => undefined);
      pauser.disconnect();
    }
  });

  it('counts an append that arrives again (a re-send after a reconnect) once, and never after its withdrawal', async () => {
    const commands = app.runtime.deps.realtime['options'].redis!.commands as unknown as {
      appendToWindow: (list: string, open: string, mark: string, leaseMs: string, batch: string, markMs: string) => Promise<number>;
      withdrawFromWindow: (list: string, open: string, mark: string, batch: string, markMs: string) => Promise<string>;
      lrange: (key: string, from: number, to: number) => Promise<string[]>;
      del: (...keys: string[]) => Promise<number>;
    };
    const list = `probe-late:${Date.now()}`;
    const open = `${list}:open`;
    const append = (id: string) => commands.appendToWindow(list, open, `${list}:appended:${id}`, '60000', id, '60000');
    const withdraw = (id: string) => commands.withdrawFromWindow(list, open, `${list}:appended:${id}`, id, '60000');
    try {
      // Never carried out, so the process sends its items: the late copy must not add them again.
      expect(await withdraw('a')).toBe('absent');
      expect(await append('a')).toBe(-1);
      // Carried out: a copy adds nothing; withdrawn: a withdrawal tried again hears the same, a copy is refused.
      expect(await append('b')).toBe(1);
      expect(await append('b')).toBe(0);
      expect(await commands.lrange(list, 0, -1)).toEqual(['b']);
      expect(await withdraw('b')).toBe('withdrawn');
      expect(await withdraw('b')).toBe('withdrawn');
      expect(await append('b')).toBe(-1);
      expect(await commands.lrange(list, 0, -1)).toEqual([]);
    } finally {
      await commands.del(list, open, `${list}:appended:a`, `${list}:appended:b`);
    }
  });

  // Last in the file: it stops the second process.
  it('sends an item added in the same turn as the process stops', async () => {
    const { realtime } = other.runtime.deps;
    const published: unknown[] = [];
    jest.spyOn(realtime, 'publish').mockImplementation((_room, _event, payload) => void published.push(payload));
    const add = realtime.batched('probe-stop', 'qr:lead', 1000);
    add({ id: 'last', campaignId: 'c', codeId: 'k', created: true });
    await other.runtime.stop();
    expect(published).toEqual([{ items: [expect.objectContaining({ id: 'last' })] }]);
  });
});
