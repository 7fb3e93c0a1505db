import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { agendaEvent, contact, uniqueEmail, uniquePhone, type EventOverrides } from '../helpers/factories';
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

/** People registered through audience (test/helpers/factories.ts), each with a phone and an email. */
export async function seedContacts(app: TestApp, count: number, options: { whatsapp?: boolean; email?: boolean } = {}): Promise<SeededContact[]> {
  const people: SeededContact[] = [];
  for (let n = 0; n < count; n++) {
    const made = await contact(app, { name: 'Persona de prueba', phone: uniquePhone(), email: uniqueEmail('p'), whatsapp: options.whatsapp, emailConsent: options.email });
    people.push({ id: made.id, phone: made.phone!, email: made.email! });
  }
  return people;
}

export { eventBody } from '../helpers/factories';

export function createEvent(t: AgendaTest, overrides: EventOverrides = {}, hoursFromNow = 48, lengthHours = 2): Promise<{ id: string; [key: string]: unknown }> {
  return agendaEvent(t.app, t.manager, overrides, hoursFromNow, lengthHours);
}

/** Moves an event in time directly (tests of what happens once events are over). */
export async function moveEvent(app: TestApp, eventId: string, startsAt: Date, endsAt: Date): Promise<void> {
  await app.runtime.deps.db.write(sql`update agenda_events set starts_at = ${startsAt}::timestamptz, ends_at = ${endsAt}::timestamptz where id = ${eventId}::uuid`);
}

export async function linkAccount(t: AgendaTest, user: TestUser, contactId: string): Promise<void> {
  await t.app.http.put(`${base}/users/${user.id}/contact`).set(t.manager.auth).send({ contactId }).expect(200);
}
