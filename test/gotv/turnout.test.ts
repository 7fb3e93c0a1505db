import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';
import { until } from '../helpers/wait';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let member: TestUser;
let outsider: TestUser;
let ours: string;
let theirs: string;
const voters: string[] = [];
let foreignVoter: string;

const sql = <T>(query: string, params: unknown[] = []) => app.runtime.deps.orm.em.fork().execute<T[]>(query, params);
const post = (user: TestUser, body: unknown) =>
  app.http
    .post('/api/gotv/turnout')
    .set(user.auth)
    .send(body as object);
const voted = (voterId: string) => ({ kind: 'voter', clientReportId: randomUUID(), voterId });
const bogotaDate = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date(ms));

/**
 * A time `minutesAgo` (≤ 60) before now, always on today's local date (counts are compared within a
 * day): in the first hour after Bogotá's midnight the same order is kept in seconds after midnight.
 */
function earlierToday(minutesAgo: number): string {
  const now = Date.now();
  if (bogotaDate(now - 60 * 60_000) === bogotaDate(now)) return new Date(now - minutesAgo * 60_000).toISOString();
  const midnight = Date.parse(`${bogotaDate(now)}T05:00:00Z`); // Bogotá is UTC-5 all year
  return new Date(midnight + (60 - minutesAgo) * 1000).toISOString();
}

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  member = await createUser(app, admin, 'brigade');
  outsider = await createUser(app, admin, 'brigade');
  const station = async (code: string) =>
    (await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code, name: code, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 }).expect(201)).body
      .id as string;
  ours = await station('OURS');
  theirs = await station('THEIRS');
  for (let i = 0; i < 8; i++) {
    voters.push(
      (
        await app.http
          .post('/api/gotv/voters')
          .set(manager.auth)
          .send({ name: `Votante ${i}`, documentId: `1000000${i}`, pollingStationId: ours })
          .expect(201)
      ).body.id,
    );
  }
  foreignVoter = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Ajeno', documentId: '20000001', pollingStationId: theirs }).expect(201)).body.id;
  await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: 'Brigada 1', memberIds: [member.id], stationIds: [ours] })
    .expect(201);
});
afterAll(() => app.close());

describe('POST /api/gotv/turnout', () => {
  it('counts a batch sent five times once', async () => {
    const batch = { reports: [voted(voters[0]!), voted(voters[1]!), { kind: 'count', clientReportId: randomUUID(), pollingStationId: ours, votersSoFar: 120 }] };
    const first = await post(member, batch).expect(201);
    expect(first.body).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    for (let i = 0; i < 4; i++) expect((await post(member, batch).expect(200)).body).toEqual({ accepted: 0, duplicates: 3, rejected: [] });
    const [row] = await sql<{ reports: number; voted: number }>(
      "select (select count(*)::int from gotv_turnout_reports) as reports, (select count(*)::int from gotv_voters where status = 'voted') as voted",
    );
    expect(row).toEqual({ reports: 3, voted: 2 });
  });

  it('two phones racing with the same voter make one vote', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(member, voted(voters[2]!))));
    const total = (field: 'accepted' | 'duplicates') => answers.reduce((sum, response) => sum + (response.body[field] as number), 0);
    expect([total('accepted'), total('duplicates')]).toEqual([1, 4]);
    const [voter] = await sql<{ status: string }>('select status from gotv_voters where id = ?', [voters[2]]);
    expect(voter!.status).toBe('voted');
    // A duplicate leaves no report behind: the day's report counts stay true.
    const [reports] = await sql<{ n: number }>('select count(*)::int as n from gotv_turnout_reports where voter_id = ?', [voters[2]]);
    expect(reports!.n).toBe(1);
  });

  it('records the earlier of reports for one voter that arrive together, by id or by cédula, whoever sends them', async () => {
    // Requests sent at once share one statement: the outsider's is refused, the member's first one counts.
    const [refused, byDocument, byId, twiceInOne] = await Promise.all([
      post(outsider, voted(voters[6]!)),
      post(member, { kind: 'voter', clientReportId: randomUUID(), documentId: '10000006' }),
      post(member, voted(voters[6]!)),
      post(member, { reports: [voted(voters[7]!), { kind: 'voter', clientReportId: randomUUID(), documentId: '10000007' }] }),
    ]);
    expect(refused.status).toBe(403);
    expect([byDocument.body.accepted + byId.body.accepted, byDocument.body.duplicates + byId.body.duplicates]).toEqual([1, 1]);
    expect(twiceInOne.body).toEqual({ accepted: 1, duplicates: 1, rejected: [] });
    const rows = await sql<{ voter_id: string; reports: number; status: string }>(
      `select v.id as voter_id, v.status, (select count(*)::int from gotv_turnout_reports r where r.voter_id = v.id) as reports
       from gotv_voters v where v.id in (?, ?) order by v.document_id`,
      [voters[6], voters[7]],
    );
    expect(rows.map((row) => [row.status, row.reports])).toEqual([
      ['voted', 1],
      ['voted', 1],
    ]);
    // The station's tally agrees with its voters, one by one.
    const [tally] = await sql<{ tallied: number; counted: number }>(
      `select t.confirmed_voted as tallied, (select count(*)::int from gotv_voters where polling_station_id = t.station_id and status = 'voted') as counted
       from gotv_station_tallies t where t.station_id = ?`,
      [ours],
    );
    expect(tally!.tallied).toBe(tally!.counted);
  });

  it('reports a voter by document number too', async () => {
    const response = await post(manager, { kind: 'voter', clientReportId: randomUUID(), documentId: '10000003' }).expect(201);
    expect(response.body.accepted).toBe(1);
  });

  it('keeps a lower later count as a flagged fact without lowering the station', async () => {
    await post(manager, { kind: 'count', clientReportId: randomUUID(), pollingStationId: theirs, votersSoFar: 300, reportedAt: earlierToday(30) }).expect(201);
    await post(manager, { kind: 'count', clientReportId: randomUUID(), pollingStationId: theirs, votersSoFar: 250, reportedAt: earlierToday(10) }).expect(201);
    const rows = await sql<{ voters_so_far: number; flagged: boolean }>(
      "select voters_so_far, flagged from gotv_turnout_reports where station_id = ? and kind = 'count' order by reported_at",
      [theirs],
    );
    expect(rows).toEqual([
      { voters_so_far: 300, flagged: false },
      { voters_so_far: 250, flagged: true },
    ]);
  });

  it('flags a count against every higher earlier count, whatever order they arrive in', async () => {
    const witnessed = (
      await app.http
        .post('/api/gotv/polling-stations')
        .set(manager.auth)
        .send({ code: 'WITNESSED', name: 'Testigos', lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 })
        .expect(201)
    ).body.id as string;
    const count = (votersSoFar: number, minutesAgo: number) => ({
      kind: 'count',
      clientReportId: randomUUID(),
      pollingStationId: witnessed,
      votersSoFar,
      reportedAt: earlierToday(minutesAgo),
    });
    // Back-dated: a witness's 900 at 50 minutes ago reaches us after another's 880 at 40 minutes ago.
    await post(manager, count(880, 40)).expect(201);
    await post(manager, count(900, 50)).expect(201);
    // And two phones at once: 950 at 35 minutes ago and 940 at 34 minutes ago, sent together.
    await Promise.all([post(manager, count(950, 35)).expect(201), post(manager, count(940, 34)).expect(201)]);
    const rows = await sql<{ voters_so_far: number; flagged: boolean }>('select voters_so_far, flagged from gotv_turnout_reports where station_id = ? order by reported_at', [
      witnessed,
    ]);
    expect(rows).toEqual([
      { voters_so_far: 900, flagged: false },
      { voters_so_far: 880, flagged: true },
      { voters_so_far: 950, flagged: false },
      { voters_so_far: 940, flagged: true },
    ]);
  });

  it("keeps a rehearsal's reports (before the election date) without marking anyone voted", async () => {
    const rehearsed = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Ensayo', documentId: '10000077', pollingStationId: ours }).expect(201)).body
      .id as string;
    const tomorrow = bogotaDate(Date.now() + 86_400_000);
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: tomorrow }).expect(200);
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, ['gotv']);
      const items: unknown[][] = [];
      socket.on('gotv:turnout', (message: TurnoutMessage) => items.push(...decodeTurnout(message)));
      const practice = voted(rehearsed);
      expect((await post(member, practice).expect(201)).body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
      expect((await post(member, practice).expect(200)).body.duplicates).toBe(1);
      // Brigades may practise the same voter again; the call list stays whole.
      expect((await post(member, voted(rehearsed)).expect(201)).body.accepted).toBe(1);
      const [voter] = await sql<{ status: string; voted_at: Date | null }>('select status, voted_at from gotv_voters where id = ?', [rehearsed]);
      expect(voter).toEqual({ status: 'pending', voted_at: null });
      const rows = await sql<{ rehearsal: boolean }>('select rehearsal from gotv_turnout_reports where voter_id = ?', [rehearsed]);
      expect(rows).toEqual([{ rehearsal: true }, { rehearsal: true }]);
      // The war room practises too: the items say they are a rehearsal's.
      await until(() => (items.filter((item) => item[2] === rehearsed).length === 2 ? true : undefined));
      expect(items.filter((item) => item[2] === rehearsed)).toEqual([
        ['voter', ours, rehearsed, true],
        ['voter', ours, rehearsed, true],
      ]);
      // Election day: the same voter's report counts.
      await app.http
        .put('/api/gotv/settings')
        .set(manager.auth)
        .send({ electionDate: bogotaDate(Date.now()) })
        .expect(200);
      expect((await post(member, voted(rehearsed)).expect(201)).body.accepted).toBe(1);
      const [after] = await sql<{ status: string }>('select status from gotv_voters where id = ?', [rehearsed]);
      expect(after!.status).toBe('voted');
      await until(() => (items.some((item) => item[2] === rehearsed && item.length === 3) ? true : undefined));
    } finally {
      socket.close();
    }
  });

  it('records a report a little ahead of our clock (phone drift) at our time', async () => {
    const aheadBy = 60_000;
    const before = Date.now();
    const response = await post(manager, {
      kind: 'count',
      clientReportId: randomUUID(),
      pollingStationId: theirs,
      votersSoFar: 301,
      reportedAt: new Date(before + aheadBy).toISOString(),
    }).expect(201);
    expect(response.body.accepted).toBe(1);
    const [row] = await sql<{ reported_at: Date }>('select reported_at from gotv_turnout_reports where station_id = ? and voters_so_far = 301', [theirs]);
    expect(new Date(row!.reported_at).getTime()).toBeLessThan(before + aheadBy);
    expect(new Date(row!.reported_at).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('rejects malformed items of a batch by index and records the rest', async () => {
    const good = { kind: 'count', clientReportId: randomUUID(), pollingStationId: theirs, votersSoFar: 310 };
    const response = await post(manager, {
      reports: [
        { kind: 'count', clientReportId: 'not-a-uuid', pollingStationId: theirs, votersSoFar: 1 },
        good,
        { kind: 'guess', clientReportId: randomUUID() },
        { kind: 'count', clientReportId: randomUUID(), pollingStationId: theirs, votersSoFar: -5 },
        'not even an object',
      ],
    }).expect(201);
    expect(response.body.accepted).toBe(1);
    expect(response.body.rejected).toEqual([0, 2, 3, 4].map((index) => ({ index, code: 'validation_failed', message: expect.any(String) })));
    expect(response.body.rejected[0].message).toMatch(/clientReportId/);
    const rows = await sql<{ voters_so_far: number }>('select voters_so_far from gotv_turnout_reports where station_id = ? and voters_so_far in (1, 310, -5)', [theirs]);
    expect(rows).toEqual([{ voters_so_far: 310 }]);
    // Every item malformed: nothing to record, the standard problem with each item's reason.
    const none = await post(manager, { reports: [{ kind: 'voter', clientReportId: randomUUID() }] });
    expectProblem(none, 400, 'reports_rejected');
    expect(none.body.errors).toEqual([{ path: 'reports.0', message: expect.stringMatching(/^validation_failed: /) }]);
  });

  it('lets a brigade member report only for its stations and voters, item by item', async () => {
    const response = await post(member, {
      reports: [voted(voters[4]!), voted(foreignVoter), { kind: 'count', clientReportId: randomUUID(), pollingStationId: theirs, votersSoFar: 5 }],
    }).expect(201);
    expect(response.body).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        { index: 1, code: 'forbidden', message: expect.any(String) },
        { index: 2, code: 'forbidden', message: expect.any(String) },
      ],
    });
    expectProblem(await post(outsider, voted(voters[5]!)), 403, 'forbidden');
    const [voter] = await sql<{ status: string }>('select status from gotv_voters where id = ?', [voters[5]]);
    expect(voter!.status).toBe('pending');
  });

  it('rejects bad items with reasons and keeps the good ones', async () => {
    const duplicateId = randomUUID();
    const response = await post(manager, {
      reports: [
        { kind: 'voter', clientReportId: duplicateId, voterId: voters[5] },
        { kind: 'voter', clientReportId: duplicateId, voterId: voters[5] },
        { kind: 'voter', clientReportId: randomUUID(), voterId: '01960000-0000-7000-8000-000000000000' },
        { kind: 'voter', clientReportId: randomUUID(), voterId: voters[5], votedAt: new Date(Date.now() + 3600_000).toISOString() },
        { kind: 'count', clientReportId: randomUUID(), pollingStationId: ours, votersSoFar: 5000 },
        { kind: 'count', clientReportId: randomUUID(), pollingStationId: '01960000-0000-7000-8000-000000000000', votersSoFar: 1 },
      ],
    }).expect(201);
    expect(response.body.accepted).toBe(1);
    expect(response.body.rejected.map((item: { index: number; code: string }) => [item.index, item.code])).toEqual([
      [1, 'duplicate_in_batch'],
      [2, 'unknown_voter'],
      [3, 'future_time'],
      [4, 'count_above_registered'],
      [5, 'unknown_station'],
    ]);
  });

  it.each([
    ['a batch of 501', () => ({ reports: Array.from({ length: 501 }, () => voted(voters[0]!)) })],
    ['a wrong kind', () => ({ kind: 'guess', clientReportId: randomUUID() })],
    ['a malformed clientReportId', () => ({ kind: 'voter', clientReportId: 'abc', voterId: voters[0] })],
    ['a negative count', () => ({ kind: 'count', clientReportId: randomUUID(), pollingStationId: ours, votersSoFar: -1 })],
    ['both voterId and documentId', () => ({ kind: 'voter', clientReportId: randomUUID(), voterId: voters[0], documentId: '10000000' })],
  ])('answers %s with 400', async (_name, body) => {
    expectProblem(await post(manager, body()), 400);
  });

  it('refuses viewers and anonymous callers', async () => {
    expectProblem(await post(viewer, voted(voters[0]!)), 403);
    expectProblem(await app.http.post('/api/gotv/turnout').send(voted(voters[0]!)), 401);
    expectProblem(await post(manager, { kind: 'voter', clientReportId: randomUUID(), voterId: '01960000-0000-7000-8000-000000000000' }), 400, 'reports_rejected');
  });

  it('pushes accepted reports to the war room in batched messages', async () => {
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, ['gotv']);
      type Item = [kind: string, stationId: string, ...rest: unknown[]];
      const messages: { items: Item[] }[] = [];
      socket.on('gotv:turnout', (message: TurnoutMessage) => messages.push({ items: decodeTurnout(message) }));
      const batch = Array.from({ length: 20 }, (_, i) => ({ kind: 'count', clientReportId: randomUUID(), pollingStationId: ours, votersSoFar: 200 + i }));
      await post(manager, { reports: batch }).expect(201);
      // Earlier tests' reports may share the first window; ours are the counts 200–219.
      const mine = () =>
        messages.flatMap((message) => message.items).filter(([kind, stationId, , votersSoFar]) => kind === 'count' && stationId === ours && Number(votersSoFar) >= 200);
      await until(() => (mine().length === 20 ? true : undefined));
      // [kind, stationId, reportId, votersSoFar, flagged], in the order they were accepted.
      const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);
      expect(mine()).toEqual(batch.map((report) => ['count', ours, uuid, report.votersSoFar, false]));
      const reportIds = new Set(mine().map(([, , reportId]) => reportId));
      expect(reportIds.size).toBe(20);
      // A voter report: [kind, stationId, voterId].
      const newcomer = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Votante nuevo', documentId: '10000099', pollingStationId: ours }).expect(201)).body
        .id as string;
      await post(manager, voted(newcomer)).expect(201);
      const items = () => messages.flatMap((message) => message.items);
      await until(() => (items().some((item) => item[0] === 'voter' && item[2] === newcomer) ? true : undefined));
      expect(items().filter((item) => item[2] === newcomer)).toEqual([['voter', ours, newcomer]]);
      // Batched: the 20 counts of one request go out together, in one message.
      const carryingMine = messages.filter((message) =>
        message.items.some(([kind, stationId, , votersSoFar]) => kind === 'count' && stationId === ours && Number(votersSoFar) >= 200),
      );
      expect(carryingMine.length).toBe(1);
      expect(JSON.stringify(messages)).not.toMatch(/Votante/);
    } finally {
      socket.close();
    }
  });
});

describe('gotv:report over the socket', () => {
  it('takes the same reports as HTTP and answers in the ack', async () => {
    const phone = await connectSocket(app.url, member.token);
    const screen = await connectSocket(app.url, viewer.token);
    try {
      const report = { kind: 'count', clientReportId: randomUUID(), pollingStationId: ours, votersSoFar: 640 };
      expect(await phone.timeout(5000).emitWithAck('gotv:report', report)).toEqual({ ok: true, result: { accepted: 1, duplicates: 0, rejected: [] } });
      expect(await phone.timeout(5000).emitWithAck('gotv:report', { reports: [report] })).toEqual({ ok: true, result: { accepted: 0, duplicates: 1, rejected: [] } });
      const forbidden = await phone.timeout(5000).emitWithAck('gotv:report', { kind: 'count', clientReportId: randomUUID(), pollingStationId: theirs, votersSoFar: 1 });
      expect(forbidden).toEqual({ ok: true, result: { accepted: 0, duplicates: 0, rejected: [{ index: 0, code: 'forbidden', message: expect.any(String) }] } });
      expect(await phone.timeout(5000).emitWithAck('gotv:report', { kind: 'count' })).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
      // A batch: its malformed items are rejected by index, the others recorded.
      const mixed = await phone.timeout(5000).emitWithAck('gotv:report', {
        reports: [
          { kind: 'count', clientReportId: randomUUID(), pollingStationId: ours, votersSoFar: -1 },
          { ...report, clientReportId: randomUUID(), votersSoFar: 641 },
        ],
      });
      expect(mixed).toEqual({ ok: true, result: { accepted: 1, duplicates: 0, rejected: [{ index: 0, code: 'validation_failed', message: expect.any(String) }] } });
      expect(await screen.timeout(5000).emitWithAck('gotv:report', report)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    } finally {
      phone.close();
      screen.close();
    }
  });
});
