/**
 * The public landing page in a real headless Chromium: playwright-core driving
 * Debian's /usr/bin/chromium against a listening test app. Covers the page at 320 px, the consent
 * error next to its checkbox, a full submission (with and without JavaScript) ending on the
 * thank-you page with the lead and its consent record in the database, the 50 KB transfer budget
 * and labelled inputs, and that a page of the staff's poster-code sheet prints as ten A4 pages.
 * Leaves a screenshot in test-artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, CONSENT_TEXT, createCampaign, generateCodes } from '../helpers/qr';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { sql, type Sql } from '../../src/kernel/sql';

/** tsconfig has no DOM lib (a server project): the in-page callbacks below declare the little they touch. */
interface FormControl {
  type: string;
  name: string;
  id: string;
  labels: ArrayLike<unknown> | null;
}
declare const document: {
  documentElement: { scrollWidth: number };
  activeElement: { id: string } | null;
  querySelectorAll(selector: string): ArrayLike<FormControl>;
};

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const MOBILE = { width: 320, height: 640 };
const THANK_YOU = '¡Gracias por sumarte! Pronto te escribimos.';
const TITLE = 'Súmate a la campaña';

let app: TestApp;
let browser: Browser;
let campaignId: string;
let consentTextId: string;
let code: string;
let manager: TestUser;

jest.setTimeout(60_000);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Browser tests need Debian's Chromium at ${CHROMIUM}: run \`apt-get install chromium\` (.ci/run does it in CI).`);
  }
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  const campaign = await createCampaign(app, manager, { landing: { ...campaignBody().landing, thankYouMessage: THANK_YOU } });
  campaignId = campaign.id;
  consentTextId = campaign.consentTextId;
  code = (await generateCodes(app, manager, campaignId, { count: 1 }))[0]!.code;
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

function query<T = Record<string, unknown>>(statement: Sql<T>): Promise<T[]> {
  return app.runtime.deps.db.rows(statement);
}

async function leadCount(): Promise<number> {
  const [row] = await query(sql<{ n: number }>`select count(*)::int as n from qr_leads where campaign_id = ${campaignId}`);
  return row!.n;
}

/** The lead with its contact and consent record, found by the normalised phone. */
async function storedLead(phone: string) {
  return query(
    sql`select l.interests, l.whatsapp_opt_in, l.email_opt_in, c.name, c.phone, c.email,
            k.text_id, k.source, k.whatsapp_opt_in as consent_wa, k.ip_hash, k.given_at
       from qr_leads l join contacts c on c.id = l.contact_id join consents k on k.contact_id = c.id
      where l.campaign_id = ${campaignId} and c.phone = ${phone}`,
  );
}

/** A timestamptz column (a Date) set within the last minute. */
function expectRecent(value: unknown): void {
  const age = Date.now() - (value instanceof Date ? value : new Date(String(value))).getTime();
  expect(age).toBeGreaterThanOrEqual(-5_000);
  expect(age).toBeLessThan(60_000);
}

/** A fresh context per test: no shared cache, cookies or JS setting between them. */
async function mobilePage(options: { javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: MOBILE, locale: 'es-CO', ...options });
  return { context, page: await context.newPage() };
}

const landingUrl = () => `${app.url}/q/${code}`;
const thanksUrl = () => `${app.url}/q/${code}/gracias`;
const isCapturePost = (url: string, method: string) => url === `${app.url}/api/qr-leads/capture` && method === 'POST';

async function expectConsentError(page: Page): Promise<void> {
  const error = page.locator('[data-field="consent"] #err-consent');
  await error.waitFor({ state: 'visible' });
  expect(await error.textContent()).toContain('debes autorizar');
  expect(await page.locator('#f-consent').getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('#f-consent').getAttribute('aria-describedby')).toBe('err-consent');
}

describe('landing page in headless Chromium', () => {
  it('renders the form at 320 px: title, consent text, privacy link, unticked consent, no horizontal scroll, under 50 KB', async () => {
    const { context, page } = await mobilePage();
    try {
      const sizes: Promise<{ url: string; type: string; bytes: number }>[] = [];
      page.on('response', (response) => {
        sizes.push(response.body().then((body) => ({ url: response.url(), type: response.request().resourceType(), bytes: body.length })));
      });
      const response = await page.goto(landingUrl());
      expect(response?.status()).toBe(200);
      await page.waitForLoadState('load');

      expect(await page.title()).toBe(TITLE);
      expect(await page.locator('h1').textContent()).toBe(TITLE);
      expect(await page.locator('label[for="f-consent"]').textContent()).toContain(CONSENT_TEXT);
      const policy = page.getByRole('link', { name: 'Política de tratamiento de datos' });
      expect(await policy.getAttribute('href')).toBe('https://ejemplo.co/privacidad');
      expect(await policy.isVisible()).toBe(true);
      expect(await page.locator('#f-consent').isChecked()).toBe(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

      const loaded = await Promise.all(sizes);
      const types = new Set(loaded.map((entry) => entry.type));
      expect([...types].sort()).toEqual(expect.arrayContaining(['document', 'script', 'stylesheet']));
      expect(loaded.every((entry) => entry.url.startsWith(app.url))).toBe(true); // no CDN
      const total = loaded.reduce((sum, entry) => sum + entry.bytes, 0);
      expect(total).toBeLessThan(50 * 1024);
    } finally {
      await context.close();
    }
  });

  it('ties a label to every visible input and select, and works from the keyboard', async () => {
    const { context, page } = await mobilePage();
    try {
      await page.goto(landingUrl());
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input, select'))
          .filter((el) => el.type !== 'hidden' && el.name !== 'website')
          .filter((el) => (el.labels?.length ?? 0) === 0)
          .map((el) => el.name || el.id),
      );
      expect(unlabelled).toEqual([]);
      // The first Tab from the top reaches the first field; Space ticks the consent box.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-name');
      await page.locator('#f-consent').focus();
      await page.keyboard.press('Space');
      expect(await page.locator('#f-consent').isChecked()).toBe(true);
      // The honeypot is out of the keyboard order and hidden from assistive technology.
      expect(await page.locator('input[name="website"]').getAttribute('tabindex')).toBe('-1');
      const honeypot = await page.locator('.hp').boundingBox();
      expect(honeypot!.x + honeypot!.width).toBeLessThanOrEqual(0); // off-screen, so bots still see a field
      expect(await page.locator('.hp').getAttribute('aria-hidden')).toBe('true');
    } finally {
      await context.close();
    }
  });

  it('with JavaScript: shows the consent error by the checkbox, then a full submission reaches the thank-you page and the database', async () => {
    const { context, page } = await mobilePage();
    try {
      await page.goto(landingUrl());
      const before = await leadCount();

      await page.getByLabel('Nombre completo').fill('Marta Lucía Gómez');
      await page.getByLabel('Celular').fill('300 555 0199');
      await page.getByLabel('Correo electrónico').fill('marta@example.org');
      const rejected = page.waitForResponse((r) => isCapturePost(r.url(), r.request().method()));
      await page.getByRole('button', { name: 'Enviar' }).click();
      expect((await rejected).status()).toBe(400);
      await expectConsentError(page);
      expect(page.url()).toBe(landingUrl()); // the script kept the citizen on the page
      expect(await leadCount()).toBe(before);

      await page.getByLabel('Empleo y emprendimiento').check();
      await page.locator('#f-consent').check();
      await page.getByLabel('Quiero recibir mensajes de la campaña por WhatsApp').check();
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'landing-320.png'), fullPage: true });

      await page.getByRole('button', { name: 'Enviar' }).click();
      await page.waitForURL(thanksUrl());
      expect(await page.locator('h1').textContent()).toBe(TITLE);
      expect(await page.locator('.notice').textContent()).toContain(THANK_YOU);

      const rows = await storedLead('+573005550199');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        name: 'Marta Lucía Gómez',
        phone: '+573005550199',
        email: 'marta@example.org',
        interests: ['empleo'],
        whatsapp_opt_in: true,
        email_opt_in: false,
        text_id: consentTextId,
        source: 'qr',
        consent_wa: true,
      });
      expect(rows[0]!.ip_hash).toMatch(/^[0-9a-f]{32}$/);
      expectRecent(rows[0]!.given_at);
      expect(await leadCount()).toBe(before + 1);
    } finally {
      await context.close();
    }
  });

  it("with JavaScript: an empty form gets every error at once, in the server's Spanish words, and no raw validator text", async () => {
    const { context, page } = await mobilePage();
    try {
      await page.goto(landingUrl());
      const rejected = page.waitForResponse((r) => isCapturePost(r.url(), r.request().method()));
      await page.getByRole('button', { name: 'Enviar' }).click();
      expect((await rejected).status()).toBe(400);
      await expectConsentError(page);
      expect(await page.locator('#err-name').textContent()).toBe('Escribe tu nombre.');
      expect(await page.locator('#err-phone').textContent()).toBe('Este campo es obligatorio.');
      const summary = await page.locator('#error-summary').textContent();
      expect(summary).not.toMatch(/Entrada inválida|se esperaba|recibido|undefined/);
      expect(await page.locator('#error-summary li').count()).toBe(3);
      expect(page.url()).toBe(landingUrl());

      // A bad phone is reported together with the missing consent, not in a second round.
      await page.getByLabel('Nombre completo').fill('Ana Ruiz');
      await page.getByLabel('Celular').fill('12');
      const second = page.waitForResponse((r) => isCapturePost(r.url(), r.request().method()));
      await page.getByRole('button', { name: 'Enviar' }).click();
      expect((await second).status()).toBe(400);
      await page.locator('#err-phone', { hasText: 'Revisa el número' }).waitFor();
      await expectConsentError(page);
      expect(await page.locator('#err-name').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('without JavaScript: errors come back by post/redirect/get with every error at once, a refresh resubmits nothing, then a correct post reaches the thank-you page', async () => {
    const { context, page } = await mobilePage({ javaScriptEnabled: false });
    try {
      await page.goto(landingUrl());
      const before = await leadCount();

      await page.getByLabel('Nombre completo').fill('Jorge Iván Pérez');
      await page.getByLabel('Celular').fill('(310) 555-0177');
      await page.getByLabel('Correo electrónico').fill('jorge en correo');
      await page.getByLabel('Salud').check();
      const rejected = page.waitForResponse((r) => isCapturePost(r.url(), r.request().method()));
      await page.getByRole('button', { name: 'Enviar' }).click();
      expect((await rejected).status()).toBe(303);
      await page.waitForURL(new RegExp(`/q/${code}\\?e=`));
      await expectConsentError(page);
      expect(await page.locator('#err-email').textContent()).toContain('Escribe un correo como ana@ejemplo.com');
      expect(page.url()).not.toMatch(/Jorge|310|correo/);
      // A refresh shows the same page without posting again.
      let posted = 0;
      page.on('request', (request) => {
        if (request.method() === 'POST') posted += 1;
      });
      await page.reload();
      await expectConsentError(page);
      expect(posted).toBe(0);
      await page.getByLabel('Correo electrónico').fill('');
      // What the citizen typed and ticked is still there; nothing was stored.
      expect(await page.getByLabel('Nombre completo').inputValue()).toBe('Jorge Iván Pérez');
      expect(await page.getByLabel('Celular').inputValue()).toBe('(310) 555-0177');
      expect(await page.getByLabel('Salud').isChecked()).toBe(true);
      expect(await page.locator('#error-summary').isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
      expect(await leadCount()).toBe(before);

      await page.locator('#f-consent').check();
      const accepted = page.waitForResponse((r) => isCapturePost(r.url(), r.request().method()));
      await page.getByRole('button', { name: 'Enviar' }).click();
      const redirect = await accepted;
      expect(redirect.status()).toBe(303);
      expect(redirect.headers().location).toBe(`/q/${code}/gracias`);
      await page.waitForURL(thanksUrl());
      expect(await page.locator('.notice').textContent()).toContain(THANK_YOU);

      const rows = await storedLead('+573105550177');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ name: 'Jorge Iván Pérez', interests: ['salud'], whatsapp_opt_in: false, text_id: consentTextId, consent_wa: false });
      expect(rows[0]!.ip_hash).toMatch(/^[0-9a-f]{32}$/);
      expectRecent(rows[0]!.given_at);
      expect(await leadCount()).toBe(before + 1);
    } finally {
      await context.close();
    }
  });

  it('prints a page of the poster-code sheet as ten A4 pages of 24 codes, without the page links', async () => {
    const sheetCampaign = await createCampaign(app, manager);
    await generateCodes(app, manager, sheetCampaign.id, { count: 250 });
    const context = await browser.newContext({ extraHTTPHeaders: manager.auth });
    try {
      const page = await context.newPage();
      const response = await page.goto(`${app.url}/api/poster-qr/campaigns/${sheetCampaign.id}/sheet?page=1`);
      expect(response?.status()).toBe(200);
      expect(await page.locator('figure').count()).toBe(240);
      expect(await page.locator('nav a[rel="next"]').isVisible()).toBe(true);
      const pdf = await page.pdf({ format: 'A4', preferCSSPageSize: true });
      expect((pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length).toBe(10);
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('nav').isVisible()).toBe(false);
      const qr = await page.locator('figure svg').first().boundingBox();
      expect(qr!.width).toBeGreaterThan(110); // 33 mm at 96 px per inch ≈ 125 px: big enough to scan
    } finally {
      await context.close();
    }
  });
});
