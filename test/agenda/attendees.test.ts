/**
 * What the console's agenda screens read beyond the events. The door's list
 * (`GET /api/agenda/events/:id/attendees`): everyone who answered or was checked in
 * to an event, by name, going first and then the waitlist in its order; found by words of a name
 * (accents and case ignored) or by a scanned contact id; paged by keyset cursors. For the
 * organiser (a volunteer running the door) and managers; bad input is a 400, never a 500. And
 * who may be named organiser (`GET /api/agenda/organisers`): active accounts whose role may run an
 * event, for managers.
 */
import { newId } from '../../src/kernel/ids';
import { sql } from '../../src/kernel/sql';
import { expectProblem } from '../helpers/users';
import { base, createEvent, startAgenda, type AgendaTest } from './helpers';

let t: AgendaTest;

beforeAll(async () => {
  t = await startAgenda();
});

afterAll(async () => {
  await t?.app.close();
});

async function person(name: string): Promise<string> {
  const id = newId();
  const phone = `+57310${String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')}`;
  await t.app.runtime.deps.db.write(sql`insert into contacts (id, identity_key, name, phone, interests, created_at, updated_at)
    values (${id}, ${`tel:${phone}`}, ${name}, ${phone}, '{}', now(), now())`);
  return id;
}

const rsvp = (eventId: string, contactId: string, status = 'going') =>
  t.app.http.post(`${base}/events/${eventId}/rsvp`).set(t.manager.auth).send({ contactId, status }).expect(200);
const attendees = (eventId: string, query: Record<string, string | number> = {}, auth = t.manager.auth) =>
  t.app.http.get(`${base}/events/${eventId}/attendees`).query(query).set(auth);

describe('the door list', () => {
  let eventId: string;
  let ana: string;
  let jose: string;
  let maria: string;
  let walkInId: string;

  beforeAll(async () => {
    // Starting within the hour: the door is open.
    eventId = (await createEvent(t, { capacity: 1, organiserId: t.volunteer.id }, 0.5)).id;
    ana = await person('Ana Gómez');
    jose = await person('José Pérez');
    maria = await person('María Ángel Ruiz');
    await rsvp(eventId, ana);
    await rsvp(eventId, jose);
    await rsvp(eventId, maria);
    const walkIn = await t.app.http
      .post(`${base}/events/${eventId}/check-in`)
      .set(t.manager.auth)
      .send({ walkIn: { name: 'Pedro Puerta', phone: '+573209998877', consentText: 'Autorizo el tratamiento de mis datos personales según la política.' } })
      .expect(200);
    walkInId = walkIn.body.contactId;
    await t.app.http.post(`${base}/events/${eventId}/check-in`).set(t.manager.auth).send({ contactId: ana, method: 'mark' }).expect(200);
  });

  it('lists going first, then the waitlist in order, then walk-ins, with names and check-ins', async () => {
    const answer = await attendees(eventId).expect(200);
    expect(answer.body.nextCursor).toBeNull();
    expect(
      answer.body.data.map((row: { name: string; status: string | null; waitlistPosition: number | null; checkInMethod: string | null }) => [
        row.name,
        row.status,
        row.waitlistPosition,
        row.checkInMethod,
      ]),
    ).toEqual([
      ['Ana Gómez', 'going', null, 'mark'],
      ['José Pérez', 'waitlisted', 1, null],
      ['María Ángel Ruiz', 'waitlisted', 2, null],
      ['Pedro Puerta', null, null, 'walk_in'],
    ]);
    expect(answer.body.data[0].checkedInAt).toEqual(expect.any(String));
    expect(answer.body.data[1].checkedInAt).toBeNull();
  });

  it('finds a name without its accents or case, keeping the true waitlist place, and a scanned contact id', async () => {
    const found = await attendees(eventId, { q: 'maria ANGEL' }).expect(200);
    expect(found.body.data).toEqual([expect.objectContaining({ contactId: maria, waitlistPosition: 2 })]);
    expect((await attendees(eventId, { q: 'perez' }).expect(200)).body.data.map((row: { contactId: string }) => row.contactId)).toEqual([jose]);
    expect((await attendees(eventId, { q: 'nadie así' }).expect(200)).body.data).toEqual([]);
    const scanned = await attendees(eventId, { q: walkInId.toUpperCase() }).expect(200);
    expect(scanned.body.data).toEqual([expect.objectContaining({ contactId: walkInId, name: 'Pedro Puerta' })]);
  });

  it('filters by answer and by whether people came', async () => {
    const waiting = await attendees(eventId, { status: 'waitlisted' }).expect(200);
    expect(waiting.body.data.map((row: { contactId: string }) => row.contactId)).toEqual([jose, maria]);
    const notYet = await attendees(eventId, { checkedIn: 'false' }).expect(200);
    expect(notYet.body.data.map((row: { contactId: string }) => row.contactId)).toEqual([jose, maria]);
    const came = await attendees(eventId, { checkedIn: 'true' }).expect(200);
    expect(came.body.data.map((row: { contactId: string }) => row.contactId)).toEqual([ana, walkInId]);
  });

  it('pages with cursors, each row once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string | number> = cursor ? { limit: 1, cursor } : { limit: 1 };
      const page: { body: { data: { contactId: string }[]; nextCursor: string | null } } = await attendees(eventId, query).expect(200);
      expect(page.body.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.data.map((row) => row.contactId));
      cursor = page.body.nextCursor;
    } while (cursor && seen.length < 10);
    expect(seen).toEqual([ana, jose, maria, walkInId]);
  });

  it('is for the organiser (a volunteer at the door) and managers, not other volunteers or viewers', async () => {
    await attendees(eventId, {}, t.volunteer.auth).expect(200);
    await attendees(eventId, {}, t.admin.auth).expect(200);
    expectProblem(await attendees(eventId, {}, t.brigade.auth), 403);
    expectProblem(await attendees(eventId, {}, t.viewer.auth), 403);
    const other = (await createEvent(t, {}, 0.5)).id;
    expectProblem(await attendees(other, {}, t.volunteer.auth), 403);
    expectProblem(await t.app.http.get(`${base}/events/${eventId}/attendees`), 401);
  });

  it('refuses bad input with a 400 and an unknown event with a 404', async () => {
    const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);
    expect(paths(expectProblem(await t.app.http.get(`${base}/events/no-es-un-id/attendees`).set(t.manager.auth), 400))).toContain('params.id');
    expect(paths(expectProblem(await attendees(eventId, { status: 'llegó' }), 400))).toContain('query.status');
    expect(paths(expectProblem(await attendees(eventId, { checkedIn: 'quizá' }), 400))).toContain('query.checkedIn');
    expect(paths(expectProblem(await attendees(eventId, { limit: 0 }), 400))).toContain('query.limit');
    expect(paths(expectProblem(await attendees(eventId, { q: 'x'.repeat(101) }), 400))).toContain('query.q');
    expect(paths(expectProblem(await attendees(eventId, { cursor: 'bm8tZXMtdW4tY3Vyc29y' }), 400))).toContain('query.cursor');
    const forged = Buffer.from(JSON.stringify([0, 'no es una fecha', ana])).toString('base64url');
    expect(paths(expectProblem(await attendees(eventId, { cursor: forged }), 400))).toContain('query.cursor');
    expectProblem(await attendees(newId()), 404);
  });
});

describe('who may organise', () => {
  it('lists active accounts whose role may run an event, by name, for managers', async () => {
    const answer = await t.app.http.get(`${base}/organisers`).query({ limit: 200 }).set(t.manager.auth).expect(200);
    const ids = answer.body.data.map((user: { id: string }) => user.id);
    expect(ids).toEqual(expect.arrayContaining([t.admin.id, t.manager.id, t.volunteer.id, t.brigade.id]));
    // A viewer cannot run an event: not offered.
    expect(ids).not.toContain(t.viewer.id);
    const found = await t.app.http.get(`${base}/organisers`).query({ q: t.volunteer.email.toUpperCase() }).set(t.manager.auth).expect(200);
    expect(found.body.data).toEqual([{ id: t.volunteer.id, name: expect.any(String), role: 'volunteer' }]);
  });

  it('is for managers; bad input is a 400', async () => {
    expectProblem(await t.app.http.get(`${base}/organisers`).set(t.volunteer.auth), 403);
    expectProblem(await t.app.http.get(`${base}/organisers`).set(t.viewer.auth), 403);
    expectProblem(await t.app.http.get(`${base}/organisers`), 401);
    const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);
    expect(
      paths(
        expectProblem(
          await t.app.http
            .get(`${base}/organisers`)
            .query({ q: 'x'.repeat(101) })
            .set(t.manager.auth),
          400,
        ),
      ),
    ).toContain('query.q');
    expect(paths(expectProblem(await t.app.http.get(`${base}/organisers`).query({ limit: 500 }).set(t.manager.auth), 400))).toContain('query.limit');
    expect(paths(expectProblem(await t.app.http.get(`${base}/organisers`).query({ cursor: 'bm8' }).set(t.manager.auth), 400))).toContain('query.cursor');
  });
});
