/**
 * The console's Social monitoring screen in headless Chromium against a listening test app whose X
 * connector reads the local fake of the platforms' APIs: a rival's TikTok post imported as it takes
 * off raises an engagement-spike alert that appears on the open screen, with its reasons, without a
 * reload; an X profile paused by an expired token shows why, is edited to its new handle (a bad one
 * first, refused beside the field) and read at once with "Consultar ahora"; the feed searches
 * without accents and filters by competitor, platform, alert and date; the comparison draws a
 * metric with its table and share of voice. Keyboard only where it matters, axe on every section,
 * and a viewer sees it all without the managers' actions.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { fetchProfile } from '../../src/modules/social/social.poller';
import { SOCIAL_FAKE_CREDENTIALS, startSocialFake, type SocialFake } from '../fakes/social-apis';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const base = '/api/social-monitoring';
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

jest.setTimeout(120_000);

let app: TestApp;
let fake: SocialFake;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let page: Page;
let rivalId: string;
let xProfileId: string;
let territoryId: string;

const importPosts = (posts: unknown[]) => app.http.post(`${base}/posts/import`).set(manager.auth).send({ posts }).expect(200);

beforeAll(async () => {
  assertBuilt();
  fake = await startSocialFake();
  app = await startTestApp(
    { SOCIAL_X_BASE_URL: `${fake.url}/x/2`, SOCIAL_X_BEARER_TOKEN: SOCIAL_FAKE_CREDENTIALS.xBearerToken },
    // The poller is driven by the test and by "Consultar ahora", never behind its back.
    { workers: false },
  );
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  viewer = await createUser(app, admin, 'viewer', 'Vera Lectora');

  await app.http
    .post(`${base}/competitors`)
    .set(manager.auth)
    .send({ name: 'Nuestra Candidata', isOwn: true, colour: '#2b8a3e', profiles: [{ platform: 'tiktok', handle: 'nuestra' }] })
    .expect(201);
  const rival = await app.http
    .post(`${base}/competitors`)
    .set(manager.auth)
    .send({
      name: 'Ana Rival',
      party: 'Partido Azul',
      colour: '#1864ab',
      profiles: [
        { platform: 'tiktok', handle: '@ana_rival' },
        { platform: 'x', handle: 'anarival_vieja' },
      ],
    })
    .expect(201);
  rivalId = rival.body.id;
  xProfileId = rival.body.profiles.find((profile: { platform: string }) => profile.platform === 'x').id;

  // The X account as it was (its token then expired: the profile pauses with the platform's reason),
  // and as it is now, renamed, with posts of its own.
  fake.x.addUser({ id: '7001', username: 'anarival_vieja', name: 'Ana Rival', followers: 20_000 });
  fake.failNext('x', 1, 'expired_token');
  expect(await fetchProfile(app.runtime.deps, xProfileId)).toMatchObject({ status: 'failed', paused: true });
  const renamed = fake.x.addUser({ id: '7002', username: 'AnaRival', name: 'Ana Rival Oficial', followers: 21_500 });
  fake.x.addPost(renamed.id, {
    id: '8801',
    text: 'Propuesta de movilidad para Medellín',
    createdAt: new Date(Date.now() - 2 * 3_600_000),
    likes: 40,
    replies: 3,
    retweets: 5,
    quotes: 1,
  });

  // Ten earlier TikTok posts with steady engagement: the baseline a post that takes off is measured against.
  await importPosts(
    Array.from({ length: 10 }, (_, index) => ({
      platform: 'tiktok',
      handle: 'ana_rival',
      postId: `base-${index}`,
      publishedAt: hoursAgo(24 * (index + 2)),
      text: index === 3 ? 'Corrupción en la alcaldía: exigimos respuestas' : `Recorrido por el barrio ${index}`,
      likes: 100 + (index % 3) * 10,
      comments: 10,
      shares: 5,
      capturedAt: hoursAgo(24 * (index + 2) - 6),
    })),
  );
  await importPosts([
    { platform: 'tiktok', handle: 'nuestra', postId: 'own-1', publishedAt: hoursAgo(30), text: 'Gracias Medellín', likes: 300, comments: 20, shares: 10, capturedAt: hoursAgo(20) },
  ]);

  territoryId = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Medellín', type: 'municipality' }).expect(201)).body.id;

  browser = await launchChromium();
  page = await openConsole(browser, app, manager, '/redes');
  await page.getByRole('heading', { name: 'Redes sociales: alertas', level: 1 }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await fake?.close();
});

/** Until the toasts have closed by themselves: one fading out while axe runs reads as low contrast. */
const toastsGone = () => untilPageHolds(page, "document.querySelectorAll('.mantine-Notification-root').length === 0", 20_000);

const liveList = () => page.getByRole('list', { name: 'Alertas que llegaron en vivo' });

it('shows a rival post that takes off as a live alert with its reasons, without a reload', async () => {
  // Connected and joined to the social room: what arrives from now on is shown.
  await page.getByText('Conectado: las alertas llegan sin recargar').waitFor({ timeout: 30_000 });
  await page.evaluate('window.__sameDocument = true');
  const post = { platform: 'tiktok', handle: 'ana_rival', postId: 'viral', publishedAt: hoursAgo(6), text: 'El video del debate que todos comparten' };
  await importPosts([{ ...post, likes: 90, comments: 10, shares: 5, capturedAt: hoursAgo(5) }]);
  await importPosts([{ ...post, likes: 5000, comments: 600, shares: 400, capturedAt: hoursAgo(1) }]);

  const spike = liveList().getByRole('listitem').filter({ hasText: 'Una publicación de Ana Rival en tiktok despega' });
  await spike.waitFor({ timeout: 30_000 });
  const text = await spike.textContent();
  expect(text).toContain('Atención');
  expect(text).toContain('Interacción de 6.000 frente a un promedio de 124 en 10 publicaciones anteriores');
  expect(text).toMatch(/desviaciones estándar sobre el promedio/);
  // The new post itself raised its own alert, with the post's words.
  await liveList().getByRole('listitem').filter({ hasText: 'Ana Rival publicó en tiktok' }).getByText('«El video del debate que todos comparten»').waitFor();
  // The list paged by the server has it too, and the page was never reloaded.
  await page.getByRole('row').filter({ hasText: 'despega' }).waitFor();
  expect(await page.evaluate('window.__sameDocument === true')).toBe(true);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-social.png'), fullPage: true });
  expect(await axeSettled(page)).toEqual([]);
});

it('marks an alert seen from the list', async () => {
  const row = page.getByRole('row').filter({ hasText: 'despega' });
  await row.getByRole('button', { name: /^Marcar vista:/ }).click();
  await row.getByRole('button', { name: /^Volver a nueva:/ }).waitFor();
  const alerts = await app.http.get(`${base}/alerts?kind=engagement_spike`).set(viewer.auth).expect(200);
  expect(alerts.body.data[0]).toMatchObject({ state: 'seen' });
});

it('shows why a profile is paused, edits it to its new handle and reads it now', async () => {
  // From the keyboard: the section's link, then the competitor's.
  await page.getByRole('link', { name: 'Competidores', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Redes sociales: competidores', level: 1 }).waitFor();
  await page.getByRole('row').filter({ hasText: 'Ana Rival' }).getByText('X: Pausado').waitFor();
  expect(await axeSettled(page)).toEqual([]);
  await page.getByRole('link', { name: 'Ana Rival' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Ana Rival', level: 1 }).waitFor();

  const xRow = page.locator(`tr[data-profile="${xProfileId}"]`);
  await xRow.getByText('Pausado').waitFor();
  expect(await xRow.textContent()).toMatch(/Motivo: .+/);
  expect(await axeSettled(page)).toEqual([]);

  await xRow.getByRole('button', { name: 'Editar perfil de X anarival_vieja' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Editar perfil X anarival_vieja' });
  const handle = dialog.getByLabel('Usuario o dirección del perfil');
  // A handle with a space: the server refuses it and the form says so beside the field.
  await handle.fill('ana rival');
  await dialog.getByRole('button', { name: 'Guardar' }).click();
  await dialog.getByText(/no spaces/).waitFor();
  expect(await handle.getAttribute('aria-invalid')).toBe('true');
  expect(await axeSettled(page)).toEqual([]);
  await handle.fill('https://x.com/AnaRival');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached' });
  await xRow.getByRole('link', { name: 'anarival' }).waitFor();
  await xRow.getByText('Pendiente').waitFor();
  const edited = await app.http.get(`${base}/competitors/${rivalId}`).set(viewer.auth).expect(200);
  expect(edited.body.profiles.find((profile: { id: string }) => profile.id === xProfileId)).toMatchObject({
    handle: 'anarival',
    url: 'https://x.com/anarival',
    status: 'pending',
    pausedReason: null,
  });

  await xRow.getByRole('button', { name: 'Consultar ahora X anarival' }).click();
  await xRow.getByText('Al día').waitFor({ timeout: 30_000 });
  expect(await xRow.textContent()).toContain('21.500');
  expect(await xRow.textContent()).toContain('Ana Rival Oficial');
  await page.getByText('Se leyó: 1 publicación, 1 nueva.').waitFor();
  await page.screenshot({ path: join(ARTIFACTS, 'console-social-competitor.png'), fullPage: true });
});

it('searches the feed without accents and filters it', async () => {
  await toastsGone();
  await page.getByRole('link', { name: 'Publicaciones', exact: true }).click();
  await page.getByRole('heading', { name: 'Redes sociales: publicaciones', level: 1 }).waitFor();
  const table = page.getByRole('table', { name: 'Publicaciones de los competidores' });
  await table.getByText('El video del debate que todos comparten').waitFor();

  // Typed without the accent, submitted with Enter.
  await page.getByRole('searchbox', { name: 'Buscar' }).fill('corrupcion');
  await page.keyboard.press('Enter');
  await untilPageHolds(page, "new URL(location.href).searchParams.get('q') === 'corrupcion'");
  await table.getByText('Corrupción en la alcaldía: exigimos respuestas').waitFor();
  await untilPageHolds(page, `document.querySelectorAll('table[aria-busy="false"] tbody tr').length === 1`);
  expect(await axeSettled(page)).toEqual([]);
  await page.getByRole('button', { name: 'Quitar la búsqueda y los filtros' }).click();
  await table.getByText('Propuesta de movilidad para Medellín').waitFor();

  // Only posts that raised an alert: the one that took off, not the baseline nor the history.
  await page.getByRole('combobox', { name: 'Alertas' }).click();
  await page.getByRole('option', { name: 'Con alerta' }).click();
  await untilPageHolds(page, "new URL(location.href).searchParams.get('alerta') === 'true'");
  await table.getByText('El video del debate que todos comparten').waitFor();
  await table.getByText('Recorrido por el barrio 1').waitFor({ state: 'detached' });

  // Another platform: X has the rival's post read by "Consultar ahora" (two hours old: a new-post alert).
  await page.getByRole('combobox', { name: 'Red' }).click();
  await page.getByRole('option', { name: 'X', exact: true }).click();
  await untilPageHolds(page, "new URL(location.href).searchParams.get('red') === 'x'");
  await table.getByText('Propuesta de movilidad para Medellín').waitFor();
  await table.getByText('El video del debate que todos comparten').waitFor({ state: 'detached' });

  // Our own candidate's history on TikTok raised nothing (ours, and older than a day).
  await page.getByRole('button', { name: 'Quitar la búsqueda y los filtros' }).click();
  await page.getByRole('combobox', { name: 'Competidor' }).click();
  await page.getByRole('option', { name: 'Nuestra Candidata' }).click();
  await untilPageHolds(page, `new URL(location.href).searchParams.get('competidor') !== null`);
  await table.getByText('El video del debate que todos comparten').waitFor({ state: 'detached' });
  await table.getByText('Gracias Medellín').waitFor();

  // A date range that ends before the posts: nothing.
  await page.getByLabel('Publicadas hasta').fill('2026-01-31');
  await page.getByText('Ninguna publicación coincide con esta búsqueda y estos filtros.').waitFor();
  expect(await axeSettled(page)).toEqual([]);
});

it('compares the metrics by day with the numbers as a table, and share of voice', async () => {
  await page.getByRole('link', { name: 'Comparación', exact: true }).click();
  await page.getByRole('heading', { name: 'Redes sociales: comparación', level: 1 }).waitFor();
  await page.getByRole('img', { name: 'Interacción por día, por competidor' }).waitFor();
  const share = page.getByRole('region', { name: 'Participación de voz, últimos 7 días' });
  await share.getByText('Ana Rival').waitFor();
  expect(await share.textContent()).toContain('Nuestra Candidata (nosotros)');
  const summary = page.getByRole('table', { name: /^Resumen: interacción/ });
  await summary.getByText('Ana Rival').waitFor();

  await page.getByRole('combobox', { name: 'Métrica' }).click();
  await page.getByRole('option', { name: 'Seguidores' }).click();
  await page.getByRole('img', { name: 'Seguidores por día, por competidor' }).waitFor();
  await page.getByText('Ver los datos como tabla').click();
  const table = page.getByRole('table', { name: 'Seguidores por día, por competidor' });
  await table.getByRole('columnheader', { name: 'Ana Rival' }).waitFor();
  // Today's followers of Ana Rival: X's, read by "Consultar ahora" (her TikTok imports carried none).
  expect(await table.locator('tbody tr').last().textContent()).toContain('21.500');
  await page.screenshot({ path: join(ARTIFACTS, 'console-social-comparison.png'), fullPage: true });
  expect(await axeSettled(page)).toEqual([]);
});

it('adds a competitor (its colour checked beside the field by the API schema) and a profile', async () => {
  await page.getByRole('link', { name: 'Competidores', exact: true }).click();
  await page.getByRole('heading', { name: 'Redes sociales: competidores', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Agregar competidor' }).click();
  const dialog = page.getByRole('dialog', { name: 'Agregar competidor' });
  await dialog.getByLabel('Nombre').fill('Luis Tercero');
  await dialog.getByLabel('Color').fill('azul');
  await dialog.getByRole('button', { name: 'Agregar' }).click();
  await dialog.getByText('Un color como #1f77b4 (numeral y seis cifras hexadecimales).').waitFor();
  expect(await dialog.getByLabel('Color').getAttribute('aria-invalid')).toBe('true');
  expect(await axeSettled(page)).toEqual([]);
  await dialog.getByRole('combobox', { name: /^Territorio/ }).fill('Mede');
  await page.getByRole('option', { name: 'Medellín' }).click();
  await dialog.getByLabel('Color').fill('#C92A2A');
  await dialog.getByRole('button', { name: 'Agregar' }).click();
  await page.getByRole('heading', { name: 'Luis Tercero', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Agregar perfil' }).focus();
  await page.keyboard.press('Enter');
  const add = page.getByRole('dialog', { name: 'Agregar perfil de Luis Tercero' });
  await add.getByRole('combobox', { name: /^Red/ }).click();
  await page.getByRole('option', { name: 'TikTok' }).click();
  await add.getByLabel(/^Usuario o dirección del perfil/).fill('https://www.tiktok.com/@LuisTercero');
  await add.getByRole('button', { name: 'Agregar' }).click();
  await add.waitFor({ state: 'detached' });
  const row = page.getByRole('row').filter({ hasText: 'luistercero' });
  await row.getByText('Por importación').waitFor();
  const listed = (await app.http.get(`${base}/competitors`).set(viewer.auth).expect(200)).body.data.find((competitor: { name: string }) => competitor.name === 'Luis Tercero');
  expect(listed).toMatchObject({ colour: '#c92a2a', territoryId, profiles: [{ platform: 'tiktok', handle: 'luistercero', source: 'import' }] });
});

it('lets a viewer follow alerts and read profiles without the managers’ actions', async () => {
  const viewerPage = await openConsole(browser, app, viewer, `/redes/competidores/${rivalId}`);
  await viewerPage.getByRole('heading', { name: 'Ana Rival', level: 1 }).waitFor();
  await viewerPage.locator(`tr[data-profile="${xProfileId}"]`).getByText('Al día').waitFor();
  expect(await viewerPage.getByRole('button', { name: /^Editar perfil/ }).count()).toBe(0);
  expect(await viewerPage.getByRole('button', { name: /^Consultar ahora/ }).count()).toBe(0);
  expect(await viewerPage.getByRole('button', { name: 'Agregar perfil' }).count()).toBe(0);
  await viewerPage.context().close();
});
