import { io } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

/** The embedded default has no Redis: sockets use Socket.IO's in-memory adapter. */
let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  app = await startTestApp({ REDIS_URL: undefined });
  admin = await registerAdmin(app);
});
afterAll(() => app.close());

it('delivers events and checks tokens without Redis', async () => {
  const viewer = await createUser(app, admin, 'viewer');
  await expect(connectSocket(app.url, undefined)).rejects.toMatchObject({ message: 'unauthorized' });
  const socket = await connectSocket(app.url, viewer.token);
  try {
    expect((await subscribe(socket, ['territories'])).joined).toEqual(['territories']);
    const received = nextEvent<{ name: string }>(socket, 'territories:created');
    await app.http.post('/api/territories').set(admin.auth).send({ name: 'Chapinero', type: 'commune' }).expect(201);
    expect((await received).name).toBe('Chapinero');
  } finally {
    socket.close();
  }
});

it('replays events missed during a short disconnection without Redis', async () => {
  const socket = io(app.url, { transports: ['websocket'], auth: { token: admin.token }, reconnectionDelay: 50, forceNew: true });
  try {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    await subscribe(socket, ['territories']);
    const received: string[] = [];
    socket.on('territories:created', (event: { name: string }) => received.push(event.name));
    // One event first, so the client holds an offset to recover from.
    await app.http.post('/api/territories').set(admin.auth).send({ name: 'Antes', type: 'zone' }).expect(201);
    await until(() => (received.length === 1 ? true : undefined));
    const reconnected = new Promise<void>((resolve) => socket.io.once('reconnect', () => resolve()));
    socket.io.engine.close(); // the network drops, not a deliberate disconnect
    await app.http.post('/api/territories').set(admin.auth).send({ name: 'Durante', type: 'zone' }).expect(201);
    await reconnected;
    await until(() => (received.length === 2 ? true : undefined));
    expect(socket.recovered).toBe(true);
    expect(received).toEqual(['Antes', 'Durante']);
  } finally {
    socket.close();
  }
});
