/**
 * The console's Email screens in headless Chromium against a listening test app whose SMTP is the
 * fake server (test/fakes/smtp.ts): an MJML template written with its problems on their lines and
 * its preview rendered by the server at desktop and phone widths, saved, and sent as a test that the
 * SMTP server receives; a campaign with an A/B test set up in the form, sent, its progress and phase
 * moving live, people clicking one variant, and the winner shown with its significance and the
 * figures (machine opens apart). Lists paged by the server; keyboard and axe on the list, the editor
 * and a dialog. Leaves screenshots in test-artifacts/ (console-email.png is the one
 * docs/screens-console-email.png is taken from).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FakeSmtp } from '../fakes/smtp';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';
import { emailEnv, linksIn, pathOf, seedContacts } from '../email/helpers';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const PHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

let smtp: FakeSmtp;
let app: TestApp;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let savedTemplateId: string;

jest.setTimeout(150_000);

beforeAll(async () => {
  assertBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  smtp = await new FakeSmtp().start();
  // Twenty messages a second: the test share of 60 takes about three seconds, long enough to watch it move.
  app = await startTestApp(emailEnv(smtp.url, { EMAIL_FROM: 'pruebas@ejemplo.co', EMAIL_RATE_PER_SECOND: '20' }));
  const admin = await registerAdmin(app);
  [manager, viewer] = await Promise.all([createUser(app, admin, 'manager', 'Marta Lucía Gómez'), createUser(app, admin, 'viewer', 'Verónica Vega')]);
  await seedContacts(app, { prefix: 'lector', count: 120, interests: ['boletín'] });
  await seedContacts(app, { prefix: 'otro', count: 10, interests: ['salud'] });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.stop();
});

const GOOD_MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="18px">Hola {{contact.firstName}},</mj-text>
        <mj-text>Esta semana: la agenda de la campaña en tu barrio.</mj-text>
        <mj-button href="https://ejemplo.co/agenda">Ver la agenda</mj-button>
        <mj-text><a href="{{unsubscribeUrl}}">Cancelar suscripción</a></mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
// Line 5 gets an attribute mj-text does not have.
const BAD_MJML = GOOD_MJML.replace('<mj-text font-size="18px">', '<mj-text font-size="18px" bogus="1">');

const preview = (page: Page) => page.frameLocator('iframe[title^="Vista previa del correo"]');
/** The preview is the server's MJML render in a frame: on a loaded CI machine it took over 30 s to show. */
const PREVIEW_MS = 60_000;

/** Opens a confirmation from its button and confirms it with the dialog's own button. */
async function confirm(page: Page, button: string, title: string, confirmLabel: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: confirmLabel, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Presses Tab until the focused element matches `selector`; fails after `max` presses. */
async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let presses = 0; presses < max; presses++) {
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

describe('email templates', () => {
  it('shows the server’s MJML preview at desktop and phone widths with problems on their lines, saves, and sends a test the SMTP server receives', async () => {
    const page = await openConsole(browser, app, manager, '/correo/plantillas');
    await page.getByRole('heading', { name: 'Plantillas de correo' }).waitFor();
    await page.getByText('Aún no hay plantillas', { exact: false }).waitFor();
    expect(await axeSettled(page)).toEqual([]);

    // The keyboard reaches the new template button from the top of the page.
    await page.getByRole('link', { name: 'Nueva plantilla' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Nueva plantilla de correo' }).waitFor();
    // The starter document is previewed as soon as the editor opens.
    await preview(page).getByText('Hola Ana,').waitFor({ timeout: PREVIEW_MS });

    await page.getByLabel(/^Nombre/).fill('Boletín de diciembre');
    await page.getByLabel(/^Asunto/).fill('Novedades para {{contact.firstName}}');
    const editor = page.getByRole('textbox', { name: 'MJML' });
    await editor.fill(BAD_MJML);
    const problems = page.getByRole('list', { name: 'Problemas por línea' });
    await problems.getByText('<mj-text> el atributo bogus no existe para esta etiqueta', { exact: false }).waitFor();
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    // The preview keeps up while the rule is broken (soft compile), and the subject is filled in.
    await preview(page).getByText('Esta semana: la agenda', { exact: false }).waitFor({ timeout: PREVIEW_MS });
    await page.getByText('Asunto: Novedades para Ana', { exact: false }).waitFor();

    // The problem's line takes the cursor to it.
    await problems.getByRole('button', { name: 'Línea 5' }).click();
    await page.getByText('Línea 5, columna 1').waitFor();
    const selected = await page.evaluate('(({ value, selectionStart, selectionEnd }) => value.slice(selectionStart, selectionEnd))(document.querySelector("textarea"))');
    expect(selected).toContain('bogus="1"');
    expect(await page.evaluate('document.activeElement?.tagName')).toBe('TEXTAREA');

    await editor.fill(GOOD_MJML);
    await page.getByText('Sin problemas: se puede guardar.').waitFor();
    await preview(page).getByRole('link', { name: 'Ver la agenda' }).waitFor();
    const frame = page.locator('iframe[title^="Vista previa del correo"]');
    expect(await frame.getAttribute('sandbox')).toBe('');
    expect(await page.evaluate(`document.querySelector('iframe[title^="Vista previa del correo"]').offsetWidth`)).toBe(600);
    await page.getByText('Teléfono (375 px)').click();
    await untilPageHolds(page, `document.querySelector('iframe[title="Vista previa del correo en teléfono"]')?.offsetWidth === 375`);
    await preview(page).getByText('Hola Ana,').waitFor({ timeout: PREVIEW_MS });
    expect(await axeSettled(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'console-email-editor.png'), fullPage: true });

    // Keyboard: from the name field, Tab reaches the editor and then the save button.
    await page.getByLabel(/^Nombre/).focus();
    await tabTo(page, 'textarea');
    await tabTo(page, 'button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/correo\/plantillas\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Plantilla: Boletín de diciembre' }).waitFor();
    const templateId = page.url().split('/').pop()!;
    savedTemplateId = templateId;
    const saved = (await app.http.get(`/api/email-marketing/templates/${templateId}`).set(viewer.auth).expect(200)).body;
    expect(saved).toMatchObject({ name: 'Boletín de diciembre', subject: 'Novedades para {{contact.firstName}}', source: GOOD_MJML, links: ['https://ejemplo.co/agenda'] });

    // The test send: a dialog with the staff member's own address ready, axe-clean, received by the SMTP server.
    await page.getByRole('button', { name: 'Enviar prueba' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enviar una prueba' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Enviar a').inputValue()).toBe(manager.email);
    await dialog.getByLabel('Enviar a').fill('no es un correo');
    await dialog.getByRole('button', { name: 'Enviar prueba' }).click();
    await dialog.locator('input[aria-invalid="true"]').waitFor();
    expect(await axeSettled(page)).toEqual([]);
    const before = smtp.accepted;
    await dialog.getByLabel('Enviar a').fill('revisora@ejemplo.co');
    await dialog.getByLabel('Enviar a').press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Se envió la prueba «[Prueba] Novedades para Ana» a revisora@ejemplo.co' }).waitFor();
    expect(smtp.accepted).toBe(before + 1);
    const [received] = smtp.to('revisora@ejemplo.co');
    expect(received!.parsed!.subject).toBe('[Prueba] Novedades para Ana');
    expect(received!.parsed!.html).toContain('Hola Ana,');
    await page.context().close();
  });
});

describe('email campaigns', () => {
  it('sets up an A/B test in the form, follows the send live, and shows the winner with its significance and the figures', async () => {
    const templates = await Promise.all(
      ['Boletín A', 'Boletín B'].map(
        async (name) =>
          (
            await app.http
              .post('/api/email-marketing/templates')
              .set(manager.auth)
              .send({ name, subject: `${name}: hola {{contact.firstName}}`, mjml: GOOD_MJML })
              .expect(201)
          ).body.id as string,
      ),
    );
    const page = await openConsole(browser, app, manager, '/correo');
    await page.getByRole('heading', { name: 'Campañas de correo' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'En vivo' }).waitFor();
    await page.getByRole('link', { name: 'Nueva campaña' }).click();
    await page.getByRole('heading', { name: 'Nueva campaña de correo' }).waitFor();

    await page.getByLabel('Nombre de la campaña').fill('Boletín de diciembre');
    await page.getByLabel('Nombre del remitente').fill('Campaña Ejemplo');
    await page.getByLabel('Correo del remitente').fill('boletin@ejemplo.co');
    const first = page.getByRole('group', { name: 'Variante A' });
    await first.getByLabel('Plantilla').selectOption(templates[0]!);
    // Choosing a template brings its subject.
    expect(await first.getByLabel('Asunto').inputValue()).toBe('Boletín A: hola {{contact.firstName}}');
    await page.getByRole('button', { name: 'Agregar una variante (prueba A/B)' }).click();
    const second = page.getByRole('group', { name: 'Variante B' });
    await second.getByLabel('Plantilla').selectOption(templates[1]!);
    const ab = page.getByRole('group', { name: 'Prueba A/B' });
    await ab.waitFor();
    await ab.getByLabel('Porcentaje de prueba').fill('60');
    await ab.getByLabel('Porcentaje de prueba').blur();
    await ab.getByLabel('Espera antes de decidir').fill('15');
    await ab.getByLabel('Gana por').selectOption('click');
    // The reach before anything is written: everyone with email consent, then the interest's 120.
    const reach = page.getByRole('status').filter({ hasText: /^Alcance|Contando/ });
    await reach.getByText('Alcance: 130 direcciones con autorización de correo', { exact: false }).waitFor();
    const interests = page.getByRole('combobox', { name: 'Con alguno de estos intereses' });
    await interests.fill('boletín');
    await interests.press('Enter');
    await reach.getByText('Alcance: 120 direcciones', { exact: false }).waitFor();
    // Over 50 % the schema refuses, beside the field, before anything is sent.
    await page.getByRole('button', { name: 'Crear borrador' }).click();
    await ab.getByLabel('Porcentaje de prueba').and(page.locator('[aria-invalid="true"]')).waitFor();
    await ab.getByLabel('Porcentaje de prueba').fill('50');
    expect(await axeSettled(page)).toEqual([]);
    await page.getByRole('button', { name: 'Crear borrador' }).click();

    await page.waitForURL(/\/correo\/[0-9a-f-]{36}$/);
    const campaignId = page.url().split('/').pop()!;
    await page.getByRole('heading', { name: 'Boletín de diciembre' }).waitFor();
    // A draft's test is said as planned, not as absent.
    await page.getByText('Prueba A/B preparada: empieza con el envío. Prueba con el 50 % del segmento; gana por clics.').waitFor();
    const campaign = (await app.http.get(`/api/email-marketing/campaigns/${campaignId}`).set(viewer.auth).expect(200)).body;
    expect(campaign).toMatchObject({
      status: 'draft',
      audienceSize: 120,
      segment: { interestsAny: ['boletín'] },
      abTest: { testPercent: 50, metric: 'click', waitMinutes: 15 },
      variants: [{ name: 'A' }, { name: 'B' }],
    });

    // Until it starts it can be changed: the same form, filled in with what it holds.
    await page.getByRole('link', { name: 'Cambiar' }).click();
    await page.getByRole('heading', { name: 'Cambiar: Boletín de diciembre' }).waitFor();
    expect(await page.getByRole('group', { name: 'Variante B' }).getByLabel('Plantilla').inputValue()).toBe(templates[1]);
    expect(await page.getByRole('group', { name: 'Prueba A/B' }).getByLabel('Porcentaje de prueba').inputValue()).toBe('50 %');
    await page.getByRole('combobox', { name: 'Con alguno de estos intereses' }).waitFor();
    await page.getByText('boletín', { exact: true }).waitFor();
    await page.getByLabel('Responder a (opcional)').fill('equipo@ejemplo.co');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText('respuestas a equipo@ejemplo.co', { exact: false }).waitFor();
    expect((await app.http.get(`/api/email-marketing/campaigns/${campaignId}`).set(viewer.auth).expect(200)).body).toMatchObject({
      replyTo: 'equipo@ejemplo.co',
      segment: { interestsAny: ['boletín'] },
      abTest: { testPercent: 50 },
    });

    await confirm(page, 'Enviar ahora', 'Enviar la campaña', 'Enviar');
    // The test share (60: 30 per variant) goes out and the phase changes, both by socket.
    await page.getByText('60 de 120 procesados (el resto espera a la ganadora)', { exact: false }).waitFor({ timeout: 30_000 });
    await page.getByText('Prueba A/B: esperando para decidir').waitFor({ timeout: 20_000 });
    await page.getByText('Se decide sola el', { exact: false }).waitFor();

    // People open and click: 15 of B's 30, 1 of A's; a privacy proxy opens one of A's (a machine open).
    const bySubject = (prefix: string) => smtp.messages.filter((message) => message.parsed?.subject?.startsWith(prefix));
    await until(async () => bySubject('Boletín A').length === 30 && bySubject('Boletín B').length === 30, 10_000, 'the test share received');
    const clickOf = (html: string) => linksIn(html).find((href) => href.includes('/e/c/'))!;
    for (const message of [...bySubject('Boletín B').slice(0, 15), ...bySubject('Boletín A').slice(0, 1)]) {
      await app.http
        .get(pathOf(clickOf(message.parsed!.html as string)))
        .set('User-Agent', PHONE_UA)
        .expect(302);
    }
    const pixel = /src="([^"]*\/e\/o\/[^"]+)"/.exec(bySubject('Boletín A')[5]!.parsed!.html as string)![1]!;
    await app.http.get(pathOf(pixel)).set('User-Agent', 'Mozilla/5.0').expect(200);

    await confirm(page, 'Decidir la ganadora ahora', 'Terminar la espera de la prueba A/B', 'Decidir y enviar');
    const decision = page.getByRole('status').filter({ hasText: 'Ganadora: variante B' });
    await decision.waitFor({ timeout: 20_000 });
    await decision.getByText('Ganó con diferencia significativa', { exact: false }).waitFor();
    // 15/30 against 1/30: z ≈ 4.09, p < 0.0001.
    await decision.getByText(/Confianza de que la ventaja es real: > 99,99 % \(p < 0,0001, z = 4,0\d\)/).waitFor();
    // The rest goes to B, and the campaign ends, live.
    await page.getByText('Enviada', { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByText('100 %: 120 de 120 procesados', { exact: false }).waitFor({ timeout: 20_000 });
    const variants = page.getByRole('table', { name: /^Cifras de cada variante/ });
    await variants.getByRole('row').filter({ hasText: 'ganadora' }).filter({ hasText: 'Boletín B' }).waitFor();
    expect(await variants.getByRole('row').filter({ hasText: 'Boletín B' }).textContent()).toContain('90');
    const figure = (label: string) => page.getByRole('group', { name: label, exact: true });
    await figure('Entregados').getByText('120', { exact: true }).waitFor();
    // Rates are over the 120 delivered once the last answer is in.
    await figure('Clics únicos').getByText('16 (13,3 %)').waitFor();
    expect(await figure('Aperturas de máquinas').textContent()).toContain('1');
    expect(await figure('Aperturas únicas').textContent()).toContain('16');
    expect(await figure('Rebotes duros').textContent()).toContain('0');
    expect(await figure('Rebotes blandos').textContent()).toContain('ninguno espera reintento');
    await page.getByRole('table', { name: 'Clics por enlace' }).getByText('https://ejemplo.co/agenda').waitFor();
    expect(await axeSettled(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'console-email.png'), fullPage: true });

    // The list shows it sent, with its winner; a viewer sees it without the manager's buttons.
    await page.getByRole('link', { name: 'Campañas', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: 'Boletín de diciembre' });
    await row.getByText('Enviada', { exact: true }).waitFor();
    expect(await row.textContent()).toContain('ganó B');
    await page.context().close();

    const viewing = await openConsole(browser, app, viewer, `/correo/${campaignId}`);
    await viewing.getByRole('status').filter({ hasText: 'Ganadora: variante B' }).waitFor();
    expect(await viewing.getByRole('button', { name: 'Enviar ahora' }).count()).toBe(0);
    await viewing.getByRole('link', { name: 'Campañas', exact: true }).click();
    await viewing.getByRole('heading', { name: 'Campañas de correo' }).waitFor();
    expect(await viewing.getByRole('link', { name: 'Nueva campaña' }).count()).toBe(0);
    // A viewer reads a template and its preview (the saved one, for the sample person), without writing or sending.
    await viewing.goto(`${app.url}/correo/plantillas/${savedTemplateId}`);
    await viewing.getByRole('heading', { name: 'Plantilla: Boletín de diciembre' }).waitFor();
    // The frame shown, then the saved render inside it: on a loaded CI machine Chromium once reported the
    // sandboxed frame's text hidden for a whole minute, so the frame's visibility is checked on its own.
    await viewing.locator('iframe[title^="Vista previa del correo"]').waitFor();
    await preview(viewing).getByText('Hola Ana,').waitFor({ state: 'attached', timeout: PREVIEW_MS });
    expect(await viewing.getByRole('textbox', { name: 'MJML' }).getAttribute('readonly')).not.toBeNull();
    expect(await viewing.getByRole('button', { name: /Enviar prueba|Guardar/ }).count()).toBe(0);
    await viewing.context().close();
  });

  it('pages the templates by the server', async () => {
    await Promise.all(
      Array.from({ length: 26 }, (_, index) =>
        app.http
          .post('/api/email-marketing/templates')
          .set(manager.auth)
          .send({ name: `Plantilla ${String(index + 1).padStart(2, '0')}`, subject: 'Hola', mjml: GOOD_MJML })
          .expect(201),
      ),
    );
    const page = await openConsole(browser, app, manager, '/correo/plantillas');
    const table = page.getByRole('table', { name: 'Plantillas de correo' });
    await table.getByRole('row').nth(25).waitFor();
    expect(await table.getByRole('row').count()).toBe(26); // the header and 25
    const asked: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/email-marketing/templates') asked.push(new URL(request.url()).search);
    });
    await page.getByRole('button', { name: 'Siguiente' }).click();
    await page.getByText('Página 2').waitFor();
    await untilPageHolds(page, `document.querySelectorAll('table tbody tr').length === 4`);
    expect(asked.some((search) => /cursor=/.test(search) && /limit=25/.test(search))).toBe(true);
    await page.context().close();
  });
});
