import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket } from '../helpers/sockets';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_MAX_FAILURES_PER_EMAIL_IP: '3' });
  admin = await registerAdmin(app);
});
afterAll(() => app.close());

const login = (email: string, password: string) => app.http.post('/api/auth/login').send({ email, password });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('POST /api/auth/password', () => {
  it('changes the password, ends every other session and hands this device a fresh token', async () => {
    const user = await createUser(app, admin, 'manager');
    const otherDevice = (await login(user.email, user.password).expect(200)).body.token as string;
    const socket = await connectSocket(app.url, otherDevice);
    let disconnected = false;
    socket.on('disconnect', () => {
      disconnected = true;
    });
    try {
      const answer = await app.http.post('/api/auth/password').set(user.auth).send({ currentPassword: user.password, newPassword: 'una clave nueva y larga' }).expect(200);
      expect(answer.body).toEqual({ token: expect.any(String), tokenType: 'Bearer', expiresIn: expect.any(Number) });
      await app.http.get('/api/auth/me').set(user.auth).expect(401);
      await app.http.get('/api/auth/me').set(bearer(otherDevice)).expect(401);
      await app.http.get('/api/auth/me').set(bearer(answer.body.token)).expect(200);
      await until(() => (disconnected ? true : undefined));
      await login(user.email, user.password).expect(401);
      await login(user.email, 'una clave nueva y larga').expect(200);
    } finally {
      socket.close();
    }
  });

  it('refuses a wrong current password with 403, then limits the attempts', async () => {
    const user = await createUser(app, admin, 'viewer');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const wrong = await app.http.post('/api/auth/password').set(user.auth).send({ currentPassword: 'no es esta clave', newPassword: 'una clave nueva y larga' }).expect(403);
      expect(wrong.body.code).toBe('wrong_password');
    }
    const limited = await app.http.post('/api/auth/password').set(user.auth).send({ currentPassword: user.password, newPassword: 'una clave nueva y larga' }).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    await login(user.email, user.password).expect(200);
  });

  it('answers bad bodies with 400 and no token with 401', async () => {
    const user = await createUser(app, admin, 'volunteer');
    for (const body of [
      {},
      { currentPassword: user.password },
      { currentPassword: user.password, newPassword: 'corta' },
      { currentPassword: user.password, newPassword: user.password },
      { currentPassword: user.password, newPassword: 'x'.repeat(300) },
      { currentPassword: 7, newPassword: 'una clave nueva y larga' },
    ]) {
      const answer = await app.http.post('/api/auth/password').set(user.auth).send(body).expect(400);
      expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    await app.http.post('/api/auth/password').send({ currentPassword: 'a', newPassword: 'una clave nueva y larga' }).expect(401);
    await login(user.email, user.password).expect(200);
  });
});

describe('set-password links', () => {
  async function issue(user: TestUser): Promise<{ url: string; token: string; expiresAt: string }> {
    const answer = await app.http.post(`/api/users/${user.id}/password-reset`).set(admin.auth).expect(201);
    const url = new URL(answer.body.url as string);
    expect(url.pathname).toBe('/cuenta/clave');
    return { url: answer.body.url, token: url.searchParams.get('token')!, expiresAt: answer.body.expiresAt };
  }

  it('lets an admin issue a link that sets the password once and ends the sessions', async () => {
    const user = await createUser(app, admin, 'brigade');
    const link = await issue(user);
    expect(new Date(link.expiresAt).getTime()).toBeGreaterThan(Date.now() + 25 * 60 * 1000);
    // The current password keeps working until the link is used.
    await login(user.email, user.password).expect(200);
    const stored = await app.runtime.deps.db.rows(sql<{ token_hash: string }>`select token_hash from password_resets where user_id = ${user.id}`);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).not.toContain(link.token);

    await app.http.post('/api/auth/password/reset').send({ token: link.token, newPassword: 'la clave que elegí hoy' }).expect(204);
    await app.http.get('/api/auth/me').set(user.auth).expect(401);
    await login(user.email, 'la clave que elegí hoy').expect(200);
    const again = await app.http.post('/api/auth/password/reset').send({ token: link.token, newPassword: 'otra clave distinta más' }).expect(400);
    expect(again.body.code).toBe('invalid_reset_link');
    await login(user.email, 'la clave que elegí hoy').expect(200);
  });

  it('spends a link once when two uses race', async () => {
    const user = await createUser(app, admin, 'viewer');
    const link = await issue(user);
    const answers = await Promise.all(
      ['primera clave bien larga', 'segunda clave bien larga'].map((newPassword) => app.http.post('/api/auth/password/reset').send({ token: link.token, newPassword })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 400]);
  });

  it('refuses replaced, expired and deactivated-account links alike', async () => {
    const user = await createUser(app, admin, 'viewer');
    const first = await issue(user);
    const second = await issue(user);
    expect((await app.http.post('/api/auth/password/reset').send({ token: first.token, newPassword: 'una clave nueva y larga' }).expect(400)).body.code).toBe('invalid_reset_link');

    await app.runtime.deps.db.write(sql`update password_resets set expires_at = now() - interval '1 second' where user_id = ${user.id}`);
    expect((await app.http.post('/api/auth/password/reset').send({ token: second.token, newPassword: 'una clave nueva y larga' }).expect(400)).body.code).toBe(
      'invalid_reset_link',
    );

    const third = await issue(user);
    await app.http.patch(`/api/users/${user.id}`).set(admin.auth).send({ active: false }).expect(200);
    expect((await app.http.post('/api/auth/password/reset').send({ token: third.token, newPassword: 'una clave nueva y larga' }).expect(400)).body.code).toBe('invalid_reset_link');
    const refused = await app.http.post(`/api/users/${user.id}/password-reset`).set(admin.auth).expect(409);
    expect(refused.body.code).toBe('user_inactive');
  });

  it('lets only admins issue links, for users that exist', async () => {
    const manager = await createUser(app, admin, 'manager');
    await app.http.post(`/api/users/${manager.id}/password-reset`).set(manager.auth).expect(403);
    await app.http.post(`/api/users/${manager.id}/password-reset`).expect(401);
    await app.http.post('/api/users/0196a1c2-0000-7000-8000-000000000000/password-reset').set(admin.auth).expect(404);
    await app.http.post('/api/users/not-an-id/password-reset').set(admin.auth).expect(400);
  });

  it('answers malformed reset bodies with 400', async () => {
    for (const body of [
      {},
      { token: 'short', newPassword: 'una clave nueva y larga' },
      { token: 'a'.repeat(43), newPassword: 'corta' },
      { token: 'a'.repeat(43), newPassword: 'una clave nueva y larga', confirmPassword: 'otra' },
    ]) {
      await app.http.post('/api/auth/password/reset').send(body).expect(400);
    }
  });

  it('works as a page without JavaScript: form, errors in Spanish, post/redirect/get', async () => {
    const user = await createUser(app, admin, 'volunteer');
    const link = await issue(user);
    const page = await app.http.get(`/cuenta/clave?token=${link.token}`).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('name="token"');
    expect(page.text).toContain('Elige tu nueva clave');

    const mismatch = await app.http
      .post('/api/auth/password/reset')
      .type('form')
      .send({ token: link.token, newPassword: 'una clave nueva y larga', confirmPassword: 'otra cosa distinta' })
      .expect(400);
    expect(mismatch.text).toContain('Las dos claves no coinciden.');
    const short = await app.http.post('/api/auth/password/reset').type('form').send({ token: link.token, newPassword: 'corta', confirmPassword: 'corta' }).expect(400);
    expect(short.text).toContain('al menos 10 caracteres');

    const done = await app.http
      .post('/api/auth/password/reset')
      .type('form')
      .send({ token: link.token, newPassword: 'una clave nueva y larga', confirmPassword: 'una clave nueva y larga' })
      .expect(303);
    expect(done.headers.location).toBe('/cuenta/clave/lista');
    expect((await app.http.get('/cuenta/clave/lista').expect(200)).text).toContain('Clave guardada');
    await login(user.email, 'una clave nueva y larga').expect(200);

    // A spent or malformed link opens the explanation, not the form.
    expect((await app.http.get(`/cuenta/clave?token=${link.token}`).expect(400)).text).toContain('Enlace no válido');
    await app.http.get('/cuenta/clave?token=<script>').expect(400);
    await app.http.get('/cuenta/clave').expect(400);
  });
});
