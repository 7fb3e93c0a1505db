/**
 * How busy the war room keeps the browser's main thread on a full election day: 300 stations,
 * 30,000 confirmed voters, then reports at 200 a second. Chromium's own accounting (DevTools
 * protocol `Performance.getMetrics`, TaskDuration: seconds the main thread spent in tasks) over a
 * wall-clock window gives the busy share. A measurement, not a test: `npm run measure:screens`
 * prints it (docs/screens.md keeps the figures). Needs the test database template (`npm test` makes it).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { startTestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, createCampaign, launchChromium } from './campaign';
import type { TestApp } from '../helpers/app';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const STATIONS = 300;
const VOTERS_PER_STATION = 100;
const RATE = 200;
const SECONDS = 10;

async function taskSeconds(cdp: CDPSession): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return metrics.find((metric) => metric.name === 'TaskDuration')!.value;
}

/** Main-thread busy share while `work` runs (or for `ms` of quiet). */
async function busyShare(cdp: CDPSession, work: () => Promise<void>): Promise<{ busyPct: number; seconds: number }> {
  const startTask = await taskSeconds(cdp);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  return { busyPct: Math.round((((await taskSeconds(cdp)) - startTask) / seconds) * 1000) / 10, seconds: Math.round(seconds * 10) / 10 };
}

/** RATE reports a second for SECONDS, in batches every 100 ms, as phones' queues would send them. */
async function burst(app: TestApp, manager: TestUser, voters: string[][], offset: number): Promise<{ sent: number; answered: Promise<unknown> }> {
  let sent = 0;
  const perTick = RATE / 10;
  const ticks = SECONDS * 10;
  const started = performance.now();
  const requests: Promise<unknown>[] = [];
  for (let tick = 0; tick < ticks; tick++) {
    const reports = Array.from({ length: perTick }, (_, i) => {
      const n = offset + tick * perTick + i;
      const station = voters[n % voters.length]!;
      return { kind: 'voter', clientReportId: randomUUID(), voterId: station[Math.floor(n / voters.length) % station.length]! };
    });
    sent += reports.length;
    requests.push(
      app.http
        .post('/api/gotv/turnout')
        .set(manager.auth)
        .send({ reports })
        .then((answer) => answer.status),
    );
    const wait = started + (tick + 1) * 100 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { sent, answered: Promise.all(requests) };
}

/**
 * The brigade app's sign-in form usable (visible, its script running) under DevTools' "Slow 3G"
 * preset (2 s round trips, 50 kB/s each way) with the CPU slowed 4×: a first visit, and a visit
 * once the service worker has the app.
 */
async function brigadaOnSlow3g(browser: Browser, url: string): Promise<{ firstVisitMs: number; cachedVisitMs: number }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const visit = async () => {
      const started = performance.now();
      await page.goto(`${url}/brigada/`, { waitUntil: 'commit' });
      await page.waitForSelector('#login-form', { state: 'visible', timeout: 60_000 });
      return Math.round(performance.now() - started);
    };
    const firstVisitMs = await visit();
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    const cachedVisitMs = await visit();
    return { firstVisitMs, cachedVisitMs };
  } finally {
    await context.close();
  }
}

/**
 * The brigade app's call list of 1,000 voters (10 stations of 100) with the CPU slowed 4× (a cheap
 * phone): the list drawn after signing in, then each keystroke of a name search until the list
 * shows its matches, and a station chosen; the medians of five keystrokes.
 */
async function brigadaSearch(browser: Browser, app: TestApp, admin: TestUser, manager: TestUser, stationIds: string[]): Promise<Record<string, number>> {
  const member = await createUser(app, admin, 'brigade', 'Brigadista Medida');
  const brigade = await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: `Medida ${randomUUID().slice(0, 6)}`, memberIds: [member.id], stationIds })
    .expect(201);
  const voterIds: string[] = [];
  for (const stationId of stationIds) {
    const page = await app.http.get(`/api/gotv/voters?pollingStationId=${stationId}&limit=200`).set(manager.auth).expect(200);
    voterIds.push(...(page.body as { data: { id: string }[] }).data.map((voter) => voter.id));
  }
  await app.http.post(`/api/gotv/brigades/${brigade.body.id}/voters`).set(manager.auth).send({ voterIds }).expect(200);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(`${app.url}/brigada/`);
    await page.fill('#email', member.email);
    await page.fill('#password', member.password);
    const signedIn = performance.now();
    await page.click('button[type=submit]');
    // Voters the bursts above reported as voted are not in the list: it holds the rest.
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    const listDrawnMs = Math.round(performance.now() - signedIn);
    const listed = Number(await page.getAttribute('#voters', 'data-total'));
    const rows = await page.locator('#voters li[data-voter]').count();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const keystrokes: number[] = [];
    const input = page.locator('#voter-search');
    // "Votante P…-3 4": every voter's name starts "Votante", so the last keystrokes narrow 1,000 to a few.
    for (const text of ['v', 'vo', 'vot', '3 4', '3 47']) {
      // The list is redrawn inside the input event's handler: the fill returns once it is drawn.
      const started = performance.now();
      await input.fill(text);
      keystrokes.push(Math.round(performance.now() - started));
    }
    await input.fill('');
    const started = performance.now();
    await page.selectOption('#voter-station', stationIds[3]!);
    const stationMs = Math.round(performance.now() - started);
    return {
      voters: voterIds.length,
      listed,
      rowsDrawn: rows,
      listDrawnAfterSignInMs: listDrawnMs,
      keystrokeMedianMs: median(keystrokes),
      keystrokeMaxMs: Math.max(...keystrokes),
      stationFilterMs: stationMs,
    };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  assertBuilt();
  const app = await startTestApp();
  const browser = await launchChromium();
  try {
    const admin = await registerAdmin(app);
    const manager = await createUser(app, admin, 'manager');
    const campaign = await createCampaign(app, manager, STATIONS, VOTERS_PER_STATION);
    const voters = [...campaign.voters.values()];
    const page: Page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await page.goto(`${app.url}/war-room/`);
    await page.fill('#email', manager.email);
    await page.fill('#password', manager.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('body[data-loads="1"]');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const idle = await busyShare(cdp, () => new Promise((resolve) => setTimeout(resolve, 5000)));
    // The busy share is taken over the sending window; then the time until the last report is on screen.
    const onScreen = async (value: number) => {
      const started = performance.now();
      await page.waitForSelector(`#c-voted[data-value="${value}"]`, { timeout: 60_000 });
      return Math.round(performance.now() - started);
    };
    let sent = 0;
    let answered: Promise<unknown> = Promise.resolve();
    const loaded = await busyShare(cdp, async () => {
      ({ sent, answered } = await burst(app, manager, voters, 0));
    });
    await answered;
    const lastOnScreenMs = await onScreen(sent);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'war-room-300.png') });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    let sentSlow = 0;
    const slow = await busyShare(cdp, async () => {
      ({ sent: sentSlow, answered } = await burst(app, manager, voters, sent));
    });
    await answered;
    const lastOnScreenSlowMs = await onScreen(sent + sentSlow);
    const brigada = await brigadaOnSlow3g(browser, app.url);
    const search = await brigadaSearch(
      browser,
      app,
      admin,
      manager,
      campaign.stations.slice(0, 10).map((station) => station.id),
    );
    const result = {
      brigadaSlow3g4xCpu: brigada,
      brigadaSearch4xCpu: search,
      stations: STATIONS,
      confirmedVoters: STATIONS * VOTERS_PER_STATION,
      rate: RATE,
      idle,
      burst: { reports: sent, ...loaded, lastOnScreenAfterAnswersMs: lastOnScreenMs },
      burstAt4xCpuSlowdown: { reports: sentSlow, ...slow, lastOnScreenAfterAnswersMs: lastOnScreenSlowMs },
      chromium: browser.version(),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await browser.close();
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
