/**
 * The console's poster QR screens in headless Chromium against a listening test app: a campaign
 * created through the form (its consent text and privacy link checked by the API's own schema as
 * they are typed, before saving), codes minted, the printable sheet opened from the browser in a
 * new tab through its signed link and printed to PDF, with a QR that decodes to the landing URL;
 * the poster registry paged by the server and its overdue list; the analysis (bot scans apart);
 * the leads by name and their CSV; keyboard reach, axe, and the menu only for the roles the
 * policy names. Leaves test-artifacts/console-posters.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsQR from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { startTestApp, type TestApp } from '../helpers/app';
import { CONSENT_TEXT, lead } from '../helpers/qr';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, axeBlocking, launchChromium } from './campaign';
import { openConsole } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

let app: TestApp;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let brigade: TestUser;
let page: Page;
let campaignId: string;

jest.setTimeout(120_000);

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({ TRUST_PROXY: 'true' });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  viewer = await createUser(app, admin, 'viewer');
  brigade = await createUser(app, admin, 'brigade');
  browser = await launchChromium();
  page = await openConsole(browser, app, manager, '/afiches');
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Presses Tab until the element with this accessible name has the focus: reachable by keyboard, or the test fails. */
async function tabTo(target: Page, name: string, presses = 60): Promise<void> {
  for (let i = 0; i < presses; i++) {
    await target.keyboard.press('Tab');
    const focused = await target.evaluate("(document.activeElement && (document.activeElement.getAttribute('aria-label') || document.activeElement.innerText || '').trim()) || ''");
    if (focused === name) return;
  }
  throw new Error(`"${name}" was not reached with Tab`);
}

function decodeQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

describe('poster QR screens', () => {
  it('creates a campaign, checking the consent text and the privacy link beside their fields before saving', async () => {
    await page.getByRole('heading', { name: 'Afiches QR' }).waitFor();
    expect(await axeBlocking(page)).toEqual([]);
    await page.getByRole('link', { name: 'Nueva campaña' }).click();
    await page.getByRole('heading', { name: 'Nueva campaña de afiches' }).waitFor();
    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/poster-qr/campaigns') posted += 1;
    });
    await page.getByLabel(/^Nombre de la campaña/).fill('Afiches Kennedy');
    const consent = page.getByLabel(/^Texto de autorización/);
    await consent.fill('Autorizo.');
    // The schema's minimum, said in Spanish while typing, not after a round trip.
    await page.getByText('Escriba al menos 20 caracteres.').waitFor();
    await page.getByLabel(/^Enlace a la política/).fill('ftp://ejemplo.co/privacidad');
    await page.getByText('Escriba la dirección completa de la política de tratamiento de datos, empezando por https://').waitFor();
    await page.getByRole('button', { name: 'Crear campaña' }).click();
    expect(posted).toBe(0);
    expect(await axeBlocking(page)).toEqual([]);

    await consent.fill(CONSENT_TEXT);
    await page.getByLabel(/^Enlace a la política/).fill('https://ejemplo.co/privacidad');
    await page.getByLabel(/^Estado al crearla/).selectOption('active');
    expect(await page.getByText('Escriba al menos 20 caracteres.').count()).toBe(0);
    await page.getByRole('button', { name: 'Crear campaña' }).click();
    await page.getByRole('heading', { name: 'Afiches Kennedy', exact: true }).waitFor();
    campaignId = new URL(page.url()).pathname.split('/').pop()!;
    const stored = await app.http.get(`/api/poster-qr/campaigns/${campaignId}`).set(manager.auth).expect(200);
    expect(stored.body).toMatchObject({ status: 'active', landing: { consentText: CONSENT_TEXT, privacyPolicyUrl: 'https://ejemplo.co/privacidad' } });
  });

  it('mints codes and pages the poster registry through the server', async () => {
    await page.getByLabel(/^Cuántos códigos/).fill('30');
    await page.getByRole('button', { name: 'Generar códigos' }).click();
    await page.getByText('30 códigos nuevos.').waitFor();
    const registry = page.getByRole('table', { name: /Afiches de la campaña/ });
    await registry.getByText('Afiche 1', { exact: true }).waitFor();
    expect(await registry.locator('tbody tr').count()).toBe(25);
    const pages: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes(`/campaigns/${campaignId}/codes`)) pages.push(new URL(request.url()).search);
    });
    await page.getByRole('button', { name: 'Siguiente' }).first().click();
    await registry.getByText('Afiche 30', { exact: true }).waitFor();
    expect(await registry.locator('tbody tr').count()).toBe(5);
    expect(pages.some((search) => /cursor=/.test(search) && /limit=25/.test(search))).toBe(true);
  });

  it('opens the printable sheet from the browser and prints it to PDF with QR codes that decode to the landing page', async () => {
    const codes = (await app.http.get(`/api/poster-qr/campaigns/${campaignId}/codes?limit=1`).set(manager.auth).expect(200)).body.data as { code: string; url: string }[];
    const first = codes[0]!;
    await page.bringToFront();
    await page.getByRole('heading', { name: 'Afiches Kennedy', exact: true }).click();
    await tabTo(page, 'Abrir hoja para imprimir');
    const [sheet] = await Promise.all([page.context().waitForEvent('page'), page.keyboard.press('Enter')]);
    await sheet.waitForLoadState('load');
    expect(new URL(sheet.url()).pathname).toBe(`/api/poster-qr/campaigns/${campaignId}/sheet`);
    expect(new URL(sheet.url()).searchParams.get('link')).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    await sheet.getByText('Afiche 1', { exact: true }).waitFor();

    const pdf = await sheet.pdf({ format: 'A4', printBackground: true });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    // Two A4 pages: 24 codes on the first, 6 on the second.
    expect(pdf.toString('latin1').match(/\/Type\s*\/Page\b/g)?.length).toBe(2);

    // What the printer gets, rendered: the first poster's QR, as printed, decodes to its landing URL.
    await sheet.emulateMedia({ media: 'print' });
    const figure = sheet.locator('figure').filter({ hasText: first.url }).locator('svg');
    const png = await figure.screenshot({ scale: 'device' });
    expect(decodeQr(png)).toBe(first.url);
    await sheet.emulateMedia({ media: 'screen' });
    expect(await axeBlocking(sheet)).toEqual([]);
    await sheet.close();
  });

  it('lists posters overdue for removal apart, and marks one removed', async () => {
    const codes = (await app.http.get(`/api/poster-qr/campaigns/${campaignId}/codes?limit=3`).set(manager.auth).expect(200)).body.data as { id: string; label: string }[];
    const past = new Date(Date.now() - 86_400_000).toISOString();
    await app.http.patch(`/api/poster-qr/codes/${codes[1]!.id}`).set(manager.auth).send({ address: 'Cra 72 # 40-10', removalDeadline: past, placedAt: past }).expect(200);
    await page.reload();
    await page.getByRole('switch', { name: /Solo los vencidos/ }).check();
    const registry = page.getByRole('table', { name: /Afiches de la campaña/ });
    await registry.getByText('Cra 72 # 40-10').waitFor();
    // The unfiltered page holds that poster too: wait for the filtered answer to replace it.
    await registry.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
    expect(await registry.locator('tbody tr').count()).toBe(1);
    await registry.getByText('Vencido').waitFor();
    expect(await axeBlocking(page)).toEqual([]);
    await page.getByRole('button', { name: `Marcar retirado: ${codes[1]!.label}` }).click();
    await page.getByText('Ningún afiche sigue puesto después de su fecha límite.').waitFor();
  });

  it('pauses and resumes the campaign with the moves its policy allows', async () => {
    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.getByText('En pausa', { exact: true }).waitFor();
    expect((await app.http.get(`/api/poster-qr/campaigns/${campaignId}`).set(manager.auth).expect(200)).body.status).toBe('paused');
    expect(await page.getByRole('button', { name: 'Pausar' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Reanudar' }).click();
    await page.getByText('Activa', { exact: true }).waitFor();
    // Ending is final: it asks first, and Escape leaves the campaign as it was.
    await page.getByRole('button', { name: 'Terminar' }).click();
    await page.getByRole('dialog', { name: 'Terminar la campaña' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await app.http.get(`/api/poster-qr/campaigns/${campaignId}`).set(manager.auth).expect(200)).body.status).toBe('active');
  });

  it("changes the campaign's landing page with the same checks, keeping what the form does not show", async () => {
    await page.getByRole('link', { name: 'Editar página' }).click();
    await page.getByRole('heading', { name: 'Editar: Afiches Kennedy' }).waitFor();
    // Typed once the page has its data and its chunks (what is typed earlier can be drawn over).
    await page.waitForLoadState('networkidle');
    const intro = page.getByLabel(/^Texto de presentación/);
    await intro.fill('Cuéntanos qué le falta a tu barrio.');
    await page.getByLabel(/^Texto de autorización/).fill('Corto.');
    await page.getByText('Escriba al menos 20 caracteres.').waitFor();
    expect(await axeBlocking(page)).toEqual([]);
    await page.getByLabel(/^Texto de autorización/).fill(CONSENT_TEXT);
    expect(await intro.inputValue()).toBe('Cuéntanos qué le falta a tu barrio.');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByRole('heading', { name: 'Afiches Kennedy', exact: true }).waitFor();
    const stored = (await app.http.get(`/api/poster-qr/campaigns/${campaignId}`).set(manager.auth).expect(200)).body;
    expect(stored.landing).toMatchObject({ intro: 'Cuéntanos qué le falta a tu barrio.', consentText: CONSENT_TEXT, fields: { phone: 'required', email: 'optional' } });
  });

  it('shows the analysis with bot scans apart, and the leads by name with their CSV', async () => {
    const [first] = (await app.http.get(`/api/poster-qr/campaigns/${campaignId}/codes?limit=1`).set(manager.auth).expect(200)).body.data as { code: string; label: string }[];
    const phone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1';
    await app.http.get(`/q/${first!.code}`).set('User-Agent', phone).set('X-Forwarded-For', '10.0.0.1').expect(200);
    await app.http.get(`/q/${first!.code}`).set('User-Agent', 'WhatsApp/2.23.20.0 facebookexternalhit/1.1').set('X-Forwarded-For', '10.0.0.2').expect(200);
    await app.http
      .post('/api/qr-leads/capture')
      .set('User-Agent', phone)
      .send(lead(first!.code, { name: 'Luz Díaz', phone: '3001110001', interests: [] }))
      .expect(201);

    await page.reload();
    const figure = (label: string) => page.getByRole('group', { name: label, exact: true });
    await figure('Escaneos de bots').getByText('1', { exact: true }).waitFor();
    expect(await figure('Escaneos de personas').getByText('1', { exact: true }).count()).toBe(1);
    expect(await figure('Contactos').getByText('1', { exact: true }).count()).toBe(1);
    expect(await figure('Conversión').getByText('100 %').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'console-posters.png') });

    await page.getByRole('link', { name: 'Ver sus contactos' }).click();
    await page.getByRole('heading', { name: 'Contactos: Afiches Kennedy' }).waitFor();
    const leads = page.getByRole('table', { name: /Personas captadas/ });
    await leads.getByText('Luz Díaz').waitFor();
    // Names, never ids: the campaign and the poster as a person reads them.
    await leads.getByRole('cell', { name: 'Afiches Kennedy' }).waitFor();
    await leads.getByRole('cell', { name: `${first!.code} · ${first!.label}` }).waitFor();
    expect(await leads.innerText()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await axeBlocking(page)).toEqual([]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv).toContain('Luz Díaz');
    expect(csv).toContain('Afiches Kennedy');
  });

  it('shows the screens to the roles the policy names: a viewer reads without managing, a brigade member never sees them', async () => {
    const viewing = await openConsole(browser, app, viewer, `/afiches/${campaignId}`);
    await viewing.getByRole('heading', { name: 'Afiches Kennedy', exact: true }).waitFor();
    await viewing.getByRole('table', { name: /Afiches de la campaña/ }).waitFor();
    expect(await viewing.getByRole('button', { name: 'Abrir hoja para imprimir' }).count()).toBe(0);
    expect(await viewing.getByRole('link', { name: 'Ver sus contactos' }).count()).toBe(0);
    expect(await viewing.getByRole('link', { name: 'Afiches QR' }).count()).toBeGreaterThan(0);
    await viewing.context().close();

    const brigadePage = await openConsole(browser, app, brigade, '/afiches');
    await brigadePage.getByRole('heading', { name: 'Sin acceso' }).waitFor();
    expect(await brigadePage.getByRole('link', { name: 'Afiches QR' }).count()).toBe(0);
    await brigadePage.context().close();
  });
});

mkdirSync(ARTIFACTS, { recursive: true });
