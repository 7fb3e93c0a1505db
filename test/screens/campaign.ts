import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import type { TestUser } from '../helpers/users';

export const CHROMIUM = '/usr/bin/chromium';
export const WEB_BUILD = join(__dirname, '..', '..', 'dist', 'web');

/** The screens are tested as built (`npm run build`, which CI runs before the tests). */
export function assertBuilt(): void {
  if (!existsSync(join(WEB_BUILD, 'war-room', 'index.html'))) throw new Error('The screens are not built: run `npm run build:web` (CI builds before testing).');
  if (!existsSync(CHROMIUM)) throw new Error(`Browser tests need Debian's Chromium at ${CHROMIUM}: run \`apt-get install chromium\` (.ci/run does it in CI).`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Today in the campaign's time zone: the election day the tests play. */
export function today(timeZone = 'America/Bogota'): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

export interface Campaign {
  territoryId: string;
  stations: { id: string; code: string; name: string }[];
  /** Voter ids by station id, in import order. */
  voters: Map<string, string[]>;
}

/** A square around a point, as a GeoJSON polygon ([lng, lat]). */
function square(lat: number, lng: number, half: number) {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [lng - half, lat - half],
        [lng + half, lat - half],
        [lng + half, lat + half],
        [lng - half, lat + half],
        [lng - half, lat - half],
      ],
    ],
  };
}

/**
 * A small election day through the public API: one comuna with its outline, `stationCount`
 * stations inside it, `votersPerStation` confirmed voters at each, and the election date set to today.
 */
export async function createCampaign(app: TestApp, manager: TestUser, stationCount: number, votersPerStation: number): Promise<Campaign> {
  const suffix = randomUUID().slice(0, 6);
  const territory = await app.http
    .post('/api/territories')
    .set(manager.auth)
    .send({ name: `Comuna Centro ${suffix}`, type: 'commune', geometry: square(4.65, -74.08, 0.05) })
    .expect(201);
  const stations: Campaign['stations'] = [];
  for (let i = 0; i < stationCount; i++) {
    const code = `P${suffix}-${i}`;
    const answer = await app.http
      .post('/api/gotv/polling-stations')
      .set(manager.auth)
      .send({
        code,
        name: `Puesto ${i + 1}`,
        territoryId: territory.body.id,
        lat: 4.61 + (i % 20) * 0.004,
        lng: -74.12 + Math.floor(i / 20) * 0.005,
        tables: 10,
        registeredVoters: 2000,
        status: 'open',
      })
      .expect(201);
    stations.push({ id: answer.body.id, code, name: answer.body.name });
  }
  const rows = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  let document = 10_000_000 + Math.floor(Math.random() * 80_000_000);
  for (const station of stations) for (let v = 0; v < votersPerStation; v++) rows.push(`Votante ${station.code} ${v},${document++},,${station.code},1,normal`);
  if (votersPerStation) {
    await app.http.post('/api/gotv/voters/import').set(manager.auth).set('Content-Type', 'text/csv').send(rows.join('\n')).expect(200);
  }
  const voters = new Map<string, string[]>(stations.map((station) => [station.id, []]));
  for (const station of stations) {
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await app.http
        .get(`/api/gotv/voters?pollingStationId=${station.id}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        .set(manager.auth)
        .expect(200);
      voters.get(station.id)!.push(...page.body.data.map((voter) => voter.id));
      cursor = page.body.nextCursor;
    } while (cursor);
  }
  await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: today() }).expect(200);
  return { territoryId: territory.body.id, stations, voters };
}

/** axe-core's source, run in the page through the DevTools protocol (the page's CSP forbids injected scripts, rightly). */
export const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The serious and critical axe-core findings on the page as it is now (axe runs through the DevTools protocol, so the page's CSP stays on). */
export async function axeBlocking(target: import('playwright-core').Page): Promise<AxeViolation[]> {
  await target.evaluate(AXE_SOURCE);
  const violations = (await target.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
  )) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
