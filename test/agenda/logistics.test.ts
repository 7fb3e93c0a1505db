import { expectProblem } from '../helpers/users';
import { base, createEvent, startAgenda, type AgendaTest } from './helpers';

let t: AgendaTest;

beforeAll(async () => {
  t = await startAgenda();
});

afterAll(async () => {
  await t?.app.close();
});

const day = Date.parse('2027-03-06T00:00:00-05:00');
const at = (hour: number) => new Date(day + hour * 3_600_000).toISOString();

async function resource(body: Record<string, unknown>) {
  const response = await t.app.http.post(`${base}/resources`).set(t.manager.auth).send(body).expect(201);
  return response.body as { id: string; quantity: number };
}

/** An event on the test day from `from` to `to` (hours). */
async function eventAt(from: number, to: number, overrides: Record<string, unknown> = {}) {
  return createEvent(t, { startsAt: at(from), endsAt: at(to), ...overrides });
}

const allocate = (eventId: string, body: Record<string, unknown>, user = t.manager) => t.app.http.post(`${base}/events/${eventId}/allocations`).set(user.auth).send(body);

describe('inventory', () => {
  it('refuses to hold more than there is at the busiest moment, and counts only what overlaps', async () => {
    const sound = await resource({ name: 'Equipo de sonido grande', category: 'sonido', quantity: 2, unit: 'equipos' });
    const morning = await eventAt(10, 12);
    const noon = await eventAt(12, 14);
    const between = await eventAt(11, 13);
    await allocate(morning.id, { resourceId: sound.id, quantity: 1 }).expect(201);
    await allocate(noon.id, { resourceId: sound.id, quantity: 1 }).expect(201);
    // Both overlap 11–13 but never at the same moment: one unit stays free throughout.
    const held = await allocate(between.id, { resourceId: sound.id, quantity: 1 }).expect(201);
    expect(held.body).toMatchObject({ resourceName: 'Equipo de sonido grande', quantity: 1, startsAt: between.startsAt, endsAt: between.endsAt });
    const refused = expectProblem(await allocate(between.id, { resourceId: sound.id, quantity: 1 }), 409, 'over_allocated');
    expect(refused.detail).toMatch(/Only 0 of 2/);
    // A set-up span before the event counts too.
    const evening = await eventAt(15, 18);
    expectProblem(await allocate(evening.id, { resourceId: sound.id, quantity: 2, startsAt: at(13), endsAt: at(18) }), 409, 'over_allocated');
    await allocate(evening.id, { resourceId: sound.id, quantity: 2, startsAt: at(14), endsAt: at(18) }).expect(201);

    const listed = await t.app.http
      .get(`${base}/resources`)
      .query({ from: at(0), to: at(24) })
      .set(t.volunteer.auth)
      .expect(200);
    expect(listed.body.data.find((row: { id: string }) => row.id === sound.id)).toMatchObject({ quantity: 2, allocated: 2, available: 0 });
    const quiet = await t.app.http
      .get(`${base}/resources`)
      .query({ from: at(24), to: at(48) })
      .set(t.manager.auth)
      .expect(200);
    expect(quiet.body.data.find((row: { id: string }) => row.id === sound.id)).toMatchObject({ allocated: 0, available: 2 });

    // A cancelled event gives its units back.
    expectProblem(await allocate(between.id, { resourceId: sound.id, quantity: 1, startsAt: at(11), endsAt: at(12) }), 409, 'over_allocated');
    await t.app.http.patch(`${base}/events/${morning.id}`).set(t.manager.auth).send({ status: 'cancelled' }).expect(200);
    await allocate(between.id, { resourceId: sound.id, quantity: 1, startsAt: at(11), endsAt: at(12) }).expect(201);
    // And so does removing an allocation.
    const mine = await t.app.http.get(`${base}/events/${noon.id}/allocations`).set(t.viewer.auth).expect(200);
    await t.app.http.delete(`${base}/events/${noon.id}/allocations/${mine.body.data[0].id}`).set(t.manager.auth).expect(204);
    expectProblem(await t.app.http.delete(`${base}/events/${noon.id}/allocations/${mine.body.data[0].id}`).set(t.manager.auth), 404);
    const all = await t.app.http.get(`${base}/resources/${sound.id}/allocations`).set(t.manager.auth).expect(200);
    expect(all.body.data).toHaveLength(4);

    // Fewer units than upcoming events hold cannot be recorded.
    expectProblem(await t.app.http.patch(`${base}/resources/${sound.id}`).set(t.manager.auth).send({ quantity: 1 }), 409, 'over_allocated');
    await t.app.http.patch(`${base}/resources/${sound.id}`).set(t.manager.auth).send({ quantity: 3, notes: 'Compramos otro' }).expect(200);
  });

  it('decides concurrent requests for the last units one at a time', async () => {
    const vans = await resource({ name: 'Camionetas', quantity: 3 });
    const events = await Promise.all(Array.from({ length: 10 }, (_, index) => eventAt(8 + (index % 3) * 0.25, 20)));
    const answers = await Promise.all(events.map((event) => allocate(event.id, { resourceId: vans.id, quantity: 1 })));
    expect(answers.filter((response) => response.status === 201)).toHaveLength(3);
    expect(answers.filter((response) => response.status === 409)).toHaveLength(7);
    const listed = await t.app.http
      .get(`${base}/resources`)
      .query({ from: at(0), to: at(24) })
      .set(t.manager.auth)
      .expect(200);
    expect(listed.body.data.find((row: { id: string }) => row.id === vans.id)).toMatchObject({ allocated: 3, available: 0 });
  });

  it('refuses bad input and the wrong people', async () => {
    const shirts = await resource({ name: 'Camisetas talla M', quantity: 500, unit: 'unidades' });
    expectProblem(await t.app.http.post(`${base}/resources`).set(t.manager.auth).send({ name: 'camisetas TALLA m', quantity: 3 }), 409, 'resource_exists');
    expectProblem(await t.app.http.post(`${base}/resources`).set(t.manager.auth).send({ name: 'Afiches', quantity: -1 }), 400);
    expectProblem(await t.app.http.post(`${base}/resources`).set(t.manager.auth).send({ name: '', quantity: 1 }), 400);
    expectProblem(await t.app.http.post(`${base}/resources`).set(t.volunteer.auth).send({ name: 'Afiches', quantity: 1 }), 403);
    expectProblem(await t.app.http.get(`${base}/resources`).set(t.viewer.auth), 403);
    expectProblem(
      await t.app.http
        .get(`${base}/resources`)
        .query({ from: at(5), to: at(1) })
        .set(t.manager.auth),
      400,
    );
    expectProblem(await t.app.http.patch(`${base}/resources/${shirts.id}`).set(t.manager.auth).send({}), 400);
    expectProblem(await t.app.http.patch(`${base}/resources/0191e2a4-0000-7000-8000-000000000000`).set(t.manager.auth).send({ quantity: 2 }), 404);
    expectProblem(await t.app.http.get(`${base}/resources/0191e2a4-0000-7000-8000-000000000000/allocations`).set(t.manager.auth), 404);

    const event = await eventAt(9, 11, { organiserId: t.brigade.id });
    expectProblem(await allocate(event.id, { resourceId: shirts.id, quantity: 0 }), 400);
    expectProblem(await allocate(event.id, { resourceId: shirts.id, quantity: 1, startsAt: at(11), endsAt: at(9) }), 400);
    expectProblem(await allocate(event.id, { resourceId: shirts.id, quantity: 1, startsAt: at(12) }), 400);
    expectProblem(await allocate(event.id, { resourceId: '0191e2a4-0000-7000-8000-000000000000', quantity: 1 }), 400);
    expectProblem(await allocate(event.id, { resourceId: shirts.id, quantity: 1 }, t.volunteer), 403);
    await allocate(event.id, { resourceId: shirts.id, quantity: 100 }, t.brigade).expect(201);
    await t.app.http.patch(`${base}/resources/${shirts.id}`).set(t.manager.auth).send({ active: false }).expect(200);
    expectProblem(await allocate(event.id, { resourceId: shirts.id, quantity: 1 }), 409, 'resource_inactive');
    expectProblem(await allocate('0191e2a4-0000-7000-8000-000000000000', { resourceId: shirts.id, quantity: 1 }), 404);
  });
});

describe('tasks', () => {
  it('lets the organiser plan tasks and the assignee tick theirs off', async () => {
    const event = await createEvent(t, { organiserId: t.brigade.id });
    const created = await t.app.http
      .post(`${base}/events/${event.id}/tasks`)
      .set(t.brigade.auth)
      .send({ title: 'Confirmar la tarima', assigneeId: t.volunteer.id, dueAt: '2027-03-05T17:00:00-05:00' })
      .expect(201);
    expect(created.body).toMatchObject({ done: false, dueAt: '2027-03-05T22:00:00.000Z', assigneeId: t.volunteer.id });
    await t.app.http.post(`${base}/events/${event.id}/tasks`).set(t.manager.auth).send({ title: 'Comprar agua' }).expect(201);
    const url = `${base}/events/${event.id}/tasks/${created.body.id}`;

    const done = await t.app.http.patch(url).set(t.volunteer.auth).send({ done: true }).expect(200);
    expect(done.body).toMatchObject({ done: true, doneAt: expect.any(String) });
    expectProblem(await t.app.http.patch(url).set(t.volunteer.auth).send({ title: 'Otra cosa' }), 403);
    expectProblem(await t.app.http.patch(url).set(t.viewer.auth).send({ done: false }), 403);
    const list = await t.app.http.get(`${base}/events/${event.id}/tasks`).set(t.viewer.auth).expect(200);
    expect(list.body.data.map((task: { title: string }) => task.title)).toEqual(['Comprar agua', 'Confirmar la tarima']);

    expectProblem(await t.app.http.post(`${base}/events/${event.id}/tasks`).set(t.manager.auth).send({ title: '' }), 400);
    expectProblem(await t.app.http.post(`${base}/events/${event.id}/tasks`).set(t.manager.auth).send({ title: 'x', assigneeId: '0191e2a4-0000-7000-8000-000000000000' }), 400);
    expectProblem(await t.app.http.post(`${base}/events/${event.id}/tasks`).set(t.manager.auth).send({ title: 'x', dueAt: 'mañana' }), 400);
    expectProblem(await t.app.http.post(`${base}/events/${event.id}/tasks`).set(t.volunteer.auth).send({ title: 'x' }), 403);
    expectProblem(await t.app.http.patch(url).set(t.manager.auth).send({}), 400);
    await t.app.http.delete(url).set(t.brigade.auth).expect(204);
    expectProblem(await t.app.http.delete(url).set(t.brigade.auth), 404);
    expectProblem(await t.app.http.patch(url).set(t.manager.auth).send({ done: true }), 404);
  });
});
