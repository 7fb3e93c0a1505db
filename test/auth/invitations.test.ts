import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
});
afterAll(() => app.close());

const login = (email: string, password: string) => app.http.post('/api/auth/login').send({ email, password });
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

describe('inviting someone', () => {
  it('creates the account with its role and a one-time link on which its owner sets the password', async () => {
    const answer = await app.http.post('/api/users').set(admin.auth).send({ email: ' Prensa@Campana.CO ', name: 'Jefe de prensa', role: 'manager' }).expect(201);
    expect(answer.body.user).toMatchObject({ email: 'prensa@campana.co', name: 'Jefe de prensa', role: 'manager', active: true, lastLoginAt: null });
    expect(new URL(answer.body.setPasswordLink.url).pathname).toBe('/cuenta/clave');
    expect(Date.parse(answer.body.setPasswordLink.expiresAt)).toBeGreaterThan(Date.now());
    expect(JSON.stringify(answer.body)).not.toMatch(/argon2|passwordHash/i);

    await app.http
      .post('/api/auth/password/reset')
      .send({ token: tokenOf(answer.body.setPasswordLink.url), newPassword: 'la clave que elegí yo' })
      .expect(204);
    const signedIn = await login('prensa@campana.co', 'la clave que elegí yo').expect(200);
    expect(signedIn.body.user.role).toBe('manager');
  });

  it('leaves no password anyone knows until the link is used', async () => {
    const answer = await app.http.post('/api/users').set(admin.auth).send({ email: 'sin.clave@campana.co', name: 'Sin clave', role: 'viewer' }).expect(201);
    const [row] = await app.runtime.deps.db.rows(sql<{ password_hash: string }>`select password_hash from users where id = ${answer.body.user.id}::uuid`);
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);
    for (const guess of ['', 'sin.clave@campana.co', 'Sin clave']) expect((await login('sin.clave@campana.co', guess)).status).not.toBe(200);
  });

  it('says when the email already has an account, whatever its case, and writes nothing', async () => {
    await app.http.post('/api/users').set(admin.auth).send({ email: 'doble@campana.co', name: 'Primera', role: 'viewer' }).expect(201);
    expectProblem(await app.http.post('/api/users').set(admin.auth).send({ email: 'DOBLE@campana.co', name: 'Segunda', role: 'admin' }), 409, 'email_taken');
    const rows = await app.runtime.deps.db.rows(sql<{ name: string; role: string }>`select name, role from users where email = 'doble@campana.co'`);
    expect(rows).toEqual([{ name: 'Primera', role: 'viewer' }]);
  });

  it.each([
    [{ email: 'x@campana.co', name: 'X' }, 'body.role'],
    [{ email: 'x@campana.co', name: 'X', role: 'superadmin' }, 'body.role'],
    [{ email: 'no es correo', name: 'X', role: 'viewer' }, 'body.email'],
    [{ email: 'x@campana.co', name: '   ', role: 'viewer' }, 'body.name'],
    [{ email: 'x@campana.co', name: 'X'.repeat(121), role: 'viewer' }, 'body.name'],
  ])('refuses %j with a 400 naming the field', async (body, path) => {
    const problem = expectProblem(await app.http.post('/api/users').set(admin.auth).send(body), 400, 'validation_failed');
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await app.runtime.deps.db.rows(sql`select 1 from users where email = 'x@campana.co'`)).toHaveLength(0);
  });

  it('is for admins only', async () => {
    const manager = await createUser(app, admin, 'manager');
    expectProblem(await app.http.post('/api/users').set(manager.auth).send({ email: 'y@campana.co', name: 'Y', role: 'admin' }), 403);
    expectProblem(await app.http.post('/api/users').send({ email: 'y@campana.co', name: 'Y', role: 'admin' }), 401);
    expect(await app.runtime.deps.db.rows(sql`select 1 from users where email = 'y@campana.co'`)).toHaveLength(0);
  });
});

describe("ending someone's sessions", () => {
  it('ends every token of the user at once and leaves the password', async () => {
    const user = await createUser(app, admin, 'brigade');
    await app.http.get('/api/auth/me').set(user.auth).expect(200);
    await app.http.post(`/api/users/${user.id}/sessions/end`).set(admin.auth).expect(204);
    await app.http.get('/api/auth/me').set(user.auth).expect(401);
    await login(user.email, user.password).expect(200);
    // The admin's own session is untouched.
    await app.http.get('/api/auth/me').set(admin.auth).expect(200);
  });

  it('answers 404 for an unknown user, 400 for a malformed id, 403/401 for anyone but an admin', async () => {
    expectProblem(await app.http.post('/api/users/0196a1c2-0000-7000-8000-000000000000/sessions/end').set(admin.auth), 404);
    expectProblem(await app.http.post('/api/users/not-a-uuid/sessions/end').set(admin.auth), 400, 'validation_failed');
    const manager = await createUser(app, admin, 'manager');
    expectProblem(await app.http.post(`/api/users/${admin.id}/sessions/end`).set(manager.auth), 403);
    expectProblem(await app.http.post(`/api/users/${admin.id}/sessions/end`), 401);
    await app.http.get('/api/auth/me').set(admin.auth).expect(200);
  });
});

it('tells the sign-in page whether people may ask for an account themselves', async () => {
  expect((await app.http.get('/api/auth/setup').expect(200)).body).toEqual({ firstAccountPending: false, selfRegistration: false });
});
