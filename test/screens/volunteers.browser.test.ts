/**
 * The console's Volunteers screens in headless Chromium against a listening test app, with a
 * pyramid of 300 volunteers five levels deep (written in beforeAll as the pyramid's own test writes
 * its tree) and a few registered through the API: the pyramid renders, shows a branch's people,
 * votes and goal, and a branch collapses and opens from the keyboard; the search opens the branches
 * down to a volunteer on the fifth level and gives them the focus; the list filters by status and
 * by text (the filters in the address); a profile shows the leader and the activity, and an admin
 * links and unlinks a login account; a goal is edited with the API's rules, and a leader that would
 * close a loop is refused beside the field; the leaderboard and the activity log list the work; a viewer
 * gets the pyramid and no list. axe on each screen and on a dialog. Leaves a screenshot in
 * test-artifacts/console-volunteers.png and the pyramid's timings in test-artifacts/volunteers-pyramid.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
/** 300 volunteers: 4 at the top, then 16, 40, 80 and 160, each led by one of the level above. */
const LEVEL_SIZES = [4, 16, 40, 80, 160];

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
let admin: TestUser;
let viewer: TestUser;
let fieldUser: TestUser;
let page: Page;
const tree: { id: string; name: string; leaderId: string | null; level: number }[] = [];
let deep: (typeof tree)[number];
let pedroId: string;

/** The pyramid, as the pyramid's own test writes it: contacts and volunteers in two statements. */
async function writePyramid(): Promise<void> {
  LEVEL_SIZES.forEach((size, level) => {
    const above = tree.filter((node) => node.level === level - 1);
    for (let index = 0; index < size; index++) {
      const n = tree.length + 1;
      tree.push({ id: randomUUID(), name: `Voluntaria ${String(n).padStart(3, '0')}`, leaderId: level ? above[index % above.length]!.id : null, level });
    }
  });
  // One on the fifth level with a name of her own, for the search.
  deep = tree[tree.length - 1]!;
  deep.name = 'Zoila Profunda';
  const db = app.runtime.deps.db;
  const contactIds = tree.map(() => randomUUID());
  await db.write(sql`insert into contacts (id, identity_key, name, email, created_at, updated_at)
    select c, 'mail:p' || n || '@example.org', name, 'p' || n || '@example.org', now(), now()
    from unnest(${contactIds}::uuid[], ${tree.map((node) => node.name)}::text[]) with ordinality as t(c, name, n)`);
  await db.write(sql`insert into volunteers (id, contact_id, leader_id, goal_promised_votes, joined_on, source, status, created_at, updated_at)
    select id, contact, leader, 10, '2026-01-01', 'staff', 'active', now(), now()
    from unnest(${tree.map((node) => node.id)}::uuid[], ${contactIds}::uuid[], ${tree.map((node) => node.leaderId)}::uuid[]) as t(id, contact, leader)`);
  // Three confirmed voters the deep volunteer brings: "votos amarrados" of every branch above her.
  const station = randomUUID();
  await db.write(sql`insert into gotv_polling_stations (id, code, name, lat, lng, tables, registered_voters, created_at, updated_at)
    values (${station}, 'VOL', 'Puesto voluntariado', 4.6, -74.1, 10, 1000, now(), now())`);
  const voters = [randomUUID(), randomUUID(), randomUUID()];
  await db.write(sql`insert into gotv_voters (id, name, document_id, polling_station_id, status, created_at, updated_at)
    select id, 'Votante', doc, ${station}::uuid, 'pending', now(), now() from unnest(${voters}::uuid[], ${['71000001', '71000002', '71000003']}::text[]) as t(id, doc)`);
  await app.http
    .post(`/api/volunteers/${deep.id}/voters`)
    .set(admin.auth)
    .send({ documentIds: ['71000001', '71000002', '71000003'] })
    .expect(200);
}

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  viewer = await createUser(app, admin, 'viewer', 'Vera Lectora');
  fieldUser = await createUser(app, admin, 'volunteer', 'Pedro Cuenta');
  await writePyramid();
  // An election day 60 days ahead, so every branch has a pace.
  await app.http
    .put('/api/campaign/settings')
    .set(admin.auth)
    .send({ electionDate: new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10) })
    .expect(200);
  const pedro = await app.http
    .post('/api/volunteers')
    .set(admin.auth)
    .send({ name: 'Pedro Prospecto', phone: '+573001112233', status: 'prospect', skills: ['driving'], leaderId: tree[0]!.id })
    .expect(201);
  pedroId = pedro.body.id as string;
  await app.http
    .post('/api/volunteers/activities')
    .set(admin.auth)
    .send({
      activities: [{ volunteerId: pedroId, type: 'canvassing', occurredAt: new Date(Date.now() - 3_600_000).toISOString(), quantity: 40, unit: 'doors', notes: 'Barrio Colón' }],
    })
    .expect(201);
  browser = await launchChromium();
  page = await openConsole(browser, app, admin, '/voluntarios/piramide');
  await page.getByRole('heading', { name: 'Pirámide de líderes', level: 1 }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const row = (text: string) => page.getByRole('row').filter({ hasText: text });
const toggle = (name: string) => page.getByRole('button', { name, exact: true });
/** The "votos amarrados" cell of a volunteer's row. */
const votesOf = (id: string) => page.locator(`tr[data-volunteer="${id}"] td`).nth(4).textContent();
const bodyRows = () => page.locator('tbody tr[data-volunteer]').count();

it('renders the pyramid of 300 five levels deep, with each branch’s figures, and collapses a branch', async () => {
  const top = tree[0]!;
  await page.getByText('301 voluntarios en 5 niveles.', { exact: false }).waitFor();
  // The tops open at first sight: four tops and their 16 people, and Pedro under the first.
  await untilPageHolds(page, `document.querySelectorAll('tbody tr[data-volunteer]').length === ${4 + 16 + 1}`);
  // The first top leads 4 + 10 + 20 + 40 people of the tree, and Pedro: 75, five of them directly.
  const topRow = row(top.name).first();
  expect(await topRow.textContent()).toMatch(/75\s*\(5 directas\)/);

  // Opening everything draws 301 rows; the time is measured and kept.
  const started = Date.now();
  await page.getByRole('button', { name: 'Abrir todo' }).click();
  await untilPageHolds(page, `document.querySelectorAll('tbody tr[data-volunteer]').length === 301`);
  const openAllMs = Date.now() - started;
  const apiStarted = Date.now();
  const answer = await app.http.get('/api/volunteers/pyramid').set(viewer.auth).expect(200);
  const apiMs = Date.now() - apiStarted;
  expect(answer.body.nodes).toHaveLength(301);
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, 'volunteers-pyramid.json'), JSON.stringify({ nodes: 301, apiMs, answerBytes: JSON.stringify(answer.body).length, openAllMs }, null, 2));

  // The branch holding Zoila counts her three voters at every level above her.
  for (let above = deep.leaderId; above; above = tree.find((node) => node.id === above)!.leaderId) {
    const leader = tree.find((node) => node.id === above)!;
    expect(await votesOf(leader.id)).toBe('3');
  }
  expect(await votesOf(tree[0]!.id)).toBe('0');
  // Three of ten promised, with most of the way to election day gone: behind pace.
  expect(await page.locator(`tr[data-volunteer="${deep.id}"] td`).nth(6).textContent()).toMatch(/atrasado$/);
  expect(await axeSettled(page)).toEqual([]);

  await toggle(top.name).click();
  expect(await toggle(top.name).getAttribute('aria-expanded')).toBe('false');
  await untilPageHolds(page, `document.querySelectorAll('tbody tr[data-volunteer]').length === ${301 - 75}`);
  expect(await row('Pedro Prospecto').count()).toBe(0);
});

it('opens and closes a branch from the keyboard', async () => {
  const top = tree[0]!;
  await toggle(top.name).focus();
  await page.keyboard.press('Enter');
  await row('Pedro Prospecto').waitFor();
  expect(await toggle(top.name).getAttribute('aria-expanded')).toBe('true');
  await page.keyboard.press('Space');
  await row('Pedro Prospecto').waitFor({ state: 'detached' });
  // Tab moves on to the next control in the row (the link to her profile).
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(`Ficha de ${top.name}`);
});

it('finds a volunteer on the fifth level: the search opens the branches down to her and gives her the focus', async () => {
  await page.getByRole('button', { name: 'Cerrar todo' }).click();
  await untilPageHolds(page, `document.querySelectorAll('tbody tr[data-volunteer]').length === 4`);
  const search = page.getByRole('search', { name: 'Buscar en la pirámide' });
  await search.getByLabel('Buscar').fill('zoila profunda');
  await search.getByRole('button', { name: 'Buscar' }).click();
  await row('Zoila Profunda').waitFor();
  await page.getByText('1 coincidencia con «zoila profunda».').waitFor();
  for (let above = deep.leaderId; above; above = tree.find((node) => node.id === above)!.leaderId) {
    expect(await toggle(tree.find((node) => node.id === above)!.name).getAttribute('aria-expanded')).toBe('true');
  }
  await untilPageHolds(page, `document.activeElement?.closest('tr')?.dataset.volunteer === '${deep.id}'`);
  expect(new URL(page.url()).searchParams.get('buscar')).toBe('zoila profunda');
  expect(await bodyRows()).toBeLessThan(40);
  expect(await axeSettled(page)).toEqual([]);
  await page.screenshot({ path: join(ARTIFACTS, 'console-volunteers.png'), fullPage: false });
});

it('filters the list by status and by text, the filters in the address', async () => {
  await page.getByRole('navigation', { name: 'Secciones de voluntariado' }).getByRole('link', { name: 'Lista' }).click();
  await page.getByRole('heading', { name: 'Voluntarios', level: 1 }).waitFor();
  // A page of 25 of the 301, paged by the server.
  await untilPageHolds(page, `document.querySelectorAll('tbody tr').length === 25`);
  await page.getByRole('combobox', { name: 'Estado' }).click();
  await page.getByRole('option', { name: 'Por contactar' }).click();
  await row('Pedro Prospecto').waitFor();
  await untilPageHolds(page, `document.querySelectorAll('tbody tr').length === 1`);
  expect(await row('Pedro Prospecto').textContent()).toContain('Por contactar');
  expect(new URL(page.url()).searchParams.get('estado')).toBe('prospect');
  await page.getByRole('button', { name: 'Quitar filtros' }).click();
  // Typed once the unfiltered page has rendered: the search box shows the address's search again at
  // every new history entry, and the router renders that entry as a transition, after the address
  // has changed, so text typed in between would be cleared.
  await page.waitForURL((url) => !url.searchParams.has('estado'));
  await untilPageHolds(page, `document.querySelectorAll('tbody tr').length === 25`);
  const search = page.getByRole('search', { name: 'Buscar voluntarios' });
  await search.getByLabel('Buscar').fill('Zoila');
  await search.getByRole('button', { name: 'Buscar' }).click();
  await row('Zoila Profunda').waitFor();
  await untilPageHolds(page, `document.querySelectorAll('tbody tr').length === 1`);
  expect(new URL(page.url()).searchParams.get('q')).toBe('Zoila');
  expect(await axeSettled(page)).toEqual([]);
  await page.getByRole('button', { name: 'Quitar filtros' }).click();
});

it('shows a profile with its leader and activity, and an admin links and unlinks a login account', async () => {
  await page.goto(`${app.url}/voluntarios/${pedroId}`);
  await page.getByRole('heading', { name: 'Pedro Prospecto', level: 1 }).waitFor();
  await page.getByRole('link', { name: tree[0]!.name }).waitFor();
  await page.getByRole('table', { name: 'Actividades de Pedro Prospecto' }).getByText('40 puertas').waitFor();
  await page.getByText('Barrio Colón').waitFor();

  await page.getByRole('button', { name: 'Vincular una cuenta' }).click();
  const dialog = page.getByRole('dialog', { name: 'Vincular una cuenta a Pedro Prospecto' });
  await dialog.getByRole('combobox', { name: 'Cuenta' }).fill('Pedro Cuenta');
  await page.getByRole('option', { name: /Pedro Cuenta/ }).click();
  expect(await axeSettled(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Vincular' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByText(/Vinculada: Pedro Cuenta/).waitFor();
  expect((await app.http.get(`/api/volunteers/${pedroId}`).set(admin.auth).expect(200)).body.userId).toBe(fieldUser.id);

  await page.getByRole('button', { name: 'Desvincular la cuenta' }).click();
  await page.getByRole('dialog', { name: 'Desvincular la cuenta' }).getByRole('button', { name: 'Desvincular' }).click();
  await page.getByRole('button', { name: 'Vincular una cuenta' }).waitFor();
  expect((await app.http.get(`/api/volunteers/${pedroId}`).set(admin.auth).expect(200)).body.userId).toBeNull();
  expect(await axeSettled(page)).toEqual([]);
});

it('edits a leader’s goal with the API’s rules, and refuses a leader that would close a loop beside the field', async () => {
  const top = tree[0]!;
  await page.goto(`${app.url}/voluntarios/${top.id}`);
  await page.getByRole('heading', { name: top.name, level: 1 }).waitFor();
  await page
    .getByRole('table', { name: `Personas que lidera ${top.name}` })
    .getByRole('link', { name: 'Pedro Prospecto' })
    .waitFor();
  await page.getByRole('button', { name: 'Editar' }).click();
  const dialog = page.getByRole('dialog', { name: `Editar a ${top.name}` });
  // Pedro is under her: as her leader he would close a loop, which the API refuses on the field.
  await dialog.getByRole('combobox', { name: 'Líder' }).fill('Pedro');
  await page.getByRole('option', { name: 'Pedro Prospecto' }).click();
  await dialog.getByRole('button', { name: 'Guardar' }).click();
  await dialog.getByText('Ese cambio cerraría un círculo en la pirámide.').waitFor();
  expect(await dialog.getByRole('combobox', { name: 'Líder' }).getAttribute('aria-invalid')).toBe('true');
  expect(await axeSettled(page)).toEqual([]);
  // A goal above the schema's maximum is refused in the browser, before the API.
  // Mantine keeps the clear button out of the accessibility tree (a mouse shortcut): found by its label.
  await dialog.locator('button[aria-label="Quitar líder"]').click();
  await dialog.getByLabel('Meta de votos').fill('2000000');
  await dialog.getByRole('button', { name: 'Guardar' }).click();
  await dialog.getByText(/1000000|1\.000\.000/).waitFor();
  await dialog.getByLabel('Meta de votos').fill('25');
  await dialog.getByRole('button', { name: 'Guardar' }).click();
  await dialog.waitFor({ state: 'detached' });
  const saved = (await app.http.get(`/api/volunteers/${top.id}`).set(admin.auth).expect(200)).body;
  expect(saved).toMatchObject({ leaderId: null, goals: { promisedVotes: 25 } });
  await page.getByText('25 votos', { exact: false }).waitFor();
});

it('ranks the work on the leaderboard and lists it in the activity log', async () => {
  await page.getByRole('link', { name: 'Clasificación' }).click();
  await page.getByRole('heading', { name: 'Clasificación del voluntariado', level: 1 }).waitFor();
  // 5 points for canvassing and 40 for its doors.
  expect(await row('Pedro Prospecto').textContent()).toContain('45');
  expect(await axeSettled(page)).toEqual([]);
  await page.getByRole('link', { name: 'Actividades' }).click();
  await page.getByRole('heading', { name: 'Actividades del voluntariado', level: 1 }).waitFor();
  await row('Pedro Prospecto').filter({ hasText: '40 puertas' }).waitFor();
  await page.getByRole('group', { name: 'Totales por tipo de actividad' }).getByText('Puerta a puerta: 1').waitFor();
  expect(await axeSettled(page)).toEqual([]);
});

it('gives a viewer the pyramid and the leaderboard, without the list', async () => {
  const viewerPage = await openConsole(browser, app, viewer, '/voluntarios');
  await viewerPage.getByRole('heading', { name: 'Pirámide de líderes', level: 1 }).waitFor();
  const sections = viewerPage.getByRole('navigation', { name: 'Secciones de voluntariado' });
  expect(await sections.getByRole('link', { name: 'Lista' }).count()).toBe(0);
  expect(await sections.getByRole('link', { name: 'Clasificación' }).count()).toBe(1);
  expect(await viewerPage.getByRole('link', { name: /^Ficha de / }).count()).toBe(0);
  await viewerPage.context().close();
});
