import ICAL from 'ical.js';
import { sql } from '../../src/kernel/sql';
import { createUser, expectProblem } from '../helpers/users';
import { base, createEvent, startAgenda, type AgendaTest } from './helpers';

let t: AgendaTest;

beforeAll(async () => {
  t = await startAgenda();
});

afterAll(async () => {
  await t?.app.close();
});

interface ParsedEvent {
  uid: string;
  summary: string;
  start: string;
  end: string;
  location: string | null;
  status: string | null;
  geo: unknown;
}

/** Parses a feed with a second, independent iCalendar implementation. */
function parse(text: string): { name: unknown; events: ParsedEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const events = calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      location: event.location,
      status: (component.getFirstPropertyValue('status') as string | null) ?? null,
      geo: component.getFirstPropertyValue('geo'),
    };
  });
  return { name: calendar.getFirstPropertyValue('x-wr-calname'), events };
}

const feed = () =>
  t.app.http
    .get(`${base}/events.ics`)
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done(null, text));
    });

describe('iCalendar feed', () => {
  it('serves public events to anyone, internal ones to staff by bearer or personal address, and parses back', async () => {
    const rally = await createEvent(t, {
      title: 'Gran cierre, plaza de Bolívar; con “comillas”, comas y tildes',
      type: 'rally',
      visibility: 'public',
      startsAt: '2027-05-20T19:00:00-05:00',
      endsAt: '2027-05-20T22:30:00-05:00',
      address: 'Plaza de Bolívar, Bogotá',
      location: { lat: 4.5981, lng: -74.0758 },
      description: 'Trae tu bandera.\nHabrá tarima; llega temprano.',
    });
    const internal = await createEvent(t, { title: 'Comité de estrategia', visibility: 'internal' });
    const draft = await createEvent(t, { title: 'Borrador', status: 'draft', visibility: 'public' });
    const cancelled = await createEvent(t, { title: 'Caravana suspendida', visibility: 'public' });
    await t.app.http.patch(`${base}/events/${cancelled.id}`).set(t.manager.auth).send({ status: 'cancelled' }).expect(200);

    const anonymous = await feed().expect(200);
    expect(anonymous.headers['content-type']).toMatch(/^text\/calendar/);
    expect(anonymous.headers['cache-control']).toMatch(/no-store/);
    const open = parse(anonymous.body as string);
    const uids = open.events.map((event) => event.uid.split('@')[0]);
    expect(uids).toEqual(expect.arrayContaining([rally.id, cancelled.id]));
    expect(uids).not.toContain(internal.id);
    expect(uids).not.toContain(draft.id);
    const parsedRally = open.events.find((event) => event.uid.startsWith(rally.id))!;
    expect(parsedRally).toMatchObject({
      summary: 'Gran cierre, plaza de Bolívar; con “comillas”, comas y tildes',
      start: '2027-05-21T00:00:00.000Z',
      end: '2027-05-21T03:30:00.000Z',
      location: 'Plaza de Bolívar, Bogotá',
      status: 'CONFIRMED',
    });
    expect(parsedRally.geo).toEqual([4.5981, -74.0758]);
    expect(open.events.find((event) => event.uid.startsWith(cancelled.id))!.status).toBe('CANCELLED');

    const staff = parse((await feed().set(t.viewer.auth).expect(200)).body as string);
    expect(staff.events.map((event) => event.uid.split('@')[0])).toEqual(expect.arrayContaining([rally.id, internal.id]));
    expect(staff.events.map((event) => event.uid.split('@')[0])).not.toContain(draft.id);

    // A personal address works without a header, and a new one ends the old one.
    const first = await t.app.http.post(`${base}/feed-token`).set(t.volunteer.auth).expect(201);
    expect(first.body.url).toContain(`/api/agenda/events.ics?token=${first.body.token}`);
    const byToken = parse((await feed().query({ token: first.body.token }).expect(200)).body as string);
    expect(byToken.events.map((event) => event.uid.split('@')[0])).toContain(internal.id);
    const second = await t.app.http.post(`${base}/feed-token`).set(t.volunteer.auth).expect(201);
    expect(second.body.token).not.toBe(first.body.token);
    expectProblem(await t.app.http.get(`${base}/events.ics`).query({ token: first.body.token }), 401);
    await t.app.http.get(`${base}/events.ics`).query({ token: second.body.token }).expect(200);

    // Only the hash is stored.
    const stored = await t.app.runtime.deps.db.rows<{ token_hash: string }>(sql`select token_hash from agenda_feed_tokens`);
    expect(stored.map((row) => row.token_hash)).not.toContain(second.body.token);

    await t.app.http.delete(`${base}/feed-token`).set(t.volunteer.auth).expect(204);
    expectProblem(await t.app.http.get(`${base}/events.ics`).query({ token: second.body.token }), 401);
    expectProblem(await t.app.http.delete(`${base}/feed-token`).set(t.volunteer.auth), 404);
    expectProblem(await t.app.http.get(`${base}/events.ics`).query({ token: 'short' }), 400);
    expectProblem(await t.app.http.post(`${base}/feed-token`), 401);
  });

  it('ends a personal address when its owner signs out everywhere, and when they change the password', async () => {
    const owner = await createUser(t.app, t.admin, 'viewer');
    const ics = (token: string) => t.app.http.get(`${base}/events.ics`).query({ token });
    const first = await t.app.http.post(`${base}/feed-token`).set(owner.auth).expect(201);
    await ics(first.body.token).expect(200);
    await t.app.http.post('/api/auth/logout').set(owner.auth).expect(204);
    expectProblem(await ics(first.body.token), 401);

    const session = await t.app.http.post('/api/auth/login').send({ email: owner.email, password: owner.password }).expect(200);
    const auth = { Authorization: `Bearer ${session.body.token}` };
    const second = await t.app.http.post(`${base}/feed-token`).set(auth).expect(201);
    await ics(second.body.token).expect(200);
    await t.app.http.post('/api/auth/password').set(auth).send({ currentPassword: owner.password, newPassword: 'a brand new passphrase' }).expect(200);
    expectProblem(await ics(second.body.token), 401);
  });
});
