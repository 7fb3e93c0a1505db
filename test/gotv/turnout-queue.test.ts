import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

/**
 * A brigade phone that was offline sends its whole queue at once. These tests hold a queue to what
 * one report at a time guarantees: exactly once, the earliest of a voter's reports wins, scope per
 * item, tallies exact, and two queues sent at the same moment over the same voters both succeed.
 */

let app: TestApp;
let manager: TestUser;
let secondManager: TestUser;
let member: TestUser;
const stations: string[] = [];
/** Voter ids and cédulas per station, in import order. */
const byStation = new Map<string, { id: string; documentId: string }[]>();

const sql = <T>(query: string, params: unknown[] = []) => app.runtime.deps.orm.em.fork().execute<T[]>(query, params);
const post = (user: TestUser, body: unknown) =>
  app.http
    .post('/api/gotv/turnout')
    .set(user.auth)
    .send(body as object);
const voted = (voterId: string) => ({ kind: 'voter', clientReportId: randomUUID(), voterId });
/** Takes the next `n` voters of a station that no test has used yet. */
const fresh = (() => {
  const used = new Map<string, number>();
  return (station: string, n: number) => {
    const from = used.get(station) ?? 0;
    used.set(station, from + n);
    const slice = byStation.get(station)!.slice(from, from + n);
    if (slice.length < n) throw new Error('not enough voters set up');
    return slice;
  };
})();

/** Tallies kept by the triggers against a recount of the voters themselves. */
async function expectTalliesExact(): Promise<void> {
  const rows = await sql<{ station_id: string; kept: number; recount: number }>(
    `select t.station_id, t.confirmed_voted as kept, (select count(*)::int from gotv_voters v where v.polling_station_id = t.station_id and v.status = 'voted') as recount
     from gotv_station_tallies t`,
  );
  for (const row of rows) expect(row.kept).toBe(row.recount);
}

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  secondManager = await createUser(app, admin, 'manager');
  member = await createUser(app, admin, 'brigade');
  for (const code of ['Q1', 'Q2', 'Q3']) {
    const body = { code, name: code, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 5000 };
    stations.push((await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(body).expect(201)).body.id as string);
  }
  const lines = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  for (let i = 0; i < 1500; i++) lines.push(`Votante ${i},${30_000_000 + i},,Q${1 + (i % 3)},1,normal`);
  await app.http
    .post('/api/gotv/voters/import')
    .set(manager.auth)
    .set('Content-Type', 'text/csv')
    .send(`${lines.join('\n')}\n`)
    .expect(200);
  const rows = await sql<{ id: string; document_id: string; polling_station_id: string }>('select id, document_id, polling_station_id from gotv_voters order by document_id');
  for (const row of rows) byStation.set(row.polling_station_id, [...(byStation.get(row.polling_station_id) ?? []), { id: row.id, documentId: row.document_id }]);
  await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: 'Brigada Q1', memberIds: [member.id], stationIds: [stations[0]] })
    .expect(201);
});
afterAll(() => app.close());

describe('a queue of voter reports in one request', () => {
  it('records a queue of 450 once, and answers the same queue sent again as duplicates', async () => {
    const queue = { reports: stations.flatMap((station) => fresh(station, 150)).map((voter) => voted(voter.id)) };
    const before = (await sql<{ n: number }>('select count(*)::int as n from gotv_turnout_reports'))[0]!.n;
    expect((await post(manager, queue).expect(201)).body).toEqual({ accepted: 450, duplicates: 0, rejected: [] });
    expect((await post(manager, queue).expect(200)).body).toEqual({ accepted: 0, duplicates: 450, rejected: [] });
    const after = (await sql<{ n: number }>('select count(*)::int as n from gotv_turnout_reports'))[0]!.n;
    expect(after - before).toBe(450);
    const ids = queue.reports.map((report) => report.voterId);
    const [marked] = await sql<{ n: number }>("select count(*)::int as n from gotv_voters where id in (?) and status = 'voted'", [ids]);
    expect(marked!.n).toBe(450);
    await expectTalliesExact();
  });

  it("counts a voter reported twice in one queue (by id, then by cédula) once: the earlier item's report", async () => {
    const [voter] = fresh(stations[1]!, 1);
    const first = voted(voter!.id);
    const second = { kind: 'voter', clientReportId: randomUUID(), documentId: voter!.documentId };
    expect((await post(manager, { reports: [first, second] }).expect(201)).body).toEqual({ accepted: 1, duplicates: 1, rejected: [] });
    const reports = await sql<{ client_report_id: string }>('select client_report_id from gotv_turnout_reports where voter_id = ?', [voter!.id]);
    expect(reports.map((row) => row.client_report_id)).toEqual([first.clientReportId]);
    await expectTalliesExact();
  });

  it("answers each item of a brigade member's queue by index: unknown, outside the brigade, recorded", async () => {
    const [ours] = fresh(stations[0]!, 1);
    const [theirs] = fresh(stations[2]!, 1);
    const answer = await post(member, { reports: [voted(randomUUID()), voted(theirs!.id), voted(ours!.id)] }).expect(201);
    expect(answer.body.accepted).toBe(1);
    expect(answer.body.rejected).toEqual([
      { index: 0, code: 'unknown_voter', message: expect.any(String) },
      { index: 1, code: 'forbidden', message: expect.any(String) },
    ]);
    const [row] = await sql<{ status: string }>('select status from gotv_voters where id = ?', [theirs!.id]);
    expect(row!.status).not.toBe('voted');
  });

  it('two queues sent at the same moment over the same stations and voters record each voter once, without an error', async () => {
    for (let round = 0; round < 8; round++) {
      // Each queue alternates between two stations, the other queue in the opposite order.
      const [a, b] = [fresh(stations[1]!, 21), fresh(stations[2]!, 21)];
      const forward = Array.from({ length: 10 }, (_, i) => [voted(a[i]!.id), voted(b[i]!.id)]).flat();
      const backward = Array.from({ length: 10 }, (_, i) => [voted(b[10 + i]!.id), voted(a[10 + i]!.id)]).flat();
      // And two voters in both queues, also in opposite orders.
      const [sharedA, sharedB] = [a[20]!.id, b[20]!.id];
      const answers = await Promise.all([
        post(manager, { reports: [...forward, voted(sharedA), voted(sharedB)] }),
        post(secondManager, { reports: [...backward, voted(sharedB), voted(sharedA)] }),
      ]);
      for (const answer of answers) expect(answer.status).toBe(201);
      // The two shared voters are recorded once, by whichever queue got there first.
      const accepted = answers.reduce((sum, answer) => sum + (answer.body.accepted as number), 0);
      const duplicates = answers.reduce((sum, answer) => sum + (answer.body.duplicates as number), 0);
      expect(accepted).toBe(forward.length + backward.length + 2);
      expect(duplicates).toBe(2);
    }
    await expectTalliesExact();
  });
});
