/**
 * The public PQRS form in a real headless Chromium with JavaScript turned off (the page has no
 * script at all): errors shown per field all at once, then a filing that ends on the received page.
 */
import { chromium, type Browser } from 'playwright-core';
import { existsSync } from 'node:fs';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';

declare const document: {
  documentElement: { scrollWidth: number };
  querySelectorAll(selector: string): ArrayLike<{ type: string; name: string; labels: ArrayLike<unknown> | null }>;
};

const CHROMIUM = '/usr/bin/chromium';
const MOBILE = { width: 320, height: 640 };

let app: TestApp;
let browser: Browser;

jest.setTimeout(60_000);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Browser tests need Debian's Chromium at ${CHROMIUM}: run \`apt-get install chromium\` (.ci/run does it in CI).`);
  app = await startTestApp({}, { workers: false });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('files a request with a file without JavaScript: every error at once, then the received page with the number', async () => {
  const context = await browser.newContext({ viewport: MOBILE, locale: 'es-CO', javaScriptEnabled: false });
  const page = await context.newPage();
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url());
  });
  try {
    await page.goto(`${app.url}/pqrs`);
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll('input, select, textarea'))
        .filter((el) => el.type !== 'hidden' && el.name !== 'website')
        .filter((el) => (el.labels?.length ?? 0) === 0)
        .map((el) => el.name),
    );
    expect(unlabelled).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

    await page.getByLabel('Tipo de solicitud').selectOption('reclamo');
    await page.getByLabel('Asunto').fill('Cobro doble del impuesto');
    await page.getByRole('button', { name: 'Radicar solicitud' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#error-summary').isVisible()).toBe(true);
    for (const field of ['description', 'name', 'phone', 'consent']) {
      expect(await page.locator(`#err-${field}`).isVisible()).toBe(true);
      expect(await page.locator(`#f-${field}`).getAttribute('aria-invalid')).toBe('true');
    }
    expect(await page.getByLabel('Asunto').inputValue()).toBe('Cobro doble del impuesto');
    expect(await page.getByLabel('Tipo de solicitud').inputValue()).toBe('reclamo');

    await page.getByLabel('Describe tu solicitud').fill('Me cobraron dos veces el predial de este año.');
    await page.getByLabel('Nombre completo').fill('Jorge Pérez');
    await page.getByLabel('Celular').fill('(310) 555-0177');
    await page.locator('#f-consent').check();
    await page.getByLabel('Adjuntos (opcional)').setInputFiles({ name: 'recibo.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\nrecibo predial\n%%EOF\n') });
    await page.getByRole('button', { name: 'Radicar solicitud' }).click();
    await page.waitForURL(/\/pqrs\/recibida\//);
    const [stored] = await app.runtime.deps.db.rows(
      sql<{ number: string; files: string[] }>`select r.number, array(select a.file_name from pqrs_attachments a where a.request_id = r.id) as files
        from pqrs_requests r where r.subject = 'Cobro doble del impuesto'`,
    );
    expect(stored!.files).toEqual(['recibo.pdf']);
    expect(await page.locator('h1').textContent()).toBe('Solicitud recibida');
    expect(await page.locator('.summary-facts').textContent()).toContain(stored!.number);
    expect(scripts).toEqual([]);
  } finally {
    await context.close();
  }
});
