import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { syncDerivedActivities } from '../../src/modules/volunteers/volunteers.sync';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let manager: TestUser;
let brigadista: TestUser;
let stranger: TestUser;
let volunteerId: string;
let station: string;
const voters: string[] = [];

const derived = () =>
  app.runtime.deps.db.rows(
    sql<{ source: string; type: string; unit: string; quantity: number; volunteer_id: string; recorded_by_id: string }>`
      select source, type, unit, quantity, volunteer_id, recorded_by_id from volunteer_activities where source <> 'manual' order by source, occurred_at`,
  );

/** A sync that ran: the background beat (every second here) may hold the lock when a direct call comes. */
async function syncNow(): Promise<number> {
  let copied: number | undefined;
  await until(async () => (copied = await syncDerivedActivities(app.runtime.deps)) !== undefined, 20_000, 'the sync lock');
  return copied!;
}

beforeAll(async () => {
  app = await startTestApp({ VOLUNTEER_SYNC_INTERVAL: '1s' });
  const admin = await registerAdmin(app);
  [manager, brigadista, stranger] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'brigade'), createUser(app, admin, 'brigade')]);
  station = (
    await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code: 'S1', name: 'S1', lat: 4.6, lng: -74.1, tables: 4, registeredVoters: 900 }).expect(201)
  ).body.id;
  for (let i = 0; i < 4; i++) {
    voters.push(
      (
        await app.http
          .post('/api/gotv/voters')
          .set(manager.auth)
          .send({ name: `V${i}`, documentId: `7000000${i}`, pollingStationId: station })
          .expect(201)
      ).body.id,
    );
  }
  await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: 'B1', memberIds: [brigadista.id, stranger.id], stationIds: [station] })
    .expect(201);
  volunteerId = (await app.http.post('/api/volunteers').set(manager.auth).send({ name: 'Brigadista', email: 'brigadista@example.org', userId: brigadista.id }).expect(201)).body.id;
});
afterAll(() => app.close());

describe('brigade work recorded by GOTV becomes activities', () => {
  it('copies turnout reports and contact outcomes of users linked to volunteers, once however often it is read', async () => {
    // Whatever the background beat has done already, the direct runs below add the rest.
    await app.http
      .post('/api/gotv/turnout')
      .set(brigadista.auth)
      .send({
        reports: [
          { kind: 'voter', clientReportId: randomUUID(), voterId: voters[0] },
          { kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar: 10 },
        ],
      })
      .expect(201);
    await app.http.post(`/api/gotv/voters/${voters[1]}/contacts`).set(brigadista.auth).send({ outcome: 'reached' }).expect(201);
    // A brigade member with no volunteer record: their work is not anyone's activity.
    await app.http.post(`/api/gotv/voters/${voters[2]}/contacts`).set(stranger.auth).send({ outcome: 'no_answer' }).expect(201);

    await syncNow();
    const rows = await derived();
    expect(rows).toEqual([
      { source: 'gotv_contact', type: 'gotv', unit: 'calls', quantity: 1, volunteer_id: volunteerId, recorded_by_id: brigadista.id },
      { source: 'gotv_report', type: 'gotv', unit: 'turnout_reports', quantity: 1, volunteer_id: volunteerId, recorded_by_id: brigadista.id },
      { source: 'gotv_report', type: 'gotv', unit: 'turnout_reports', quantity: 1, volunteer_id: volunteerId, recorded_by_id: brigadista.id },
    ]);

    // Running again, or from a watermark far back (as after a lost update), writes nothing new.
    expect(await syncNow()).toBe(0);
    await app.runtime.deps.db.write(sql`update volunteer_sync set watermark = now() - interval '1 day'`);
    expect(await syncNow()).toBe(0);
    // Two processes at once: one copies, the other finds the sync taken or nothing to do.
    await app.http.post(`/api/gotv/voters/${voters[3]}/contacts`).set(brigadista.auth).send({ outcome: 'on_the_way' }).expect(201);
    const [first, second] = await Promise.all([syncDerivedActivities(app.runtime.deps), syncDerivedActivities(app.runtime.deps)]);
    expect((first ?? 0) + (second ?? 0)).toBeLessThanOrEqual(1);
    // Both may have found the beat holding the lock (its copy may predate the contact): one more run settles it.
    await syncNow();
    expect(await derived()).toHaveLength(4);
    // The activities count in the volunteer's figures like logged ones.
    const listed = await app.http.get(`/api/volunteers/activities?volunteerId=${volunteerId}`).set(manager.auth).expect(200);
    expect(listed.body.totals.gotv).toEqual({ count: 4, quantity: 4 });
  });

  it('runs by itself in a process with workers', async () => {
    await app.http.post(`/api/gotv/voters/${voters[0]}/contacts`).set(brigadista.auth).send({ outcome: 'reached' }).expect(201);
    await until(async () => (await derived()).length >= 5, 20_000, 'the derived activity');
    expect(await derived()).toHaveLength(5);
  });
});
