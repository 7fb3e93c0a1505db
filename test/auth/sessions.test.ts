/**
 * A user's sessions, one per signed-in device: listed for admins (browser, address, started, last
 * seen, expiry), ended one at a time (that device's token stops at once, in every process; the
 * others go on) or all at once; gone when every token ends (logout, a new password) and with the
 * account's erasure. The address and the browser never reach the log.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

const PHONE = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36';
const LAPTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let brigade: TestUser;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  app = await startTestApp({ LOG_LEVEL: 'info' }, { workers: false, logger: pino({ level: 'info' }, sink) });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  brigade = await createUser(app, admin, 'brigade', 'Bruno Brigadista');
});
afterAll(() => app.close());

async function signIn(user: TestUser, userAgent: string): Promise<{ Authorization: string }> {
  const answer = await app.http.post('/api/auth/login').set('User-Agent', userAgent).send({ email: user.email, password: user.password }).expect(200);
  return { Authorization: `Bearer ${answer.body.token as string}` };
}

const sessionsOf = async (user: TestUser, query: Record<string, string> = {}) =>
  (await app.http.get(`/api/users/${user.id}/sessions`).query(query).set(admin.auth).expect(200)).body as {
    data: { id: string; userAgent: string | null; ip: string | null; startedAt: string; lastSeenAt: string; expiresAt: string }[];
    nextCursor: string | null;
  };

describe('GET /api/users/:id/sessions', () => {
  it('lists each signed-in device, newest first, with its browser, address and times', async () => {
    const before = Date.now();
    await signIn(brigade, PHONE);
    await signIn(brigade, LAPTOP);
    const { data, nextCursor } = await sessionsOf(brigade);
    // The token an admin got when creating the account is no device of the user's: not listed.
    expect(data.map((session) => session.userAgent)).toEqual([LAPTOP, PHONE]);
    expect(nextCursor).toBeNull();
    for (const session of data) {
      expect(session.ip).toMatch(/127\.0\.0\.1/);
      expect(Date.parse(session.startedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(session.lastSeenAt).toBe(session.startedAt);
      expect(Date.parse(session.expiresAt) - Date.parse(session.startedAt)).toBe(app.config.jwtTtlSeconds * 1000);
    }
  });

  it('pages by cursor', async () => {
    const first = await sessionsOf(brigade, { limit: '1' });
    expect(first.data).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await sessionsOf(brigade, { limit: '1', cursor: first.nextCursor! });
    expect(second.data.map((session) => session.userAgent)).toEqual([PHONE]);
  });

  it('notes when a device was last seen, at most once a minute', async () => {
    const phone = await signIn(manager, PHONE);
    const [session] = (await sessionsOf(manager)).data;
    // As if the phone had last been seen two minutes ago, in the database and in this process's cache.
    await app.runtime.deps.db.write(sql`update user_sessions set last_seen_at = now() - interval '2 minutes' where id = ${session!.id}::uuid`);
    await app.runtime.deps.auth.sessions.forget(session!.id);
    await app.http.get('/api/auth/me').set(phone).expect(200);
    await app.http.get('/api/auth/me').set(phone).expect(200);
    const deadline = Date.now() + 5000;
    let seen = session!.lastSeenAt;
    while (Date.now() < deadline && Date.parse(seen) < Date.now() - 60_000) seen = (await sessionsOf(manager)).data[0]!.lastSeenAt;
    expect(Date.parse(seen)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses bad input and other roles with the standard problem', async () => {
    expectProblem(await app.http.get('/api/users/not-a-uuid/sessions').set(admin.auth), 400, 'validation_failed');
    expectProblem(await app.http.get(`/api/users/${brigade.id}/sessions?limit=0`).set(admin.auth), 400, 'validation_failed');
    expectProblem(await app.http.get(`/api/users/${brigade.id}/sessions?cursor=${encodeURIComponent('no es un cursor!')}`).set(admin.auth), 400, 'validation_failed');
    expectProblem(await app.http.get(`/api/users/${brigade.id}/sessions?cursor=bm9wZQ`).set(admin.auth), 400);
    expectProblem(await app.http.get('/api/users/0196a1c2-0000-7000-8000-000000000000/sessions').set(admin.auth), 404);
    expectProblem(await app.http.get(`/api/users/${brigade.id}/sessions`).set(manager.auth), 403);
    expectProblem(await app.http.get(`/api/users/${brigade.id}/sessions`).set(brigade.auth), 403);
    expectProblem(await app.http.get(`/api/users/${brigade.id}/sessions`), 401);
  });
});

describe('POST /api/users/:id/sessions/:sessionId/end', () => {
  it('ends one device in every process; the others stay signed in', async () => {
    const user = await createUser(app, admin, 'volunteer', 'Vale Voluntaria');
    const phone = await signIn(user, PHONE);
    const laptop = await signIn(user, LAPTOP);
    const sibling = await app.sibling();
    // The other process has checked (and cached) the phone's session.
    await sibling.http.get('/api/auth/me').set(phone).expect(200);
    const phoneSession = (await sessionsOf(user)).data.find((session) => session.userAgent === PHONE)!;
    await app.http.post(`/api/users/${user.id}/sessions/${phoneSession.id}/end`).set(admin.auth).expect(204);
    expectProblem(await app.http.get('/api/auth/me').set(phone), 401);
    await until(async () => (await sibling.http.get('/api/auth/me').set(phone)).status !== 200, 5000, 'the other process to drop the ended session');
    expectProblem(await sibling.http.get('/api/auth/me').set(phone), 401);
    await app.http.get('/api/auth/me').set(laptop).expect(200);
    await sibling.http.get('/api/auth/me').set(laptop).expect(200);
    expect((await sessionsOf(user)).data.map((session) => session.userAgent)).toEqual([LAPTOP]);
  });

  it('refuses bad input, a session of someone else, and other roles', async () => {
    const laptop = await signIn(manager, LAPTOP);
    const [managerSession] = (await sessionsOf(manager)).data;
    expectProblem(await app.http.post(`/api/users/${brigade.id}/sessions/not-a-uuid/end`).set(admin.auth), 400, 'validation_failed');
    expectProblem(await app.http.post(`/api/users/not-a-uuid/sessions/${managerSession!.id}/end`).set(admin.auth), 400, 'validation_failed');
    // The manager's session is not the brigade member's: nothing ends.
    expectProblem(await app.http.post(`/api/users/${brigade.id}/sessions/${managerSession!.id}/end`).set(admin.auth), 404);
    expectProblem(await app.http.post(`/api/users/0196a1c2-0000-7000-8000-000000000000/sessions/${managerSession!.id}/end`).set(admin.auth), 404);
    expectProblem(await app.http.post(`/api/users/${manager.id}/sessions/${managerSession!.id}/end`).set(manager.auth), 403);
    expectProblem(await app.http.post(`/api/users/${manager.id}/sessions/${managerSession!.id}/end`), 401);
    await app.http.get('/api/auth/me').set(laptop).expect(200);
  });
});

describe('sessions end with every token', () => {
  it('are gone after ending them all, a logout, a new password, and the erasure of the person', async () => {
    const user = await createUser(app, admin, 'volunteer', 'Lucía Lista');
    await signIn(user, PHONE);
    await app.http.post(`/api/users/${user.id}/sessions/end`).set(admin.auth).expect(204);
    expect((await sessionsOf(user)).data).toEqual([]);

    const laptop = await signIn(user, LAPTOP);
    await app.http.post('/api/auth/logout').set(laptop).expect(204);
    expect((await sessionsOf(user)).data).toEqual([]);

    const phone = await signIn(user, PHONE);
    await signIn(user, LAPTOP);
    const changed = await app.http
      .post('/api/auth/password')
      .set(phone)
      .set('User-Agent', PHONE)
      .send({ currentPassword: user.password, newPassword: 'otra clave bien larga' })
      .expect(200);
    // Only the device that changed it, on its new token.
    expect((await sessionsOf(user)).data.map((session) => session.userAgent)).toEqual([PHONE]);
    await app.http
      .get('/api/auth/me')
      .set({ Authorization: `Bearer ${changed.body.token as string}` })
      .expect(200);

    // A role change ends every token: the rows stop being listed at once.
    await app.http.patch(`/api/users/${user.id}`).set(admin.auth).send({ role: 'brigade' }).expect(200);
    expect((await sessionsOf(user)).data).toEqual([]);

    const again = await app.http.post('/api/auth/login').set('User-Agent', LAPTOP).send({ email: user.email, password: 'otra clave bien larga' }).expect(200);
    expect(again.body.token).toEqual(expect.any(String));
    const volunteer = await app.http.post('/api/volunteers').set(admin.auth).send({ name: 'Lucía Lista', email: user.email, userId: user.id }).expect(201);
    await app.http
      .delete(`/api/volunteers/${volunteer.body.id as string}`)
      .set(admin.auth)
      .expect(200);
    const left = await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from user_sessions where user_id = ${user.id}::uuid`);
    expect(left!.n).toBe(0);
  });

  it('never writes a device’s address or browser to the log', async () => {
    // pino writes asynchronously: give the last lines a moment, then read them all.
    await new Promise((resolve) => setImmediate(resolve));
    const log = logLines.join('');
    expect(log).toContain('session ended by an admin');
    expect(log).not.toContain('Pixel 8');
    expect(log).not.toContain('Windows NT');
  });
});
