/**
 * The console's Agenda screens in headless Chromium against a listening test app, with the browser
 * in Tokyo's zone (the screens must show Bogotá's time whatever the browser's): a manager creates
 * an event with capacity 1 through the form (its errors beside the fields first); two people say
 * they go and the second lands on the waitlist, shown as such with their place; the manager makes
 * the door volunteer its organiser in the form, and the volunteer finds the event from the menu,
 * searches a name without its accent and records a check-in, which the API then lists (and the
 * manager's open page follows live); the calendar shows the event at its Bogotá time in month and
 * week view, reached and opened by keyboard. Then a scanned code checked in at once, a walk-in
 * with their consent, a shift, inventory refused beyond what is free and then held, a task ticked
 * off, and a personal calendar address copied and read by the feed. axe on each screen. Leaves
 * screenshots in test-artifacts/console-agenda.png (the month) and console-agenda-waitlist.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../src/kernel/ids';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

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

// Starting in an hour (the door opens six hours before), on the five minutes, lasting an hour (past
// midnight when run after 22:00 in Bogotá: its shift then ends on the next day, as the form allows).
const start = new Date(Math.ceil((Date.now() + 3_600_000) / 300_000) * 300_000);
const end = new Date(start.getTime() + 3_600_000);
const startLocal = bogota(start);
const endLocal = bogota(end);
/** The event's times as the screens write them. */
const RANGE = `${startLocal.time}–${endLocal.time}${endLocal.day === startLocal.day ? '' : ' del día siguiente'}`;

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
  await page.getByText(`${RANGE} (hora de Bogotá)`).waitFor();
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
  // The manager names the volunteer organiser in the event's form.
  await page.goto(`${app.url}/agenda/${eventId}/editar`);
  await page.getByRole('combobox', { name: 'Quién lo organiza' }).fill('Valeria');
  await page.getByRole('option', { name: /Valeria Puerta/ }).click();
  expect(await axeSettled(page)).toEqual([]);
  await page.getByRole('button', { name: 'Guardar cambios' }).click();
  await page.waitForURL(new RegExp(`/agenda/${eventId}$`));
  const saved = (await app.http.get(`/api/agenda/events/${eventId}`).set(manager.auth).expect(200)).body;
  expect(saved).toMatchObject({ organiserId: doorVolunteer.id, capacity: 1, startsAt: start.toISOString(), endsAt: end.toISOString() });

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
  // The manager's page of the event, open all along, follows without a reload (agenda:attendance).
  await page.getByText(/· 1 entró$/).waitFor();
});

it('shows the event at its Bogotá time in month and week view, opened by keyboard', async () => {
  await page.goto(`${app.url}/agenda?vista=mes&fecha=${startLocal.day}`);
  const link = page.getByRole('link', { name: `${startLocal.time} ${TITLE}` });
  await link.first().waitFor();
  // In the cell of its Bogotá day (whose link names the day); an event past midnight is in the next day's cell too.
  const cell = page.getByRole('cell').filter({ has: link }).first();
  await expect(cell.getByRole('link', { name: /^Ver el día/ }).textContent()).resolves.toContain(String(Number(startLocal.day.slice(8))));
  expect(await axeSettled(page)).toEqual([]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-agenda.png'), fullPage: true });

  // The view's switch is a radio group: the arrow key moves it from month to week.
  await page.getByRole('radio', { name: 'Mes' }).focus();
  await page.keyboard.press('ArrowRight');
  const weekLink = page.getByRole('link', { name: `${RANGE} ${TITLE}` }).first();
  await weekLink.waitFor();
  expect(new URL(page.url()).searchParams.get('vista')).toBe('semana');
  expect(await axeSettled(page)).toEqual([]);

  // Keyboard only: Tab until the event's link has the focus, then Enter opens it.
  const focused = `document.activeElement?.textContent?.includes(${JSON.stringify(TITLE)}) === true`;
  await page.getByRole('button', { name: 'Hoy' }).focus();
  for (let presses = 0; presses < 80 && !(await page.evaluate(focused)); presses++) await page.keyboard.press('Tab');
  await untilPageHolds(page, focused);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
});

it('checks in a scanned code at once, and a walk-in with their consent (errors beside the fields first)', async () => {
  await page.goto(`${app.url}/agenda/${eventId}/puerta`);
  // A reader types the code and Enter: José is checked in by scan, no click needed.
  await page.getByRole('searchbox', { name: 'Nombre o código escaneado' }).fill(people.jose!);
  await page.keyboard.press('Enter');
  await page.getByText(/^Entrada registrada: José Pérez, a las \d\d:\d\d\.$/).waitFor();
  await row('José Pérez')
    .getByText(/Entró a las/)
    .waitFor();
  const form = page.getByRole('region', { name: 'Llegó alguien sin inscribirse' });
  const consent = form.getByLabel('Autorización de datos que aceptó');
  await form.getByLabel('Nombre').fill('Pedro Puerta');
  await consent.fill('Autorizo a la campaña a tratar mis datos para invitarme a sus eventos.');
  await form.getByRole('button', { name: 'Registrar su entrada' }).click();
  await form.getByText('Escriba un teléfono o un correo.').waitFor();
  await form.getByLabel('Teléfono').fill('+57 320 999 8877');
  await consent.fill('Autorizo');
  await form.getByRole('button', { name: 'Registrar su entrada' }).click();
  await untilPageHolds(page, `document.querySelector('textarea[aria-invalid=true]') !== null`);
  expect(
    await app.http
      .get(`/api/agenda/events/${eventId}/check-ins`)
      .set(manager.auth)
      .then((answer) => answer.body.data.length),
  ).toBe(2);
  await consent.fill('Autorizo a la campaña a tratar mis datos para invitarme a sus eventos.');
  await form.getByRole('button', { name: 'Registrar su entrada' }).click();
  await page.getByText(/^Entrada registrada: Pedro Puerta, a las \d\d:\d\d\.$/).waitFor();
  await row('Pedro Puerta').getByText('Sin respuesta (llegó sin inscribirse)').waitFor();
  // The authorisation stays for the next person at the same door.
  expect(await consent.inputValue()).toMatch(/^Autorizo a la campaña/);
  const checkIns = (await app.http.get(`/api/agenda/events/${eventId}/check-ins`).set(manager.auth).expect(200)).body.data;
  expect(checkIns.map((item: { method: string }) => item.method).sort()).toEqual(['mark', 'scan', 'walk_in']);
  expect(await axeSettled(page)).toEqual([]);
});

it("keeps the event's shifts, inventory and tasks", async () => {
  const sound = (await app.http.post('/api/agenda/resources').set(manager.auth).send({ name: 'Sonido', quantity: 2, unit: 'equipos' }).expect(201)).body;
  await page.goto(`${app.url}/agenda/${eventId}`);
  const shifts = page.getByRole('region', { name: 'Turnos del equipo' });
  await shifts.getByLabel('Tarea del turno').fill('Registro');
  await shifts.getByRole('button', { name: 'Agregar turno' }).click();
  await shifts.getByText('Elija la hora de inicio del turno.').waitFor();
  // With the start typed, only the end is asked for.
  await shifts.getByLabel('Desde').fill(startLocal.time);
  await shifts.getByRole('button', { name: 'Agregar turno' }).click();
  await shifts.getByText('Elija una hora de fin posterior al inicio.').waitFor();
  expect(await shifts.getByText('Elija la hora de inicio del turno.').count()).toBe(0);
  await shifts.getByLabel('Hasta').fill(endLocal.time);
  await shifts.getByRole('textbox', { name: 'Cupos' }).fill('2');
  await shifts.getByRole('button', { name: 'Agregar turno' }).click();
  await shifts.getByRole('row').filter({ hasText: 'Registro' }).getByText('0 de 2 ocupados').waitFor();
  // A night shift: an end before the start is the next day's.
  await shifts.getByLabel('Tarea del turno').fill('Cierre');
  await shifts.getByLabel('Desde').fill('23:00');
  await shifts.getByLabel('Hasta').fill('01:30');
  await shifts.getByText('Al día siguiente').waitFor();
  await shifts.getByRole('button', { name: 'Agregar turno' }).click();
  await shifts.getByRole('row').filter({ hasText: 'Cierre' }).getByText('23:00–01:30 del día siguiente').waitFor();
  const night = (await app.http.get(`/api/agenda/events/${eventId}/shifts`).set(manager.auth).expect(200)).body.data.find((shift: { role: string }) => shift.role === 'Cierre');
  expect(night).toMatchObject({
    startsAt: new Date(`${startLocal.day}T23:00:00-05:00`).toISOString(),
    endsAt: new Date(new Date(`${startLocal.day}T23:00:00-05:00`).getTime() + 150 * 60_000).toISOString(),
  });

  const inventory = page.getByRole('region', { name: 'Inventario para el evento' });
  await inventory.getByRole('combobox', { name: /^Recurso/ }).selectOption(sound.id);
  await inventory.getByRole('textbox', { name: 'Cantidad' }).first().fill('3');
  await inventory.getByRole('button', { name: 'Reservar' }).click();
  await inventory.getByText('No hay unidades libres suficientes en ese lapso: otros eventos ya las tienen.').waitFor();
  await inventory.getByRole('textbox', { name: 'Cantidad' }).first().fill('2');
  await inventory.getByRole('button', { name: 'Reservar' }).click();
  await inventory.getByRole('row').filter({ hasText: 'Sonido' }).getByText('2 equipos').waitFor();
  expect(await axeSettled(page)).toEqual([]);

  await page.getByRole('link', { name: 'Tareas' }).click();
  const tasks = page.getByRole('region', { name: 'Tareas del evento' });
  await tasks.getByLabel('Nueva tarea').fill('Llevar la lista impresa');
  await tasks.getByLabel('Asignármela').check();
  await tasks.getByRole('button', { name: 'Agregar tarea' }).click();
  const task = tasks.getByRole('checkbox', { name: 'Llevar la lista impresa' });
  await task.waitFor();
  // Ticked when the API has it done (the box shows the server's state).
  await task.click();
  await tasks.getByText(/^Hecha el /).waitFor();
  expect(await task.isChecked()).toBe(true);
  const saved = (await app.http.get(`/api/agenda/events/${eventId}/tasks`).set(manager.auth).expect(200)).body.data;
  expect(saved).toEqual([expect.objectContaining({ title: 'Llevar la lista impresa', assigneeId: manager.id, done: true })]);
  expect(await axeSettled(page)).toEqual([]);
});

it('hands out a personal calendar address with a copy button, and the feed lists the internal event', async () => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  await page.goto(`${app.url}/agenda`);
  await page.getByRole('button', { name: 'Crear mi dirección personal' }).click();
  const address = page.getByRole('textbox', { name: 'Mi calendario del equipo' });
  await address.waitFor();
  const url = new URL(await address.inputValue());
  expect(url.pathname).toBe('/api/agenda/events.ics');
  await page.getByRole('button', { name: 'Copiar: Mi calendario del equipo' }).click();
  await page.getByRole('button', { name: 'Copiar: Mi calendario del equipo' }).getByText('Copiado').waitFor();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(url.toString());
  // The address alone (no header: a calendar app) lists the team's internal event.
  const feed = await app.http.get(`${url.pathname}${url.search}`).expect(200);
  expect(feed.headers['content-type']).toMatch(/^text\/calendar/);
  expect(feed.text).toContain(TITLE);
  // The public one does not.
  expect((await app.http.get('/api/agenda/events.ics').expect(200)).text).not.toContain(TITLE);
});
