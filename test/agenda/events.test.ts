import { sql } from '../../src/kernel/sql';
import type { Socket } from 'socket.io-client';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { expectProblem } from '../helpers/users';
import { base, createEvent, eventBody, startAgenda, type AgendaTest } from './helpers';

let t: AgendaTest;

beforeAll(async () => {
  t = await startAgenda();
});

afterAll(async () => {
  await t?.app.close();
});

const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);

describe('time zones', () => {
  it('stores an event at 19:00 in Bogotá as 00:00 UTC the next day and shows it back in its zone', async () => {
    const created = await t.app.http
      .post(`${base}/events`)
      .set(t.manager.auth)
      .send({ title: 'Cierre de campaña', type: 'rally', startsAt: '2026-12-01T19:00:00-05:00', endsAt: '2026-12-01T22:00:00-05:00', timeZone: 'America/Bogota' })
      .expect(201);
    expect(created.body.startsAt).toBe('2026-12-02T00:00:00.000Z');
    expect(created.body.endsAt).toBe('2026-12-02T03:00:00.000Z');
    expect(created.body.local).toEqual({ startsAt: '2026-12-01T19:00:00-05:00', endsAt: '2026-12-01T22:00:00-05:00' });

    // The same instant written in UTC is the same event time; the zone only changes how it is shown.
    const madrid = await t.app.http
      .post(`${base}/events`)
      .set(t.manager.auth)
      .send({ title: 'Reunión con la diáspora', type: 'meeting', startsAt: '2026-12-02T00:00:00Z', endsAt: '2026-12-02T01:00:00Z', timeZone: 'Europe/Madrid' })
      .expect(201);
    expect(madrid.body.startsAt).toBe(created.body.startsAt);
    expect(madrid.body.local.startsAt).toBe('2026-12-02T01:00:00+01:00');

    const stored = await t.app.runtime.deps.db.first<{ utc: string }>(
      sql`select to_char(starts_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as utc from agenda_events where id = ${created.body.id}::uuid`,
    );
    expect(stored?.utc).toBe('2026-12-02 00:00');
  });

  it('defaults the zone to the campaign’s and refuses times without an offset', async () => {
    const event = await createEvent(t);
    expect(event.timeZone).toBe('America/Bogota');
    const problem = expectProblem(
      await t.app.http
        .post(`${base}/events`)
        .set(t.manager.auth)
        .send(eventBody({ startsAt: '2026-12-01T19:00:00' })),
      400,
    );
    expect(paths(problem)).toContain('body.startsAt');
  });
});

describe('bad input', () => {
  it('refuses an end before the start, a capacity of 0 or less, an unknown zone, a place off the world, an unknown territory or organiser', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ startsAt: '2026-12-01T19:00:00-05:00', endsAt: '2026-12-01T18:00:00-05:00' }, 'body.endsAt'],
      [{ startsAt: '2026-12-01T19:00:00-05:00', endsAt: '2026-12-01T19:00:00-05:00' }, 'body.endsAt'],
      [{ capacity: 0 }, 'body.capacity'],
      [{ capacity: -5 }, 'body.capacity'],
      [{ capacity: 2.5 }, 'body.capacity'],
      [{ timeZone: 'Mars/Olympus' }, 'body.timeZone'],
      [{ location: { lat: 91, lng: 0 } }, 'body.location.lat'],
      [{ location: { lat: 4.6, lng: -181 } }, 'body.location.lng'],
      [{ type: 'party' }, 'body.type'],
      [{ title: '' }, 'body.title'],
      [{ budget: -1 }, 'body.budget'],
      [{ territoryId: '0191e2a4-0000-7000-8000-000000000000' }, 'body.territoryId'],
      [{ organiserId: '0191e2a4-0000-7000-8000-000000000000' }, 'body.organiserId'],
    ];
    const before = await t.app.runtime.deps.db.first<{ n: number }>(sql`select count(*)::int as n from agenda_events`);
    for (const [overrides, path] of cases) {
      const problem = expectProblem(await t.app.http.post(`${base}/events`).set(t.manager.auth).send(eventBody(overrides)), 400);
      expect(paths(problem)).toContain(path);
    }
    const after = await t.app.runtime.deps.db.first<{ n: number }>(sql`select count(*)::int as n from agenda_events`);
    expect(after?.n).toBe(before?.n);
  });

  it('refuses a PATCH that would end the event before it starts, unknown ids, bad cursors and ranges', async () => {
    const event = await createEvent(t);
    const early = new Date(Date.parse(event.startsAt as string) - 3_600_000).toISOString();
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ endsAt: early }), 400);
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({}), 400);
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ capacity: 0 }), 400);
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ cancellationReason: 'lluvia' }), 400);
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ status: 'done' }), 409, 'event_not_over');
    expectProblem(await t.app.http.get(`${base}/events/not-a-uuid`).set(t.manager.auth), 400);
    expectProblem(await t.app.http.get(`${base}/events/0191e2a4-0000-7000-8000-000000000000`).set(t.manager.auth), 404);
    expectProblem(await t.app.http.patch(`${base}/events/0191e2a4-0000-7000-8000-000000000000`).set(t.manager.auth).send({ title: 'x' }), 404);
    expectProblem(await t.app.http.get(`${base}/events?cursor=bm9wZQ`).set(t.manager.auth), 400);
    expectProblem(await t.app.http.get(`${base}/events?from=2026-12-10&to=2026-12-01`).set(t.manager.auth), 400);
    expectProblem(await t.app.http.get(`${base}/events?type=party`).set(t.manager.auth), 400);
    expectProblem(await t.app.http.get(`${base}/events?upcoming=perhaps`).set(t.manager.auth), 400);
    expectProblem(await t.app.http.post(`${base}/events`).set(t.manager.auth).set('Content-Type', 'text/plain').send('hola'), 415);
  });

  it('keeps a cancelled event cancelled', async () => {
    const event = await createEvent(t);
    const cancelled = await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ status: 'cancelled', cancellationReason: 'Lluvia' }).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancellationReason: 'Lluvia', cancelledAt: expect.any(String) });
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ status: 'scheduled' }), 409, 'event_cancelled');
  });
});

describe('roles', () => {
  it('lets managers create, everyone read, organisers edit their own event and nobody else', async () => {
    expectProblem(await t.app.http.post(`${base}/events`).send(eventBody()), 401);
    for (const user of [t.volunteer, t.brigade, t.viewer]) expectProblem(await t.app.http.post(`${base}/events`).set(user.auth).send(eventBody()), 403);
    const event = await createEvent(t, { organiserId: t.volunteer.id });
    for (const user of [t.volunteer, t.brigade, t.viewer]) await t.app.http.get(`${base}/events/${event.id}`).set(user.auth).expect(200);

    const edited = await t.app.http.patch(`${base}/events/${event.id}`).set(t.volunteer.auth).send({ title: 'Nuevo título', capacity: 40 }).expect(200);
    expect(edited.body).toMatchObject({ title: 'Nuevo título', capacity: 40 });
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.brigade.auth).send({ title: 'Otro' }), 403);
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.viewer.auth).send({ title: 'Otro' }), 403);
    // An organiser does not hand their event to someone else; a manager does.
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}`).set(t.volunteer.auth).send({ organiserId: t.brigade.id }), 403);
    await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ organiserId: t.brigade.id }).expect(200);
  });

  it('shows drafts only to their organiser and managers', async () => {
    const draft = await createEvent(t, { status: 'draft', title: 'Borrador secreto', organiserId: t.brigade.id });
    expectProblem(await t.app.http.get(`${base}/events/${draft.id}`).set(t.volunteer.auth), 404);
    await t.app.http.get(`${base}/events/${draft.id}`).set(t.brigade.auth).expect(200);
    const listed = async (user: typeof t.manager) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await t.app.http
          .get(`${base}/events`)
          .query({ limit: 5, ...(cursor ? { cursor } : {}) })
          .set(user.auth)
          .expect(200);
        ids.push(...page.body.data.map((event) => event.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      return ids;
    };
    expect(await listed(t.manager)).toContain(draft.id);
    expect(await listed(t.brigade)).toContain(draft.id);
    const volunteerSees = await listed(t.volunteer);
    expect(volunteerSees).not.toContain(draft.id);
    expect(new Set(volunteerSees).size).toBe(volunteerSees.length);
  });
});

describe('lists', () => {
  it('filters by range, type, status and upcoming, soonest first', async () => {
    const soon = await createEvent(t, { type: 'training', title: 'Capacitación testigos' }, 5);
    const later = await createEvent(t, { type: 'training', title: 'Capacitación jurados' }, 24 * 20);
    const past = await createEvent(t, { type: 'training', title: 'Capacitación pasada' }, 1);
    await t.app.runtime.deps.db.write(sql`update agenda_events set starts_at = now() - interval '5 hours', ends_at = now() - interval '3 hours' where id = ${past.id}::uuid`);
    const upcoming = await t.app.http.get(`${base}/events`).query({ type: 'training', upcoming: 'true' }).set(t.viewer.auth).expect(200);
    expect(upcoming.body.data.map((event: { id: string }) => event.id)).toEqual([soon.id, later.id]);
    const window = await t.app.http
      .get(`${base}/events`)
      .query({ type: 'training', from: new Date().toISOString(), to: new Date(Date.now() + 7 * 86_400_000).toISOString() })
      .set(t.viewer.auth)
      .expect(200);
    expect(window.body.data.map((event: { id: string }) => event.id)).toEqual([soon.id]);
    const cancelled = await t.app.http.get(`${base}/events`).query({ status: 'cancelled' }).set(t.viewer.auth).expect(200);
    expect(cancelled.body.data.every((event: { status: string }) => event.status === 'cancelled')).toBe(true);
  });
});

describe('realtime', () => {
  let socket: Socket | undefined;
  afterEach(() => socket?.close());

  it('tells room agenda about created, changed and cancelled events, but not drafts', async () => {
    socket = await connectSocket(t.app.url, t.viewer.token);
    expect((await subscribe(socket, ['agenda'])).joined).toEqual(['agenda']);
    const seen: Array<{ action: string; event: { id: string; status: string } }> = [];
    socket.on('agenda:event', (payload) => seen.push(payload));

    const created = nextEvent<{ action: string; event: { id: string } }>(socket, 'agenda:event');
    const event = await createEvent(t, { title: 'Tomatón' });
    expect(await created).toMatchObject({ action: 'created', event: { id: event.id } });
    await createEvent(t, { status: 'draft' });

    const changed = nextEvent<{ action: string; event: { id: string } }>(socket, 'agenda:event');
    await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ title: 'Tomatón en el parque' }).expect(200);
    expect(await changed).toMatchObject({ action: 'changed', event: { id: event.id } });

    const cancelled = nextEvent<{ action: string; event: { id: string; status: string } }>(socket, 'agenda:event');
    await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ status: 'cancelled' }).expect(200);
    expect(await cancelled).toMatchObject({ action: 'cancelled', event: { id: event.id, status: 'cancelled' } });
    expect(seen.map((item) => item.action)).toEqual(['created', 'changed', 'cancelled']);
  });
});
