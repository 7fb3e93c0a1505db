import type { Socket } from 'socket.io-client';
import { localClock } from '../../src/kernel/calendar';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

interface Kpi {
  asOf: string;
  financialBalance?: { value: number; income: number };
  pendingPqrs?: { value: number };
}

let app: TestApp;
let manager: TestUser;
let treasurer: TestUser;
const sockets: Socket[] = [];

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  [manager, treasurer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'treasurer')]);
});

afterAll(async () => {
  for (const socket of sockets) socket.close();
  await app?.close();
});

it('pushes dashboard:kpi when a figure changes, at most once a second, and the next overview has it', async () => {
  const socket = await connectSocket(app.url, manager.token);
  sockets.push(socket);
  const received: { at: number; kpi: Kpi }[] = [];
  socket.on('dashboard:kpi', (kpi: Kpi) => received.push({ at: Date.now(), kpi }));
  expect((await subscribe(socket, ['dashboard'])).joined).toEqual(['dashboard']);

  const today = localClock(new Date(), 'America/Bogota').date;
  await app.http
    .post('/api/finance/entries')
    .set(manager.auth)
    .send({ kind: 'income', date: today, amount: 2_500_000, code: 'I-101', counterparty: { name: 'Candidata', idNumber: '52.111.222' } })
    .expect(201);
  const pushed = await until(() => received.find((event) => event.kpi.financialBalance?.income === 2_500_000), 30_000);
  expect(pushed.kpi.financialBalance!.value).toBe(2_500_000);

  // A public PQRS moves another figure: one more push with it.
  await app.http
    .post('/api/pqrs')
    .send({ type: 'peticion', subject: 'Alumbrado', description: 'Sin luz en la cuadra desde el lunes', name: 'Ana', email: 'ana@example.org', consent: true })
    .expect(201);
  await until(() => received.find((event) => event.kpi.pendingPqrs?.value === 1), 30_000);

  // The watcher dropped the cached overview in passing: the API agrees with the push.
  const { body } = await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
  expect(body.financialBalance.income).toBe(2_500_000);
  expect(body.pendingPqrs.value).toBe(1);

  // Coalesced: pushes are at least a second apart, however the figures moved.
  for (let index = 1; index < received.length; index += 1) expect(received[index]!.at - received[index - 1]!.at).toBeGreaterThanOrEqual(900);
}, 90_000);

it('keeps roles outside the room out of it', async () => {
  const socket = await connectSocket(app.url, treasurer.token);
  sockets.push(socket);
  const answer = await subscribe(socket, ['dashboard']);
  expect(answer.joined).toEqual([]);
  expect(answer.denied).toEqual([{ room: 'dashboard', code: 'forbidden' }]);
});

it('tells every process: a second one drops its cached overview and the change is pushed once', async () => {
  const sibling = await app.sibling();
  const before = await sibling.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
  const socket = await connectSocket(sibling.url, manager.token);
  sockets.push(socket);
  const received: Kpi[] = [];
  socket.on('dashboard:kpi', (kpi: Kpi) => received.push(kpi));
  expect((await subscribe(socket, ['dashboard'])).joined).toEqual(['dashboard']);

  const today = localClock(new Date(), 'America/Bogota').date;
  const income = before.body.financialBalance.income + 700_000;
  await app.http
    .post('/api/finance/entries')
    .set(manager.auth)
    .send({ kind: 'income', date: today, amount: 700_000, code: 'I-101', counterparty: { name: 'Candidata', idNumber: '52.111.222' } })
    .expect(201);
  await until(() => received.find((kpi) => kpi.financialBalance?.income === income), 30_000);
  const after = await sibling.http.get('/api/dashboard/overview').set(manager.auth).expect(200);
  expect(after.body.financialBalance.income).toBe(income);
  // Both processes watch; the fingerprint they share lets one of them push the change. The wait
  // outlasts a watch round of each process (5 s apart, timers in the process with no outward sign):
  // a second push of the same figures would come from the other's next round.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  expect(received.filter((kpi) => kpi.financialBalance?.income === income)).toHaveLength(1);
}, 90_000);
