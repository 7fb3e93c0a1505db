import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Response } from 'superagent';
import { startTestApp, type TestApp } from '../helpers/app';
import { FILE_STORES, fileStoreEnv, storedNames } from '../helpers/file-stores';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let member: TestUser;
let covered: string;
let other: string;
let colleague: TestUser;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-incidents-'));

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0 a photo of the queue')]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR a png photo')]);

/** Reads a binary answer into a Buffer. */
function binary(response: Response, done: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => done(null, Buffer.concat(chunks)));
}

const countRows = async (table: string, where: string, values: unknown[]) =>
  (await app.runtime.deps.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from ${table} where ${where}`, values))[0]!.n;

const incident = (pollingStationId: string, overrides: Record<string, unknown> = {}) => ({
  pollingStationId,
  type: 'vote_buying',
  severity: 'high',
  description: 'Compra de votos en la entrada',
  ...overrides,
});

describe.each(FILE_STORES)('on the %s file store', (store) => {
  beforeAll(async () => {
    app = await startTestApp({ DATA_DIR: dataDir, ...(await fileStoreEnv(store)) });
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    viewer = await createUser(app, admin, 'viewer');
    member = await createUser(app, admin, 'brigade');
    colleague = await createUser(app, admin, 'brigade');
    const station = async (code: string) =>
      (
        await app.http
          .post('/api/gotv/polling-stations')
          .set(manager.auth)
          .send({ code, name: code, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000, status: 'open' })
          .expect(201)
      ).body.id as string;
    covered = await station('COVERED');
    other = await station('OTHER');
    await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'B1', memberIds: [member.id, colleague.id], stationIds: [covered] })
      .expect(201);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe('incidents', () => {
    it('turns the station red and tells the war room', async () => {
      const socket = await connectSocket(app.url, viewer.token);
      try {
        await subscribe(socket, ['gotv']);
        const alert = nextEvent<{ stationId: string; severity: string }>(socket, 'gotv:incident');
        const created = await app.http.post('/api/gotv/incidents').set(member.auth).send(incident(covered)).expect(201);
        expect(created.body).toMatchObject({ pollingStationId: covered, type: 'vote_buying', severity: 'high', reportedBy: member.id });
        expect(await alert).toMatchObject({ stationId: covered, severity: 'high', photo: false });
        const station = await app.http.get(`/api/gotv/polling-stations/${covered}`).set(viewer.auth).expect(200);
        expect(station.body.status).toBe('incident');
      } finally {
        socket.close();
      }
    });

    it('keeps brigade members to their own stations', async () => {
      expectProblem(await app.http.post('/api/gotv/incidents').set(member.auth).send(incident(other)), 403);
      expectProblem(await app.http.post('/api/gotv/incidents').set(viewer.auth).send(incident(other)), 403);
      expectProblem(await app.http.post('/api/gotv/incidents').send(incident(other)), 401);
      const station = await app.http.get(`/api/gotv/polling-stations/${other}`).set(viewer.auth).expect(200);
      expect(station.body.status).toBe('open');
    });

    it.each([
      [{ type: 'alien_invasion' }, 'body.type'],
      [{ severity: 'extreme' }, 'body.severity'],
      [{ description: '' }, 'body.description'],
      [{ pollingStationId: '01960000-0000-7000-8000-000000000000' }, 'body.pollingStationId'],
    ])('rejects %j with 400', async (overrides, path) => {
      const problem = expectProblem(await app.http.post('/api/gotv/incidents').set(manager.auth).send(incident(other, overrides)), 400);
      expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    });

    it('answers a resent incident (same clientId) with the first one, and tells the war room once', async () => {
      const clientId = randomUUID();
      const first = await app.http.post('/api/gotv/incidents').set(member.auth).send(incident(covered, { clientId })).expect(201);
      expect(first.body.photo).toBeNull();
      const again = await app.http
        .post('/api/gotv/incidents')
        .set(member.auth)
        .send(incident(covered, { clientId, description: 'Otra vez lo mismo' }))
        .expect(200);
      expect(again.body).toEqual(first.body);
      const together = await Promise.all([0, 1, 2].map(() => app.http.post('/api/gotv/incidents').set(member.auth).send(incident(covered, { clientId }))));
      expect(together.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(await countRows('gotv_incidents', 'client_id = ?', [clientId])).toBe(1);
      // Three copies of a new report at once: one recorded, the others answered with it.
      const racing = randomUUID();
      const raced = await Promise.all(
        [0, 1, 2].map(() =>
          app.http
            .post('/api/gotv/incidents')
            .set(member.auth)
            .send(incident(covered, { clientId: racing })),
        ),
      );
      expect(raced.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(raced.map((answer) => answer.body.id)).size).toBe(1);
      expect(await countRows('gotv_incidents', 'client_id = ?', [racing])).toBe(1);
      // Unique per reporter: a colleague's phone may make the same id.
      await app.http.post('/api/gotv/incidents').set(colleague.auth).send(incident(covered, { clientId })).expect(201);
      expect(await countRows('gotv_incidents', 'client_id = ?', [clientId])).toBe(2);
      expectProblem(
        await app.http
          .post('/api/gotv/incidents')
          .set(manager.auth)
          .send(incident(other, { clientId: 'nope' })),
        400,
      );
      const managerId = randomUUID();
      await app.http
        .post('/api/gotv/incidents')
        .set(manager.auth)
        .send(incident(other, { clientId: managerId }))
        .expect(201);
      expectProblem(
        await app.http
          .post('/api/gotv/incidents')
          .set(manager.auth)
          .send(incident(covered, { clientId: managerId })),
        409,
        'client_id_reused',
      );
    });

    it('stores a photo checked by its bytes, for its reporter or a manager, and gives it to staff and the reporter', async () => {
      const created = (await app.http.post('/api/gotv/incidents').set(member.auth).send(incident(covered)).expect(201)).body;
      const url = `/api/gotv/incidents/${created.id}/photo`;
      expectProblem(await app.http.get(url).set(viewer.auth), 404);

      const socket = await connectSocket(app.url, viewer.token);
      try {
        await subscribe(socket, ['gotv']);
        const marked = nextEvent<{ id: string; photo: boolean }>(socket, 'gotv:incident');
        const uploaded = await app.http.put(url).set(member.auth).set('Content-Type', 'image/jpeg').send(JPEG).expect(200);
        expect(uploaded.body).toMatchObject({ id: created.id, photo: { type: 'image/jpeg', size: JPEG.length } });
        expect(await marked).toMatchObject({ id: created.id, photo: true });
      } finally {
        socket.close();
      }
      const uploaded = await app.http.put(url).set(member.auth).set('Content-Type', 'image/jpeg').send(JPEG).expect(200);
      expect(uploaded.body).toMatchObject({ id: created.id, photo: { type: 'image/jpeg', size: JPEG.length } });
      for (const reader of [viewer, manager, member]) {
        const back = await app.http.get(url).set(reader.auth).buffer(true).parse(binary).expect(200);
        expect(back.headers['content-type']).toBe('image/jpeg');
        expect(back.body).toEqual(JPEG);
      }
      expectProblem(await app.http.get(url).set(colleague.auth), 403);
      expectProblem(await app.http.get(url), 401);

      // A manager may replace it; the list shows the new one.
      await app.http.put(url).set(manager.auth).set('Content-Type', 'image/png').send(PNG).expect(200);
      const png = await app.http.get(url).set(viewer.auth).buffer(true).parse(binary).expect(200);
      expect(png.headers['content-type']).toBe('image/png');
      expect(png.body).toEqual(PNG);

      expectProblem(await app.http.put(url).set(member.auth).set('Content-Type', 'image/png').send(JPEG), 415, 'photo_type_mismatch');
      expectProblem(await app.http.put(url).set(member.auth).set('Content-Type', 'image/jpeg').send(Buffer.from('MZ not an image')), 415, 'photo_type_mismatch');
      expectProblem(await app.http.put(url).set(member.auth).set('Content-Type', 'text/plain').send('hello'), 415, 'unsupported_media_type');
      expectProblem(await app.http.put(url).set(member.auth).set('Content-Type', 'image/jpeg').send(Buffer.alloc(0)), 400, 'empty_body');
      expectProblem(
        await app.http
          .put(url)
          .set(member.auth)
          .set('Content-Type', 'image/jpeg')
          .send(Buffer.concat([JPEG, Buffer.alloc(2 * 1024 * 1024)])),
        413,
        'payload_too_large',
      );
      // Not the reporter (a colleague of the same brigade), not a reporting role, not signed in.
      expectProblem(await app.http.put(url).set(colleague.auth).set('Content-Type', 'image/jpeg').send(JPEG), 403);
      expectProblem(await app.http.put(url).set(viewer.auth).set('Content-Type', 'image/jpeg').send(JPEG), 403);
      expectProblem(await app.http.put(url).set('Content-Type', 'image/jpeg').send(JPEG), 401);
      const unknown = '/api/gotv/incidents/01960000-0000-7000-8000-000000000000/photo';
      expectProblem(await app.http.put(unknown).set(manager.auth).set('Content-Type', 'image/jpeg').send(JPEG), 404);
      expectProblem(await app.http.get(unknown).set(manager.auth), 404);
      expectProblem(await app.http.get('/api/gotv/incidents/not-an-id/photo').set(manager.auth), 400);

      // The refused uploads left the PNG in place and no stray files.
      const listed = await app.http.get('/api/gotv/incidents').set(viewer.auth).query({ pollingStationId: covered }).expect(200);
      expect(listed.body.data.find((row: { id: string }) => row.id === created.id).photo).toEqual({ type: 'image/png', size: PNG.length });
      expect(await storedNames(app.runtime.deps.files, 'gotv/incident-photos', { staged: true })).toEqual([created.id]);
    });

    it("keeps a brigade member's photo to their brigade's stations", async () => {
      const atOther = (await app.http.post('/api/gotv/incidents').set(manager.auth).send(incident(other)).expect(201)).body;
      expectProblem(await app.http.put(`/api/gotv/incidents/${atOther.id}/photo`).set(member.auth).set('Content-Type', 'image/jpeg').send(JPEG), 403);
      expectProblem(await app.http.get(`/api/gotv/incidents/${atOther.id}/photo`).set(member.auth), 403);
    });

    it('lists incidents newest first, for staff, filtered by station and time', async () => {
      const before = new Date().toISOString();
      const a = (
        await app.http
          .post('/api/gotv/incidents')
          .set(manager.auth)
          .send(incident(other, { type: 'violence' }))
          .expect(201)
      ).body;
      const b = (
        await app.http
          .post('/api/gotv/incidents')
          .set(manager.auth)
          .send(incident(covered, { type: 'other' }))
          .expect(201)
      ).body;
      const recent = await app.http.get('/api/gotv/incidents').set(viewer.auth).query({ since: before }).expect(200);
      expect(recent.body.data.map((row: { id: string }) => row.id)).toEqual([b.id, a.id]);
      // The list names the reporter (the war room's feed and detail show who reported it).
      expect(recent.body.data[0]).toEqual({ ...b, reportedByName: 'A manager' });
      const all = await app.http.get('/api/gotv/incidents').set(manager.auth).query({ limit: 2 }).expect(200);
      expect(all.body.data.map((row: { id: string }) => row.id)).toEqual([b.id, a.id]);
      expect(all.body.nextCursor).toEqual(expect.any(String));
      const next = await app.http.get('/api/gotv/incidents').set(manager.auth).query({ limit: 2, cursor: all.body.nextCursor }).expect(200);
      expect(next.body.data.length).toBeGreaterThan(0);
      expect(next.body.data.every((row: { createdAt: string }) => row.createdAt <= a.createdAt)).toBe(true);
      const atOther = await app.http.get('/api/gotv/incidents').set(viewer.auth).query({ pollingStationId: other, since: before }).expect(200);
      expect(atOther.body.data.map((row: { id: string }) => row.id)).toEqual([a.id]);
      expectProblem(await app.http.get('/api/gotv/incidents').set(member.auth), 403);
      expectProblem(await app.http.get('/api/gotv/incidents').set(viewer.auth).query({ since: 'yesterday' }), 400);
      expectProblem(await app.http.get('/api/gotv/incidents').set(viewer.auth).query({ cursor: 'abc' }), 400);
    });
  });

  it('gives one incident with its reporter’s name to staff (the war room’s detail)', async () => {
    const reported = (
      await app.http
        .post('/api/gotv/incidents')
        .set(member.auth)
        .send(incident(covered, { type: 'vote_buying' }))
        .expect(201)
    ).body;
    const one = await app.http.get(`/api/gotv/incidents/${reported.id}`).set(viewer.auth).expect(200);
    expect(one.body).toEqual({ ...reported, reportedByName: 'A brigade' });
    expectProblem(await app.http.get(`/api/gotv/incidents/${randomUUID()}`).set(viewer.auth), 404);
    expectProblem(await app.http.get('/api/gotv/incidents/not-an-id').set(viewer.auth), 400);
    expectProblem(await app.http.get(`/api/gotv/incidents/${reported.id}`).set(member.auth), 403);
    expectProblem(await app.http.get(`/api/gotv/incidents/${reported.id}`), 401);
  });

  it('counts the day’s incidents on the dashboard, also once their stations are closed', async () => {
    const before = (await app.http.get('/api/gotv/dashboard').set(viewer.auth).expect(200)).body;
    const listed = await app.http.get('/api/gotv/incidents').set(viewer.auth).query({ since: before.incidents.since, limit: 200 }).expect(200);
    expect(before.incidents.reported).toBe(listed.body.data.length);
    expect(before.incidents.stations).toBe(new Set(listed.body.data.map((row: { pollingStationId: string }) => row.pollingStationId)).size);
    await app.http.post('/api/gotv/incidents').set(manager.auth).send(incident(other)).expect(201);
    await app.http.patch(`/api/gotv/polling-stations/${other}`).set(manager.auth).send({ status: 'closed' }).expect(200);
    const after = (await app.http.get('/api/gotv/dashboard').set(viewer.auth).expect(200)).body;
    expect(after.incidents).toEqual({ reported: before.incidents.reported + 1, stations: 2, since: before.incidents.since });
    expect(after.stations.closed).toBe(1);
    await app.http.patch(`/api/gotv/polling-stations/${other}`).set(manager.auth).send({ status: 'open' }).expect(200);
  });
});
