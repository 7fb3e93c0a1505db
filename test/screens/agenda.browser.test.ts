/**
 * The console's Agenda screens in headless Chromium against a listening test app, with the browser
 * in Tokyo's zone (the screens must show Bogotá's time whatever the browser's): a manager creates
 * an event with capacity 1 through the form (its errors beside the fields first); two people say
 * they go and the second lands on the waitlist, shown as such with their place; the door volunteer
 * who organises it finds the event from the menu, searches a name without its accent and records a
 * check-in, which the API then lists; the calendar shows the event at its Bogotá time in month and
 * week view, reached and opened by keyboard. axe on each screen. Leaves screenshots in
 * test-artifacts/console-agenda.png (the month) and console-agenda-waitlist.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../src/kernel/ids';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, until } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const TITLE = 'Cierre de campaña en Kennedy';

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
let manager: TestUser;
let doorVolunteer: TestUser;
let page: Page;
let eventId: string;
const people: Record<string, string> = {};

/** Bogotá's wall clock at an instant (`2026-11-28`, `19:05`), computed apart from the screens' code. */
function bogota(at: Date): { day: string; time: string } {
  const shifted = new Date(at.getTime() - 5 * 3_600_000); // Colombia keeps UTC−5 all year.
  return { day: shifted.toISOString().slice(0, 10), time: shifted.toISOString().slice(11, 16) };
}

async function person(name: string): Promise<string> {
  const id = newId();
  const phone = `+57311${String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')}`;
  await app.runtime.deps.db.write(sql`insert into contacts (id, identity_key, name, phone, interests, created_at, updated_at)
    values (${id}, ${`tel:${phone}`}, ${name}, ${phone}, '{}', now(), now())`);
  return id;
}

// Starting in an hour (the door opens six hours before), on the five minutes, lasting an hour.
const start = new Date(Math.ceil((Date.now() + 3_600_000) / 300_000) * 300_000);
const end = new Date(start.getTime() + 3_600_000);
const startLocal = bogota(start);
const endLocal = bogota(end);

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  doorVolunteer = await createUser(app, admin, 'volunteer', 'Valeria Puerta');
  people.ana = await person('Ana Gómez');
  people.jose = await person('José Pérez');
  browser = await launchChromium();
  page = await openConsole(browser, app, manager, '/agenda/nuevo', { timezoneId: 'Asia/Tokyo' });
  await page.getByRole('heading', { name: 'Nuevo evento', level: 1 }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const row = (name: string) => page.getByRole('row').filter({ hasText: name });

it('creates an event with capacity 1 through the form, its errors beside the fields first', async () => {
  await page.getByRole('button', { name: 'Crear evento' }).click();
  // The title's rule and the start's, each under its field; nothing was sent.
  await page.getByText('Elija el día y la hora de inicio (hora de Bogotá).').waitFor();
  expect(await page.getByRole('textbox', { name: 'Título' }).getAttribute('aria-invalid')).toBe('true');
  expect((await app.http.get('/api/agenda/events').set(manager.auth).expect(200)).body.data).toEqual([]);
  expect(await axeSettled(page)).toEqual([]);

  await page.getByRole('textbox', { name: 'Título' }).fill(TITLE);
  await page.getByLabel('Tipo').selectOption('rally');
  await page.getByLabel('Día de inicio').fill(startLocal.day);
  await page.getByLabel('Hora de inicio').fill(startLocal.time);
  await page.getByLabel('Día de fin').fill(endLocal.day);
  await page.getByLabel('Hora de fin').fill(endLocal.time);
  await page.getByLabel('Dirección').fill('Parque Timiza');
  await page.getByRole('textbox', { name: 'Cupo' }).fill('1');
  await page.getByRole('button', { name: 'Crear evento' }).click();

  await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
  eventId = new URL(page.url()).pathname.split('/')[2]!;
  const event = (await app.http.get(`/api/agenda/events/${eventId}`).set(manager.auth).expect(200)).body;
  expect(event).toMatchObject({ capacity: 1, type: 'rally', status: 'scheduled', startsAt: start.toISOString(), endsAt: end.toISOString() });
  // Bogotá's time on the page, though the browser is in Tokyo.
  await page.getByText(`${startLocal.time}–${endLocal.time} (hora de Bogotá)`).waitFor();
});

it('puts a second "going" on a full event onto the waitlist, and shows it as such', async () => {
  await page.getByRole('link', { name: 'Respuestas y lista de espera' }).click();
  const answer = async (search: string, option: string) => {
    await page.getByRole('combobox', { name: 'Persona' }).fill(search);
    await page.getByRole('option', { name: new RegExp(option) }).click();
    await page.getByRole('button', { name: 'Registrar respuesta' }).click();
  };
  await answer('Ana', 'Ana Gómez');
  await page.getByText('Respuesta registrada: Confirmado.').waitFor();
  await row('Ana Gómez').getByText('Confirmado').waitFor();

  await answer('jose', 'José Pérez');
  await page.getByText('Quedó en lista de espera (puesto 1): el evento está lleno.').waitFor();
  await row('José Pérez').getByText('En lista de espera · puesto 1').waitFor();
  await page.getByText('Cupo lleno (1 de 1).').waitFor();

  const rsvps = (await app.http.get(`/api/agenda/events/${eventId}/rsvps`).set(manager.auth).expect(200)).body.data;
  expect(rsvps.map((item: { contactId: string; status: string; waitlistPosition: number | null }) => [item.contactId, item.status, item.waitlistPosition])).toEqual([
    [people.ana, 'going', null],
    [people.jose, 'waitlisted', 1],
  ]);
  expect(await axeSettled(page)).toEqual([]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-agenda-waitlist.png'), fullPage: true });
});

it('lets the door volunteer who organises it record a check-in, found from the menu and by name', async () => {
  await app.http.patch(`/api/agenda/events/${eventId}`).set(manager.auth).send({ organiserId: doorVolunteer.id }).expect(200);
  const door = await openConsole(browser, app, doorVolunteer, '/', { timezoneId: 'Asia/Tokyo' });
  try {
    // A volunteer's home lists what the policy lets them use: the door among it.
    await door.getByRole('navigation', { name: 'Módulos' }).getByRole('link', { name: 'Registrar entradas' }).click();
    await door.getByRole('heading', { name: 'Registrar entradas', level: 1 }).waitFor();
    await door.getByRole('link', { name: TITLE }).click();
    await door.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
    await door.getByRole('searchbox', { name: 'Nombre o código escaneado' }).fill('ana gomez');
    await door.keyboard.press('Enter');
    const ana = door.getByRole('row').filter({ hasText: 'Ana Gómez' });
    await ana.waitFor();
    await door.getByRole('row').filter({ hasText: 'José Pérez' }).waitFor({ state: 'detached' });
    expect(await axeSettled(door)).toEqual([]);
    await ana.getByRole('button', { name: 'Registrar entrada de Ana Gómez' }).click();
    await ana.getByText(/Entró a las \d\d:\d\d/).waitFor();
    await door.getByText(/^Entraron 1 · confirmados 1 de 1$/).waitFor();
  } finally {
    await door.context().close();
  }
  const checkIns = (await app.http.get(`/api/agenda/events/${eventId}/check-ins`).set(manager.auth).expect(200)).body.data;
  expect(checkIns).toEqual([expect.objectContaining({ contactId: people.ana, method: 'mark' })]);
});

it('shows the event at its Bogotá time in month and week view, opened by keyboard', async () => {
  await page.goto(`${app.url}/agenda?vista=mes&fecha=${startLocal.day}`);
  const link = page.getByRole('link', { name: `${startLocal.time} ${TITLE}` });
  await link.waitFor();
  // In the cell of its Bogotá day (whose link names the day).
  const cell = page.getByRole('cell').filter({ has: link });
  await expect(cell.getByRole('link', { name: /^Ver el día/ }).textContent()).resolves.toContain(String(Number(startLocal.day.slice(8))));
  expect(await axeSettled(page)).toEqual([]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-agenda.png'), fullPage: true });

  // The view's switch is a radio group: the arrow key moves it from month to week.
  await page.getByRole('radio', { name: 'Mes' }).focus();
  await page.keyboard.press('ArrowRight');
  const weekLink = page.getByRole('link', { name: `${startLocal.time}–${endLocal.time} ${TITLE}` });
  await weekLink.waitFor();
  expect(new URL(page.url()).searchParams.get('vista')).toBe('semana');
  expect(await axeSettled(page)).toEqual([]);

  // Keyboard only: Tab until the event's link has the focus, then Enter opens it.
  const focused = `document.activeElement?.textContent?.includes(${JSON.stringify(TITLE)}) === true`;
  await page.getByRole('button', { name: 'Hoy' }).focus();
  for (let presses = 0; presses < 80 && !(await page.evaluate(focused)); presses++) await page.keyboard.press('Tab');
  await until(page, focused);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
});
