/**
 * The console's Popularity screens in headless Chromium against a listening test app: a poll entered
 * with a 4.5-point margin in a national poll is told the Ley 2494 problem beside the margin field
 * while it is typed (nothing sent), and the stored poll shows the API's own finding beside the same
 * field after saving; the race page draws the poll average of a few polls with its band, the same
 * numbers as a table, our lead with its band and the composite score's parts; a SWOT suggestion is
 * accepted from the keyboard and becomes an item. axe on every screen; a viewer reads without acting,
 * a brigade member never sees the module. Leaves test-artifacts/console-popularity.png (the race) and
 * console-popularity-poll.png (the form with the problem beside the margin).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const POLLS = '/api/popularity/polls';

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;
let brigade: TestUser;
let page: Page;
const ids: Record<'ours' | 'first' | 'second', string> = { ours: '', first: '', second: '' };

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
/** 34,2: the screens' one-decimal points. */
const points = (value: number) => new Intl.NumberFormat('es-CO', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);

async function competitor(name: string, isOwn = false): Promise<string> {
  const answer = await app.http.post('/api/social-monitoring/competitors').set(manager.auth).send({ name, isOwn, profiles: [] }).expect(201);
  return answer.body.id as string;
}

function poll(pollster: string, ageDays: number, ours: number, first: number, second: number, sampleSize = 1500) {
  return {
    pollster,
    sponsor: 'Noticias Caracol',
    fieldworkStart: daysAgo(ageDays + 2),
    fieldworkEnd: daysAgo(ageDays),
    publishedAt: daysAgo(ageDays - 1),
    scope: 'national',
    universe: 'Personas de 18 años o más',
    sampleSize,
    method: 'phone',
    probabilistic: true,
    marginOfError: 2.6,
    confidenceLevel: 95,
    question: 'Si las elecciones fueran mañana, ¿por quién votaría?',
    results: [
      { competitorId: ids.ours, percentage: ours },
      { competitorId: ids.first, percentage: first },
      { competitorId: ids.second, percentage: second },
      { option: 'undecided', percentage: 100 - ours - first - second },
    ],
  };
}

/** Presses Tab until the element with this accessible name (or visible text) has the focus: reachable by keyboard, or the test fails. */
async function tabTo(target: Page, name: string, presses = 80): Promise<void> {
  for (let i = 0; i < presses; i++) {
    await target.keyboard.press('Tab');
    const focused = await target.evaluate("(document.activeElement && (document.activeElement.getAttribute('aria-label') || document.activeElement.innerText || '').trim()) || ''");
    if (focused === name) return;
  }
  throw new Error(`"${name}" was not reached with Tab`);
}

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager', 'Marta Gestora');
  viewer = await createUser(app, admin, 'viewer', 'Vera Lectora');
  brigade = await createUser(app, admin, 'brigade');
  ids.ours = await competitor('Ana Nuestra', true);
  ids.first = await competitor('Beto Rival');
  ids.second = await competitor('Carla Rival');
  // Three pollsters in the last ten days: we lead in all of them, so the data suggests a strength.
  for (const body of [poll('Invamer', 9, 36, 30, 12, 2000), poll('Centro Nacional de Consultoría', 6, 34, 31, 11), poll('Guarumo', 3, 37, 29, 13)]) {
    await app.http.post(POLLS).set(manager.auth).send(body).expect(201);
  }
  browser = await launchChromium();
  page = await openConsole(browser, app, manager, '/popularidad/encuestas');
  await page.getByRole('heading', { name: 'Encuestas', level: 1 }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('lists the polls paged by the server, with their verdict under Ley 2494', async () => {
  const table = page.getByRole('table', { name: /Encuestas registradas/ });
  await table.getByRole('link', { name: 'Guarumo' }).waitFor();
  expect(await table.locator('tbody tr').count()).toBe(3);
  expect(await table.getByText('Cumple', { exact: true }).count()).toBe(3);
  expect(await axeSettled(page)).toEqual([]);
});

/** What the test reads of a canvas (the tests are compiled without the DOM's types). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } } | null;
}

/** Fills a complete national sheet (the margin left to the caller) on the open form. */
async function fillSheet(target: Page, pollster: string): Promise<void> {
  await target.getByLabel(/^Encuestadora/).fill(pollster);
  await target.getByLabel(/^Quién la pagó/).fill('Revista Semana');
  await target.getByLabel(/^Publicada el/).fill(daysAgo(1));
  await target.getByLabel(/^Trabajo de campo desde/).fill(daysAgo(5));
  await target.getByLabel(/^Trabajo de campo hasta/).fill(daysAgo(3));
  await target.getByLabel(/^Tamaño de la muestra/).fill('1200');
  await target.getByLabel(/^Nivel de confianza/).fill('95');
  await target.getByLabel(/^Universo/).fill('Personas de 18 años o más en cabeceras municipales');
  await target.getByLabel(/^Pregunta literal/).fill('¿Por quién votaría?');
}

it('says a 4.5-point margin breaks Ley 2494 beside the margin field before saving, and the API’s finding beside it after', async () => {
  let posted = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === POLLS) posted += 1;
  });
  await page.getByRole('link', { name: 'Registrar encuesta' }).click();
  await page.getByRole('heading', { name: 'Registrar encuesta', level: 1 }).waitFor();
  await fillSheet(page, 'Cifras y Conceptos');
  const margin = page.getByLabel(/^Margen de error/);
  await margin.fill('4,5');
  await page.getByLabel('Ana Nuestra').fill('35');
  await page.getByLabel('Beto Rival').fill('31');

  // The problem is the margin field's own description: said beside it, and read with it.
  const problem = 'El margen de error (4.5 puntos) supera el máximo de 3 puntos que la Ley 2494 de 2025 fija para encuestas nacionales.';
  await page.getByText(problem).waitFor();
  const describedBy = (await margin.getAttribute('aria-describedby')) ?? '';
  const description = (await page.evaluate(`${JSON.stringify(describedBy)}.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ')`)) as string;
  expect(description).toContain(problem);
  // Only the margin: every other field of the sheet is complete.
  expect(await page.getByText(/^Ley 2494:/).count()).toBe(1);
  await page.getByText('La ficha no cumple la Ley 2494 de 2025').waitFor();
  expect(posted).toBe(0);
  expect(await axeSettled(page)).toEqual([]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-popularity-poll.png'), fullPage: true });

  // A margin within the law takes the problem away as it is typed; 4.5 again brings it back.
  await margin.fill('2,9');
  await page.getByText('La ficha cumple la Ley 2494 de 2025').waitFor();
  expect(await page.getByText(problem).count()).toBe(0);
  await margin.fill('4,5');
  await page.getByText(problem).waitFor();

  await page.getByRole('button', { name: 'Guardar encuesta' }).click();
  await page.getByRole('heading', { name: 'Encuesta de Cifras y Conceptos', level: 1 }).waitFor();
  expect(posted).toBe(1);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const stored = await app.http.get(`${POLLS}/${id}`).set(viewer.auth).expect(200);
  expect(stored.body.compliance).toEqual({ compliant: false, problems: [{ code: 'margin_above_national_limit', message: problem }] });
  expect(stored.body.results).toEqual([
    { competitorId: ids.ours, option: null, percentage: 35 },
    { competitorId: ids.first, option: null, percentage: 31 },
  ]);
  // After saving: the API's answer, on the margin's row of the sheet.
  const marginRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Margen de error' }) });
  expect(await marginRow.textContent()).toContain(problem);
  expect(
    await page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Tamaño de la muestra' }) })
      .textContent(),
  ).not.toContain('Ley 2494');
  await page.getByText('No cumple: 1 problema').waitFor();
  expect(await axeSettled(page)).toEqual([]);
});

it('refuses what cannot be a poll beside the field, in Spanish, before sending', async () => {
  await page.goto(`${app.url}/popularidad/encuestas/nueva`);
  await page.getByRole('heading', { name: 'Registrar encuesta', level: 1 }).waitFor();
  let posted = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === POLLS) posted += 1;
  });
  await page.getByRole('button', { name: 'Guardar encuesta' }).click();
  const pollster = page.getByLabel(/^Encuestadora/);
  await untilPageHolds(page, 'document.querySelector(\'input[aria-invalid="true"]\') !== null');
  expect(await pollster.getAttribute('aria-invalid')).toBe('true');
  const pollsterError = (await page.evaluate(
    `document.getElementById(${JSON.stringify((await pollster.getAttribute('aria-describedby'))!.split(' ').pop())})?.textContent`,
  )) as string;
  expect(pollsterError).toMatch(/Escriba algo en este campo|Este campo es obligatorio/);

  await fillSheet(page, 'Sumas Malas');
  await page.getByLabel(/^Margen de error/).fill('2,9');
  await page.getByLabel('Ana Nuestra').fill('70');
  await page.getByLabel('Beto Rival').fill('40');
  await page.getByText('Suman 110,0 %.').waitFor();
  await page.getByRole('button', { name: 'Guardar encuesta' }).click();
  await page.getByText('Los resultados suman más de 100 %: revise los porcentajes.').waitFor();
  expect(posted).toBe(0);
  expect(await axeSettled(page)).toEqual([]);
});

it('draws the poll average with its band, the lead with its band and the score with its parts', async () => {
  const dashboard = (await app.http.get('/api/popularity/dashboard').set(viewer.auth).expect(200)).body as {
    pollAverage: { averages: { competitorId: string; average: number; low: number; high: number }[]; trend: { date: string; averages: { competitorId: string }[] }[] };
    lead: { rivalId: string; lead: number; low: number; high: number };
    scores: { competitorId: string; score: number }[];
  };
  await page.getByRole('link', { name: 'Panorama' }).click();
  await page.getByRole('heading', { name: 'Popularidad', level: 1 }).waitFor();
  const chart = page.getByRole('img', { name: /^Promedio de encuestas de los últimos 30 días/ });
  await chart.waitFor();
  // One band per candidate drawn by uPlot on a canvas that has a size.
  await untilPageHolds(page, "document.querySelector('[data-bands]')?.dataset.bands === '3'");
  const canvas = await chart.locator('canvas').boundingBox();
  expect(canvas!.width).toBeGreaterThan(300);
  expect(canvas!.height).toBeGreaterThan(200);
  // The band is painted: the canvas (transparent) holds the translucent fill of our colour, #1864ab at alpha 0x33, over an area.
  const tintedPixels = () =>
    chart.locator('canvas').evaluate((element) => {
      const canvas = element as unknown as Canvas;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let count = 0;
      for (let i = 0; i < data.length; i += 4)
        if (Math.abs(data[i]! - 24) < 6 && Math.abs(data[i + 1]! - 100) < 6 && Math.abs(data[i + 2]! - 171) < 6 && Math.abs(data[i + 3]! - 51) < 8) count++;
      return count;
    });
  // uPlot redraws as the page settles (a resize): wait for the drawing, not for a time.
  const deadline = Date.now() + 10_000;
  let tinted = await tintedPixels();
  while (tinted < 500 && Date.now() < deadline) tinted = await tintedPixels();
  expect(tinted).toBeGreaterThan(500);

  const ours = dashboard.pollAverage.averages.find((row) => row.competitorId === ids.ours)!;
  const averages = page.getByRole('table', { name: /encuestas, ponderadas/ });
  const ourRow = averages.getByRole('row').filter({ hasText: 'Ana Nuestra' });
  expect(await ourRow.textContent()).toContain(`${points(ours.average)} %`);
  expect(await ourRow.textContent()).toContain(`${points(ours.low)} – ${points(ours.high)}`);
  // The chart's numbers as a table: the last day is today's average and band.
  await page.getByText('Ver los datos como tabla').click();
  const daily = page.getByRole('table', { name: /Promedio diario/ });
  expect(await daily.locator('tbody tr').count()).toBe(dashboard.pollAverage.trend.length);
  expect(await daily.locator('tbody tr').last().textContent()).toContain(`${points(ours.average)} (${points(ours.low)} – ${points(ours.high)})`);

  expect(dashboard.lead.rivalId).toBe(ids.first);
  await page.getByText(`+${points(dashboard.lead.lead)} puntos sobre Beto Rival`).waitFor();
  await page.getByText(new RegExp(`de [+−]?${points(Math.abs(dashboard.lead.low)).replace('.', '\\.')} a [+−]?${points(Math.abs(dashboard.lead.high))} puntos`)).waitFor();

  const ourScore = dashboard.scores.find((row) => row.competitorId === ids.ours)!;
  await page
    .getByText(`${points(ourScore.score)} / 100`)
    .first()
    .waitFor();
  const parts = page.getByRole('table', { name: 'Partes del puntaje de Ana Nuestra' });
  expect(await parts.getByRole('row').filter({ hasText: 'Promedio de encuestas' }).textContent()).toContain(points(ours.average));
  expect(await axeSettled(page)).toEqual([]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'console-popularity.png'), fullPage: true });
});

it('accepts a SWOT suggestion from the keyboard: it becomes an item and is not suggested again', async () => {
  const before = (await app.http.get('/api/popularity/swot').set(viewer.auth).expect(200)).body as { strength: { suggestions: { key: string; text: string }[] } };
  const suggestion = before.strength.suggestions.find((entry) => entry.key === 'strength:poll_average')!;
  expect(suggestion).toBeDefined();
  await page.getByRole('link', { name: 'DOFA' }).click();
  await page.getByRole('heading', { name: 'DOFA', level: 1 }).waitFor();
  const strengths = page.getByRole('region', { name: 'Fortalezas' });
  await strengths.getByText(suggestion.text).waitFor();
  expect(await axeSettled(page)).toEqual([]);

  await page.getByRole('heading', { name: 'DOFA', level: 1 }).click();
  await tabTo(page, 'Aceptar');
  // The first Aceptar in the page's order is the strengths' (the board starts with them), and it names its suggestion.
  const describedBy = (await page.evaluate("document.activeElement.getAttribute('aria-describedby')")) as string;
  expect(await page.evaluate(`document.getElementById(${JSON.stringify(describedBy)}).textContent`)).toBe(suggestion.text);
  await page.keyboard.press('Enter');
  await strengths.getByRole('list', { name: 'Fortalezas anotadas' }).getByText(suggestion.text).waitFor();
  await strengths.getByText('Sugerida por los datos').waitFor();
  expect(await strengths.getByRole('button', { name: 'Aceptar' }).count()).toBe(0);

  const after = (await app.http.get('/api/popularity/swot').set(viewer.auth).expect(200)).body as {
    strength: { items: { text: string; suggestionKey: string | null }[]; suggestions: { key: string }[] };
  };
  expect(after.strength.items).toEqual([expect.objectContaining({ text: suggestion.text, suggestionKey: 'strength:poll_average' })]);
  expect(after.strength.suggestions.map((entry) => entry.key)).not.toContain('strength:poll_average');
  expect(await axeSettled(page)).toEqual([]);
});

it('shows the screens to the roles the policy names: a viewer reads without acting, a brigade member never sees them', async () => {
  const viewing = await openConsole(browser, app, viewer, '/popularidad/dofa');
  await viewing.getByRole('heading', { name: 'DOFA', level: 1 }).waitFor();
  await viewing.getByRole('region', { name: 'Fortalezas' }).getByText('Sugerida por los datos').waitFor();
  expect(await viewing.getByRole('button', { name: 'Quitar' }).count()).toBe(0);
  expect(await viewing.getByRole('heading', { name: 'Anotar un punto' }).count()).toBe(0);
  await viewing.getByRole('link', { name: 'Encuestas' }).click();
  await viewing
    .getByRole('table', { name: /Encuestas registradas/ })
    .getByRole('link', { name: 'Cifras y Conceptos' })
    .waitFor();
  expect(await viewing.getByRole('link', { name: 'Registrar encuesta' }).count()).toBe(0);
  expect(await viewing.getByRole('link', { name: 'Popularidad' }).count()).toBeGreaterThan(0);
  await viewing.goto(`${app.url}/popularidad/encuestas/nueva`);
  await viewing.getByRole('heading', { name: 'Sin acceso', level: 1 }).waitFor();
  await viewing.context().close();

  const brigadePage = await openConsole(browser, app, brigade, '/popularidad');
  await brigadePage.getByRole('heading', { name: 'Sin acceso' }).waitFor();
  expect(await brigadePage.getByRole('link', { name: 'Popularidad' }).count()).toBe(0);
  await brigadePage.context().close();
});
