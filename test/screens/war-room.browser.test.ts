/**
 * The war-room screen in headless Chromium against a listening test app: sign-in, the figures
 * REST gives, a report posted through the API arriving over the socket, the server's `resync`,
 * a turnout window in a format the page cannot read, a server restart (reconnect, figures equal
 * REST again), the CSP holding (no violations logged) and axe-core finding no serious or critical
 * violation. Leaves a screenshot in test-artifacts/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { newId } from '../../src/kernel/ids';
import { FakeWhatsAppCloud, signBody } from '../fakes/whatsapp-cloud';
import { CLOUD } from '../whatsapp/setup';
import { startTestApp, type TestApp } from '../helpers/app';
import { openPollsSettings } from '../helpers/factories';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { Runtime } from '../../src/runtime';
import { sql } from '../../src/kernel/sql';
import { assertBuilt, axeBlocking, createCampaign, launchChromium, type Campaign } from './campaign';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
// Incident photos are written here, not in the checkout's ./data.
const DATA_DIR = mkdtempSync(join(tmpdir(), 'comando-screens-'));

let app: TestApp;
let browser: Browser;
let page: Page;
let manager: TestUser;
let member: TestUser;
let campaign: Campaign;
let other: Campaign;
let restarted: Runtime | undefined;
const cspViolations: string[] = [];

jest.setTimeout(90_000);

beforeAll(async () => {
  assertBuilt();
  // The WhatsApp app secret, so that a signed webhook (someone replying) is taken.
  app = await startTestApp({ DATA_DIR, WHATSAPP_APP_SECRET: CLOUD.appSecret, WHATSAPP_PHONE_NUMBER_ID: CLOUD.phoneNumberId, WHATSAPP_WABA_ID: CLOUD.wabaId });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  member = await createUser(app, admin, 'brigade');
  campaign = await createCampaign(app, manager, 3, 5);
  // A second comuna with one station and 4 voters, for the territory filter.
  other = await createCampaign(app, manager, 1, 4);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await restarted?.stop();
  await app?.close();
  rmSync(DATA_DIR, { recursive: true, force: true });
});

/** A counter's number as the page shows it (`data-value` holds it unformatted). */
async function counter(id: string): Promise<number> {
  return Number(await page.getAttribute(`#${id}`, 'data-value'));
}

async function waitForCounter(id: string, value: number, timeout = 30_000): Promise<void> {
  await page.waitForSelector(`#${id}[data-value="${value}"]`, { timeout });
}

/** The pending table is redrawn at most twice a second: wait for it rather than read it at once (no eval: the CSP forbids it). */
async function pendingRows(count: number): Promise<void> {
  await page
    .locator('#pending tr')
    .nth(count - 1)
    .waitFor({ state: 'attached', timeout: 30_000 });
  await page.locator('#pending tr').nth(count).waitFor({ state: 'detached', timeout: 30_000 });
}
const loads = async () => Number(await page.getAttribute('body', 'data-loads'));

async function dashboard() {
  return (await app.http.get('/api/gotv/dashboard').set(manager.auth).expect(200)).body as {
    voters: { confirmed: number; voted: number };
    stations: Record<string, number>;
    incidents: { reported: number; stations: number; since: string };
  };
}

const es = new Intl.NumberFormat('es-CO');

let reportNumber = 0;
function voterReport(stationIndex: number) {
  const station = campaign.stations[stationIndex]!;
  const voterId = campaign.voters.get(station.id)![reportNumber++ % 5]!;
  return { kind: 'voter', clientReportId: randomUUID(), voterId };
}

describe('war room', () => {
  it('is served with its own CSP and long-cached assets', async () => {
    const response = await page.goto(`${app.url}/war-room/`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(response!.headers()['cache-control']).toBe('no-cache');
    const html = await response!.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
  });

  it('signs in and shows what REST says', async () => {
    // Who may watch is the GOTV policy's (followWarRoom): a brigade member's account is refused and the screen stays closed.
    await page.fill('#email', member.email);
    await page.fill('#password', member.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:has-text("no tiene acceso a la sala de situación")');
    expect(await page.isHidden('#screen')).toBe(true);
    await page.fill('#email', manager.email);
    await page.fill('#password', 'wrong password');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:has-text("incorrectos")');
    await page.fill('#password', manager.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('body[data-loads="1"]');
    await page.waitForSelector('#connection[data-state="live"]');
    const rest = await dashboard();
    expect(await counter('c-confirmed')).toBe(rest.voters.confirmed);
    expect(rest.voters.confirmed).toBe(19);
    expect(await counter('c-voted')).toBe(0);
    expect(await counter('c-open')).toBe(4);
    await pendingRows(4);
    // No count yet: the projection says there is none rather than showing a number.
    const projection = (await app.http.get('/api/gotv/projection').set(manager.auth).expect(200)).body as { overall: { projectedTurnout: number | null } };
    expect(projection.overall.projectedTurnout).toBeNull();
    expect(await page.textContent('#projection')).toContain('Proyección al cierre');
    expect(await page.textContent('#p-turnout')).toContain('Sin proyección todavía');
    // The token is in sessionStorage, never in the URL.
    expect(page.url()).toBe(`${app.url}/war-room/`);
  });

  it('shows a report posted through the API as it arrives over the socket', async () => {
    const before = await loads();
    const posted = Date.now();
    await app.http.post('/api/gotv/turnout').set(manager.auth).send(voterReport(0)).expect(201);
    await waitForCounter('c-voted', 1);
    const delay = Date.now() - posted;
    // It came by the socket: no reload from REST happened in between.
    expect(await loads()).toBe(before);
    expect(await counter('c-pending')).toBe(18);
    expect(await page.textContent('#pending tr:first-child td:first-child')).toContain('Puesto');
    process.stdout.write(`war room: report on screen ${delay} ms after the API accepted it\n`);
  });

  it('narrows the figures to a territory and back', async () => {
    await page.selectOption('#territory', other.territoryId);
    await waitForCounter('c-confirmed', 4);
    expect(await counter('c-open')).toBe(1);
    await pendingRows(1);
    await page.selectOption('#territory', campaign.territoryId);
    await waitForCounter('c-confirmed', 15);
    expect(await counter('c-voted')).toBe(1);
    await page.selectOption('#territory', '');
    await waitForCounter('c-confirmed', 19);
    await pendingRows(4);
  });

  it('reloads from REST on the server’s resync', async () => {
    // A change the server never pushed (as if its event was lost in a Redis outage)…
    await app.runtime.deps.db.write(sql`update gotv_polling_stations set status = 'closed' where id = ${campaign.stations[2]!.id}`);
    expect(await counter('c-closed')).toBe(0);
    // …then the server's resync tells screens to look again.
    app.runtime.deps.realtime.io.emit('resync', { rooms: ['gotv'], reason: 'redis_outage', at: new Date().toISOString() });
    await waitForCounter('c-closed', 1);
    await page.waitForSelector('#connection:has-text("resincronizado")');
  });

  it('reloads the page once for a turnout window it cannot read (a newer server), then only its figures, at most every 30 s', async () => {
    let navigations = 0;
    const counted = (frame: unknown) => {
      if (frame === page.mainFrame()) navigations++;
    };
    page.on('framenavigated', counted);
    try {
      const voted = await counter('c-voted');
      const unreadable = () => app.runtime.deps.realtime.io.to('gotv').emit('gotv:turnout', { v: 2, packed: 'AAAA' });
      const reloaded = page.waitForEvent('load');
      unreadable();
      await reloaded;
      expect(navigations).toBe(1);
      // Signed in still (the session is in sessionStorage), and the figures are REST's.
      await waitForCounter('c-voted', voted);
      await page.waitForSelector('#connection[data-state="live"]', { timeout: 30_000 });
      // Within ten minutes of that reload the page stays: its figures come from REST instead, once.
      const before = await loads();
      unreadable();
      await page.waitForSelector(`body[data-loads="${before + 1}"]`, { timeout: 30_000 });
      // A second one within 30 s: nothing (2,000 screens reloading at every window would flood the API).
      unreadable();
      await page.waitForTimeout(1500);
      expect(await loads()).toBe(before + 1);
      expect(navigations).toBe(1);
    } finally {
      page.off('framenavigated', counted);
    }
  });

  it('fills the alerts feed from REST on every (re)load, with live incidents once each', async () => {
    const report = (type: string) =>
      app.http
        .post('/api/gotv/incidents')
        .set(manager.auth)
        .send({ pollingStationId: campaign.stations[0]!.id, type, severity: 'medium', description: 'Prueba de la sala' })
        .expect(201);
    const feed = page.locator('#alerts li[data-incident]');
    const first = (await report('material_missing')).body as { id: string };
    await page.locator(`#alerts li[data-incident="${first.id}"]`).waitFor({ timeout: 30_000 });
    // A reload starts the screen from nothing: the incident comes back from REST.
    await page.reload();
    await page.waitForSelector('body[data-loads="1"]');
    await page.locator(`#alerts li[data-incident="${first.id}"]`).waitFor({ timeout: 30_000 });
    expect(await feed.count()).toBe(1);
    // A live one, then a reload from REST that reads both again: each is still shown once, newest first.
    const second = (await report('witness_denied')).body as { id: string };
    await page.locator(`#alerts li[data-incident="${second.id}"]`).waitFor({ timeout: 30_000 });
    app.runtime.deps.realtime.io.emit('resync', { rooms: ['gotv'], reason: 'redis_outage', at: new Date().toISOString() });
    await page.waitForSelector('body[data-loads="2"]', { timeout: 30_000 });
    expect(await feed.evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { incident: string } }).dataset.incident))).toEqual([second.id, first.id]);
    expect(await page.textContent(`#alerts li[data-incident="${second.id}"]`)).toContain('Puesto');
    // Its photo arrives: the incident already shown is marked, not added again.
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('JFIF photo')]);
    await app.http.put(`/api/gotv/incidents/${second.id}/photo`).set(manager.auth).set('Content-Type', 'image/jpeg').send(jpeg).expect(200);
    await page.locator(`#alerts li[data-incident="${second.id}"]`, { hasText: 'con foto' }).waitFor({ timeout: 30_000 });
    expect(await feed.count()).toBe(2);
  });

  it('opens an incident into its detail: type, station, time, text, reporter and the photo fetched with the session', async () => {
    const png = new PNG({ width: 48, height: 32 });
    png.data.fill(200);
    const station = campaign.stations[1]!;
    const incident = (
      await app.http
        .post('/api/gotv/incidents')
        .set(manager.auth)
        .send({ pollingStationId: station.id, type: 'vote_buying', severity: 'high', description: 'Ofrecen mercados a la entrada del puesto' })
        .expect(201)
    ).body as { id: string };
    await app.http.put(`/api/gotv/incidents/${incident.id}/photo`).set(manager.auth).set('Content-Type', 'image/png').send(PNG.sync.write(png)).expect(200);
    const open = page.locator(`#alerts li[data-incident="${incident.id}"] button.open`);
    await page.locator(`#alerts li[data-incident="${incident.id}"]`, { hasText: 'con foto' }).waitFor({ timeout: 30_000 });
    // From the keyboard, as from a mouse.
    await open.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#incident[open]');
    await page.locator('#incident dl').waitFor();
    const text = (await page.textContent('#incident'))!;
    expect(text).toContain('Compra de votos');
    expect(text).toContain(`${station.name} (${station.code})`);
    expect(text).toContain('alta');
    expect(text).toContain('A manager');
    expect(text).toContain('Ofrecen mercados a la entrada del puesto');
    const image = page.locator('#incident img');
    await image.waitFor({ timeout: 30_000 });
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    let width = 0;
    for (let tries = 0; tries < 100 && width === 0; tries++) {
      width = await image.evaluate((element) => (element as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);
      if (width === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(width).toBe(48);
    expect(await axeBlocking(page)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'war-room-incident.png') });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#incident', { state: 'hidden' });
  });

  it('counts the day’s incidents as the feed and the API do, and says how many stations are still marked', async () => {
    let rest = await dashboard();
    expect(rest.incidents.reported).toBe(3);
    await waitForCounter('c-incident', rest.incidents.reported);
    expect(await page.locator('#alerts li[data-incident]').count()).toBe(rest.incidents.reported);
    expect(await page.textContent('#c-incident-now')).toContain(`${rest.stations.incident} puestos siguen en incidente`);
    // Closing the stations clears their mark, not the day's incidents.
    for (const station of campaign.stations.slice(0, 2)) {
      await app.http.patch(`/api/gotv/polling-stations/${station.id}`).set(manager.auth).send({ status: 'closed' }).expect(200);
    }
    await page.waitForSelector('#c-incident-now:has-text("0 puestos siguen en incidente")', { timeout: 30_000 });
    rest = await dashboard();
    expect(rest.stations.incident).toBe(0);
    expect(await counter('c-incident')).toBe(rest.incidents.reported);
    expect(await page.locator('#alerts li[data-incident]').count()).toBe(3);
    // The territory filter counts the incidents of its stations only.
    await page.selectOption('#territory', other.territoryId);
    await waitForCounter('c-incident', 0);
    await page.selectOption('#territory', '');
    await waitForCounter('c-incident', 3);
    for (const station of campaign.stations.slice(0, 2)) {
      await app.http.patch(`/api/gotv/polling-stations/${station.id}`).set(manager.auth).send({ status: 'open' }).expect(200);
    }
  });

  it('shows the social alerts and WhatsApp replies that came before it opened, then live ones, each once', async () => {
    const before = newId();
    await app.runtime.deps.db.write(sql`
      insert into social_alerts (id, kind, dedupe_key, severity, title, details, state, created_at)
      values (${before}, 'keyword', ${newId()}, 'warning', 'Mención de "cierre de vías"', '{}'::jsonb, 'new', now())`);
    const cloud = new FakeWhatsAppCloud({ ...CLOUD });
    const raw = JSON.stringify(cloud.inboundPayload('573001112233', { type: 'text', text: { body: '¿Dónde voto?' } }, 'Carla'));
    await app.http.post('/api/whatsapp/webhook').set('Content-Type', 'application/json').set('X-Hub-Signature-256', signBody(CLOUD.appSecret, raw)).send(raw).expect(200);
    const [reply] = await app.runtime.deps.db.rows(sql<{ id: string }>`select id from wa_messages where direction = 'in'`);
    // A screen opened now (a reload starts from nothing) shows both, read from REST.
    await page.reload();
    await page.waitForSelector('body[data-loads="1"]');
    await page.locator(`#alerts li[data-key="social:${before}"]`).waitFor({ timeout: 30_000 });
    await page.locator(`#alerts li[data-key="whatsapp:${reply!.id}"]`).waitFor({ timeout: 30_000 });
    expect(await page.textContent(`#alerts li[data-key="social:${before}"]`)).toContain('cierre de vías');
    // The reply is shown without its words or its number.
    expect(await page.textContent('#alerts')).not.toContain('Dónde voto');
    expect(await page.textContent('#alerts')).not.toContain('3001112233');
    // A live alert, then a reload from REST that reads them all again: each once.
    const live = newId();
    app.runtime.deps.realtime.publish('social', 'social:alert', {
      id: live,
      kind: 'keyword',
      severity: 'warning',
      title: 'Mención de "transporte"',
      details: { matched: ['transporte'] },
      competitorId: null,
      profileId: null,
      postId: null,
      state: 'new',
      createdAt: new Date().toISOString(),
    });
    await page.locator(`#alerts li[data-key="social:${live}"]`).waitFor({ timeout: 30_000 });
    app.runtime.deps.realtime.io.emit('resync', { rooms: ['social', 'whatsapp'], reason: 'redis_outage', at: new Date().toISOString() });
    await page.waitForSelector('body[data-loads="2"]', { timeout: 30_000 });
    expect(await page.locator(`#alerts li[data-key="social:${before}"]`).count()).toBe(1);
    expect(await page.locator(`#alerts li[data-key="whatsapp:${reply!.id}"]`).count()).toBe(1);
    expect(await page.locator('#alerts li.social').count()).toBe(1 + 1);
  });

  it('names the projection at closing as one, with its interval', async () => {
    // Polls open for over an hour, so the counts below make a projection whatever the hour in Bogotá
    // (the campaign's 08:00–16:00 day had not opened at 00:05, and counts before opening make none).
    const settings = (await app.http.get('/api/gotv/settings').set(manager.auth).expect(200)).body as { electionDate: string; opensAt: string; closesAt: string };
    await app.http.put('/api/gotv/settings').set(manager.auth).send(openPollsSettings()).expect(200);
    // Counts at every station make a projection.
    for (const [index, station] of [...campaign.stations, ...other.stations].entries()) {
      await app.http
        .post('/api/gotv/turnout')
        .set(manager.auth)
        .send({ kind: 'count', clientReportId: randomUUID(), pollingStationId: station.id, votersSoFar: 300 + index * 40 })
        .expect(201);
    }
    let figures: { projectedTurnout: number | null; projectedTurnoutLow: number | null; projectedTurnoutHigh: number | null } | undefined;
    for (let tries = 0; tries < 60 && !figures?.projectedTurnout; tries++) {
      figures = ((await app.http.get('/api/gotv/projection').set(manager.auth).expect(200)).body as { overall: NonNullable<typeof figures> }).overall;
      if (!figures.projectedTurnout) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(figures?.projectedTurnout).toEqual(expect.any(Number));
    app.runtime.deps.realtime.io.emit('resync', { rooms: ['gotv'], reason: 'redis_outage', at: new Date().toISOString() });
    await page.waitForSelector(`#p-turnout[data-value="${figures!.projectedTurnout}"]`, { timeout: 30_000 });
    // The interval moves with the clock between two readings: its shape is checked, and that it holds the figure.
    const shown = (await page.textContent('#p-turnout'))!;
    const match = /^([\d.]+) \(([\d.]+)–([\d.]+)\)$/.exec(shown);
    expect(match?.[1]).toBe(es.format(figures!.projectedTurnout!));
    const [low, high] = [match![2]!, match![3]!].map((part) => Number(part.replace(/\./g, '')));
    expect(low).toBeLessThanOrEqual(figures!.projectedTurnout!);
    expect(high).toBeGreaterThanOrEqual(figures!.projectedTurnout!);
    expect(await page.textContent('#projection dl:first-child dt')).toBe('Proyección al cierre: votantes');
    const { electionDate, opensAt, closesAt } = settings;
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate, opensAt, closesAt, followingDays: [] }).expect(200);
  });

  it('survives a server restart and ends with the figures REST gives', async () => {
    const port = Number(new URL(app.url).port);
    const other = await app.sibling();
    await app.runtime.stop();
    await page.waitForSelector('#connection[data-state="reconnecting"]');
    // Reports made while this screen's server is down, through another process.
    for (const stationIndex of [0, 1, 1]) await other.http.post('/api/gotv/turnout').set(manager.auth).send(voterReport(stationIndex)).expect(201);
    restarted = await Runtime.create(app.config, { migrate: false });
    await restarted.listen(port, '127.0.0.1');
    await page.waitForSelector('#connection[data-state="live"]', { timeout: 60_000 });
    const rest = await dashboard();
    expect(rest.voters.voted).toBe(4);
    // A reload the stop cut short is retried once the API client's 15 s timeout has said so: allow for it.
    await waitForCounter('c-voted', rest.voters.voted, 60_000);
    await waitForCounter('c-pending', rest.voters.confirmed - rest.voters.voted);
    await waitForCounter('c-closed', rest.stations.closed!);
  });

  it('breaks no CSP rule and has no serious or critical accessibility violation', async () => {
    expect(cspViolations).toEqual([]);
    expect(await axeBlocking(page)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'war-room.png') });
  });
});
