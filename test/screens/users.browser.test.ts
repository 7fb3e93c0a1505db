/**
 * The console's Users screen in headless Chromium against a listening test app: an admin invites
 * someone and the link shown lets that person set a password and sign in with the role given; the
 * list filters by role and state; a role is changed, sessions are ended and an account deactivated
 * through their dialogs (each taking effect on the API at once); a user's sessions are listed by
 * device and one is ended while the other stays, then all of them; the last admin cannot take away
 * their own role and the screen says why in Spanish. A manager has no Users entry and is kept out
 * of the address. axe on the list and on a dialog; the invitation by keyboard. Leaves a screenshot
 * in test-artifacts/console-users.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

jest.setTimeout(90_000);

let app: TestApp;
let browser: Browser;
let admin: TestUser;
let manager: TestUser;
let brigadista: TestUser;
let page: Page;

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  brigadista = await createUser(app, admin, 'brigade', 'Bruno Brigadista');
  browser = await launchChromium();
  page = await openConsole(browser, app, admin, '/usuarios');
  await page.getByRole('heading', { name: 'Usuarios', level: 1 }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const row = (name: string) => page.getByRole('row').filter({ hasText: name });
const roleOf = async (id: string) => (await app.http.get('/api/users').set(admin.auth).query({ limit: 100 }).expect(200)).body.data.find((user: { id: string }) => user.id === id);

async function act(name: string, action: string, rowText = name): Promise<void> {
  await row(rowText)
    .getByRole('button', { name: `Acciones para ${name}` })
    .click();
  // The menu opened for this row: an earlier row's menu may still be fading out.
  await page
    .getByRole('menu', { name: `Acciones para ${name}` })
    .getByRole('menuitem', { name: action })
    .click();
}

it('lists the accounts with their roles, and filters them', async () => {
  await row('Marta Gestora').waitFor();
  await expect(row('Marta Gestora').textContent()).resolves.toContain('Equipo de campaña');
  await expect(row('Bruno Brigadista').textContent()).resolves.toContain('Brigada');
  await expect(page.getByText(/Solo la administración crea cuentas/).isVisible()).resolves.toBe(true);
  expect(await axeSettled(page)).toEqual([]);

  await page.getByRole('combobox', { name: 'Rol' }).click();
  await page.getByRole('option', { name: 'Brigada' }).click();
  await row('Marta Gestora').waitFor({ state: 'detached' });
  await expect(row('Bruno Brigadista').isVisible()).resolves.toBe(true);
  expect(new URL(page.url()).searchParams.get('rol')).toBe('brigade');
  await page.getByRole('button', { name: 'Quitar filtros' }).click();
  await row('Marta Gestora').waitFor();
});

it('invites someone by keyboard; the link lets them choose a password and sign in with the role given', async () => {
  await page.getByRole('button', { name: 'Invitar a alguien' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Invitar a alguien' });
  await dialog.waitFor();
  expect(await axeSettled(page)).toEqual([]);
  await page.keyboard.type('Pedro Prensa');
  await dialog.getByLabel('Correo').fill('no es un correo');
  await dialog.getByRole('button', { name: 'Invitar' }).click();
  await dialog
    .getByText(/correo/i)
    .first()
    .waitFor();
  expect(
    await app.http
      .get('/api/users')
      .query({ q: 'Pedro' })
      .set(admin.auth)
      .then((answer) => answer.body.data),
  ).toEqual([]);

  await dialog.getByLabel('Correo').fill('prensa@campana.co');
  await dialog.getByRole('combobox', { name: 'Rol' }).click();
  await page.getByRole('option', { name: 'Equipo de campaña' }).click();
  await dialog.getByRole('button', { name: 'Invitar' }).click();
  await page.getByRole('alert', { name: 'Enlace para Pedro Prensa' }).waitFor();
  const url = await page.getByRole('textbox', { name: 'Enlace' }).inputValue();
  expect(new URL(url).pathname).toBe('/cuenta/clave');
  await row('Pedro Prensa').waitFor();

  const token = new URL(url).searchParams.get('token');
  await app.http.post('/api/auth/password/reset').send({ token, newPassword: 'la clave de Pedro, larga' }).expect(204);
  const signedIn = await app.http.post('/api/auth/login').send({ email: 'prensa@campana.co', password: 'la clave de Pedro, larga' }).expect(200);
  expect(signedIn.body.user).toMatchObject({ name: 'Pedro Prensa', role: 'manager' });

  // The same email again is refused, in Spanish, on the form.
  await page.getByRole('button', { name: 'Invitar a alguien' }).click();
  await dialog.getByLabel('Nombre').fill('Otro Pedro');
  await dialog.getByLabel('Correo').fill('PRENSA@campana.co');
  await dialog.getByRole('button', { name: 'Invitar' }).click();
  await dialog.getByText('Ya hay una cuenta con este correo.').waitFor();
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-users.png'), fullPage: true });
});

it("changes a role, ends someone's sessions and deactivates an account, each at once", async () => {
  await act('Bruno Brigadista', 'Cambiar rol');
  const roleDialog = page.getByRole('dialog', { name: 'Rol de Bruno Brigadista' });
  await roleDialog.getByRole('combobox', { name: 'Rol' }).click();
  await page.getByRole('option', { name: 'Solo lectura' }).click();
  await roleDialog.getByRole('button', { name: 'Cambiar el rol' }).click();
  await roleDialog.waitFor({ state: 'detached' });
  // The list is read again after the change: wait for the row to say it.
  await row('Bruno Brigadista').filter({ hasText: 'Solo lectura' }).waitFor();
  expect(await roleOf(brigadista.id)).toMatchObject({ role: 'viewer' });

  await app.http.get('/api/auth/me').set(manager.auth).expect(200);
  await act('Marta Gestora', 'Cerrar sus sesiones');
  await page.getByRole('dialog', { name: 'Cerrar sus sesiones' }).getByRole('button', { name: 'Cerrar las sesiones' }).click();
  await page.getByText('Se cerraron todas las sesiones de Marta Gestora.').waitFor();
  await app.http.get('/api/auth/me').set(manager.auth).expect(401);
  await app.http.post('/api/auth/login').send({ email: manager.email, password: manager.password }).expect(200);

  await act('Bruno Brigadista', 'Desactivar la cuenta');
  await page.getByRole('dialog', { name: 'Desactivar la cuenta' }).getByRole('button', { name: 'Desactivar' }).click();
  await expect(row('Bruno Brigadista').getByText('Desactivada').waitFor()).resolves.toBeUndefined();
  expect(await roleOf(brigadista.id)).toMatchObject({ active: false });
  await app.http.post('/api/auth/login').send({ email: brigadista.email, password: brigadista.password }).expect(401);
});

it("lists a user's sessions by device, ends one while the other stays, then all of them", async () => {
  const PHONE = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36';
  const LAPTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36';
  const signIn = async (userAgent: string) => {
    const answer = await app.http.post('/api/auth/login').set('User-Agent', userAgent).send({ email: manager.email, password: manager.password }).expect(200);
    return { Authorization: `Bearer ${answer.body.token as string}` };
  };
  const phone = await signIn(PHONE);
  const laptop = await signIn(LAPTOP);

  await act('Marta Gestora', 'Ver sus sesiones');
  const dialog = page.getByRole('dialog', { name: 'Sesiones de Marta Gestora' });
  const sessions = dialog.getByRole('table', { name: 'Sesiones abiertas de Marta Gestora' });
  await sessions.getByRole('row').filter({ hasText: 'Chrome en Android' }).waitFor();
  expect(await sessions.getByRole('row').filter({ hasText: 'Chrome en Windows' }).textContent()).toContain('127.0.0.1');
  // The row's menu is gone once its closing transition ends: axe sees the dialog alone.
  await untilPageHolds(page, `!document.querySelector('[role="menu"]')`);
  expect(await axeSettled(page)).toEqual([]);

  await dialog.getByRole('button', { name: /^Cerrar la sesión en Chrome en Android/ }).click();
  await sessions.getByRole('row').filter({ hasText: 'Chrome en Android' }).waitFor({ state: 'detached' });
  await app.http.get('/api/auth/me').set(phone).expect(401);
  await app.http.get('/api/auth/me').set(laptop).expect(200);
  expect(await sessions.getByRole('row').filter({ hasText: 'Chrome en Windows' }).count()).toBe(1);

  await dialog.getByRole('button', { name: 'Cerrar todas las sesiones' }).click();
  const confirm = page.getByRole('dialog', { name: 'Cerrar sus sesiones' });
  await confirm.getByRole('button', { name: 'Cerrar las sesiones' }).click();
  // The dialog closes once the API answered (the earlier test's toast may still be showing).
  await confirm.waitFor({ state: 'detached' });
  await app.http.get('/api/auth/me').set(laptop).expect(401);
  expect((await app.http.get(`/api/users/${manager.id}/sessions`).set(admin.auth).expect(200)).body.data).toEqual([]);
});

it('keeps the last admin: taking away their own role is refused and the screen says why', async () => {
  await act('Admin', 'Cambiar rol', 'Admin (usted)');
  const dialog = page.getByRole('dialog', { name: 'Rol de Admin' });
  await dialog.getByRole('combobox', { name: 'Rol' }).click();
  await page.getByRole('option', { name: 'Equipo de campaña' }).click();
  await dialog.getByRole('button', { name: 'Cambiar el rol' }).click();
  await dialog.getByText('Es la última cuenta de administración activa: dé ese rol a otra persona antes.').waitFor();
  expect(await axeSettled(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  expect(await roleOf(admin.id)).toMatchObject({ role: 'admin', active: true });
});

it('keeps a manager out: no Users entry, and the address answers that the role cannot use it', async () => {
  const managerPage = await openConsole(browser, app, manager, '/usuarios');
  await managerPage.getByRole('heading', { name: 'Sin acceso', level: 1 }).waitFor();
  expect(await managerPage.getByRole('link', { name: 'Usuarios' }).count()).toBe(0);
  await managerPage.context().close();
});
