/**
 * The console's WhatsApp campaigns and templates in headless Chromium against a listening test app
 * with the built-in simulator (no Cloud API token): a template written with the API's rules beside
 * its fields and approved; a campaign to a seeded segment that shows its reachable count before it
 * is written, is sent, paused and resumed, and whose progress moves live to 100 % while the screen
 * says it is simulated; lists paged by the server; keyboard and axe. Leaves screenshots in
 * test-artifacts/ (console-whatsapp-campaign.png is the one docs/screens-console-whatsapp-campaign.png
 * is taken from).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';
import { seedContacts } from '../whatsapp/setup';
import { assertBuilt, axeBlocking, launchChromium, today } from './campaign';
import { openConsole } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

let app: TestApp;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let territoryId: string;

jest.setTimeout(120_000);

beforeAll(async () => {
  assertBuilt();
  // Two messages a second, one in flight at a time (the sender claims no more than it can send): a
  // send of 24 takes about twelve seconds, long enough to watch and to pause with messages still queued.
  app = await startTestApp({ WHATSAPP_RATE_PER_SECOND: '2', WHATSAPP_SEND_CONCURRENCY: '1', WHATSAPP_PAIR_INTERVAL: '1', WHATSAPP_MESSAGING_TIER: '250' });
  const admin = await registerAdmin(app);
  [manager, viewer] = await Promise.all([createUser(app, admin, 'manager', 'Marta Lucía Gómez'), createUser(app, admin, 'viewer', 'Verónica Vega')]);
  territoryId = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Bosa', type: 'commune' }).expect(201)).body.id;
  await seedContacts(app, { count: 24, interests: ['jóvenes'], territoryId });
  // The same interest without WhatsApp consent: never counted, never sent to.
  await seedContacts(app, { count: 6, offset: 100, interests: ['jóvenes'], territoryId, optIn: false });
  await seedContacts(app, { count: 10, offset: 200, interests: ['salud'] });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A template through the API, approved by the simulator's review (about two seconds). */
async function approvedTemplate(name: string): Promise<string> {
  const created = await app.http
    .post('/api/whatsapp/templates')
    .set(manager.auth)
    .send({ name, language: 'es', category: 'MARKETING', body: 'Hola {{1}}, te esperamos el {{2}} en el parque de Bosa.', examples: ['Ana', 'sábado'] })
    .expect(201);
  await until(async () => {
    const row = await app.runtime.deps.db.first(sql<{ status: string }>`select status from wa_templates where id = ${created.body.id}::uuid`);
    return row?.status === 'APPROVED';
  }, 10_000);
  return created.body.id as string;
}

async function campaignView(id: string): Promise<{ status: string; queued: number; progress: Record<string, number> }> {
  return (await app.http.get(`/api/whatsapp/campaigns/${id}`).set(manager.auth).expect(200)).body;
}

const progressOf = async (page: Page): Promise<number> => Number(await page.getByRole('progressbar').first().getAttribute('aria-valuenow'));

/** Opens a confirmation from its button and confirms it with the dialog's own button. */
async function confirm(page: Page, button: string, title: string, confirmLabel: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: confirmLabel, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

describe('WhatsApp templates', () => {
  it('shows the API’s checks beside the fields before saving, then Meta’s status and category in the list', async () => {
    const page = await openConsole(browser, app, manager, '/whatsapp/campanas/plantillas/nueva');
    await page.getByRole('heading', { name: 'Nueva plantilla de WhatsApp' }).waitFor();
    await page.getByText('Simulado: nada llega a WhatsApp').waitFor();

    await page.getByLabel('Nombre', { exact: false }).first().fill('Invitación Jóvenes');
    await page.getByText('Solo minúsculas sin tildes', { exact: false }).waitFor();
    await page.getByLabel('Nombre', { exact: false }).first().fill('invitacion_jovenes');
    await page.getByText('Solo minúsculas sin tildes', { exact: false }).waitFor({ state: 'detached' });

    const body = page.getByRole('textbox', { name: 'Texto' });
    await body.fill('Hola {{1}}, te esperamos en {{3}}');
    await page.getByText('Las variables van numeradas', { exact: false }).waitFor();
    await body.fill('Hola {{1}}, te esperamos el {{2}} en el parque.');
    await page.getByText('Las variables van numeradas', { exact: false }).waitFor({ state: 'detached' });
    await page.getByLabel('Ejemplo de {{2}}').waitFor();

    // Saving without the examples: refused in the browser, nothing reaches the API.
    await page.getByRole('button', { name: 'Enviar a revisión' }).click();
    await page.getByLabel('Ejemplo de {{1}}').and(page.locator('[aria-invalid="true"]')).waitFor();
    expect((await app.http.get('/api/whatsapp/templates').set(manager.auth).expect(200)).body.data).toEqual([]);

    await page.getByLabel('Ejemplo de {{1}}').fill('Ana');
    await page.getByLabel('Ejemplo de {{2}}').fill('sábado');
    await page.getByText('Hola Ana, te esperamos el sábado en el parque.').waitFor();
    await page.getByLabel('Categoría').selectOption('UTILITY');
    expect(await axeBlocking(page)).toEqual([]);
    await page.getByRole('button', { name: 'Enviar a revisión' }).click();

    await page.waitForURL(/\/whatsapp\/campanas\/plantillas$/);
    const row = page.getByRole('row').filter({ hasText: 'invitacion_jovenes' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Servicio (utilidad)');
    // The simulator approves it within seconds; the list asks again while a template is in review.
    await row.getByText('Aprobada').waitFor({ timeout: 20_000 });
    expect(await axeBlocking(page)).toEqual([]);
    await page.context().close();
  });
});

describe('WhatsApp campaigns', () => {
  let campaignId: string;

  it('shows the reachable count before writing the campaign, then sends it: progress moves live to 100 % and the screen says it is simulated; pause and resume work', async () => {
    const templateId = await approvedTemplate('aviso_bosa');
    const page = await openConsole(browser, app, manager, '/whatsapp/campanas');
    await page.getByRole('heading', { name: 'Campañas de WhatsApp' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'En vivo' }).waitFor();
    await page.getByRole('link', { name: 'Nueva campaña' }).click();
    await page.getByRole('heading', { name: 'Nueva campaña de WhatsApp' }).waitFor();

    await page.getByLabel('Nombre de la campaña').fill('Jóvenes de Bosa');
    await page.getByLabel('Plantilla aprobada').selectOption(templateId);
    await expect(page.getByLabel('Variable {{1}}').inputValue()).resolves.toBe('contact.firstName');
    await page.getByLabel('Texto de {{2}}').fill('sábado 7 de diciembre');
    await page.getByText('Hola Ana, te esperamos el sábado 7 de diciembre en el parque de Bosa.').waitFor();

    const reach = page.getByRole('status').filter({ hasText: /Alcance|Elija al menos/ });
    await reach.getByText('Elija al menos una condición', { exact: false }).waitFor();
    const interests = page.getByRole('combobox', { name: 'Con alguno de estos intereses' });
    await interests.fill('jóvenes');
    await interests.press('Enter');
    // Consent applied: 24 of the 30 with the interest authorised WhatsApp.
    await reach.getByText('Alcance: 24 personas con autorización de WhatsApp y sin baja').waitFor();
    await reach.getByText('hasta 250 personas distintas cada 24 horas', { exact: false }).waitFor();
    expect(await reach.textContent()).toContain('Este envío cabe completo: sale a 2 mensajes por segundo');

    // The territory narrows nothing here (all 24 live in Bosa), an unknown interest empties it.
    await page.getByRole('combobox', { name: 'Territorios', exact: true }).fill('Bos');
    await page.getByRole('option', { name: 'Bosa (comuna)' }).click();
    await reach.getByText('Alcance: 24 personas', { exact: false }).waitFor();
    const all = page.getByRole('combobox', { name: 'Con todos estos intereses' });
    await all.fill('salud');
    await all.press('Enter');
    await reach.getByText('Alcance: nadie', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Crear borrador' }).click();
    await page.getByText('Nadie de este segmento puede recibir WhatsApp', { exact: false }).waitFor();
    await all.press('Backspace');
    await reach.getByText('Alcance: 24 personas', { exact: false }).waitFor();
    expect(await axeBlocking(page)).toEqual([]);

    await page.getByRole('button', { name: 'Crear borrador' }).click();
    await page.waitForURL(/\/whatsapp\/campanas\/[0-9a-f-]{36}$/);
    campaignId = page.url().split('/').pop()!;
    expect(await campaignView(campaignId)).toMatchObject({ status: 'draft', queued: 0 });
    await page.getByRole('heading', { name: 'Jóvenes de Bosa' }).waitFor();
    await page.getByText('Simulado: nada llega a WhatsApp').waitFor();
    await page.getByText('Borrador', { exact: true }).waitFor();

    // From here on the screen reads the campaign only when it acts; everything else comes by socket.
    let reads = 0;
    page.on('request', (request) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === `/api/whatsapp/campaigns/${campaignId}`) reads++;
    });
    const seen = new Set<number>();
    await confirm(page, 'Enviar ahora', 'Enviar la campaña', 'Enviar');
    await until(
      async () => {
        const percent = await progressOf(page);
        seen.add(percent);
        return percent > 0;
      },
      20_000,
      'the first messages on screen',
    );
    await confirm(page, 'Pausar', 'Pausar el envío', 'Pausar');
    await page.getByText('En pausa', { exact: true }).waitFor();
    const paused = await campaignView(campaignId);
    expect(paused.status).toBe('paused');
    expect(paused.progress.queued).toBeGreaterThan(0);
    // Messages in flight when it paused may still finish; after them nothing more goes out.
    await until(async () => (await campaignView(campaignId)).progress.sending === 0, 10_000, 'in-flight messages settled');
    const settled = await campaignView(campaignId);
    expect(settled.progress.queued).toBeGreaterThan(0);

    await confirm(page, 'Reanudar', 'Reanudar el envío', 'Reanudar');
    await until(
      async () => {
        const percent = await progressOf(page);
        seen.add(percent);
        return percent === 100;
      },
      40_000,
      'the progress at 100 %',
    );
    await page.getByText('100 % (24 de 24)').waitFor();
    await page.getByText('Terminada', { exact: true }).waitFor({ timeout: 10_000 });
    // Several steps between 0 and 100 came live, with at most the one read that sending asks for.
    expect([...seen].filter((percent) => percent > 0 && percent < 100).length).toBeGreaterThanOrEqual(2);
    expect(reads).toBeLessThanOrEqual(1);

    // Simulated, and said so beside the figures: never Meta's deliveries.
    const view = await campaignView(campaignId);
    expect(view.progress).toMatchObject({ sent: 24, simulated: 24 });
    await page.getByRole('group', { name: 'Simulados' }).getByText('24').waitFor();
    await page.getByRole('group', { name: 'Entregados (simulado)' }).waitFor();
    await page.getByText('El simulador tomó 24 mensajes', { exact: false }).waitFor();
    expect(await page.getByRole('group', { name: 'Entregados', exact: true }).count()).toBe(0);
    expect(await axeBlocking(page)).toEqual([]);
    await page.context().close();
  });

  it('schedules a campaign at a day and time in Bogotá, and refuses a time already past', async () => {
    const templateId = await approvedTemplate('aviso_programado');
    const page = await openConsole(browser, app, manager, '/whatsapp/campanas/nueva');
    await page.getByLabel('Nombre de la campaña').fill('Cierre en Bosa');
    await page.getByLabel('Plantilla aprobada').selectOption(templateId);
    await page.getByLabel('Texto de {{2}}').fill('domingo');
    // People nobody has messaged yet: the simulator's replies to the campaign sent above include
    // opt-outs ("BAJA"), which would take people out of a segment holding them while this test runs.
    const interests = page.getByRole('combobox', { name: 'Con alguno de estos intereses' });
    await interests.fill('salud');
    await interests.press('Enter');
    await page.getByRole('status').getByText('Alcance: 10 personas', { exact: false }).waitFor();
    await page.getByLabel('Programar el envío', { exact: false }).check();
    await page.getByLabel('Día', { exact: true }).fill(today());
    await page.getByLabel('Hora', { exact: true }).fill('00:00');
    await page.getByRole('button', { name: 'Programar campaña' }).click();
    await page.getByText('Elija un día y una hora que no hayan pasado', { exact: false }).waitFor();
    expect(await axeBlocking(page)).toEqual([]);

    const tomorrow = new Date(Date.parse(`${today()}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Día', { exact: true }).fill(tomorrow);
    await page.getByLabel('Hora', { exact: true }).fill('09:30');
    await page.getByRole('button', { name: 'Programar campaña' }).click();
    await page.waitForURL(/\/whatsapp\/campanas\/[0-9a-f-]{36}$/);
    await page.getByText('Programada', { exact: true }).waitFor();
    const view = await app.http
      .get(`/api/whatsapp/campaigns/${page.url().split('/').pop()}`)
      .set(manager.auth)
      .expect(200);
    expect(view.body).toMatchObject({ status: 'scheduled', audienceSize: 10 });
    expect(view.body.scheduledAt).toBe(new Date(`${tomorrow}T09:30:00-05:00`).toISOString());
    await page.context().close();
  });

  it('lists campaigns paged by the server, reachable by keyboard, and lets a viewer follow but not act', async () => {
    const templateId = await approvedTemplate('aviso_salud');
    // 25 more: with the two before, two pages of 25.
    for (let n = 1; n <= 25; n++) {
      await app.http
        .post('/api/whatsapp/campaigns')
        .set(manager.auth)
        .send({ name: `Salud ${n}`, templateId, variables: ['contact.firstName', { literal: 'lunes' }], segment: { interestsAny: ['salud'] } })
        .expect(201);
    }
    const page = await openConsole(browser, app, viewer, '/whatsapp/campanas');
    await page.getByRole('heading', { name: 'Campañas de WhatsApp' }).waitFor();
    // A viewer follows campaigns but holds no conversations and writes nothing.
    const nav = page.getByRole('navigation', { name: 'Módulos' });
    expect((await nav.getByRole('link').allTextContents()).map((text) => text.trim())).toContain('Campañas de WhatsApp');
    expect(await nav.getByRole('link', { name: 'WhatsApp', exact: true }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Nueva campaña' }).count()).toBe(0);

    // Newest first, 25 a page: the first campaign is on the second page, which the server's cursor gives.
    const table = page.getByRole('table', { name: 'Campañas de WhatsApp' });
    await table.getByRole('link', { name: 'Salud 25' }).waitFor();
    expect(await table.getByRole('link').count()).toBe(25);
    expect(await table.getByRole('link', { name: 'Jóvenes de Bosa' }).count()).toBe(0);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/whatsapp/campaigns') asked.push(url.search);
    });
    await page.getByRole('button', { name: 'Siguiente' }).click();
    const link = table.getByRole('link', { name: 'Jóvenes de Bosa' });
    await link.waitFor();
    expect(await table.getByRole('link').count()).toBe(2);
    expect(asked).toEqual([expect.stringMatching(/[?&]cursor=/)]);

    // By keyboard: Tab reaches the campaign's link, Enter opens it.
    await page.getByRole('heading', { name: 'Campañas de WhatsApp' }).click();
    const focused = () => page.evaluate('document.activeElement && document.activeElement.textContent');
    for (let step = 0; step < 40 && (await focused()) !== 'Jóvenes de Bosa'; step++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Jóvenes de Bosa');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/whatsapp/campanas/${campaignId}`);
    await page.getByRole('heading', { name: 'Jóvenes de Bosa' }).waitFor();
    await page.getByText('Terminada', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Pausar' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancelar campaña' }).count()).toBe(0);
    expect(await axeBlocking(page)).toEqual([]);
    await page.context().close();
  });

  it('looks like a campaign at work (the screenshot for docs/screens-console-whatsapp-campaign.png)', async () => {
    const page = await openConsole(browser, app, manager, `/whatsapp/campanas/${campaignId}`);
    await page.getByRole('heading', { name: 'Jóvenes de Bosa' }).waitFor();
    await page.getByText('100 % (24 de 24)').waitFor();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'console-whatsapp-campaign.png'), fullPage: true });
    await page.goto(`${app.url}/whatsapp/campanas`);
    await page.getByRole('table', { name: 'Campañas de WhatsApp' }).getByRole('link', { name: 'Salud 25' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'console-whatsapp-campaigns.png') });
    await page.context().close();
  });
});
