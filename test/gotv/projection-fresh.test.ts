import { randomUUID } from 'node:crypto';
import { projection } from '../../src/modules/gotv/gotv.live';
import * as repository from '../../src/modules/gotv/gotv.live.repository';
import { startTestApp, type TestApp } from '../helpers/app';
import { openPollsSettings } from '../helpers/factories';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

/**
 * Read-after-write for the projection: a GET made after a batch of reports was answered, and the
 * first push after it, include every one of them (counts, the supporters' flow, the reporting
 * delay), however recently the process computed a projection before the batch.
 */

const TIME_ZONE = 'America/Bogota';
const STATIONS = 6;
const VOTERS = 36;

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
const stationIds: string[] = [];
const voterIds: string[] = [];

interface Figures {
  generatedAt: string;
  phase: string;
  lagMinutes: number | null;
  overall: { reportingStations: number; confirmedVoted: number; votersSoFar: number } & Record<string, unknown>;
}

beforeAll(async () => {
  // No workers: no clock pushes the projection on its own, so the one push is the reports'.
  app = await startTestApp({ GOTV_PROJECTION_PUSH: '1s' }, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  for (let i = 0; i < STATIONS; i++) {
    const body = { code: `F${i}`, name: `Puesto F${i}`, lat: 4.6, lng: -74.1 + i / 100, tables: 5, registeredVoters: 1000 };
    stationIds.push((await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(body).expect(201)).body.id as string);
  }
  const lines = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  for (let i = 0; i < VOTERS; i++) lines.push(`Votante ${i},${60_000_000 + i},,F${i % STATIONS},1,normal`);
  await app.http
    .post('/api/gotv/voters/import')
    .set(manager.auth)
    .set('Content-Type', 'text/csv')
    .send(`${lines.join('\n')}\n`)
    .expect(200);
  const rows = await app.runtime.deps.orm.em.fork().execute<{ id: string }[]>('select id from gotv_voters order by document_id');
  voterIds.push(...rows.map((row) => row.id));
  // Open for over an hour and for a while yet, whatever the hour.
  await app.http.put('/api/gotv/settings').set(manager.auth).send(openPollsSettings()).expect(200);
});
afterAll(() => app.close());

it('a GET right after reports, and the first push after them, include every one of them', async () => {
  const socket = await connectSocket(app.url, viewer.token);
  try {
    await subscribe(socket, ['gotv']);
    const pushes: Figures[] = [];
    socket.on('gotv:projection', (push: Figures) => pushes.push(push));
    // The process has just made a projection (its fit, the flow and the delays) from none of them.
    const before = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body as Figures;
    expect(before.phase).toBe('open');
    expect(before.overall).toMatchObject({ reportingStations: 0, confirmedVoted: 0 });
    expect(before.lagMinutes).toBeNull();

    const now = Date.now();
    const reports = [
      ...stationIds.map((pollingStationId, i) => ({ kind: 'count', clientReportId: randomUUID(), pollingStationId, votersSoFar: 200 + i })),
      // Each voted three minutes before the phone reported it: enough reports (30) to tell the delay.
      ...voterIds.map((voterId) => ({ kind: 'voter', clientReportId: randomUUID(), voterId, votedAt: new Date(now - 3 * 60_000).toISOString() })),
    ];
    const answer = await app.http.post('/api/gotv/turnout').set(manager.auth).send({ reports }).expect(201);
    expect(answer.body).toEqual({ accepted: STATIONS + VOTERS, duplicates: 0, rejected: [] });

    const after = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body as Figures;
    expect(after.overall).toMatchObject({ reportingStations: STATIONS, confirmedVoted: VOTERS, votersSoFar: STATIONS * 200 + 15 });
    expect(after.lagMinutes).toEqual(expect.any(Number));
    // The same answer as a projection computed afresh, with nothing kept, for that instant.
    const afresh = await projection(app.runtime.deps.db, TIME_ZONE, {}, { now: new Date(after.generatedAt) });
    expect(after).toEqual(JSON.parse(JSON.stringify(afresh)));

    const pushed = await until(() => pushes[0], 8000);
    expect(pushes).toHaveLength(1);
    expect(pushed.overall).toMatchObject({ reportingStations: STATIONS, confirmedVoted: VOTERS });
    expect(pushed.lagMinutes).toBe(after.lagMinutes);
  } finally {
    socket.close();
  }
});

it('screens reloading at once share the reads of the flow and the delays: at most three, whatever their number', async () => {
  const voter = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Votante tarde', documentId: '60009999', pollingStationId: stationIds[0] }).expect(201))
    .body.id as string;
  await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId: randomUUID(), voterId: voter }).expect(201);
  const lagReads = jest.spyOn(repository, 'voterLagRows');
  const flowReads = jest.spyOn(repository, 'voterVoteRows');
  try {
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 20 }, () => app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)));
    for (const answer of answers) expect(answer.body.overall.confirmedVoted).toBe(VOTERS + 1);
    // A read serves every request for 15 s after it began (VOTES_REFRESH_MS), with at most one
    // older read still under way, and the push the report set off (within a second) may read on its own: three
    // reads for twenty requests, and one more per 15 s a slow machine takes to answer.
    const allowed = 2 + Math.ceil((Date.now() - started) / 15_000);
    expect(lagReads.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(lagReads.mock.calls.length).toBeLessThanOrEqual(allowed);
    expect(flowReads.mock.calls.length).toBeLessThanOrEqual(allowed);
    // Nothing reported since: the next reads are kept ones.
    lagReads.mockClear();
    await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200);
    expect(lagReads).not.toHaveBeenCalled();
  } finally {
    lagReads.mockRestore();
    flowReads.mockRestore();
  }
});
