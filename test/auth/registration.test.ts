import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { sql } from '../../src/kernel/sql';

/**
 * Who may create an account: the first one (it becomes the admin), then admins. With
 * `SELF_REGISTRATION` on, anyone may ask for a volunteer account, and the answer never says
 * whether the email already has one.
 */
const password = 'a long enough password';

async function users(app: TestApp): Promise<{ email: string; active: boolean; role: string }[]> {
  return app.runtime.deps.db.rows(sql<{ email: string; active: boolean; role: string }>`select email, active, role from users order by email`);
}

describe('closed (the default)', () => {
  let app: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('registers the first account as the admin, then refuses strangers alike for new and known emails', async () => {
    expect((await app.http.get('/api/auth/setup').expect(200)).body).toEqual({ firstAccountPending: true, selfRegistration: false });
    admin = await registerAdmin(app);
    expect(admin.role).toBe('admin');
    expect((await app.http.get('/api/auth/setup').expect(200)).body).toEqual({ firstAccountPending: false, selfRegistration: false });
    const before = await users(app);
    const known = await app.http.post('/api/auth/register').send({ email: admin.email, password, name: 'Someone' });
    const unknown = await app.http.post('/api/auth/register').send({ email: 'new@example.org', password, name: 'Someone' });
    expectProblem(known, 403, 'registration_closed');
    expectProblem(unknown, 403, 'registration_closed');
    expect(known.body).toEqual(unknown.body);
    expect(await users(app)).toEqual(before);
  });

  it('invites staff: an admin creates the account and hands a set-password link, which the person uses to choose their password', async () => {
    const staff = await createUser(app, admin, 'manager', 'Marta');
    const link = await app.http.post(`/api/users/${staff.id}/password-reset`).set(admin.auth).expect(201);
    const token = new URL(link.body.url).searchParams.get('token')!;
    await app.http.post('/api/auth/password/reset').send({ token, newPassword: 'marta chose this one' }).expect(204);
    const login = await app.http.post('/api/auth/login').send({ email: staff.email, password: 'marta chose this one' }).expect(200);
    expect(login.body.user).toMatchObject({ id: staff.id, role: 'manager' });
  });
});

describe('open (SELF_REGISTRATION=true)', () => {
  let app: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    app = await startTestApp({ SELF_REGISTRATION: 'true' });
    admin = await registerAdmin(app);
  });
  afterAll(() => app.close());

  it('answers a known email exactly as a new one, and changes nothing of the known account', async () => {
    expect((await app.http.get('/api/auth/setup').expect(200)).body).toEqual({ firstAccountPending: false, selfRegistration: true });
    const fresh = await app.http.post('/api/auth/register').send({ email: 'Nueva@Example.org', password, name: 'Nueva', role: 'admin' });
    const known = await app.http.post('/api/auth/register').send({ email: admin.email.toUpperCase(), password: 'the attacker picks this', name: 'Impostor' });
    expect(fresh.status).toBe(202);
    expect(known.status).toBe(202);
    expect(known.body).toEqual(fresh.body);
    expect(fresh.body).toEqual({ status: 'pending_approval', detail: expect.any(String) });
    expect(Object.keys(known.headers).filter((name) => !['date', 'content-length', 'etag'].includes(name))).toEqual(
      Object.keys(fresh.headers).filter((name) => !['date', 'content-length', 'etag'].includes(name)),
    );
    await app.http.post('/api/auth/login').send({ email: admin.email, password: admin.password }).expect(200);
    expectProblem(await app.http.post('/api/auth/login').send({ email: admin.email, password: 'the attacker picks this' }), 401);
    expect(await users(app)).toEqual([
      { email: admin.email, active: true, role: 'admin' },
      { email: 'nueva@example.org', active: false, role: 'volunteer' },
    ]);
  });

  it('keeps a requested account out until an admin activates it, as a volunteer', async () => {
    await app.http.post('/api/auth/register').send({ email: 'espera@example.org', password, name: 'Espera' }).expect(202);
    const refused = await app.http.post('/api/auth/login').send({ email: 'espera@example.org', password });
    const wrong = await app.http.post('/api/auth/login').send({ email: 'nobody@example.org', password });
    expectProblem(refused, 401);
    expect(refused.body.detail).toBe(wrong.body.detail);
    const listed = await app.http.get('/api/users?active=false').set(admin.auth).expect(200);
    const pending = listed.body.data.find((user: { email: string }) => user.email === 'espera@example.org');
    await app.http.patch(`/api/users/${pending.id}`).set(admin.auth).send({ active: true }).expect(200);
    const login = await app.http.post('/api/auth/login').send({ email: 'espera@example.org', password }).expect(200);
    expect(login.body.user).toMatchObject({ role: 'volunteer', active: true });
  });

  it('still lets an admin create accounts directly, and tells the admin when an email is taken', async () => {
    const viewer = await createUser(app, admin, 'viewer');
    expect(viewer.role).toBe('viewer');
    expectProblem(await app.http.post('/api/auth/register').set(admin.auth).send({ email: viewer.email, password, name: 'Again' }), 409, 'email_taken');
  });
});
