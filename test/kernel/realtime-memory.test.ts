import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin } from '../helpers/users';

/** The embedded default has no Redis: sockets use Socket.IO's in-memory adapter. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ REDIS_URL: undefined });
});
afterAll(() => app.close());

it('delivers events and checks tokens without Redis', async () => {
  const admin = await registerAdmin(app);
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
