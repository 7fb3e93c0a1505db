import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/kernel/auth/roles';
import type { TestApp } from './app';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  token: string;
  /** `{ Authorization: 'Bearer …' }` for supertest's .set(). */
  auth: { Authorization: string };
}

const password = 'correct horse battery staple';

function asUser(body: { user: { id: string; email: string; role: Role }; token: string }): TestUser {
  return { id: body.user.id, email: body.user.email, password, role: body.user.role, token: body.token, auth: { Authorization: `Bearer ${body.token}` } };
}

/** The first account of a fresh database: it becomes admin. */
export async function registerAdmin(app: TestApp): Promise<TestUser> {
  const response = await app.http
    .post('/api/auth/register')
    .send({ email: `admin-${randomBytes(3).toString('hex')}@example.org`, password, name: 'Admin' })
    .expect(201);
  return asUser(response.body);
}

/** A user with the given role, created by an admin (the only way to grant a role). */
export async function createUser(app: TestApp, admin: TestUser, role: Role, name = `A ${role}`): Promise<TestUser> {
  const response = await app.http
    .post('/api/auth/register')
    .set(admin.auth)
    .send({ email: `${role}-${randomBytes(4).toString('hex')}@example.org`, password, name, role })
    .expect(201);
  return asUser(response.body);
}

/** Asserts the RFC 9457 problem shape and returns its body. */
export function expectProblem(response: { status: number; headers: Record<string, string>; body: Record<string, unknown> }, status: number, code?: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String), code: code ?? expect.any(String) });
  expect(JSON.stringify(response.body)).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack traces
  return response.body;
}
