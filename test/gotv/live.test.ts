import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { station, territory, voter, type TerritoryOverrides } from '../helpers/factories';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { connectSocket, roundTrip, subscribe } from '../helpers/sockets';
import { projection } from '../../src/modules/gotv/gotv.live';
import { projectionClock, projectionSummary } from '../../src/modules/gotv/gotv.pushes';
import { voterVoteRows } from '../../src/modules/gotv/gotv.live.repository';
import { instantAt } from '../../src/kernel/calendar';
import { until } from '../helpers/wait';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let kennedy: string;
let stationA: string;
let stationB: string;

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date());

beforeAll(async () => {
  // Projection pushes a second apart (production: 5 s), so that the push tests take seconds.
  app = await startTestApp({ GOTV_PROJECTION_PUSH: '1s' });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  kennedy = (await territory(app, manager, { name: 'Kennedy', type: 'commune' })).id;
  stationA = (await station(app, manager, { code: 'A', name: 'Puesto A', lng: -74.15, territoryId: kennedy })).id;
  stationB = (await station(app, manager, { code: 'B', name: 'Puesto B', lng: -74.05 })).id;
  const voterIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    voterIds.push((await voter(app, manager, { name: `V${i}`, pollingStationId: stationA })).id);
  }
  await app.http
    .post('/api/gotv/turnout')
    .set(manager.auth)
    .send({
      reports: [
        { kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[0] },
        { kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[1] },
        { kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[2] },
        { kind: 'count', clientReportId: randomUUID(), pollingStationId: stationA, votersSoFar: 410 },
      ],
    })
    .expect(201);
});
afterAll(() => app.close());

describe('GOTV settings', () => {
  it('defaults to 08:00–16:00 with no date, and saves a valid day', async () => {
    expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body).toEqual({
      electionDate: null,
      opensAt: '08:00',
      closesAt: '16:00',
      turnoutCurve: null,
      curveHistory: [],
      previousTurnoutSpread: { day: 0.16, territory: 0.11, station: 0.12 },
      followingDays: [],
    });
    expectProblem(await app.http.get('/api/gotv/projection').set(viewer.auth), 409, 'election_date_not_set');
    const saved = await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
    expect(saved.body).toMatchObject({ electionDate: today(), opensAt: '08:00', closesAt: '16:00' });
  });

  it.each([
    [{ electionDate: '2026-13-01' }],
    [{ electionDate: '2026-11-22', opensAt: '25:00' }],
    [{ electionDate: '2026-11-22', opensAt: '16:00', closesAt: '08:00' }],
    [
      {
        electionDate: '2026-11-22',
        turnoutCurve: [
          { time: '08:00', fraction: 0 },
          { time: '12:00', fraction: 0.7 },
          { time: '14:00', fraction: 0.5 },
          { time: '16:00', fraction: 1 },
        ],
      },
    ],
  ])('rejects %j', async (body) => {
    expectProblem(await app.http.put('/api/gotv/settings').set(manager.auth).send(body), 400);
  });

  it('is changed by managers only', async () => {
    expectProblem(await app.http.put('/api/gotv/settings').set(viewer.auth).send({ electionDate: today() }), 403);
  });
});

describe('live map and projection', () => {
  it('serves GeoJSON with each station’s numbers and colour band', async () => {
    const map = await app.http.get('/api/gotv/live-map').set(viewer.auth).expect(200);
    expect(map.body.type).toBe('FeatureCollection');
    const a = map.body.features.find((feature: { properties: { id: string } }) => feature.properties.id === stationA);
    expect(a.geometry).toEqual({ type: 'Point', coordinates: [-74.15, 4.6] });
    expect(a.properties).toMatchObject({
      confirmedVoters: 4,
      confirmedVoted: 3,
      confirmedTurnoutPct: 75,
      lastCount: 410,
      stationTurnoutPct: 41,
      level: 'high',
      registeredVoters: 1000,
    });
    expect(a.properties.lastReportAt).toEqual(expect.any(String));
  });

  it('narrows by territory and bounding box', async () => {
    const byTerritory = await app.http.get(`/api/gotv/live-map?territoryId=${kennedy}`).set(viewer.auth).expect(200);
    expect(byTerritory.body.features.map((feature: { properties: { id: string } }) => feature.properties.id)).toEqual([stationA]);
    const byBox = await app.http.get('/api/gotv/live-map?bbox=-74.1,4.5,-74.0,4.7').set(viewer.auth).expect(200);
    expect(byBox.body.features.map((feature: { properties: { id: string } }) => feature.properties.id)).toEqual([stationB]);
    expectProblem(await app.http.get('/api/gotv/live-map?bbox=1,2,3').set(viewer.auth), 400);
    expectProblem(await app.http.get('/api/gotv/live-map?bbox=10,0,-10,1').set(viewer.auth), 400);
  });

  it('projects the day from the reports, with the shape the war room reads', async () => {
    const response = await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200);
    expect(response.body).toMatchObject({ method: expect.any(String), phase: expect.stringMatching(/before_open|open|closed/) });
    expect(response.body.overall).toMatchObject({ confirmedVoters: 4, confirmedVoted: 3, registeredVoters: 2000 });
    expect(response.body).not.toHaveProperty('stations');
    expectProblem(await app.http.get('/api/gotv/projection?territoryId=nope').set(viewer.auth), 400);
  });

  it('lists each station’s projection a page at a time, in id order, and narrows by territory', async () => {
    const first = await app.http.get('/api/gotv/projection/stations?limit=1').set(viewer.auth).expect(200);
    const [lower, higher] = [stationA, stationB].sort();
    expect(first.body.data).toEqual([expect.objectContaining({ id: lower, basis: expect.any(String), registeredVoters: expect.any(Number) })]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await app.http.get('/api/gotv/projection/stations').query({ limit: 1, cursor: first.body.nextCursor }).set(viewer.auth).expect(200);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: higher })], nextCursor: null });
    // The stations' figures add up to the overall projection's.
    const all = await app.http.get('/api/gotv/projection/stations').set(viewer.auth).expect(200);
    const overall = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body.overall;
    expect(all.body.data.reduce((sum: number, station: { registeredVoters: number }) => sum + station.registeredVoters, 0)).toBe(overall.registeredVoters);
    expect(all.body.data.reduce((sum: number, station: { votersSoFar: number }) => sum + station.votersSoFar, 0)).toBe(overall.votersSoFar);
    const kennedyOnly = await app.http.get(`/api/gotv/projection/stations?territoryId=${kennedy}`).set(viewer.auth).expect(200);
    expect(kennedyOnly.body).toEqual({ data: [expect.objectContaining({ id: stationA, territoryId: kennedy })], nextCursor: null });
    // Bad paging and filters get a 400; the list is for the same staff as the projection.
    for (const query of [
      'limit=0',
      'limit=201',
      'cursor=bad*cursor',
      `cursor=${Buffer.from('[1,2]').toString('base64url')}`,
      `cursor=${Buffer.from('[7]').toString('base64url')}`,
      'territoryId=nope',
    ]) {
      expectProblem(await app.http.get(`/api/gotv/projection/stations?${query}`).set(viewer.auth), 400);
    }
    expectProblem(await app.http.get('/api/gotv/projection/stations').set((await createUser(app, admin, 'brigade')).auth), 403);
    expectProblem(await app.http.get('/api/gotv/projection/stations'), 401);
  });

  it('is for staff who watch the war room', async () => {
    const brigade = await createUser(app, admin, 'brigade');
    expectProblem(await app.http.get('/api/gotv/live-map').set(brigade.auth), 403);
    expectProblem(await app.http.get('/api/gotv/projection'), 401);
  });
});

describe('GET /api/gotv/dashboard', () => {
  it('sums stations, confirmed voters, reports and the projection', async () => {
    const dashboard = await app.http.get('/api/gotv/dashboard').set(viewer.auth).expect(200);
    expect(dashboard.body.stations).toEqual({ pending: 2, open: 0, closed: 0, incident: 0 });
    expect(dashboard.body.voters).toEqual({ confirmed: 4, voted: 3, pending: 1, turnoutPct: 75 });
    expect(dashboard.body.hourly.reduce((sum: number, row: { voterReports: number }) => sum + row.voterReports, 0)).toBe(3);
    expect(dashboard.body.byTerritory).toEqual([{ territoryId: kennedy, name: 'Kennedy', assigned: 4, voted: 3, pending: 1 }]);
    expect(dashboard.body.byBrigade).toEqual([{ brigadeId: null, name: 'Sin brigada', assigned: 4, voted: 3, pending: 1 }]);
    expect(dashboard.body.mostPending).toEqual([{ stationId: stationA, code: 'A', name: 'Puesto A', pending: 1 }]);
    expect(dashboard.body.projection).toMatchObject({ phase: expect.any(String) });
    expectProblem(await app.http.get('/api/gotv/dashboard').set((await createUser(app, admin, 'brigade')).auth), 403);
  });
});

describe('gotv:projection pushes', () => {
  it('recomputes after reports and pushes no more often than GOTV_PROJECTION_PUSH', async () => {
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, ['gotv']);
      type Push = { generatedAt: string; overall: Record<string, number>; stations?: unknown; curve: unknown; byTerritory?: unknown };
      const pushes: Push[] = [];
      socket.on('gotv:projection', (push: Push) => pushes.push(push));
      // Twenty reports over about three seconds: a push follows the first, the rest wait for the interval.
      for (let i = 0; i < 20; i++) {
        await app.http
          .post('/api/gotv/turnout')
          .set(manager.auth)
          .send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: stationB, votersSoFar: 100 + i })
          .expect(201);
        // Pacing: reports spread over about three seconds (the push interval is the subject).
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      // The push that follows the last report, however long the machine takes to make it.
      const last = await until(() => {
        const latest = pushes.at(-1);
        return pushes.length >= 2 && latest?.overall.votersSoFar === 410 + 119 ? latest : undefined;
      }, 8000);
      expect(pushes.length).toBeLessThan(8);
      const times = pushes.map((push) => Date.parse(push.generatedAt));
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);
      expect(last.overall.registeredVoters).toBe(2000);
      expect(last.overall.votersSoFar).toBe(410 + 119);
      // A summary of a size that does not grow with the day: per-territory and per-station figures
      // are read over REST, and the overall figures agree with it.
      expect(last.stations).toBeUndefined();
      expect(last.byTerritory).toBeUndefined();
      expect(last.curve).toMatchObject({ points: expect.any(Array) });
      const rest = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body;
      for (const field of ['confirmedVoters', 'confirmedVoted', 'registeredVoters', 'votersSoFar']) expect(last.overall[field]).toBe(rest.overall[field]);
    } finally {
      socket.close();
    }
  });
});

describe('gotv:station figures', () => {
  it("pushes a station's new figures to its room after reports, as the live map gives them", async () => {
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, [`gotv:station:${stationB}`]);
      const pushes: Record<string, unknown>[] = [];
      socket.on('gotv:station', (event: Record<string, unknown>) => pushes.push(event));
      for (let i = 0; i < 10; i++) {
        await app.http
          .post('/api/gotv/turnout')
          .set(manager.auth)
          .send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: stationB, votersSoFar: 700 + i })
          .expect(201);
      }
      const last = await until(() => pushes.find((event) => event.lastCount === 709), 4000);
      // Throttled: ten reports, a push or two (at most one a second).
      expect(pushes.length).toBeLessThanOrEqual(3);
      const map = (await app.http.get('/api/gotv/live-map').set(viewer.auth).expect(200)).body as {
        features: { geometry: { coordinates: number[] }; properties: Record<string, unknown> }[];
      };
      const feature = map.features.find((candidate) => candidate.properties.id === stationB)!;
      expect(last).toEqual({ ...feature.properties, lng: feature.geometry.coordinates[0], lat: feature.geometry.coordinates[1] });
      expect(last).toMatchObject({ id: stationB, lastCount: 709, stationTurnoutPct: 70.9 });
    } finally {
      socket.close();
    }
  });

  it("tells a station's room about voters who voted there, and not other stations' rooms", async () => {
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, [`gotv:station:${stationA}`]);
      const pushes: { id: string; confirmedVoted: number; confirmedVoters: number }[] = [];
      socket.on('gotv:station', (event: { id: string; confirmedVoted: number; confirmedVoters: number }) => pushes.push(event));
      const voterA = (await voter(app, manager, { name: 'Votante A', pollingStationId: stationA })).id;
      await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId: randomUUID(), voterId: voterA }).expect(201);
      const pushed = await until(() => pushes.find((event) => event.confirmedVoters === 5), 4000);
      expect(pushed).toMatchObject({ id: stationA, confirmedVoted: 4, confirmedVoters: 5, level: 'high' });
      // Station B's push reaches B's room (a second screen); this process emits it once to that room,
      // so a round trip on A's screen shows whether A's room was sent it too.
      const other = await connectSocket(app.url, viewer.token);
      try {
        await subscribe(other, [`gotv:station:${stationB}`]);
        const heardB: { id: string }[] = [];
        other.on('gotv:station', (event: { id: string }) => heardB.push(event));
        await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: stationB, votersSoFar: 720 }).expect(201);
        await until(() => heardB.some((event) => event.id === stationB), 10_000, "station B's push");
        await roundTrip(socket);
      } finally {
        other.close();
      }
      expect(pushes.every((event) => event.id === stationA)).toBe(true);
    } finally {
      socket.close();
    }
  });
});

describe('the projection follows the clock', () => {
  it('pushes an open day without reports, and once more when the day closes, in agreement with REST', async () => {
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), opensAt: '00:00', closesAt: '23:59' }).expect(200);
    const socket = await connectSocket(app.url, viewer.token);
    // A fast clock: ticks every 100 ms, an open day pushed every 300 ms (production: 15 s and a minute).
    const clock = projectionClock(app.runtime.deps, 100, 300);
    try {
      await subscribe(socket, ['gotv']);
      type Push = { generatedAt: string; phase: string; elapsedFraction: number; overall: Record<string, number> };
      const pushes: Push[] = [];
      socket.on('gotv:projection', (push: Push) => pushes.push(push));
      const open = await until(() => pushes.find((push) => push.phase === 'open'), 4000);
      // What REST computes for the same instant is what was pushed.
      const atThatInstant = projectionSummary(await projection(app.runtime.deps.db, 'America/Bogota', {}, { now: new Date(open.generatedAt) }));
      expect(JSON.parse(JSON.stringify(atThatInstant))).toEqual(open);
      // The day ends (here: the date moves to yesterday) and the screens hear it without a report.
      const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date(Date.now() - 86_400_000));
      await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: yesterday }).expect(200);
      const closed = await until(() => pushes.find((push) => push.phase === 'closed'), 4000);
      expect(closed.elapsedFraction).toBe(1);
    } finally {
      await clock.stop();
      socket.close();
      await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
    }
  });
});

describe('the learned curve, its explanation and its history', () => {
  const yesterday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date(Date.now() - 86_400_000));
  /** An instant yesterday at local HH:MM (Bogotá is UTC−5 all year). */
  const yesterdayAt = (time: string) => new Date(`${yesterday()}T${time}:00-05:00`).toISOString();

  it('explains the projection: the curve with its band, the nominal coverage and the reporting delay, overall and per territory', async () => {
    const body = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body;
    expect(body).toMatchObject({ method: 'learned-curve/v3', coverage: 0.9, curveSource: 'default', warnings: expect.any(Array) });
    // Three supporters' reports are too few to tell the delay.
    expect(body.lagMinutes).toBeNull();
    expect(body.curve.points.map((p: { time: string }) => p.time)).toEqual(['08:00', '09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00']);
    for (const point of body.curve.points) expect(point.low <= point.fraction && point.fraction <= point.high).toBe(true);
    // Two stations are too few for a territory's own curve: each follows the day's, given once above.
    for (const territory of body.byTerritory) expect(territory).toMatchObject({ coverage: 0.9, lagMinutes: null, curve: null });
    // A territory's projection sums its stations only; the curve is learned from every station's counts.
    const kennedyOnly = (await app.http.get(`/api/gotv/projection?territoryId=${kennedy}`).set(viewer.auth).expect(200)).body;
    expect(kennedyOnly.byTerritory.map((t: { territoryId: string }) => t.territoryId)).toEqual([kennedy]);
    expect(kennedyOnly.overall.registeredVoters).toBe(1000);
  });

  it('learns from supporters’ vote times, leaving out those a brigade called before they voted', async () => {
    const voter = async (documentId: string) =>
      (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: documentId, documentId, pollingStationId: stationB }).expect(201)).body.id as string;
    const flow = async () => {
      const now = new Date();
      const rows = await voterVoteRows(app.runtime.deps.db, instantAt(today(), 0, 'America/Bogota'), now, now);
      const votesIn = (territoryId: string | null) => rows.filter((row) => row.territory_id === territoryId).reduce((sum, row) => sum + row.n, 0);
      return { kennedy: votesIn(kennedy), none: votesIn(null) };
    };
    const before = await flow();
    const [called, organic] = [await voter('40000001'), await voter('40000002')];
    await app.http.post(`/api/gotv/voters/${called}/contacts`).set(manager.auth).send({ outcome: 'on_the_way' }).expect(201);
    await app.http
      .post('/api/gotv/turnout')
      .set(manager.auth)
      .send({ reports: [called, organic].map((voterId) => ({ kind: 'voter', clientReportId: randomUUID(), voterId })) })
      .expect(201);
    // Station B (no territory) had two supporters vote: only the one nobody called is in the flow.
    expect(before.kennedy).toBeGreaterThanOrEqual(3);
    expect(await flow()).toEqual({ kennedy: before.kennedy, none: before.none + 1 });
    const body = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body;
    // A handful of votes is too few for a bin of the flow (10): the curve says how many it was fitted with.
    expect(body.curve.supporterVotes).toBe(0);
  });

  it('keeps past days’ curves in the settings: kept when a PUT leaves them out, cleared with [], checked like any curve', async () => {
    const curveHistory = [
      {
        label: '2022 presidencial',
        electionDate: '2022-05-29',
        turnoutCurve: [
          { time: '08:00', fraction: 0 },
          { time: '12:00', fraction: 0.5 },
          { time: '16:00', fraction: 1 },
        ],
      },
    ];
    const saved = await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), curveHistory }).expect(200);
    expect(saved.body).toMatchObject({ turnoutCurve: null, curveHistory });
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
    expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body.curveHistory).toEqual(curveHistory);
    // With no configured curve, the history's mean is the prior.
    const projected = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body;
    expect(projected.curveSource).toBe('history');
    expect(projected.curve.points.find((p: { time: string }) => p.time === '12:00').prior).toBe(0.5);
    const broken = [
      {
        label: 'roto',
        turnoutCurve: [
          { time: '08:00', fraction: 0 },
          { time: '12:00', fraction: 0.7 },
          { time: '14:00', fraction: 0.5 },
          { time: '16:00', fraction: 1 },
        ],
      },
    ];
    expectProblem(await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), curveHistory: broken }), 400);
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), curveHistory: [] }).expect(200);
    expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body.curveHistory).toEqual([]);
  });

  it('keeps how far turnout may stray from the previous one: kept when left out, null restores the defaults, bad values 400', async () => {
    const previousTurnoutSpread = { day: 0.2, territory: 0.05, station: 0.15 };
    const saved = await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), previousTurnoutSpread }).expect(200);
    expect(saved.body.previousTurnoutSpread).toEqual(previousTurnoutSpread);
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
    expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body.previousTurnoutSpread).toEqual(previousTurnoutSpread);
    for (const bad of [
      { day: 0, territory: 0.05, station: 0.1 },
      { day: 0.1, territory: 0.05 },
      { day: 'wide', territory: 0.05, station: 0.1 },
      { day: 2, territory: 0.05, station: 0.1 },
    ]) {
      const body = expectProblem(await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), previousTurnoutSpread: bad }), 400);
      expect(JSON.stringify(body.errors)).toContain('previousTurnoutSpread');
    }
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), previousTurnoutSpread: null }).expect(200);
    expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body.previousTurnoutSpread).toEqual({ day: 0.16, territory: 0.11, station: 0.12 });
    await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200);
  });

  it('derives a past day’s curve from the counts kept for it, ready to store as history', async () => {
    // Yesterday at two stations: one along the default curve, one later; both read after closing.
    const days = [
      {
        station: stationA,
        counts: [
          ['09:00', 48],
          ['10:00', 114],
          ['12:00', 276],
          ['14:00', 426],
          ['16:10', 600],
        ],
      },
      {
        station: stationB,
        counts: [
          ['09:00', 20],
          ['11:00', 90],
          ['13:00', 200],
          ['15:00', 330],
          ['16:10', 500],
        ],
      },
    ] as const;
    for (const { station, counts } of days) {
      await app.http
        .post('/api/gotv/turnout')
        .set(manager.auth)
        .send({
          reports: counts.map(([time, votersSoFar]) => ({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station, votersSoFar, reportedAt: yesterdayAt(time) })),
        })
        .expect(201);
    }
    const derived = (await app.http.get(`/api/gotv/day-curve?date=${yesterday()}`).set(viewer.auth).expect(200)).body;
    expect(derived).toMatchObject({ date: yesterday(), countedStations: 2, closedStations: 2 });
    const fractions = derived.turnoutCurve.map((p: { fraction: number }) => p.fraction);
    expect(fractions[0]).toBe(0);
    expect(fractions[fractions.length - 1]).toBe(1);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1]);
    // By noon the two stations had 276/600 and ≈ 145/500 of their day: together about 38 %.
    const noon = derived.turnoutCurve.find((p: { time: string }) => p.time === '12:00').fraction;
    expect(noon).toBeGreaterThan(0.3);
    expect(noon).toBeLessThan(0.46);
    await app.http
      .put('/api/gotv/settings')
      .set(manager.auth)
      .send({ electionDate: today(), curveHistory: [{ label: 'ayer', electionDate: yesterday(), turnoutCurve: derived.turnoutCurve }] })
      .expect(200);
    expectProblem(await app.http.get('/api/gotv/day-curve?date=ayer').set(viewer.auth), 400);
    expectProblem(await app.http.get(`/api/gotv/day-curve?date=${yesterday()}`).set((await createUser(app, admin, 'brigade')).auth), 403);
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today(), curveHistory: [] }).expect(200);
  });

  it('derives a past day’s curve from its supporters’ vote times too, never from a rehearsal’s', async () => {
    const votedYesterday = async (station: string, times: string[], first: number) => {
      const ids: string[] = [];
      for (const [i] of times.entries()) {
        const documentId = String(50_000_000 + first + i);
        ids.push((await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: documentId, documentId, pollingStationId: station }).expect(201)).body.id);
      }
      const reports = ids.map((voterId, i) => ({ kind: 'voter', clientReportId: randomUUID(), voterId, votedAt: yesterdayAt(times[i]!) }));
      const answer = (await app.http.post('/api/gotv/turnout').set(manager.auth).send({ reports }).expect(201)).body;
      expect(answer).toMatchObject({ accepted: ids.length, rejected: [] });
    };
    const minutes = (hour: string, from: number) => Array.from({ length: 12 }, (_, i) => `${hour}:${String(from + i).padStart(2, '0')}`);
    // Yesterday was election day (a first round): its supporters' reports came in that day.
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: yesterday() }).expect(200);
    await votedYesterday(stationA, [...minutes('09', 5), ...minutes('10', 35)], 0);
    // Today is: reports dated yesterday are now a rehearsal's, which never shape a curve.
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
    await votedYesterday(stationB, minutes('12', 5), 100);
    const derived = (await app.http.get(`/api/gotv/day-curve?date=${yesterday()}`).set(viewer.auth).expect(200)).body;
    // 09:00–09:30 and 10:30–11:00, twelve votes each.
    expect(derived.curve.supporterVotes).toBe(24);
  });
});

describe('polls over several days', () => {
  const dayOffset = (days: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date(Date.now() + days * 86_400_000));

  it('keeps later polling days in the settings, checks them, and projects across the night', async () => {
    // Opened yesterday and open all of today: whatever the hour, the polls are open now.
    const body = { electionDate: dayOffset(-1), opensAt: '07:00', closesAt: '23:00', followingDays: [{ date: today(), opensAt: '00:00', closesAt: '23:59' }] };
    const saved = (await app.http.put('/api/gotv/settings').set(manager.auth).send(body).expect(200)).body;
    expect(saved.followingDays).toEqual(body.followingDays);
    expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body.followingDays).toEqual(body.followingDays);
    const projection = (await app.http.get('/api/gotv/projection').set(viewer.auth).expect(200)).body;
    expect(projection.phase).toBe('open');
    expect(projection.curveSource).toBe('default');

    for (const bad of [
      { followingDays: [{ date: dayOffset(-1), opensAt: '07:00', closesAt: '15:00' }] },
      { followingDays: [{ date: today(), opensAt: '15:00', closesAt: '07:00' }] },
      { followingDays: [{ date: today(), opensAt: '7:00', closesAt: '15:00' }] },
      { followingDays: [{ date: 'lunes', opensAt: '07:00', closesAt: '15:00' }] },
      {
        followingDays: [
          { date: dayOffset(1), opensAt: '07:00', closesAt: '15:00' },
          { date: today(), opensAt: '07:00', closesAt: '15:00' },
        ],
      },
      {
        followingDays: [{ date: today(), opensAt: '07:00', closesAt: '15:00' }],
        turnoutCurve: [
          { time: '07:00', fraction: 0 },
          { time: '23:00', fraction: 1 },
        ],
      },
    ]) {
      const problem = expectProblem(
        await app.http
          .put('/api/gotv/settings')
          .set(manager.auth)
          .send({ ...body, ...bad }),
        400,
      );
      expect(JSON.stringify(problem.errors)).toMatch(/followingDays|turnoutCurve/);
    }

    // Without a date in the body, later days are checked against the campaign's stored one.
    const { electionDate: _kept, ...withoutDate } = body;
    const refused = expectProblem(
      await app.http
        .put('/api/gotv/settings')
        .set(manager.auth)
        .send({ ...withoutDate, followingDays: [{ date: dayOffset(-2), opensAt: '07:00', closesAt: '15:00' }] }),
      400,
    );
    expect(JSON.stringify(refused.errors)).toMatch(/followingDays/);
    expect((await app.http.put('/api/gotv/settings').set(manager.auth).send(withoutDate).expect(200)).body).toMatchObject({
      electionDate: body.electionDate,
      followingDays: body.followingDays,
    });

    // Election day only again: omitted (or []) means no later day.
    const single = (await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200)).body;
    expect(single.followingDays).toEqual([]);
  });
});

describe('the projection per territory', () => {
  it('sums each territory with everything inside it: the top level unfiltered, the children of the one asked about', async () => {
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
    const place = async (name: string, type: TerritoryOverrides['type'], parentId?: string) => (await territory(app, manager, { name, type, parentId })).id;
    const antioquia = await place('Antioquia', 'department');
    const medellin = await place('Medellín', 'municipality', antioquia);
    const comuna = await place('La Candelaria', 'commune', medellin);
    const placed = async (code: string, territoryId: string) =>
      (await station(app, manager, { code, name: `Puesto ${code}`, lat: 6.25, lng: -75.56, registeredVoters: 700, territoryId })).id;
    await placed('ANT-1', comuna);
    await placed('ANT-2', medellin);
    const registeredIn = async (query: string) =>
      Object.fromEntries(
        ((await app.http.get(`/api/gotv/projection${query}`).set(viewer.auth).expect(200)).body.byTerritory as { territoryId: string | null; registeredVoters: number }[]).map(
          (row) => [row.territoryId, row.registeredVoters],
        ),
      );
    // Unfiltered: the comuna's and the municipio's stations both under the departamento.
    expect(await registeredIn('')).toMatchObject({ [antioquia]: 1400, [kennedy]: 1000 });
    expect(Object.keys(await registeredIn(''))).not.toContain(comuna);
    // Asked about the departamento: its municipio; about the municipio: the comuna, and itself for the station placed in it.
    expect(await registeredIn(`?territoryId=${antioquia}`)).toEqual({ [medellin]: 1400 });
    expect(await registeredIn(`?territoryId=${medellin}`)).toEqual({ [comuna]: 700, [medellin]: 700 });
  });
});
