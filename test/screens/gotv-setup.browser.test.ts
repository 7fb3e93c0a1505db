/**
 * The console's election-day set-up in headless Chromium against a listening test app, in the order
 * a campaign does it: a stations file checked without writing and then imported; a 2,000-row voters
 * file with 3 bad rows previewed in the browser, its 3 errors listed by line, nothing written on the
 * dry run (checked through the API), then 1,997 written; a brigade made of a member and a station,
 * its scope on the map; the day's settings refused beside the field and then saved; an incident's
 * photo opened from the incidents list. axe on every screen; the import is driven from the keyboard.
 * Screenshots go to test-artifacts/ (console-gotv-setup*.png: docs/screens-console-gotv-setup*.png).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
// Incident photos are written here, not in the checkout's ./data.
const DATA_DIR = mkdtempSync(join(tmpdir(), 'comando-gotv-setup-'));
const FILES = mkdtempSync(join(tmpdir(), 'comando-gotv-files-'));

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let member: TestUser;
let page: Page;

/** A real PNG (a 24×16 block of one colour), so the browser draws it. */
function png(width = 24, height = 16): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([200, 60, 40]))]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

function file(name: string, text: string): string {
  const path = join(FILES, name);
  writeFileSync(path, text);
  return path;
}

/** The voters the API holds, counted from its CSV export (one line per voter after the header). */
async function votersHeld(): Promise<number> {
  const answer = await app.http.get('/api/gotv/voters?format=csv').set(manager.auth).buffer(true).expect(200);
  return answer.text.split('\n').filter((line) => line.trim()).length - 1;
}

/** The whole screen in one picture: the viewport made as tall as the page (a full-page capture would repeat the fixed header over it). */
async function screenshot(name: string): Promise<void> {
  const viewport = page.viewportSize()!;
  const height = await page.evaluate('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Number(height)) });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  await page.setViewportSize(viewport);
}

async function choose(path: string, label: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: label }).click();
  await (await chooser).setFiles(path);
}

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({ DATA_DIR }, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  viewer = await createUser(app, admin, 'viewer', 'Vera Lectora');
  member = await createUser(app, admin, 'brigade', 'Bruno Brigadista');
  browser = await launchChromium();
  page = await openConsole(browser, app, manager, '/dia-electoral/importar');
  await page.getByRole('heading', { name: 'Importar puestos y votantes', level: 1 }).waitFor();
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('checks a stations file without writing, then imports it', async () => {
  const stations = file(
    'puestos.csv',
    [
      'code,name,lat,lng,tables,registeredVoters,previousTurnout',
      'P-01,I.E. San José,6.2518,-75.5636,12,4200,2900',
      'P-02,Colegio Mayor,6.2601,-75.5702,8,3100,',
      'P-03,Coliseo Cubierto,6.2444,-75.5801,20,7000,4100',
    ].join('\n'),
  );
  await choose(stations, 'Archivo CSV de puestos');
  await page.getByText('puestos.csv: 3 filas de datos').waitFor();
  await page.getByRole('button', { name: 'Revisar' }).click();
  await page.getByText('No se escribió nada. Todas las filas se pueden importar.').waitFor();
  expect((await app.http.get('/api/gotv/polling-stations').set(manager.auth).expect(200)).body.data).toEqual([]);
  await page.getByRole('button', { name: 'Importar' }).click();
  await page.getByText('Se importaron 3 puestos.').waitFor();
  expect((await app.http.get('/api/gotv/polling-stations').set(manager.auth).expect(200)).body.data.map((s: { code: string }) => s.code).sort()).toEqual(['P-01', 'P-02', 'P-03']);
  await screenshot('console-gotv-setup-stations');
});

it('previews a 2,000-row voters file, lists its 3 bad rows by line, writes nothing on the dry run, then imports 1,997', async () => {
  const rows = Array.from({ length: 2000 }, (_, index) => {
    const line = index + 2;
    if (line === 12) return `Votante ${index},12,,P-01,,`; // a cédula too short
    if (line === 700) return `Votante ${index},${80_000_000 + index},,P-99,,`; // no such station
    if (line === 1999) return `Votante ${index},${80_000_000 + index},,P-02,9,`; // P-02 has 8 tables
    return `Votante ${index},${80_000_000 + index},300555${String(index).padStart(4, '0')},P-0${(index % 3) + 1},,${index % 10 === 0 ? 'high' : ''}`;
  });
  const voters = file('votantes.csv', ['name,documentId,phone,pollingStationCode,tableNumber,priority', ...rows].join('\n'));

  // From the keyboard: the tab list moves with the arrow keys, buttons press with Enter.
  await page.getByRole('tab', { name: 'Puestos de votación' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.getByRole('tab', { name: 'Votantes confirmados', selected: true }).waitFor();
  await page.keyboard.press('Enter');
  await choose(voters, 'Archivo CSV de votantes');
  await page.getByText('votantes.csv: 2.000 filas de datos; estas son las primeras 10. Aún no se ha enviado nada.').waitFor();
  const preview = page.getByRole('table', { name: 'Primeras filas, tal como se leyeron en este computador' });
  expect(await preview.getByRole('row').count()).toBe(11);
  await preview.getByRole('cell', { name: 'Votante 9', exact: true }).waitFor();

  await page.getByRole('button', { name: 'Revisar' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Errores por línea (3)').waitFor();
  const errors = page.getByRole('region', { name: 'Errores por línea' });
  const errorRows = errors.getByRole('row');
  expect(await errorRows.count()).toBe(4);
  expect(await errorRows.nth(1).textContent()).toBe('12Cédula: debe tener de 5 a 12 dígitos');
  expect(await errorRows.nth(2).textContent()).toBe('700Código del puesto: ningún puesto tiene el código P-99');
  expect(await errorRows.nth(3).textContent()).toBe('1999Mesa: el puesto tiene 8 mesas');
  await page.getByText('No se escribió nada. 3 filas tienen errores y no se importarían; las demás sí.', { exact: false }).waitFor();
  expect(await page.getByRole('region', { name: 'Revisión: así quedaría' }).textContent()).toContain('1.997Se crearían');
  expect(await votersHeld()).toBe(0);
  expect(await axeSettled(page)).toEqual([]);
  await screenshot('console-gotv-setup');

  await page.getByRole('button', { name: 'Importar' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Se importaron 1.997 votantes; 3 filas con errores quedaron por fuera.').waitFor({ timeout: 60_000 });
  expect(await votersHeld()).toBe(1997);
  // Only a reviewed file is imported: the button waits for the next review.
  expect(await page.getByRole('button', { name: 'Importar' }).isDisabled()).toBe(true);
});

it('makes a brigade of a member and a station and shows its scope on the map', async () => {
  await page.getByRole('link', { name: 'Brigadas' }).click();
  await page.getByRole('heading', { name: 'Brigadas', level: 1 }).waitFor();
  await page.getByText('Aún no hay brigadas.').waitFor();
  await page.getByRole('button', { name: 'Nueva brigada' }).click();
  const dialog = page.getByRole('dialog', { name: 'Nueva brigada' });
  // The empty name is refused beside its field before anything is sent.
  await dialog.getByRole('button', { name: 'Crear brigada' }).click();
  await dialog.getByText('Escriba algo en este campo.').waitFor();
  await dialog.getByLabel('Nombre').fill('Brigada Candelaria');
  const members = dialog.getByRole('combobox', { name: 'Integrantes' });
  await members.click();
  await page.getByRole('option', { name: 'Bruno Brigadista' }).click();
  await members.press('Tab');
  await dialog.getByRole('combobox', { name: 'Líder' }).click();
  await page.getByRole('option', { name: 'Bruno Brigadista' }).click();
  const stations = dialog.getByRole('combobox', { name: 'Puestos que cubre' });
  await stations.fill('P-0');
  await page.getByRole('option', { name: 'I.E. San José (P-01)' }).click();
  await stations.fill('Coliseo');
  await page.getByRole('option', { name: 'Coliseo Cubierto (P-03)' }).click();
  await stations.fill('Mayor');
  await page.getByRole('option', { name: 'Colegio Mayor (P-02)' }).click();
  // Tab leaves the list for the next control, closing its dropdown.
  await stations.press('Tab');
  await page.getByRole('listbox').waitFor({ state: 'detached' });
  expect(await axeSettled(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Crear brigada' }).click();
  await dialog.waitFor({ state: 'detached' });

  const [brigade] = (await app.http.get('/api/gotv/brigades').set(viewer.auth).expect(200)).body.data;
  expect(brigade).toMatchObject({ name: 'Brigada Candelaria', leaderId: member.id, memberIds: [member.id] });
  expect(brigade.stationIds).toHaveLength(3);

  await page.getByRole('button', { name: 'Brigada Candelaria' }).click();
  const detail = page.getByRole('region', { name: 'Brigada Candelaria', exact: true });
  await detail.getByText('Coliseo Cubierto (P-03) · 20 mesas · Sin abrir').waitFor();
  await detail.getByRole('region', { name: 'Mapa de los 3 puestos de Brigada Candelaria' }).waitFor();
  // Leaflet drew the three stations and the area they enclose.
  await untilPageHolds(page, "document.querySelectorAll('.leaflet-overlay-pane path').length === 4");
  expect(await axeSettled(page)).toEqual([]);
  await screenshot('console-gotv-setup-brigades');
});

it('says beside the field what is wrong with the hours, then saves the day', async () => {
  await page.getByRole('link', { name: 'Ajustes del día' }).click();
  await page.getByRole('heading', { name: 'Ajustes del día electoral', level: 1 }).waitFor();
  await page.getByLabel('Fecha de elecciones').fill('2027-03-14');
  await page.getByLabel('Apertura', { exact: true }).first().fill('09:00');
  await page.getByLabel('Cierre', { exact: true }).first().fill('08:00');
  await page.getByRole('button', { name: 'Guardar ajustes' }).click();
  const closes = page.getByLabel('Cierre', { exact: true }).first();
  await page.getByText('El cierre (08:00) debe ser después de la apertura (09:00).').waitFor();
  expect(await closes.getAttribute('aria-invalid')).toBe('true');
  expect((await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body.electionDate).toBeNull();

  await closes.fill('16:00');
  await page.getByRole('button', { name: 'Agregar un día' }).click();
  await page.getByLabel('Día 2').fill('2027-03-15');
  await page.getByRole('button', { name: 'Guardar ajustes' }).click();
  await page.getByText('Se guardaron los ajustes del día electoral.').waitFor();
  const saved = (await app.http.get('/api/gotv/settings').set(viewer.auth).expect(200)).body;
  expect(saved).toMatchObject({ electionDate: '2027-03-14', opensAt: '09:00', closesAt: '16:00', followingDays: [{ date: '2027-03-15', opensAt: '09:00', closesAt: '16:00' }] });
  // The campaign's own date is the same one.
  expect((await app.http.get('/api/campaign/settings').set(manager.auth).expect(200)).body.electionDate).toBe('2027-03-14');
  expect(await axeSettled(page)).toEqual([]);
  await screenshot('console-gotv-setup-settings');
});

it('lists the incidents with their photos', async () => {
  const [station] = (await app.http.get('/api/gotv/polling-stations?q=P-01').set(manager.auth).expect(200)).body.data;
  const incident = await app.http
    .post('/api/gotv/incidents')
    .set(manager.auth)
    .send({ pollingStationId: station.id, type: 'material_missing', severity: 'high', description: 'Faltan tarjetones en la mesa 3' })
    .expect(201);
  await app.http.put(`/api/gotv/incidents/${incident.body.id}/photo`).set(manager.auth).set('Content-Type', 'image/png').send(png()).expect(200);
  await app.http
    .post('/api/gotv/incidents')
    .set(manager.auth)
    .send({ pollingStationId: station.id, type: 'other', severity: 'low', description: 'Fila larga a la entrada' })
    .expect(201);

  await page.getByRole('link', { name: 'Incidentes' }).click();
  const table = page.getByRole('table', { name: 'Incidentes reportados, el más reciente primero' });
  await table.getByRole('row').filter({ hasText: 'Faltan tarjetones en la mesa 3' }).getByText('I.E. San José (P-01)').waitFor();
  expect(await table.getByRole('row').nth(1).textContent()).toContain('Fila larga a la entrada');
  expect(await table.getByRole('row').nth(1).textContent()).toContain('Sin foto');
  await table.getByRole('button', { name: /^Ver foto/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Foto: Falta material electoral' });
  const image = dialog.getByRole('img', { name: 'Foto del incidente: Faltan tarjetones en la mesa 3' });
  await image.waitFor();
  await untilPageHolds(page, "[...document.querySelectorAll('[role=dialog] img')].some((img) => img.complete && img.naturalWidth === 24)");
  expect(await axeSettled(page)).toEqual([]);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

it('shows a viewer the settings and brigades without changing them, and hides the imports', async () => {
  const viewerPage = await openConsole(browser, app, viewer, '/dia-electoral/ajustes');
  await viewerPage.getByText('Su rol puede ver estos ajustes; los cambia el equipo de campaña.').waitFor();
  expect(await viewerPage.getByRole('button', { name: 'Guardar ajustes' }).count()).toBe(0);
  expect(await viewerPage.getByRole('link', { name: 'Puestos y votantes' }).count()).toBe(0);
  await viewerPage.getByRole('link', { name: 'Brigadas' }).click();
  await viewerPage.getByRole('button', { name: 'Brigada Candelaria' }).waitFor();
  expect(await viewerPage.getByRole('button', { name: 'Nueva brigada' }).count()).toBe(0);
  await viewerPage.context().close();
});
