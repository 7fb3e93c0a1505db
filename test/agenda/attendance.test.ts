import type { Socket } from 'socket.io-client';
import { sql } from '../../src/kernel/sql';
import { attendanceByContacts, checkInsSince, eventExists, upcomingEvents } from '../../src/modules/agenda';
import { connectSocket, subscribe } from '../helpers/sockets';
import { CONSENT_TEXT } from '../helpers/qr';
import { expectProblem } from '../helpers/users';
import { base, createEvent, linkAccount, moveEvent, seedContacts, startAgenda, type AgendaTest } from './helpers';
import { until } from '../helpers/wait';

let t: AgendaTest;

beforeAll(async () => {
  t = await startAgenda();
});

afterAll(async () => {
  await t?.app.close();
});

const hour = 3_600_000;
const rsvp = (eventId: string, body: Record<string, unknown>, user = t.manager) => t.app.http.post(`${base}/events/${eventId}/rsvp`).set(user.auth).send(body);

describe('RSVP, capacity and the waitlist', () => {
  it('puts the people beyond capacity on a waitlist and lets the first in when someone going declines', async () => {
    const event = await createEvent(t, { capacity: 2 });
    const [a, b, c, d] = await seedContacts(t.app, 4);
    expect((await rsvp(event.id, { contactId: a!.id, status: 'going' }).expect(200)).body).toMatchObject({ status: 'going', waitlistPosition: null });
    await rsvp(event.id, { contactId: b!.id, status: 'going' }).expect(200);
    expect((await rsvp(event.id, { contactId: c!.id, status: 'going' }).expect(200)).body).toMatchObject({ status: 'waitlisted', waitlistPosition: 1 });
    const fourth = await rsvp(event.id, { contactId: d!.id, status: 'going' }).expect(200);
    expect(fourth.body).toMatchObject({ status: 'waitlisted', waitlistPosition: 2, counts: { going: 2, waitlisted: 2 } });
    // Saying going again keeps one's place in the queue.
    expect((await rsvp(event.id, { contactId: c!.id, status: 'going' }).expect(200)).body).toMatchObject({ status: 'waitlisted', waitlistPosition: 1 });

    const declined = await rsvp(event.id, { contactId: a!.id, status: 'declined' }).expect(200);
    expect(declined.body).toMatchObject({ status: 'declined', promoted: [c!.id], counts: { going: 2, waitlisted: 1, declined: 1 } });
    const maybe = await rsvp(event.id, { contactId: b!.id, status: 'maybe' }).expect(200);
    expect(maybe.body).toMatchObject({ promoted: [d!.id], counts: { going: 2, waitlisted: 0, maybe: 1, declined: 1 } });

    const list = await t.app.http.get(`${base}/events/${event.id}/rsvps`).set(t.manager.auth).expect(200);
    expect(list.body.data.filter((row: { status: string }) => row.status === 'going').map((row: { contactId: string }) => row.contactId)).toEqual([c!.id, d!.id]);

    // Raising the capacity lets the waitlist in, in order.
    const [e, f] = await seedContacts(t.app, 2);
    await rsvp(event.id, { contactId: e!.id, status: 'going' }).expect(200);
    await rsvp(event.id, { contactId: f!.id, status: 'going' }).expect(200);
    const raised = await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ capacity: 3 }).expect(200);
    expect(raised.body.counts).toMatchObject({ going: 3, waitlisted: 1 });
    const going = await t.app.http.get(`${base}/events/${event.id}/rsvps?status=going`).set(t.manager.auth).expect(200);
    expect(going.body.data.map((row: { contactId: string }) => row.contactId)).toContain(e!.id);
    // No limit any more: everyone waiting goes.
    const unlimited = await t.app.http.patch(`${base}/events/${event.id}`).set(t.manager.auth).send({ capacity: null }).expect(200);
    expect(unlimited.body.counts).toMatchObject({ going: 4, waitlisted: 0 });
  });

  it('never gives the last place twice when many answer at once', async () => {
    const event = await createEvent(t, { capacity: 3 });
    const people = await seedContacts(t.app, 12);
    const answers = await Promise.all(people.map((person) => rsvp(event.id, { contactId: person.id, status: 'going' })));
    expect(answers.map((response) => response.status)).toEqual(people.map(() => 200));
    const statuses = answers.map((response) => response.body.status as string);
    expect(statuses.filter((status) => status === 'going')).toHaveLength(3);
    expect(statuses.filter((status) => status === 'waitlisted')).toHaveLength(9);
    const positions = answers.filter((response) => response.body.status === 'waitlisted').map((response) => response.body.waitlistPosition as number);
    expect(new Set(positions).size).toBe(9);
  });

  it('lets a volunteer answer for their own contact only, and viewers not at all', async () => {
    const event = await createEvent(t);
    const [own, other] = await seedContacts(t.app, 2);
    expectProblem(await rsvp(event.id, { status: 'going' }, t.volunteer), 403);
    await linkAccount(t, t.volunteer, own!.id);
    expect((await rsvp(event.id, { status: 'going' }, t.volunteer).expect(200)).body).toMatchObject({ contactId: own!.id, status: 'going' });
    expectProblem(await rsvp(event.id, { contactId: other!.id, status: 'going' }, t.volunteer), 403);
    expectProblem(await rsvp(event.id, { status: 'going' }, t.viewer), 403);
    expectProblem(await rsvp(event.id, { status: 'going' }), 400); // a manager names the contact
    expectProblem(await t.app.http.get(`${base}/events/${event.id}/rsvps`).set(t.volunteer.auth), 403);
  });

  it('refuses answers to cancelled, past or draft events, unknown contacts and bad statuses', async () => {
    const [person] = await seedContacts(t.app, 1);
    const cancelled = await createEvent(t);
    await t.app.http.patch(`${base}/events/${cancelled.id}`).set(t.manager.auth).send({ status: 'cancelled' }).expect(200);
    expectProblem(await rsvp(cancelled.id, { contactId: person!.id, status: 'going' }), 409, 'event_cancelled');
    const past = await createEvent(t);
    await moveEvent(t.app, past.id, new Date(Date.now() - 5 * hour), new Date(Date.now() - 3 * hour));
    expectProblem(await rsvp(past.id, { contactId: person!.id, status: 'going' }), 409, 'event_over');
    const draft = await createEvent(t, { status: 'draft' });
    expectProblem(await rsvp(draft.id, { contactId: person!.id, status: 'going' }), 409, 'event_draft');
    const open = await createEvent(t);
    expectProblem(await rsvp(open.id, { contactId: '0191e2a4-0000-7000-8000-000000000000', status: 'going' }), 400);
    expectProblem(await rsvp(open.id, { contactId: person!.id, status: 'waitlisted' }), 400);
    expectProblem(await rsvp(open.id, { contactId: 'nope', status: 'going' }), 400);
    expectProblem(await rsvp('0191e2a4-0000-7000-8000-000000000000', { contactId: person!.id, status: 'going' }), 404);
    expectProblem(await t.app.http.get(`${base}/events/${open.id}/rsvps?status=all`).set(t.manager.auth), 400);
    expectProblem(await t.app.http.post(`${base}/events/${open.id}/rsvp`).send({ status: 'going' }), 401);
  });
});

describe('shifts', () => {
  it('fills a shift up to its slots, refuses the next, and keeps shifts with people in them', async () => {
    const event = await createEvent(t, { organiserId: t.brigade.id });
    const start = new Date(Date.parse(event.startsAt as string) - hour);
    const shift = await t.app.http
      .post(`${base}/events/${event.id}/shifts`)
      .set(t.brigade.auth)
      .send({ role: 'Registro en la entrada', startsAt: start.toISOString(), endsAt: event.endsAt, slots: 2 })
      .expect(201);
    const [a, b, c] = await seedContacts(t.app, 3);
    const signups = `${base}/events/${event.id}/shifts/${shift.body.id}/signups`;
    await t.app.http.post(signups).set(t.manager.auth).send({ contactId: a!.id }).expect(200);
    await t.app.http.post(signups).set(t.brigade.auth).send({ contactId: b!.id }).expect(200);
    expect((await t.app.http.post(signups).set(t.manager.auth).send({ contactId: b!.id }).expect(200)).body.taken).toBe(2);
    expectProblem(await t.app.http.post(signups).set(t.manager.auth).send({ contactId: c!.id }), 409, 'shift_full');
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}/shifts/${shift.body.id}`).set(t.manager.auth).send({ slots: 1 }), 409, 'shift_taken');
    expectProblem(await t.app.http.delete(`${base}/events/${event.id}/shifts/${shift.body.id}`).set(t.manager.auth), 409, 'shift_taken');
    await t.app.http.delete(`${signups}/${a!.id}`).set(t.manager.auth).expect(204);
    await t.app.http.post(signups).set(t.manager.auth).send({ contactId: c!.id }).expect(200);
    const list = await t.app.http.get(`${base}/events/${event.id}/shifts`).set(t.viewer.auth).expect(200);
    expect(list.body.data[0]).toMatchObject({ slots: 2, taken: 2, contactIds: [b!.id, c!.id] });

    // Bad input and strangers.
    expectProblem(
      await t.app.http.post(`${base}/events/${event.id}/shifts`).set(t.manager.auth).send({ role: 'x', startsAt: event.endsAt, endsAt: event.startsAt, slots: 1 }),
      400,
    );
    expectProblem(
      await t.app.http.post(`${base}/events/${event.id}/shifts`).set(t.manager.auth).send({ role: 'x', startsAt: event.startsAt, endsAt: event.endsAt, slots: 0 }),
      400,
    );
    expectProblem(
      await t.app.http.post(`${base}/events/${event.id}/shifts`).set(t.volunteer.auth).send({ role: 'x', startsAt: event.startsAt, endsAt: event.endsAt, slots: 1 }),
      403,
    );
    expectProblem(await t.app.http.post(`${base}/events/${event.id}/shifts/0191e2a4-0000-7000-8000-000000000000/signups`).set(t.manager.auth).send({ contactId: c!.id }), 404);
    expectProblem(await t.app.http.delete(`${signups}/${a!.id}`).set(t.manager.auth), 404);
    expectProblem(await t.app.http.delete(`${signups}/${b!.id}`).set(t.volunteer.auth), 403);
    expectProblem(await t.app.http.patch(`${base}/events/${event.id}/shifts/${shift.body.id}`).set(t.manager.auth).send({}), 400);
  });
});

describe('shifts under load', () => {
  it('never fills a shift beyond its slots when many sign up at once', async () => {
    const event = await createEvent(t);
    const shift = await t.app.http
      .post(`${base}/events/${event.id}/shifts`)
      .set(t.manager.auth)
      .send({ role: 'Volantes', startsAt: event.startsAt, endsAt: event.endsAt, slots: 2 })
      .expect(201);
    const people = await seedContacts(t.app, 8);
    const answers = await Promise.all(
      people.map((person) => t.app.http.post(`${base}/events/${event.id}/shifts/${shift.body.id}/signups`).set(t.manager.auth).send({ contactId: person.id })),
    );
    expect(answers.filter((response) => response.status === 200)).toHaveLength(2);
    expect(answers.filter((response) => response.status === 409 && response.body.code === 'shift_full')).toHaveLength(6);
    const list = await t.app.http.get(`${base}/events/${event.id}/shifts`).set(t.manager.auth).expect(200);
    expect(list.body.data[0]).toMatchObject({ slots: 2, taken: 2 });
  });
});

describe('check-in', () => {
  let socket: Socket | undefined;
  afterEach(() => socket?.close());

  it('checks in known people once, walk-ins with their consent, pushes counts, and refuses outside the window', async () => {
    socket = await connectSocket(t.app.url, t.manager.token);
    await subscribe(socket, ['agenda']);
    const counts: Array<{ events: Array<{ eventId: string; checkedIn: number }> }> = [];
    socket.on('agenda:attendance', (payload) => counts.push(payload));

    const event = await createEvent(t, { title: 'Asamblea barrial' }, 1);
    const [known] = await seedContacts(t.app, 1);
    const url = `${base}/events/${event.id}/check-in`;
    const first = await t.app.http.post(url).set(t.manager.auth).send({ contactId: known!.id, method: 'scan' }).expect(200);
    expect(first.body).toMatchObject({ contactId: known!.id, method: 'scan', created: true, counts: { checkedIn: 1 } });
    const again = await t.app.http.post(url).set(t.manager.auth).send({ contactId: known!.id }).expect(200);
    expect(again.body).toMatchObject({ id: first.body.id, method: 'scan', created: false });

    const walkIn = await t.app.http
      .post(url)
      .set(t.manager.auth)
      .send({ walkIn: { name: 'Rosa Díaz', phone: '310 555 1234', whatsappOptIn: true, consentText: CONSENT_TEXT } })
      .expect(200);
    expect(walkIn.body).toMatchObject({ method: 'walk_in', created: true, counts: { checkedIn: 2 } });
    const proof = await t.app.runtime.deps.db.first<{ phone: string; whatsapp_opt_in: boolean; source: string; source_ref: string }>(
      sql`select c.phone, c.whatsapp_opt_in, k.source, k.source_ref from contacts c join consents k on k.contact_id = c.id where c.id = ${walkIn.body.contactId}::uuid`,
    );
    expect(proof).toEqual({ phone: '+573105551234', whatsapp_opt_in: true, source: 'agenda_check_in', source_ref: event.id });
    // The same person again at the door is found, not created twice.
    const twice = await t.app.http
      .post(url)
      .set(t.manager.auth)
      .send({ walkIn: { name: 'Rosa Díaz', phone: '+57 310 555 1234', consentText: CONSENT_TEXT } })
      .expect(200);
    expect(twice.body).toMatchObject({ contactId: walkIn.body.contactId, created: false });

    const pushed = await until(() => counts.flatMap((payload) => payload.events).find((item) => item.eventId === event.id && item.checkedIn === 2), 10_000);
    expect(pushed.checkedIn).toBe(2);

    expectProblem(await t.app.http.post(url).set(t.manager.auth).send({}), 400);
    expectProblem(
      await t.app.http
        .post(url)
        .set(t.manager.auth)
        .send({ contactId: known!.id, walkIn: { name: 'X', phone: '3105551234', consentText: CONSENT_TEXT } }),
      400,
    );
    expectProblem(
      await t.app.http
        .post(url)
        .set(t.manager.auth)
        .send({ walkIn: { name: 'Sin contacto', consentText: CONSENT_TEXT } }),
      400,
    );
    expectProblem(
      await t.app.http
        .post(url)
        .set(t.manager.auth)
        .send({ walkIn: { name: 'Teléfono malo', phone: '12345', consentText: CONSENT_TEXT } }),
      400,
    );
    expectProblem(
      await t.app.http
        .post(url)
        .set(t.manager.auth)
        .send({ walkIn: { name: 'Sin consentimiento', phone: '3105559999' } }),
      400,
    );
    expectProblem(await t.app.http.post(url).set(t.manager.auth).send({ contactId: known!.id, shiftId: '0191e2a4-0000-7000-8000-000000000000' }), 400);
    expectProblem(await t.app.http.post(url).set(t.volunteer.auth).send({ contactId: known!.id }), 403);
    const far = await createEvent(t, {}, 24 * 10);
    expectProblem(await t.app.http.post(`${base}/events/${far.id}/check-in`).set(t.manager.auth).send({ contactId: known!.id }), 409, 'check_in_closed');

    const list = await t.app.http.get(`${base}/events/${event.id}/check-ins`).set(t.manager.auth).expect(200);
    expect(list.body.data).toHaveLength(2);
    await t.app.http.delete(`${base}/events/${event.id}/check-ins/${known!.id}`).set(t.manager.auth).expect(204);
    expectProblem(await t.app.http.delete(`${base}/events/${event.id}/check-ins/${known!.id}`).set(t.manager.auth), 404);
  });
});

describe('what other modules read', () => {
  it('eventExists, attendanceByContacts, checkInsSince and upcomingEvents agree with what happened', async () => {
    const db = t.app.runtime.deps.db;
    const [reliable, flaky, walkIn, stranger] = await seedContacts(t.app, 4);
    const since = new Date(Date.now() - 1000);

    // Two events they committed to; reliable comes to both, flaky to none; walkIn just turns up at the first.
    const first = await createEvent(t, { type: 'canvass' }, 1, 2);
    const second = await createEvent(t, { type: 'rally' }, 1, 3);
    const shift = await t.app.http
      .post(`${base}/events/${second.id}/shifts`)
      .set(t.manager.auth)
      .send({ role: 'Sonido', startsAt: second.startsAt, endsAt: new Date(Date.parse(second.startsAt as string) + 90 * 60_000).toISOString(), slots: 5 })
      .expect(201);
    await rsvp(first.id, { contactId: reliable!.id, status: 'going' }).expect(200);
    await rsvp(first.id, { contactId: flaky!.id, status: 'going' }).expect(200);
    await t.app.http.post(`${base}/events/${second.id}/shifts/${shift.body.id}/signups`).set(t.manager.auth).send({ contactId: reliable!.id }).expect(200);
    await t.app.http.post(`${base}/events/${second.id}/shifts/${shift.body.id}/signups`).set(t.manager.auth).send({ contactId: flaky!.id }).expect(200);
    // A cancelled event counts for nobody.
    const cancelled = await createEvent(t, {}, 1);
    await rsvp(cancelled.id, { contactId: flaky!.id, status: 'going' }).expect(200);

    await t.app.http.post(`${base}/events/${first.id}/check-in`).set(t.manager.auth).send({ contactId: reliable!.id }).expect(200);
    await t.app.http.post(`${base}/events/${first.id}/check-in`).set(t.manager.auth).send({ contactId: walkIn!.id }).expect(200);
    await t.app.http.post(`${base}/events/${second.id}/check-in`).set(t.manager.auth).send({ contactId: reliable!.id, shiftId: shift.body.id }).expect(200);
    await t.app.http.patch(`${base}/events/${cancelled.id}`).set(t.manager.auth).send({ status: 'cancelled' }).expect(200);

    // Before the events end nothing is a no-show yet.
    expect((await attendanceByContacts(db, [flaky!.id])).get(flaky!.id)).toEqual({ committed: 0, attended: 0, noShow: 0 });
    for (const event of [first, second, cancelled]) await moveEvent(t.app, event.id, new Date(Date.now() - 4 * hour), new Date(Date.now() - hour));

    const attendance = await attendanceByContacts(db, [reliable!.id, flaky!.id, walkIn!.id, stranger!.id]);
    expect(attendance.get(reliable!.id)).toEqual({ committed: 2, attended: 2, noShow: 0 });
    expect(attendance.get(flaky!.id)).toEqual({ committed: 2, attended: 0, noShow: 2 });
    expect(attendance.get(walkIn!.id)).toEqual({ committed: 0, attended: 0, noShow: 0 });
    expect(attendance.get(stranger!.id)).toEqual({ committed: 0, attended: 0, noShow: 0 });
    expect((await attendanceByContacts(db, [])).size).toBe(0);

    const facts = await checkInsSince(db, since, 100);
    const mine = facts.filter((fact) => [first.id, second.id].includes(fact.eventId));
    expect(mine).toHaveLength(3);
    expect(mine.map((fact) => fact.checkedInAt.getTime())).toEqual([...mine.map((fact) => fact.checkedInAt.getTime())].sort((a, b) => a - b));
    expect(mine.find((fact) => fact.eventId === second.id)).toMatchObject({ contactId: reliable!.id, eventType: 'rally', durationMinutes: 90, territoryId: null });
    // Without a shift the event's own length counts (moved: 3 hours).
    expect(mine.find((fact) => fact.contactId === walkIn!.id)).toMatchObject({ eventType: 'canvass', durationMinutes: 180 });
    expect(await checkInsSince(db, since, 1)).toHaveLength(1);
    expect(await checkInsSince(db, new Date(Date.now() + hour), 10)).toEqual([]);

    expect(await eventExists(db, first.id)).toBe(true);
    expect(await eventExists(db, '0191e2a4-0000-7000-8000-000000000000')).toBe(false);

    const from = new Date(Date.now() + 400 * 24 * hour);
    const to = new Date(from.getTime() + 7 * 24 * hour);
    const one = await createEvent(t, { capacity: 1 }, 400 * 24 + 1);
    const two = await createEvent(t, {}, 400 * 24 + 50);
    await createEvent(t, { status: 'draft' }, 400 * 24 + 2);
    const gone = await createEvent(t, {}, 400 * 24 + 3);
    await createEvent(t, {}, 400 * 24 + 7 * 24 + 1); // after the window
    const people = await seedContacts(t.app, 3);
    for (const person of people) await rsvp(one.id, { contactId: person.id, status: 'going' }).expect(200); // one going, two waiting
    await rsvp(two.id, { contactId: people[0]!.id, status: 'going' }).expect(200);
    await rsvp(two.id, { contactId: people[1]!.id, status: 'maybe' }).expect(200);
    await t.app.http.patch(`${base}/events/${gone.id}`).set(t.manager.auth).send({ status: 'cancelled' }).expect(200);
    expect(await upcomingEvents(db, from, to)).toEqual({ count: 2, going: 2 });
  });
});

describe('a person’s data', () => {
  it('exports their answers, sign-ups and check-ins, and erasure keeps the past but drops what was to come', async () => {
    const [person] = await seedContacts(t.app, 1);
    await linkAccount(t, t.brigade, person!.id);
    const past = await createEvent(t, { title: 'Asamblea pasada' }, 1);
    const future = await createEvent(t, { title: 'Foro futuro' });
    const shift = await t.app.http
      .post(`${base}/events/${future.id}/shifts`)
      .set(t.manager.auth)
      .send({ role: 'Logística', startsAt: future.startsAt, endsAt: future.endsAt, slots: 3 })
      .expect(201);
    await rsvp(past.id, { contactId: person!.id, status: 'going' }).expect(200);
    await t.app.http.post(`${base}/events/${past.id}/check-in`).set(t.manager.auth).send({ contactId: person!.id }).expect(200);
    await rsvp(future.id, { contactId: person!.id, status: 'going' }).expect(200);
    await t.app.http.post(`${base}/events/${future.id}/shifts/${shift.body.id}/signups`).set(t.brigade.auth).send({}).expect(200);
    await moveEvent(t.app, past.id, new Date(Date.now() - 4 * hour), new Date(Date.now() - 2 * hour));

    const exported = await t.app.http.get(`/api/audience/contacts/${person!.id}/export`).set(t.manager.auth).expect(200);
    const agenda = JSON.stringify(exported.body);
    expect(agenda).toContain('Asamblea pasada');
    expect(agenda).toContain('Foro futuro');
    expect(agenda).toContain('Logística');

    await t.app.http
      .delete(`/api/audience/contacts/${person!.id}`)
      .set(t.manager.auth)
      .expect((response) => expect([200, 204]).toContain(response.status));
    const left = await t.app.runtime.deps.db.first<{ rsvps: number; signups: number; checkIns: number; links: number }>(sql`select
      (select count(*) from agenda_rsvps where contact_id = ${person!.id}::uuid)::int as rsvps,
      (select count(*) from agenda_shift_signups where contact_id = ${person!.id}::uuid)::int as signups,
      (select count(*) from agenda_check_ins where contact_id = ${person!.id}::uuid)::int as "checkIns",
      (select count(*) from agenda_user_contacts where contact_id = ${person!.id}::uuid)::int as links`);
    expect(left).toEqual({ rsvps: 1, signups: 0, checkIns: 1, links: 0 });
    expect((await attendanceByContacts(t.app.runtime.deps.db, [person!.id])).get(person!.id)).toEqual({ committed: 1, attended: 1, noShow: 0 });
    // An erased person can no longer be answered for.
    expectProblem(await rsvp(future.id, { contactId: person!.id, status: 'going' }), 400);
  });
});

describe('every endpoint answers bad requests with a 4xx problem', () => {
  it('covers unknown ids, malformed ids and missing auth', async () => {
    const unknown = '0191e2a4-0000-7000-8000-000000000000';
    const event = await createEvent(t);
    const calls: Array<[string, string, number, Record<string, unknown>?]> = [
      ['get', `${base}/events/${unknown}/shifts`, 404],
      ['get', `${base}/events/${unknown}/rsvps`, 404],
      ['get', `${base}/events/${unknown}/check-ins`, 404],
      ['get', `${base}/events/${unknown}/tasks`, 404],
      ['get', `${base}/events/${unknown}/allocations`, 404],
      ['post', `${base}/events/${unknown}/shifts`, 404, { role: 'x', startsAt: event.startsAt, endsAt: event.endsAt, slots: 1 }],
      ['post', `${base}/events/${unknown}/check-in`, 404, { contactId: unknown }],
      ['post', `${base}/events/${unknown}/tasks`, 404, { title: 'x' }],
      ['patch', `${base}/events/${event.id}/shifts/${unknown}`, 404, { slots: 2 }],
      ['delete', `${base}/events/${event.id}/shifts/${unknown}`, 404],
      ['delete', `${base}/events/${event.id}/check-ins/${unknown}`, 404],
      ['delete', `${base}/events/${event.id}/tasks/${unknown}`, 404],
      ['patch', `${base}/events/${event.id}/tasks/${unknown}`, 404, { done: true }],
      ['delete', `${base}/events/${event.id}/allocations/${unknown}`, 404],
      ['get', `${base}/events/x/shifts`, 400],
      ['get', `${base}/users/x/contact`, 400],
      ['get', `${base}/users/${unknown}/contact`, 404],
      ['put', `${base}/users/${unknown}/contact`, 404, { contactId: null }],
      ['put', `${base}/users/${t.volunteer.id}/contact`, 400, { contactId: unknown }],
      ['put', `${base}/users/${t.volunteer.id}/contact`, 400, {}],
      ['delete', `${base}/events/${event.id}/shifts/x/signups/y`, 400],
    ];
    for (const [method, url, status, body] of calls) {
      const request = t.app.http[method as 'get'](url).set(t.manager.auth);
      expectProblem(await (body ? request.send(body) : request), status);
    }
    for (const [method, url] of calls) expectProblem(await t.app.http[method as 'get'](url), 401);
    expectProblem(await t.app.http.put(`${base}/users/${t.volunteer.id}/contact`).set(t.volunteer.auth).send({ contactId: null }), 403);
    const linked = await t.app.http.get(`${base}/users/${t.volunteer.id}/contact`).set(t.manager.auth).expect(200);
    expect(linked.body.userId).toBe(t.volunteer.id);
  });
});
