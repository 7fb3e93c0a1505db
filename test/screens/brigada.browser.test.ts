/**
 * The brigade phone app in headless Chromium: its first-load weight, sign-in, 20 reports recorded
 * with the browser context offline, the tab closed and the app reopened still offline (from the
 * service worker's cache), then online: the server ends with exactly those 20 reports, once. Also
 * a conflict (a voter someone else reported) shown to the member, a 500 retried, a 503 busy kept
 * until its Retry-After, an ended session
 * (back to sign-in, queue kept), and axe-core. Leaves a screenshot in test-artifacts/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { sql } from '../../src/kernel/sql';
import { assertBuilt, axeBlocking, createCampaign, launchChromium, type Campaign } from './campaign';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
// Incident photos are written here, not in the checkout's ./data.
const DATA_DIR = mkdtempSync(join(tmpdir(), 'comando-screens-'));
const PHONE = { width: 390, height: 844 };

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let admin: TestUser;
let manager: TestUser;
let member: TestUser;
let campaign: Campaign;

jest.setTimeout(120_000);

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp({ DATA_DIR });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  member = await createUser(app, admin, 'brigade', 'Brigadista Uno');
  campaign = await createCampaign(app, manager, 2, 14);
  const brigade = await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: 'Brigada Norte', memberIds: [member.id], stationIds: campaign.stations.map((station) => station.id) })
    .expect(201);
  await app.http
    .post(`/api/gotv/brigades/${brigade.body.id}/voters`)
    .set(manager.auth)
    .send({ voterIds: [...campaign.voters.values()].flat() })
    .expect(200);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: PHONE });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(DATA_DIR, { recursive: true, force: true });
});

async function memberReports(): Promise<string[]> {
  const rows = await app.runtime.deps.db.rows(sql<{ id: string }>`select client_report_id as id from gotv_turnout_reports where reported_by_id = ${member.id}`);
  return rows.map((row) => row.id).sort();
}

async function outboxIds(state: string): Promise<string[]> {
  return (await page.locator(`#outbox li[data-state="${state}"]`).evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { id: string } }).dataset.id))).sort();
}

/** A real PNG (a gradient, width × height) for the phone to compress: larger than what the app sends. */
function gradientPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set([(x * 255) / width, (y * 255) / height, 128], y * (width * 3 + 1) + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** A JPEG's width and height, from its start-of-frame segment. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  let at = 2;
  while (at < bytes.length) {
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  throw new Error('no start-of-frame segment');
}

async function signIn(target: Page): Promise<void> {
  await target.fill('#email', member.email);
  await target.fill('#password', member.password);
  await target.click('button[type=submit]');
}

describe('brigade app', () => {
  it('loads in at most 150 KB compressed, then signs in and shows the call list', async () => {
    page = await context.newPage();
    const sizes: Promise<number>[] = [];
    page.on('requestfinished', (request) => sizes.push(request.sizes().then((size) => size.responseBodySize + size.responseHeadersSize)));
    await page.goto(`${app.url}/brigada/`, { waitUntil: 'load' });
    await page.waitForSelector('#login-form');
    const bytes = (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0);
    process.stdout.write(`brigada: first load ${bytes} bytes over the wire (${sizes.length} requests)\n`);
    expect(bytes).toBeLessThanOrEqual(150 * 1024);
    expect(await axeBlocking(page)).toEqual([]);

    // Who may use the app is the GOTV policy's (reportAt): a viewer's account is refused and the app stays closed.
    const viewer = await createUser(app, admin, 'viewer', 'Solo Lectura');
    await page.fill('#email', viewer.email);
    await page.fill('#password', viewer.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:has-text("no tiene acceso a la app de brigada")');
    expect(await page.isHidden('#app')).toBe(true);

    await signIn(page);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#voters li').count()).toBe(28);
    // The service worker has the app cached before the network goes.
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
  });

  it('records 20 reports offline, keeps them when the tab closes, and sends them once when online', async () => {
    await context.setOffline(true);
    await page.waitForSelector('#network[data-online="false"]');
    // One voter after another, as a person taps: each leaves the list before the next tap (a tap on a
    // voter still being saved is ignored, as the double-tap test below shows).
    for (let i = 0; i < 18; i++) {
      const voterId = (await page.getAttribute('#voters li:first-child', 'data-voter'))!;
      await page.click('#voters li:first-child button.voted');
      await page.waitForSelector(`#voters li[data-voter="${voterId}"]`, { state: 'detached' });
    }
    await page.click('[data-tab="stations"]');
    await page.fill(`#count-${campaign.stations[0]!.id}`, '120');
    await page.click(`[data-station="${campaign.stations[0]!.id}"] form.count button`);
    await page.fill(`#count-${campaign.stations[1]!.id}`, '95');
    await page.click(`[data-station="${campaign.stations[1]!.id}"] form.count button`);
    await page.waitForSelector('#pending-count[data-value="20"]');
    expect(await memberReports()).toEqual([]);

    await page.close();
    page = await context.newPage();
    // Still offline: the service worker serves the app, the outbox is still on the phone.
    await page.goto(`${app.url}/brigada/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#pending-count[data-value="20"]');
    await page.click('[data-tab="outbox"]');
    const queued = await outboxIds('pending');
    expect(queued).toHaveLength(20);
    // The call list is drawn from the phone's storage after the page is ready: wait for it to settle.
    // (A locator, not a page function: the app's CSP forbids the eval a string expression needs.)
    await page.locator('#voters li').nth(9).waitFor({ state: 'attached' });
    expect(await page.locator('#voters li').count()).toBe(10);

    await context.setOffline(false);
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await outboxIds('sent')).toEqual(queued);
    expect(await memberReports()).toEqual(queued);
  });

  it('shows a conflict when someone else reported the voter first', async () => {
    await page.click('[data-tab="calls"]');
    const voterId = await page.getAttribute('#voters li:first-child', 'data-voter');
    await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId: randomUUID(), voterId }).expect(201);
    await page.click(`#voters li[data-voter="${voterId}"] button.voted`);
    await page.click('[data-tab="outbox"]');
    const conflict = page.locator('#outbox li[data-state="conflict"]');
    await conflict.waitFor({ timeout: 30_000 });
    expect(await conflict.textContent()).toContain('Ya estaba reportado');
    expect(await memberReports()).toHaveLength(20);
  });

  it('retries a report the server failed on (500) and sends it later', async () => {
    let failed = 0;
    await page.route('**/api/gotv/turnout', (route) => {
      failed++;
      return route.fulfill({ status: 500, contentType: 'application/problem+json', body: JSON.stringify({ status: 500, code: 'internal_error', title: 'Error', detail: 'x' }) });
    });
    await page.click('[data-tab="stations"]');
    await page.fill(`#count-${campaign.stations[0]!.id}`, '150');
    await page.click(`[data-station="${campaign.stations[0]!.id}"] form.count button`);
    await page.click('[data-tab="outbox"]');
    await page.waitForSelector('#pending-count[data-value="1"]');
    while (failed === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await page.unroute('**/api/gotv/turnout');
    await page.click('#send-now');
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await memberReports()).toHaveLength(21);
  });

  it('keeps a report answered 503 busy, sends it no sooner than Retry-After, and once the station is free', async () => {
    const busy: number[] = [];
    await page.route('**/api/gotv/turnout', (route) => {
      busy.push(Date.now());
      const problem = { type: '/problems/busy', title: 'Busy', status: 503, detail: 'The station is busy.', code: 'busy', retryAfter: 30 };
      return route.fulfill({ status: 503, headers: { 'Retry-After': '30' }, contentType: 'application/problem+json', body: JSON.stringify(problem) });
    });
    await page.click('[data-tab="stations"]');
    await page.fill(`#count-${campaign.stations[0]!.id}`, '160');
    await page.click(`[data-station="${campaign.stations[0]!.id}"] form.count button`);
    await page.click('[data-tab="outbox"]');
    while (busy.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    // Past the app's own first backoff (2 s ± 25 %), a sync finds nothing due: Retry-After holds it back.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await page.evaluate("window.dispatchEvent(new Event('online'))");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(busy).toHaveLength(1);
    expect(await outboxIds('pending')).toHaveLength(1);
    expect(await outboxIds('rejected')).toHaveLength(0);
    await page.unroute('**/api/gotv/turnout');
    await page.click('#send-now');
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await memberReports()).toHaveLength(22);
  });

  it('records an incident with a photo offline and sends both, the photo compressed, once online', async () => {
    const station = campaign.stations[1]!.id;
    await context.setOffline(true);
    await page.waitForSelector('#network[data-online="false"]');
    await page.click('[data-tab="stations"]');
    await page.selectOption(`#type-${station}`, 'material_missing');
    await page.selectOption(`#severity-${station}`, 'medium');
    await page.fill(`#description-${station}`, 'Faltan tarjetones en la mesa 3');
    await page.setInputFiles(`#photo-${station}`, { name: 'foto.png', mimeType: 'image/png', buffer: gradientPng(2400, 1600) });
    await page.click(`[data-station="${station}"] form.incident button`);
    await page.waitForSelector('#pending-count[data-value="1"]');
    const incidents = () => app.runtime.deps.db.rows(sql<{ id: string; photo_type: string | null }>`select id, photo_type from gotv_incidents where reported_by_id = ${member.id}`);
    expect(await incidents()).toEqual([]);

    // The first photo upload fails (500): the incident is recorded once, the photo retried and sent.
    let failed = 0;
    await page.route('**/api/gotv/incidents/*/photo', (route) => {
      failed++;
      return route.fulfill({ status: 500, contentType: 'application/problem+json', body: JSON.stringify({ status: 500, code: 'internal_error', title: 'Error', detail: 'x' }) });
    });
    await context.setOffline(false);
    while (failed === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await page.unroute('**/api/gotv/incidents/*/photo');
    expect(await incidents()).toEqual([{ id: expect.any(String), photo_type: null }]);
    await page.click('[data-tab="outbox"]');
    await page.click('#send-now');
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    const recorded = await incidents();
    expect(recorded).toEqual([{ id: expect.any(String), photo_type: 'image/jpeg' }]);
    const photo = await app.http
      .get(`/api/gotv/incidents/${recorded[0]!.id}/photo`)
      .set(manager.auth)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    const bytes = photo.body as Buffer;
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(jpegSize(bytes)).toEqual({ width: 1280, height: 853 });
    expect(await page.locator('#outbox li[data-state="sent"]', { hasText: 'con foto' }).count()).toBe(1);
  });

  it('goes back to sign-in when the session has ended, keeping the queue', async () => {
    // Ends every token of the member (as an admin deactivating them, or their logout elsewhere, would).
    await app.http.post('/api/auth/logout').set(member.auth).expect(204);
    await page.click('[data-tab="stations"]');
    await page.fill(`#count-${campaign.stations[1]!.id}`, '130');
    await page.click(`[data-station="${campaign.stations[1]!.id}"] form.count button`);
    await page.waitForSelector('#login-form', { state: 'visible' });
    expect(await page.textContent('#login-error')).toContain('siguen guardados');
    expect(await memberReports()).toHaveLength(22);
    const fresh = await app.http.post('/api/auth/login').send({ email: member.email, password: member.password }).expect(200);
    member = { ...member, token: fresh.body.token, auth: { Authorization: `Bearer ${fresh.body.token}` } };
    await signIn(page);
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await memberReports()).toHaveLength(23);
  });

  it('a double tap on an incident’s button (its photo still being compressed) records it once', async () => {
    const station = campaign.stations[0]!.id;
    const incidents = async () => (await app.runtime.deps.db.rows(sql<{ id: string }>`select id from gotv_incidents where reported_by_id = ${member.id}`)).length;
    const before = await incidents();
    await page.click('[data-tab="stations"]');
    await page.selectOption(`#type-${station}`, 'material_missing');
    await page.selectOption(`#severity-${station}`, 'high');
    await page.fill(`#description-${station}`, 'Se acabaron los formularios E-11');
    await page.setInputFiles(`#photo-${station}`, { name: 'foto.png', mimeType: 'image/png', buffer: gradientPng(2400, 1600) });
    await page.dblclick(`[data-station="${station}"] form.incident button`);
    // Saved on the phone once the form is cleared.
    while ((await page.inputValue(`#description-${station}`)) !== '') await new Promise((resolve) => setTimeout(resolve, 50));
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await incidents()).toBe(before + 1);
  });

  it('a double tap on “Ya votó” reports the voter once', async () => {
    await page.click('[data-tab="calls"]');
    const reportsBefore = await memberReports();
    const conflictsBefore = await page.locator('#outbox li[data-state="conflict"]').count();
    const voterId = (await page.getAttribute('#voters li:first-child', 'data-voter'))!;
    const name = (await page.textContent('#voters li:first-child strong'))!;
    await page.dblclick('#voters li:first-child button.voted');
    await page.waitForSelector(`#voters li[data-voter="${voterId}"]`, { state: 'detached' });
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await memberReports()).toHaveLength(reportsBefore.length + 1);
    expect(await page.locator('#outbox li[data-state="conflict"]').count()).toBe(conflictsBefore);
    expect(await page.locator('#outbox li', { hasText: `Ya votó: ${name}` }).count()).toBe(1);
  });

  it('takes back a mis-tapped “Ya votó” with “Deshacer”, offline too, and sends the others only after their undo time', async () => {
    await page.click('[data-tab="calls"]');
    const before = await memberReports();
    const tap = async (except = ''): Promise<string> => {
      const voterId = (await page.locator(`#voters li[data-voter]:not([data-voter="${except}"])`).first().getAttribute('data-voter'))!;
      await page.click(`#voters li[data-voter="${voterId}"] button.voted`);
      await page.waitForSelector(`#voters li[data-voter="${voterId}"]`, { state: 'detached' });
      return voterId;
    };
    // Online: the report waits out its undo time on the phone, then goes.
    const kept = await tap();
    await page.locator('#undo li', { hasText: 'Ya votó' }).waitFor();
    expect(await memberReports()).toEqual(before);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'brigada-undo.png') });
    await page.waitForSelector('#undo', { state: 'hidden', timeout: 30_000 });
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    expect(await memberReports()).toHaveLength(before.length + 1);

    // Offline: one taken back, one kept; back online only the kept one reaches the server.
    await context.setOffline(true);
    await page.waitForSelector('#network[data-online="false"]');
    const undone = await tap();
    await page.click('#undo li button:has-text("Deshacer")');
    await page.waitForSelector(`#voters li[data-voter="${undone}"]`);
    expect(await page.textContent('#notice')).toContain('vuelve a la lista');
    const second = await tap(undone);
    await page.waitForSelector('#undo', { state: 'hidden', timeout: 30_000 });
    await context.setOffline(false);
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
    const voted = await app.runtime.deps.db.rows(sql<{ voter_id: string }>`select voter_id from gotv_turnout_reports where reported_by_id = ${member.id} and voter_id is not null`);
    const votedIds = voted.map((row) => row.voter_id);
    expect(votedIds).toEqual(expect.arrayContaining([kept, second]));
    expect(votedIds).not.toContain(undone);
    expect(await memberReports()).toHaveLength(before.length + 2);
    expect(await page.locator(`#voters li[data-voter="${undone}"]`).count()).toBe(1);
  });

  it('lets the connection banner go when the network, or the server, comes back', async () => {
    // The network goes and the app is reopened: the list is the one kept on the phone, and it says so.
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#network[data-online="false"]');
    await page.waitForSelector('#notice:has-text("Sin conexión")');
    await context.setOffline(false);
    await page.waitForSelector('#network[data-online="true"]', { timeout: 30_000 });
    await page.waitForSelector('#notice', { state: 'hidden', timeout: 30_000 });
    expect(await page.textContent('#network')).toBe('En línea');

    // The phone's network stays up but the server cannot be reached: the same banner, gone when it answers again.
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    await page.route('**/healthz', (route) => route.abort('connectionrefused'));
    await page.click('[data-tab="stations"]');
    await page.fill(`#count-${campaign.stations[1]!.id}`, '140');
    await page.click(`[data-station="${campaign.stations[1]!.id}"] form.count button`);
    await page.waitForSelector('#network[data-online="false"]', { timeout: 30_000 });
    await page.unroute('**/api/**');
    await page.unroute('**/healthz');
    await page.waitForSelector('#network[data-online="true"]', { timeout: 30_000 });
    await page.click('[data-tab="outbox"]');
    await page.click('#send-now');
    await page.waitForSelector('#pending-count[data-value="0"]', { timeout: 30_000 });
  });

  it('makes the member choose an incident’s type and severity: none is chosen for them', async () => {
    const station = campaign.stations[0]!.id;
    await page.click('[data-tab="stations"]');
    expect(await page.inputValue(`#type-${station}`)).toBe('');
    expect(await page.inputValue(`#severity-${station}`)).toBe('');
    expect(await page.textContent(`label[for="type-${station}"]`)).toContain('obligatorio');
    const pending = await page.getAttribute('#pending-count', 'data-value');
    await page.fill(`#description-${station}`, 'Llegó la policía');
    await page.click(`[data-station="${station}"] form.incident button`);
    expect(await page.locator(`#type-${station}`).evaluate((element) => (element as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    expect(await page.getAttribute('#pending-count', 'data-value')).toBe(pending);
    expect(await page.inputValue(`#description-${station}`)).toBe('Llegó la policía');
    await page.fill(`#description-${station}`, '');
  });

  it('searches a list of 1,000 voters by name or cédula, accents and case aside, and by station, drawing 50 rows at a time', async () => {
    const big = await createCampaign(app, manager, 2, 500);
    const seeker = await createUser(app, admin, 'brigade', 'Brigadista Dos');
    const [first, second] = big.stations as [Campaign['stations'][number], Campaign['stations'][number]];
    const brigade = await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'Brigada Sur', memberIds: [seeker.id], stationIds: [first.id, second.id] })
      .expect(201);
    await app.http
      .post(`/api/gotv/brigades/${brigade.body.id}/voters`)
      .set(manager.auth)
      .send({ voterIds: [...big.voters.values()].flat() })
      .expect(200);
    // Two people whose names carry accents, one at each station.
    const jose = big.voters.get(first.id)![7]!;
    const josefa = big.voters.get(second.id)![300]!;
    await app.http.patch(`/api/gotv/voters/${jose}`).set(manager.auth).send({ name: 'José Pérez Núñez', documentId: '1017234567' }).expect(200);
    await app.http.patch(`/api/gotv/voters/${josefa}`).set(manager.auth).send({ name: 'Josefa Peréz Ángel' }).expect(200);

    const phone = await browser.newContext({ viewport: PHONE });
    try {
      const list = await phone.newPage();
      await list.goto(`${app.url}/brigada/`);
      await list.fill('#email', seeker.email);
      await list.fill('#password', seeker.password);
      await list.click('button[type=submit]');
      await list.waitForSelector('body[data-ready="true"]');
      await list.waitForSelector('#voters[data-total="1000"]');
      const rows = list.locator('#voters li[data-voter]');
      expect(await rows.count()).toBe(50);
      await list.click('#voters-more');
      await rows.nth(99).waitFor({ state: 'attached' });
      expect(await rows.count()).toBe(100);

      // As the member types: case and accents do not matter, every word anywhere in the name.
      await list.fill('#voter-search', 'PEREZ');
      await list.waitForSelector('#voters[data-total="2"]');
      expect(await list.locator('#voters-more').isHidden()).toBe(true);
      await list.fill('#voter-search', 'jose nunez');
      await list.waitForSelector('#voters[data-total="1"]');
      expect(await rows.first().getAttribute('data-voter')).toBe(jose);
      // A cédula, typed with or without its dots, or a part of it.
      await list.fill('#voter-search', '1.017.234');
      await list.waitForSelector('#voters[data-total="1"]');
      expect(await rows.first().getAttribute('data-voter')).toBe(jose);
      // The station narrows the search and the whole list.
      await list.fill('#voter-search', 'pérez');
      await list.selectOption('#voter-station', second.id);
      await list.waitForSelector('#voters[data-total="1"]');
      expect(await rows.first().getAttribute('data-voter')).toBe(josefa);
      await list.fill('#voter-search', 'nadie se llama así');
      await list.waitForSelector('#voters[data-total="0"]');
      expect(await list.textContent('#voters')).toContain('Nadie por votar coincide');
      await list.fill('#voter-search', '');
      await list.waitForSelector('#voters[data-total="500"]');
      expect(await rows.count()).toBe(50);
      expect(await axeBlocking(list)).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('has no serious or critical accessibility violation once signed in', async () => {
    await page.click('[data-tab="calls"]');
    expect(await axeBlocking(page)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'brigada.png'), fullPage: false });
  });
});
