import jwt from 'jsonwebtoken';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/kernel/auth/tokens';
import { sql } from '../../src/kernel/sql';
import { principalLoader } from '../../src/modules/auth';

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_MAX_FAILURES_PER_EMAIL: '3', REGISTER_MAX_PER_IP: '1000' });
  admin = await registerAdmin(app);
});
afterAll(() => app.close());

async function userCount(): Promise<number> {
  const rows = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from users`);
  return rows[0]!.n;
}

describe('register', () => {
  it('makes the first account admin; after it, only an admin registers anyone, granting a role', async () => {
    expect(admin.role).toBe('admin');
    const before = await userCount();
    const anonymous = await app.http.post('/api/auth/register').send({ email: '  Luz.Gomez@Example.ORG ', password: 'a long enough password', name: 'Luz', role: 'admin' });
    expectProblem(anonymous, 403, 'registration_closed');
    expect(await userCount()).toBe(before);
    const response = await app.http
      .post('/api/auth/register')
      .set(admin.auth)
      .send({ email: '  Luz.Gomez@Example.ORG ', password: 'a long enough password', name: 'Luz' })
      .expect(201);
    expect(response.body.user).toMatchObject({ email: 'luz.gomez@example.org', name: 'Luz', role: 'volunteer', active: true });
    expect(response.body.token).toEqual(expect.any(String));
    expect(JSON.stringify(response.body)).not.toMatch(/password|argon2/i);
  });

  it('lets an admin grant a role', async () => {
    const manager = await createUser(app, admin, 'manager');
    expect(manager.role).toBe('manager');
  });

  it('tells an admin, and only an admin, that an email is taken, whatever its case', async () => {
    const response = await app.http.post('/api/auth/register').set(admin.auth).send({ email: 'LUZ.GOMEZ@example.org', password: 'another long password', name: 'Other' });
    expectProblem(response, 409, 'email_taken');
    const anonymous = await app.http.post('/api/auth/register').send({ email: 'LUZ.GOMEZ@example.org', password: 'another long password', name: 'Other' });
    expectProblem(anonymous, 403, 'registration_closed');
  });

  it.each([
    [{ email: 'x@example.org', password: 'short', name: 'X' }, 'body.password'],
    [{ email: 'not an email', password: 'long enough password', name: 'X' }, 'body.email'],
    [{ email: 'x@example.org', password: 'long enough password' }, 'body.name'],
    [{ email: 'x@example.org', password: 12345678901, name: 'X' }, 'body.password'],
  ])('rejects %j with a 400 naming the field, writing nothing', async (body, path) => {
    const before = await userCount();
    const response = await app.http.post('/api/auth/register').set(admin.auth).send(body);
    const problem = expectProblem(response, 400, 'validation_failed');
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await userCount()).toBe(before);
  });

  it('refuses other signed-in users as it refuses strangers: they cannot register anyone', async () => {
    const volunteer = await createUser(app, admin, 'volunteer');
    const response = await app.http
      .post('/api/auth/register')
      .set(volunteer.auth)
      .send({ email: 'escalate@example.org', password: 'long enough password', name: 'E', role: 'manager' });
    expectProblem(response, 403, 'registration_closed');
  });
});

describe('login and me', () => {
  it('returns a bearer token that /me accepts, without any password hash', async () => {
    const login = await app.http.post('/api/auth/login').send({ email: admin.email.toUpperCase(), password: admin.password }).expect(200);
    expect(login.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 12 * 3600, user: { id: admin.id, role: 'admin' } });
    const me = await app.http.get('/api/auth/me').set('Authorization', `Bearer ${login.body.token}`).expect(200);
    expect(Object.keys(me.body).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'role']);
    expect(me.body).toMatchObject({ id: admin.id, email: admin.email, role: 'admin' });
  });

  it('answers wrong password and unknown email with the same 401', async () => {
    const wrong = await app.http.post('/api/auth/login').send({ email: admin.email, password: 'not the password' });
    const unknown = await app.http.post('/api/auth/login').send({ email: 'nobody@example.org', password: 'not the password' });
    expectProblem(wrong, 401, 'unauthorized');
    expectProblem(unknown, 401, 'unauthorized');
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it('rate-limits repeated failures for one email with 429 and Retry-After', async () => {
    const victim = await createUser(app, admin, 'viewer');
    for (let i = 0; i < 3; i++) {
      await app.http
        .post('/api/auth/login')
        .send({ email: victim.email, password: 'guess number ' + i })
        .expect(401);
    }
    const blocked = await app.http.post('/api/auth/login').send({ email: victim.email, password: victim.password });
    expectProblem(blocked, 429, 'rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers /me without a token with 401', async () => {
    expectProblem(await app.http.get('/api/auth/me'), 401, 'unauthorized');
  });
});

describe('tokens', () => {
  const sign = (payload: object, secret = TEST_JWT_SECRET, options: jwt.SignOptions = {}) =>
    jwt.sign(payload, secret, { issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE, subject: admin.id, expiresIn: 600, ...options });

  it.each([
    ['expired', () => sign({ role: 'admin', ver: 0 }, TEST_JWT_SECRET, { expiresIn: -10 })],
    ['signed with another secret', () => sign({ role: 'admin', ver: 0 }, 'another-secret-another-secret-another-secret')],
    ['with the wrong audience', () => sign({ role: 'admin', ver: 0 }, TEST_JWT_SECRET, { audience: 'someone-else' })],
    [
      'with alg none',
      () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
        const now = Math.floor(Date.now() / 1000);
        const body = Buffer.from(JSON.stringify({ sub: admin.id, role: 'admin', ver: 0, iat: now, exp: now + 600, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE })).toString('base64url');
        return `${header}.${body}.`;
      },
    ],
    ['garbage', () => 'not-a-jwt'],
  ])('refuses a token %s with 401', async (_name, makeToken) => {
    expectProblem(await app.http.get('/api/auth/me').set('Authorization', `Bearer ${makeToken()}`), 401, 'unauthorized');
  });

  it('refuses a token whose role claim was tampered with', async () => {
    const volunteer = await createUser(app, admin, 'volunteer');
    const [header, payload, signature] = volunteer.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
    const response = await app.http.get('/api/users').set('Authorization', `Bearer ${header}.${forged}.${signature}`);
    expectProblem(response, 401, 'unauthorized');
  });

  it("ends all of the caller's tokens on logout", async () => {
    const viewer = await createUser(app, admin, 'viewer');
    const second = await app.http.post('/api/auth/login').send({ email: viewer.email, password: viewer.password }).expect(200);
    await app.http.post('/api/auth/logout').set(viewer.auth).expect(204);
    expectProblem(await app.http.get('/api/auth/me').set(viewer.auth), 401);
    expectProblem(await app.http.get('/api/auth/me').set('Authorization', `Bearer ${second.body.token}`), 401);
    const again = await app.http.post('/api/auth/login').send({ email: viewer.email, password: viewer.password }).expect(200);
    await app.http.get('/api/auth/me').set('Authorization', `Bearer ${again.body.token}`).expect(200);
  });
});

describe('user management', () => {
  it('lists users for admins only, paginated', async () => {
    const volunteer = await createUser(app, admin, 'volunteer');
    expectProblem(await app.http.get('/api/users').set(volunteer.auth), 403, 'forbidden');
    expectProblem(await app.http.get('/api/users'), 401);
    const first = await app.http.get('/api/users?limit=2').set(admin.auth).expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await app.http.get(`/api/users?limit=2&cursor=${first.body.nextCursor}`).set(admin.auth).expect(200);
    const ids = new Set([...first.body.data, ...second.body.data].map((user: { id: string }) => user.id));
    expect(ids.size).toBe(first.body.data.length + second.body.data.length);
    const managers = await app.http.get('/api/users?role=manager').set(admin.auth).expect(200);
    expect(managers.body.data.every((user: { role: string }) => user.role === 'manager')).toBe(true);
    for (const user of first.body.data) expect(user).not.toHaveProperty('passwordHash');
  });

  it('rejects a cursor that was not handed out', async () => {
    expectProblem(await app.http.get('/api/users?cursor=bm90LWEtY3Vyc29y').set(admin.auth), 400, 'validation_failed');
    expectProblem(await app.http.get('/api/users?limit=500').set(admin.auth), 400, 'validation_failed');
  });

  it("changing a role ends the user's tokens at once, and the new role applies after login", async () => {
    const user = await createUser(app, admin, 'volunteer');
    await app.http.get('/api/auth/me').set(user.auth).expect(200);
    const patched = await app.http.patch(`/api/users/${user.id}`).set(admin.auth).send({ role: 'manager' }).expect(200);
    expect(patched.body.role).toBe('manager');
    expectProblem(await app.http.get('/api/auth/me').set(user.auth), 401);
    const login = await app.http.post('/api/auth/login').send({ email: user.email, password: user.password }).expect(200);
    expect(login.body.user.role).toBe('manager');
  });

  it('deactivating a user ends their tokens and blocks login', async () => {
    const user = await createUser(app, admin, 'brigade');
    await app.http.patch(`/api/users/${user.id}`).set(admin.auth).send({ active: false }).expect(200);
    expectProblem(await app.http.get('/api/auth/me').set(user.auth), 401);
    expectProblem(await app.http.post('/api/auth/login').send({ email: user.email, password: user.password }), 401);
  });

  it('never leaves the campaign without an active admin', async () => {
    expectProblem(await app.http.patch(`/api/users/${admin.id}`).set(admin.auth).send({ role: 'manager' }), 409, 'last_admin');
  });

  it('answers bad ids and bodies with 4xx', async () => {
    expectProblem(await app.http.patch('/api/users/not-a-uuid').set(admin.auth).send({ role: 'viewer' }), 400, 'validation_failed');
    expectProblem(await app.http.patch('/api/users/01960000-0000-7000-8000-000000000000').set(admin.auth).send({ role: 'viewer' }), 404, 'not_found');
    expectProblem(await app.http.patch(`/api/users/${admin.id}`).set(admin.auth).send({ role: 'overlord' }), 400, 'validation_failed');
    expectProblem(await app.http.patch(`/api/users/${admin.id}`).set(admin.auth).send({}), 400, 'validation_failed');
  });
});

describe('the principal loader', () => {
  it('reads the principal from deps.db through one prepared statement', async () => {
    const { db } = app.runtime.deps;
    const viewer = await createUser(app, admin, 'viewer');
    const expected = { id: viewer.id, role: 'viewer', active: true, tokenVersion: 0 };
    const fromDb = await db.session(async (connection) => {
      const principal = await principalLoader(connection)(viewer.id);
      const prepared = await connection.rows(sql<{ name: string }>`select name from pg_prepared_statements where name = 'auth_principal'`);
      expect(prepared).toHaveLength(1);
      return principal;
    });
    expect(fromDb).toEqual(expected);
    expect(await principalLoader(db)('01960000-0000-7000-8000-000000000000')).toBeUndefined();
  });
});
