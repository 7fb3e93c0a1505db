/**
 * The console's Territories screen in headless Chromium against a listening test app: the tree
 * opens level by level (departamento → municipio → comuna); a comuna with a polling station cannot
 * be removed and the dialog says why, with the count the API gives; a code is edited and a barrio
 * added and then removed; a divisions file is checked without writing (its bad row listed by line)
 * and then imported. A viewer reads the tree without actions. axe on the tree and on a dialog.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

jest.setTimeout(90_000);

let app: TestApp;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let page: Page;
const ids: Record<string, string> = {};

async function territory(name: string, type: string, parentId?: string, code?: string): Promise<string> {
  const answer = await app.http.post('/api/territories').set(manager.auth).send({ name, type, parentId, code }).expect(201);
  return answer.body.id as string;
}

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  viewer = await createUser(app, admin, 'viewer', 'Vera Lectora');
  ids.antioquia = await territory('Antioquia', 'departamento', undefined, '05');
  ids.medellin = await territory('Medellín', 'municipio', ids.antioquia, '05001');
  ids.comuna = await territory('Comuna 10 - La Candelaria', 'comuna', ids.medellin);
  await app.http
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code: 'P-001', name: 'I.E. La Candelaria', territoryId: ids.comuna, lat: 6.2476, lng: -75.5658, tables: 10, registeredVoters: 3000 })
    .expect(201);
  browser = await launchChromium();
  page = await openConsole(browser, app, manager, '/territorios');
  await page.getByRole('heading', { name: 'Territorios', level: 1 }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const row = (name: string) => page.getByRole('row').filter({ hasText: name });

it('opens the tree level by level', async () => {
  await page.getByRole('button', { name: 'Antioquia', exact: true }).click();
  await page.getByRole('button', { name: 'Medellín', exact: true }).click();
  await row('Comuna 10 - La Candelaria').waitFor();
  expect(await row('Medellín').textContent()).toContain('05001');
  expect(await page.getByRole('button', { name: 'Medellín', exact: true }).getAttribute('aria-expanded')).toBe('true');
  expect(await axeSettled(page)).toEqual([]);
});

it('refuses to remove a comuna with a polling station and says why', async () => {
  await page.getByRole('button', { name: 'Eliminar Comuna 10 - La Candelaria' }).click();
  const dialog = page.getByRole('dialog', { name: 'Eliminar territorio' });
  await dialog.getByRole('button', { name: 'Eliminar' }).click();
  await dialog.getByText('No se puede eliminar: todavía lo usan 1 puesto. Muévalos o elimínelos primero; no se eliminó nada.').waitFor();
  expect(await axeSettled(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  await app.http.get(`/api/territories/${ids.comuna}`).set(viewer.auth).expect(200);
  mkdirSync(ARTIFACTS, { recursive: true });
});

it('edits a code, adds a barrio and removes it', async () => {
  await page.getByRole('button', { name: 'Editar Medellín' }).click();
  const edit = page.getByRole('dialog', { name: 'Editar Medellín' });
  await edit.getByLabel('Código').fill('05001-MED');
  await edit.getByRole('button', { name: 'Guardar' }).click();
  await row('05001-MED').waitFor();
  expect((await app.http.get(`/api/territories/${ids.medellin}`).set(viewer.auth).expect(200)).body.code).toBe('05001-MED');

  await page.getByRole('button', { name: 'Agregar dentro de Comuna 10 - La Candelaria' }).click();
  const add = page.getByRole('dialog', { name: 'Agregar dentro de Comuna 10 - La Candelaria' });
  await add.getByLabel('Nombre').fill('Barrio Colón');
  await add.getByRole('button', { name: 'Agregar' }).click();
  await add.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Comuna 10 - La Candelaria', exact: true }).click();
  await row('Barrio Colón').waitFor();
  const [barrio] = (await app.http.get('/api/territories').query({ parentId: ids.comuna }).set(viewer.auth).expect(200)).body.data;
  expect(barrio).toMatchObject({ name: 'Barrio Colón', type: 'neighbourhood' });

  await page.getByRole('button', { name: 'Eliminar Barrio Colón' }).click();
  await page.getByRole('dialog', { name: 'Eliminar territorio' }).getByRole('button', { name: 'Eliminar' }).click();
  await row('Barrio Colón').waitFor({ state: 'detached' });
  await app.http.get(`/api/territories/${barrio.id}`).set(viewer.auth).expect(404);
  await page.screenshot({ path: join(ARTIFACTS, 'console-territories.png'), fullPage: true });
});

it('checks a divisions file without writing, lists its bad row, then imports it', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'comando-territories-')), 'divipole.csv');
  writeFileSync(file, 'departamento,municipio,codigo_departamento,codigo_municipio\nBOLIVAR,CARTAGENA,13,13001\n,SIN DEPARTAMENTO,,\nBOLIVAR,TURBACO,13,13836\n');
  // From the keyboard (a toast of the last removal may still cover the button's corner).
  await page.getByRole('button', { name: 'Importar CSV' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Importar territorios' });
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Elegir archivo' }).click();
  await (await chooser).setFiles(file);
  await dialog.getByRole('button', { name: 'Revisar sin guardar' }).click();
  await dialog.getByText('Revisión (no se guardó nada)').waitFor();
  await dialog.getByText(/^Línea 3:/).waitFor();
  expect((await app.http.get('/api/territories').query({ q: 'Turbaco' }).set(viewer.auth).expect(200)).body.data).toEqual([]);
  await dialog.getByRole('button', { name: 'Importar', exact: true }).click();
  await dialog.getByText('Importado').waitFor();
  expect((await app.http.get('/api/territories').query({ q: 'Turbaco' }).set(viewer.auth).expect(200)).body.data).toHaveLength(1);
  await dialog.getByRole('button', { name: 'Cerrar' }).first().click();
});

it('lets a viewer read the tree without changing it', async () => {
  const viewerPage = await openConsole(browser, app, viewer, '/territorios');
  await viewerPage.getByRole('button', { name: 'Antioquia', exact: true }).waitFor();
  expect(await viewerPage.getByRole('button', { name: /^Eliminar / }).count()).toBe(0);
  expect(await viewerPage.getByRole('button', { name: 'Agregar territorio' }).count()).toBe(0);
  await viewerPage.context().close();
});
