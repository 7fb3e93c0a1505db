import { randomBytes } from 'node:crypto';
import { newId } from '../../src/kernel/ids';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

export const base = '/api/agenda';

export interface AgendaTest {
  app: TestApp;
  admin: TestUser;
  manager: TestUser;
  volunteer: TestUser;
  brigade: TestUser;
  viewer: TestUser;
}

export async function startAgenda(overrides: Record<string, string | undefined> = {}, workers = false): Promise<AgendaTest> {
  const app = await startTestApp(overrides, { workers });
  const admin = await registerAdmin(app);
  const [manager, volunteer, brigade, viewer] = await Promise.all([
    createUser(app, admin, 'manager'),
    createUser(app, admin, 'volunteer'),
    createUser(app, admin, 'brigade'),
    createUser(app, admin, 'viewer'),
  ]);
  return { app, admin, manager, volunteer, brigade, viewer };
}

export interface SeededContact {
  id: string;
  phone: string;
  email: string;
}

/** Contacts straight into audience's table (tests may write it; the module never does). */
export async function seedContacts(app: TestApp, count: number, options: { whatsapp?: boolean; email?: boolean } = {}): Promise<SeededContact[]> {
  const people = Array.from({ length: count }, () => {
    const digits = String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0');
    return { id: newId(), phone: `+57301${digits}`, email: `p-${randomBytes(4).toString('hex')}@example.org` };
  });
  for (const person of people) {
    await app.runtime.deps.db.write(sql`insert into contacts (id, identity_key, name, phone, email, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (${person.id}, ${`tel:${person.phone}`}, 'Persona de prueba', ${person.phone}, ${person.email}, '{}', ${options.whatsapp ?? false}, ${options.email ?? false}, now(), now())`);
  }
  return people;
}

const hour = 3_600_000;

/** An event body `hoursFromNow` ahead lasting `lengthHours`. */
export function eventBody(overrides: Record<string, unknown> = {}, hoursFromNow = 48, lengthHours = 2) {
  const start = new Date(Date.now() + hoursFromNow * hour);
  return {
    title: 'Encuentro con líderes de Kennedy',
    type: 'meeting',
    startsAt: start.toISOString(),
    endsAt: new Date(start.getTime() + lengthHours * hour).toISOString(),
    address: 'Salón comunal Timiza',
    ...overrides,
  };
}

export async function createEvent(t: AgendaTest, overrides: Record<string, unknown> = {}, hoursFromNow = 48, lengthHours = 2): Promise<{ id: string; [key: string]: unknown }> {
  const response = await t.app.http
    .post(`${base}/events`)
    .set(t.manager.auth)
    .send(eventBody(overrides, hoursFromNow, lengthHours));
  if (response.status !== 201) throw new Error(`event not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Moves an event in time directly (tests of what happens once events are over). */
export async function moveEvent(app: TestApp, eventId: string, startsAt: Date, endsAt: Date): Promise<void> {
  await app.runtime.deps.db.write(sql`update agenda_events set starts_at = ${startsAt}::timestamptz, ends_at = ${endsAt}::timestamptz where id = ${eventId}::uuid`);
}

export async function linkAccount(t: AgendaTest, user: TestUser, contactId: string): Promise<void> {
  await t.app.http.put(`${base}/users/${user.id}/contact`).set(t.manager.auth).send({ contactId }).expect(200);
}
