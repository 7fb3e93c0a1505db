import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

import { connectSocket, subscribe } from '../helpers/sockets';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';
import { until } from '../helpers/wait';

/**
 * A row a report needs, held by another transaction (a long one, an operator's query stuck with
 * a station's tally FOR UPDATE): the reports of other stations are answered and recorded all the
 * while, and the held station's get a 503 `busy` with Retry-After within the request's deadline
 * instead of silence. A resend of a report still waiting takes no second batch slot, and once the
 * row is free the report is recorded once.
 */

/** Long enough for the test to act while a report waits, far below the deadline. */
const LOCK_TIMEOUT_MS = 6000;
const DEADLINE_MS = 9000;

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
/** Station code → its id and its voters' ids (none used twice across tests). */
const stations = new Map<string, { id: string; voters: string[] }>();
const CODES = ['L0', 'L1', 'L2', 'L3', 'L4'];

const sql = <T>(query: string, params: unknown[] = []) => app.runtime.deps.orm.em.fork().execute<T[]>(query, params);
const post = (body: unknown) =>
  app.http
    .post('/api/gotv/turnout')
    .set(manager.auth)
    .send(body as object);
const voted = (voterId: string, clientReportId: string = randomUUID()) => ({ kind: 'voter', clientReportId, voterId });
const fresh = (code: string) => stations.get(code)!.voters.shift()!;

/** Another connection holding a station's tally row FOR UPDATE until `release`. */
async function holdTally(stationId: string): Promise<{ release: () => Promise<void> }> {
  const client = new Client({ connectionString: app.db.url });
  await client.connect();
  await client.query('begin');
  await client.query('select * from gotv_station_tallies where station_id = $1 for update', [stationId]);
  return {
    release: async () => {
      await client.query('rollback');
      await client.end();
    },
  };
}

/** Backends of the app's database waiting for a lock. */
const lockWaiters = async () => (await sql<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'"))[0]!.n;

const statusOf = async (voterId: string) => (await sql<{ status: string }>('select status from gotv_voters where id = ?', [voterId]))[0]!.status;

beforeAll(async () => {
  app = await startTestApp({ GOTV_REPORT_LOCK_TIMEOUT: String(LOCK_TIMEOUT_MS), GOTV_REPORT_STATEMENT_TIMEOUT: '8000', GOTV_REPORT_DEADLINE: String(DEADLINE_MS) });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  for (const code of CODES) {
    const body = { code, name: code, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 };
    stations.set(code, { id: (await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(body).expect(201)).body.id as string, voters: [] });
  }
  const lines = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  for (let i = 0; i < 100; i++) lines.push(`Votante ${i},${70_000_000 + i},,${CODES[i % CODES.length]},1,normal`);
  await app.http
    .post('/api/gotv/voters/import')
    .set(manager.auth)
    .set('Content-Type', 'text/csv')
    .send(`${lines.join('\n')}\n`)
    .expect(200);
  for (const row of await sql<{ id: string; code: string }>(
    'select v.id, s.code from gotv_voters v join gotv_polling_stations s on s.id = v.polling_station_id order by v.document_id',
  )) {
    stations.get(row.code)!.voters.push(row.id);
  }
});
afterAll(() => app.close());

/** Tallies kept by the triggers against a recount of the voters themselves. */
async function expectTalliesExact(): Promise<void> {
  const rows = await sql<{ kept: number; recount: number }>(
    `select t.confirmed_voted as kept, (select count(*)::int from gotv_voters v where v.polling_station_id = t.station_id and v.status = 'voted') as recount
     from gotv_station_tallies t`,
  );
  for (const row of rows) expect(row.kept).toBe(row.recount);
}

it("answers a held station's report 503 busy within the deadline, and records every other station's meanwhile", async () => {
  const held = await holdTally(stations.get('L0')!.id);
  try {
    const blocked = voted(fresh('L0'));
    const sentAt = Date.now();
    const waiting = post(blocked).then((response) => ({ response, after: Date.now() - sentAt }));
    await until(async () => (await lockWaiters()) >= 1, 5000, 'the report to wait for the lock');
    // While it waits, other stations' reports, alone and in batches, are answered and recorded.
    const others = [voted(fresh('L1')), voted(fresh('L2'))];
    const batch = { reports: [voted(fresh('L3')), voted(fresh('L1')), voted(fresh('L2'))] };
    const answers = await Promise.all([post(others[0]), post(others[1]), post(batch)]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    for (const voterId of [...others, ...batch.reports].map((report) => report.voterId)) expect(await statusOf(voterId)).toBe('voted');

    const { response, after } = await waiting;
    const body = expectProblem(response, 503, 'busy');
    expect(body.retryAfter).toBe(5);
    expect(response.headers['retry-after']).toBe('5');
    expect(after).toBeLessThan(DEADLINE_MS);
    expect(await statusOf(blocked.voterId)).toBe('pending');

    // Now known to be held: its next report is answered at once (no batch waits on it), the others of its batch recorded.
    const mixed = { reports: [voted(fresh('L4')), voted(fresh('L0')), voted(fresh('L4'))] };
    const before = await lockWaiters();
    expectProblem(await post(mixed), 503, 'busy');
    expect(await lockWaiters()).toBe(before);
    expect(await statusOf(mixed.reports[0]!.voterId)).toBe('voted');
    expect(await statusOf(mixed.reports[1]!.voterId)).toBe('pending');
    expect(await statusOf(mixed.reports[2]!.voterId)).toBe('voted');
    // A phone reporting over its socket gets the same answer in the ack.
    const phone = await connectSocket(app.url, manager.token);
    try {
      expect(await phone.timeout(5000).emitWithAck('gotv:report', voted(fresh('L0')))).toEqual({ ok: false, error: { code: 'busy', message: expect.any(String), retryAfter: 5 } });
    } finally {
      phone.close();
    }

    await held.release();
    // Sent again once the station is free: recorded, and what was recorded before is a duplicate.
    expect((await post(mixed).expect(201)).body).toEqual({ accepted: 1, duplicates: 2, rejected: [] });
    expect((await post(blocked).expect(201)).body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    await expectTalliesExact();
  } finally {
    await held.release().catch(() => undefined);
  }
});

it('a resend of a report still waiting joins it: no second batch slot, one record once the row is free', async () => {
  const held = await holdTally(stations.get('L4')!.id);
  try {
    const report = voted(fresh('L4'));
    const first = post(report).then((response) => response);
    let firstAnswered = false;
    void first.then(() => (firstAnswered = true));
    await until(async () => (await lockWaiters()) >= 1, 5000, 'the report to wait for the lock');
    // The phone gave up on the answer and sends the same batch again.
    const resend = post(report).then((response) => response);
    // Both batch slots would be taken if the resend had one: another station's report is still answered.
    const other = voted(fresh('L1'));
    expect((await post(other)).status).toBe(201);
    expect(await statusOf(other.voterId)).toBe('voted');
    expect(firstAnswered).toBe(false);
    expect(await lockWaiters()).toBe(1);
    // The row stays held past the lock timeout: both are answered busy.
    expectProblem(await first, 503, 'busy');
    expectProblem(await resend, 503, 'busy');
    expect(await sql('select id from gotv_turnout_reports where client_report_id = ?', [report.clientReportId])).toHaveLength(0);

    await held.release();
    expect((await post(report).expect(201)).body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect((await post(report).expect(200)).body).toEqual({ accepted: 0, duplicates: 1, rejected: [] });
    expect(await sql('select id from gotv_turnout_reports where client_report_id = ?', [report.clientReportId])).toHaveLength(1);
    expect(await statusOf(report.voterId)).toBe('voted');
    await expectTalliesExact();
  } finally {
    await held.release().catch(() => undefined);
  }
});

it('answers by the deadline what it could not record by then; a count still running records itself after, and reaches the war room', async () => {
  const station = stations.get('L2')!.id;
  // The station's own row held (an operator editing it in a long transaction): counts wait their lock timeout each, one after the other.
  const client = new Client({ connectionString: app.db.url });
  await client.connect();
  await client.query('begin');
  await client.query('select * from gotv_polling_stations where id = $1 for update', [station]);
  const screen = await connectSocket(app.url, viewer.token);
  try {
    await subscribe(screen, ['gotv']);
    const items: unknown[][] = [];
    screen.on('gotv:turnout', (message: TurnoutMessage) => items.push(...decodeTurnout(message)));
    const counts = [300, 310, 320].map((votersSoFar) => ({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar }));
    // The first gives up at 6 s, the second is still waiting at the 9 s deadline, the third never begins.
    expectProblem(await post({ reports: counts }), 503, 'busy');
    await client.query('rollback');
    await until(async () => (await sql('select id from gotv_turnout_reports where client_report_id = ?', [counts[1]!.clientReportId])).length === 1, 10_000, 'the waiting count');
    await until(async () => items.some((item) => item[0] === 'count' && item[3] === 310), 5000, 'the late count on the war room');
    expect(await sql('select id from gotv_turnout_reports where client_report_id in (?)', [[counts[0]!.clientReportId, counts[2]!.clientReportId]])).toHaveLength(0);
    expect((await post({ reports: counts }).expect(201)).body).toEqual({ accepted: 2, duplicates: 1, rejected: [] });
  } finally {
    await client.query('rollback').catch(() => undefined);
    await client.end();
    screen.close();
  }
});
