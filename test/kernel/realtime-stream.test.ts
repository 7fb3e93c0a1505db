import { Redis } from 'ioredis';
import { authModule } from '../../src/modules/auth';
import { territoriesModule } from '../../src/modules/territories';
import { startTestApp, type TestApp } from '../helpers/app';
import { testRedisUrl } from '../helpers/database';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

/**
 * What the Socket.IO adapter keeps in Redis: every event it carries between processes sits in a
 * stream, whole (WhatsApp texts included), for sockets that reconnect. It must go after a while,
 * here three seconds, rather than stay until 10,000 later events push it out.
 */
let app: TestApp;
let redis: Redis;
let manager: TestUser;
let streamKey: string;

beforeAll(async () => {
  app = await startTestApp({ REALTIME_STREAM_MAX_AGE: '3' }, { modules: [authModule, territoriesModule] });
  redis = new Redis(testRedisUrl);
  manager = await createUser(app, await registerAdmin(app), 'manager');
  streamKey = `${app.config.redisKeyPrefix}:socket.io`;
});
afterAll(async () => {
  await redis.quit();
  await app.close();
});

const inStream = async (text: string) => (await redis.xrange(streamKey, '-', '+')).some(([, fields]) => fields.join(' ').includes(text));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('keeps an event in the Redis stream for the configured age, then drops it', async () => {
  await app.http.post('/api/territories').set(manager.auth).send({ name: 'Barrio Viejo', type: 'neighbourhood' }).expect(201);
  await until(() => inStream('Barrio Viejo'), 5000, 'the event in the stream');
  // Trimming goes by the entries' ids, Redis's own milliseconds: a second-old entry is never dropped.
  await sleep(1000);
  expect(await inStream('Barrio Viejo')).toBe(true);
  await until(async () => !(await inStream('Barrio Viejo')), 10_000, 'the event trimmed');
  await app.http.post('/api/territories').set(manager.auth).send({ name: 'Barrio Nuevo', type: 'neighbourhood' }).expect(201);
  await until(() => inStream('Barrio Nuevo'), 5000, 'the newer event in the stream');
});

it('keeps a dropped socket’s session for recovery under the process’s key prefix', async () => {
  const socket = await connectSocket(app.url, manager.token);
  await subscribe(socket, ['territories']);
  socket.io.engine.close();
  socket.close();
  await until(async () => (await redis.keys(`${app.config.redisKeyPrefix}:socket.io:session:*`)).length > 0, 5000, 'the session saved');
});
