import { get } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import type { TestUser } from '../helpers/users';
import { axeBlocking } from './campaign';

/** The console's JavaScript budget for a first load, compressed as the server sends it. */
export const FIRST_LOAD_JS_BUDGET = 250 * 1024;

/** The scripts a page loads from now on: call the answer to get their paths so far (each once). */
export function loadedScripts(page: Page): () => string[] {
  const paths = new Set<string>();
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script') paths.add(new URL(request.url()).pathname);
  });
  return () => [...paths];
}

/** Below this many bytes the server sends a file as it is (app.ts's compression threshold; the build precompresses from 1 KB). */
const UNCOMPRESSED_BELOW = 2048;

/**
 * Their size as the server sends them to a client that takes gzip (the budget's unit; browsers that
 * take brotli get less). A file sent uncompressed must be one too small to gain from it (a few
 * hundred bytes the bundler split out as a shared chunk).
 */
export async function gzipBytes(app: TestApp, paths: string[]): Promise<number> {
  let total = 0;
  for (const path of paths) {
    total += await new Promise<number>((resolve, reject) => {
      get(`${app.url}${path}`, { headers: { 'Accept-Encoding': 'gzip' } }, (response) => {
        let length = 0;
        response.on('data', (chunk: Buffer) => (length += chunk.length));
        response.on('end', () => {
          if (response.headers['content-encoding'] !== 'gzip' && length >= UNCOMPRESSED_BELOW) reject(new Error(`${path} (${length} bytes) was not sent gzip-compressed`));
          else resolve(length);
        });
      }).on('error', reject);
    });
  }
  return total;
}

/** Fills the console's sign-in form and waits for the shell (the account menu names the person). */
export async function signIn(page: Page, user: Pick<TestUser, 'email' | 'password'>): Promise<void> {
  await page.getByLabel('Correo').fill(user.email);
  await page.getByLabel(/^Contraseña/).fill(user.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('button', { name: /^Cuenta de / }).waitFor({ timeout: 30_000 });
}

/**
 * A fresh browser context (its own sessionStorage) on the console, signed in as `user`, at `path`;
 * in Bogotá's zone unless `timezoneId` puts the browser elsewhere (screens must show Bogotá's time anyway).
 */
export async function openConsole(browser: Browser, app: TestApp, user: Pick<TestUser, 'email' | 'password'>, path = '/', options: { timezoneId?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: 'es-CO', timezoneId: options.timezoneId ?? 'America/Bogota' });
  const page = await context.newPage();
  await page.goto(`${app.url}${path}`);
  await signIn(page, user);
  return page;
}

/**
 * Polls an expression in the page until it is true. Through `evaluate` (the DevTools protocol), since
 * `waitForFunction` evaluates its predicate with eval, which the page's CSP rightly forbids.
 */
export async function untilPageHolds(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await page.waitForTimeout(50);
  }
}

/** axe on the page once its transitions are over (a dialog fading in is half-transparent, and so is its contrast). */
export async function axeSettled(page: Page) {
  await untilPageHolds(page, "document.getAnimations().every((animation) => animation.playState !== 'running')");
  return axeBlocking(page);
}
