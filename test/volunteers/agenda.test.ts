import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { syncDerivedActivities } from '../../src/modules/volunteers/volunteers.sync';
import { startTestApp, type TestApp } from '../helpers/app';
import { agendaEvent, volunteer } from '../helpers/factories';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let ana: { id: string; contactId: string };
let beto: { id: string; contactId: string };

async function event(hoursFromNow: number, lengthHours: number): Promise<string> {
  return (await agendaEvent(app, manager, { title: 'Puerta a puerta Timiza', type: 'door_to_door', address: null, status: 'scheduled' }, hoursFromNow, lengthHours)).id;
}

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  ana = (await volunteer(app, manager, { name: 'Ana Agenda', email: 'ana.agenda@example.org' })) as typeof ana;
  beto = (await volunteer(app, manager, { name: 'Beto Agenda', email: 'beto.agenda@example.org' })) as typeof beto;
});
afterAll(() => app.close());

describe('volunteers and the agenda', () => {
  it('checks an activity’s event against the agenda', async () => {
    const eventId = await event(1, 2);
    const activity = (extra: Record<string, unknown>) => ({ clientId: randomUUID(), volunteerId: ana.id, type: 'event_staff', occurredAt: new Date().toISOString(), ...extra });
    await app.http
      .post('/api/volunteers/activities')
      .set(manager.auth)
      .send({ activities: [activity({ eventId })] })
      .expect(201);
    const problem = expectProblem(
      await app.http
        .post('/api/volunteers/activities')
        .set(manager.auth)
        .send({ activities: [activity({}), activity({ eventId: '00000000-0000-4000-8000-000000000000' })] }),
      400,
    );
    expect(problem.errors).toEqual([{ path: 'body.activities.1.eventId', message: expect.stringContaining('Item 1') }]);
  });

  it('shows each volunteer’s reliability (attended ÷ committed over ended events) and records check-ins as event staff activities', async () => {
    const first = await event(1, 2);
    const second = await event(2, 2);
    for (const eventId of [first, second]) {
      await app.http.post(`/api/agenda/events/${eventId}/rsvp`).set(manager.auth).send({ contactId: ana.contactId, status: 'going' }).expect(200);
      await app.http.post(`/api/agenda/events/${eventId}/rsvp`).set(manager.auth).send({ contactId: beto.contactId, status: 'going' }).expect(200);
    }
    await app.http.post(`/api/agenda/events/${first}/check-in`).set(manager.auth).send({ contactId: ana.contactId }).expect(200);
    await app.http.post(`/api/agenda/events/${second}/check-in`).set(manager.auth).send({ contactId: ana.contactId }).expect(200);
    await app.http.post(`/api/agenda/events/${first}/check-in`).set(manager.auth).send({ contactId: beto.contactId }).expect(200);
    // Both events are over now.
    await app.runtime.deps.db.write(
      sql`update agenda_events set starts_at = now() - interval '5 hours', ends_at = now() - interval '3 hours' where id = any(${[first, second]}::uuid[])`,
    );
    const list = await app.http.get('/api/volunteers?limit=10').set(manager.auth).expect(200);
    const byId = new Map(list.body.data.map((row: { id: string; reliability: unknown }) => [row.id, row.reliability]));
    expect(byId.get(ana.id)).toEqual({ committed: 2, attended: 2, noShow: 0, score: 1 });
    expect(byId.get(beto.id)).toEqual({ committed: 2, attended: 1, noShow: 1, score: 0.5 });

    expect(await syncDerivedActivities(app.runtime.deps)).toBe(3);
    expect(await syncDerivedActivities(app.runtime.deps)).toBe(0);
    const rows = await app.runtime.deps.db.rows(
      sql<{ volunteer_id: string; type: string; event_id: string; duration_minutes: number }>`
        select volunteer_id, type, event_id, duration_minutes from volunteer_activities where source = 'agenda_checkin' order by volunteer_id, event_id`,
    );
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.type === 'event_staff' && row.duration_minutes === 120)).toBe(true);
    expect(
      rows
        .filter((row) => row.volunteer_id === ana.id)
        .map((row) => row.event_id)
        .sort(),
    ).toEqual([first, second].sort());
    const csv = await app.http.get('/api/volunteers?format=csv').set(manager.auth).expect(200);
    expect(csv.text).toContain(',0.5');
  });
});
