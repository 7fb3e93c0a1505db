/**
 * The staff console's shell in headless Chromium against a listening test app: the first account
 * on a fresh install, the sign-in page,
 * the first load's JavaScript budget, navigation built from the policies (each role sees its own
 * modules), the dashboard's figures as REST gives them and moving live when a PQRS is filed, the
 * account menu (password change, sign-out), deep links, the CSP holding, keyboard reach and axe.
 * Leaves screenshots in test-artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';
import { assertBuilt, axeBlocking, launchChromium } from './campaign';
import { FIRST_LOAD_JS_BUDGET, gzipBytes, loadedScripts, openConsole, signIn } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

let app: TestApp;
let browser: Browser;
let admin: TestUser;
let manager: TestUser;
const cspViolations: string[] = [];
const FIRST_PASSWORD = 'una clave larga de verdad';

jest.setTimeout(60_000);

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

function watchCsp(page: Page): void {
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
}

/** Requests this file has filed: every one of them is still waiting for an answer. */
let filed = 0;
function fileRequest(subject: string) {
  filed += 1;
  return app.http
    .post('/api/pqrs')
    .send({ type: 'peticion', subject, description: 'La calle 10 lleva dos semanas sin alumbrado público.', name: 'Ana Pérez', phone: '300 555 0101', consent: true })
    .expect(201);
}

describe('staff console', () => {
  // First, as on a fresh install: nobody has an account yet.
  it('offers to create the first account, the admin, and signs in with it', async () => {
    expect((await app.http.get('/api/auth/setup').expect(200)).body).toMatchObject({ firstAccountPending: true });
    expectProblem(await app.http.get('/api/auth/setup?x=1'), 400, 'validation_failed');
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    await page.getByRole('button', { name: 'Crear la cuenta de administración' }).waitFor();
    expect(await axeBlocking(page)).toEqual([]);
    // The server's own rules, in the browser: a short password never leaves the page.
    await page.getByLabel(/^Su nombre/).fill('Jefa de campaña');
    await page.getByLabel(/^Correo/).fill('jefa@campana.co');
    await page.getByLabel(/^Contraseña/).fill('corta');
    await page.getByRole('button', { name: 'Crear la cuenta de administración' }).click();
    await page.getByText('Escriba al menos 10 caracteres.').waitFor();
    expect((await app.http.get('/api/auth/setup').expect(200)).body).toMatchObject({ firstAccountPending: true });

    await page.getByLabel(/^Contraseña/).fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Crear la cuenta de administración' }).click();
    await page.getByRole('button', { name: /^Cuenta de / }).waitFor();
    await page.getByRole('heading', { name: 'Indicadores' }).waitFor();
    expect((await app.http.get('/api/auth/setup').expect(200)).body).toMatchObject({ firstAccountPending: false });
    const login = await app.http.post('/api/auth/login').send({ email: 'jefa@campana.co', password: FIRST_PASSWORD }).expect(200);
    expect(login.body.user.role).toBe('admin');
    admin = {
      id: login.body.user.id,
      email: 'jefa@campana.co',
      password: FIRST_PASSWORD,
      role: 'admin',
      token: login.body.token,
      auth: { Authorization: `Bearer ${login.body.token}` },
    };
    manager = await createUser(app, admin, 'manager', 'Marta Gestora');

    // From then on the page signs in; it never offers a second "first" account.
    const later = await context.newPage();
    await later.goto(`${app.url}/`);
    await later.getByRole('button', { name: 'Entrar' }).waitFor();
    expect(await later.getByRole('button', { name: 'Crear la cuenta de administración' }).count()).toBe(0);
    await context.close();
  });

  it('answers / and its own deep links with the console page, and leaves the API and files alone', async () => {
    const root = await app.http.get('/').set('Accept', 'text/html').expect(200);
    expect(root.headers['content-type']).toMatch(/^text\/html/);
    expect(root.headers['content-security-policy']).toMatch(/script-src 'self'/);
    const deep = await app.http.get('/personas/algo').set('Accept', 'text/html').expect(200);
    expect(deep.text).toBe(root.text);
    await app.http.get('/api/no-existe').set('Accept', 'text/html').expect(404);
    await app.http.get('/favicon.ico').set('Accept', 'text/html').expect(404);
    // Not a browser asking for a page: the 404 stays a 404.
    await app.http.get('/personas/algo').set('Accept', 'application/json').expect(404);
  });

  it('signs in within the first-load JavaScript budget, and says when the password is wrong', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    watchCsp(page);
    const loginScripts = loadedScripts(page);
    await page.goto(`${app.url}/`);
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    expect(await page.title()).toBe('Comando');
    expect(await page.getAttribute('html', 'lang')).toBe('es-CO');
    expect(await axeBlocking(page)).toEqual([]);
    const loginList = loginScripts();
    const loginBytes = await gzipBytes(app, loginList);

    // The form checks the server's own rules before sending: an empty password never leaves the page.
    await page.getByLabel('Correo').fill('no-es-un-correo');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText(/Escriba un correo válido/).waitFor();

    await page.getByLabel('Correo').fill(manager.email);
    await page.getByLabel(/^Contraseña/).fill('not the password');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('alert').getByText('Correo o contraseña incorrectos.').waitFor();

    await signIn(page, manager);
    await page.getByRole('heading', { name: 'Indicadores' }).waitFor();
    // A signed-in first load: the page opened again (the session kept), nothing from the cache.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const homeScripts = loadedScripts(page);
    await page.reload();
    await page.getByRole('img', { name: /Gráfico de tendencias/ }).waitFor();
    const homeBytes = await gzipBytes(app, homeScripts());
    process.stdout.write(`console first load, gzip: sign-in page ${loginBytes} bytes of script, signed-in home ${homeBytes} (${homeScripts().length} files)\n`);
    expect(loginBytes).toBeLessThanOrEqual(FIRST_LOAD_JS_BUDGET);
    expect(homeBytes).toBeLessThanOrEqual(FIRST_LOAD_JS_BUDGET);
    // Modules' screens are not part of it: the home page loads no other module's chunk.
    expect(homeScripts().some((path) => /LoginPage|forms-/.test(path))).toBe(false);
    // The framework comes in its two vendor chunks, whatever the modules are.
    for (const scripts of [loginList, homeScripts()]) expect(scripts.filter((path) => /\/vendor-(react|mantine)-/.test(path))).toHaveLength(2);
    expect(loginList.some((path) => /PeoplePage|InboxPage|PqrsPage|DashboardPage/.test(path))).toBe(false);
    await context.close();
  });

  it('shows each role only the modules its policies allow', async () => {
    const viewer = await createUser(app, admin, 'viewer');
    const brigade = await createUser(app, admin, 'brigade');
    const modules = async (page: Page) => (await page.getByRole('navigation', { name: 'Módulos' }).getByRole('link').allTextContents()).map((text) => text.trim());

    const asManager = await openConsole(browser, app, manager);
    expect(await modules(asManager)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Inicio/), expect.stringMatching(/^Sala de situación/), expect.stringMatching(/^App de brigada/)]),
    );
    await asManager.context().close();

    const asViewer = await openConsole(browser, app, viewer);
    const viewerModules = await modules(asViewer);
    expect(viewerModules).toEqual(expect.arrayContaining([expect.stringMatching(/^Inicio/), expect.stringMatching(/^Sala de situación/)]));
    expect(viewerModules.some((name) => name.startsWith('App de brigada'))).toBe(false);
    await asViewer.context().close();

    // A brigade member has no dashboard: the home page points at the brigade app instead.
    const asBrigade = await openConsole(browser, app, brigade);
    expect((await modules(asBrigade)).some((name) => name.startsWith('Inicio'))).toBe(false);
    await asBrigade.getByRole('link', { name: 'App de brigada' }).first().waitFor();
    expect(await asBrigade.getByRole('heading', { name: 'Indicadores' }).count()).toBe(0);
    await asBrigade.context().close();
  });

  it('shows the dashboard as REST gives it and moves it live when a PQRS is filed', async () => {
    await fileRequest('Alumbrado público');
    // The overview is cached for a few seconds and a figure pushed may be newer than the cache: wait
    // until REST gives the filed count, so the screen's first load and any push agree on one figure.
    const pending = async () => ((await app.http.get('/api/dashboard/overview').set(manager.auth).expect(200)).body as { pendingPqrs: { value: number } }).pendingPqrs.value;
    await until(async () => (await pending()) === filed, 20_000, 'the overview to count the filed request');
    const page = await openConsole(browser, app, manager);
    watchCsp(page);
    const card = page.getByRole('article', { name: 'PQRS por responder' });
    await card.getByText(String(filed), { exact: true }).waitFor();

    await fileRequest('Andén roto');
    // No reload: the `dashboard:kpi` push carries the new figure, the `pqrs` room the feed's line.
    await card.getByText(String(filed), { exact: true }).waitFor({ timeout: 20_000 });
    await page
      .getByText(/PQRS .* radicada/)
      .first()
      .waitFor({ timeout: 15_000 });
    expect(await page.getByRole('status').filter({ hasText: 'En vivo' }).count()).toBe(1);

    expect(await axeBlocking(page)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'console-home.png'), fullPage: true });
    await page.context().close();
  });

  it('reaches everything by keyboard: the skip link first, then the modules and the account menu', async () => {
    const page = await openConsole(browser, app, manager);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Saltar al contenido');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('contenido');
    // The account menu opens and works from the keyboard.
    await page.getByRole('button', { name: /^Cuenta de / }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Cambiar contraseña' }).waitFor();
    await page.keyboard.press('Escape');
    await page.context().close();
  });

  it('changes the password from the account menu and keeps the session, then signs out', async () => {
    const person = await createUser(app, admin, 'manager', 'Pedro Prueba');
    const page = await openConsole(browser, app, person);
    await page.getByRole('button', { name: /^Cuenta de / }).click();
    await page.getByRole('menuitem', { name: 'Cambiar contraseña' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cambiar contraseña' });
    await dialog.getByLabel('Contraseña actual').fill(person.password);
    await dialog.getByLabel('Contraseña nueva').fill('corta');
    await dialog.getByRole('button', { name: 'Cambiar' }).click();
    // The server's rule, checked in the browser: at least 10 characters.
    await dialog.getByText('Escriba al menos 10 caracteres.').waitFor();
    await dialog.getByLabel('Contraseña nueva').fill('una frase nueva y larga');
    await dialog.getByRole('button', { name: 'Cambiar' }).click();
    await page.getByText('Contraseña cambiada', { exact: false }).waitFor();
    // The old token ended; the console carries on with the new one.
    await app.http.get('/api/auth/me').set(person.auth).expect(401);
    await page.reload();
    await page.getByRole('heading', { name: 'Indicadores' }).waitFor();
    await app.http.post('/api/auth/login').send({ email: person.email, password: 'una frase nueva y larga' }).expect(200);

    await page.getByRole('button', { name: /^Cuenta de / }).click();
    await page.getByRole('menuitem', { name: 'Cerrar sesión', exact: true }).click();
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    await page.context().close();
  });

  it('shows its own page for an address it does not know, inside the shell', async () => {
    const page = await openConsole(browser, app, manager, '/no-existe');
    await page.getByRole('heading', { name: 'Página no encontrada' }).waitFor();
    expect(await page.title()).toBe('Página no encontrada · Comando');
    expect(cspViolations).toEqual([]);
    await page.context().close();
  });
});
