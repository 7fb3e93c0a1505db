import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { todayIn } from '../../src/kernel/calendar';

/** An agenda event's planned budget against the ledger entries recorded for it. */
let app: TestApp;
let manager: TestUser;
let treasurer: TestUser;
let viewer: TestUser;
let eventId: string;

// The campaign's day in Bogotá: between 00:00 and 05:00 UTC the UTC date is already tomorrow there.
const today = () => todayIn('America/Bogota');
const expense = (amount: number, extra: Record<string, unknown> = {}) => ({
  kind: 'expense',
  date: today(),
  amount,
  code: 'G-203',
  counterparty: { name: 'Sonido Andino S.A.S.', idNumber: '900.123.456-7' },
  ...extra,
});

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  [manager, treasurer, viewer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'treasurer'), createUser(app, admin, 'viewer')]);
  const election = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
  await app.http.put('/api/finance/settings').set(manager.auth).send({ spendingCap: 500_000_000, electionDate: election }).expect(200);
  const startsAt = new Date(Date.now() + 7 * 86_400_000);
  const event = await app.http
    .post('/api/agenda/events')
    .set(manager.auth)
    .send({
      title: 'Cierre de campaña en la plaza',
      type: 'rally',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 3 * 3_600_000).toISOString(),
      budget: 2_000_000,
    })
    .expect(201);
  eventId = event.body.id as string;
});
afterAll(() => app.close());

it('adds up what was spent on an event, reversals netted, against its planned budget', async () => {
  const sound = await app.http.post('/api/finance/entries').set(treasurer.auth).send(expense(1_200_000, { eventId })).expect(201);
  expect(sound.body.eventId).toBe(eventId);
  const stage = await app.http.post('/api/finance/entries').set(treasurer.auth).send(expense(900_000, { eventId })).expect(201);
  await app.http.post('/api/finance/entries').set(treasurer.auth).send(expense(5_000_000)).expect(201);

  const over = await app.http.get(`/api/finance/events/${eventId}/budget`).set(treasurer.auth).expect(200);
  expect(over.body).toMatchObject({
    eventId,
    title: 'Cierre de campaña en la plaza',
    planned: 2_000_000,
    spent: 2_100_000,
    income: 0,
    remaining: -100_000,
    usedPct: 105,
    entries: 2,
  });

  // The stage was recorded twice by mistake elsewhere: reversing it takes it off the event too.
  await app.http.post(`/api/finance/entries/${stage.body.id}/reverse`).set(manager.auth).send({ reason: 'Duplicado' }).expect(201);
  const after = await app.http.get(`/api/finance/events/${eventId}/budget`).set(manager.auth).expect(200);
  expect(after.body).toMatchObject({ spent: 1_200_000, remaining: 800_000, usedPct: 60, entries: 3 });

  const listed = await app.http.get(`/api/finance/entries?eventId=${eventId}`).set(treasurer.auth).expect(200);
  expect(listed.body.data).toHaveLength(3);
  expect(listed.body.totals).toMatchObject({ entries: 3, expenses: 1_200_000 });
});

it('moves an entry onto or off an event with a correction', async () => {
  const other = await app.http.post('/api/finance/entries').set(treasurer.auth).send(expense(300_000)).expect(201);
  await app.http.patch(`/api/finance/entries/${other.body.id}`).set(treasurer.auth).send({ eventId }).expect(200);
  expect((await app.http.get(`/api/finance/events/${eventId}/budget`).set(treasurer.auth).expect(200)).body.spent).toBe(1_500_000);
  await app.http.patch(`/api/finance/entries/${other.body.id}`).set(treasurer.auth).send({ eventId: null }).expect(200);
  expect((await app.http.get(`/api/finance/events/${eventId}/budget`).set(treasurer.auth).expect(200)).body.spent).toBe(1_200_000);
});

it('refuses unknown events, bad ids and roles that do not keep the books', async () => {
  const unknown = '0196d69f-0000-7000-8000-0000000000aa';
  const refused = await app.http
    .post('/api/finance/entries')
    .set(treasurer.auth)
    .send(expense(10_000, { eventId: unknown }))
    .expect(400);
  expect(refused.body.code).toBe('unknown_event');
  expectProblem(
    await app.http
      .post('/api/finance/entries')
      .set(treasurer.auth)
      .send(expense(10_000, { eventId: 'plaza' })),
    400,
  );
  expectProblem(await app.http.get(`/api/finance/events/${unknown}/budget`).set(treasurer.auth), 404);
  expectProblem(await app.http.get('/api/finance/events/plaza/budget').set(treasurer.auth), 400);
  expectProblem(await app.http.get(`/api/finance/events/${eventId}/budget`).set(viewer.auth), 403);
  expectProblem(await app.http.get(`/api/finance/events/${eventId}/budget`), 401);
  expectProblem(await app.http.get(`/api/finance/entries?eventId=nope`).set(treasurer.auth), 400);
});
