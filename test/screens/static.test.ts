/**
 * How Koa serves the screens' build (src/kernel/http/static-apps.ts): pages revalidated, hashed
 * assets cached a year, redirects to the page's folder, ETags, the page CSP, the tile server's
 * origin added to it only when MAP_TILE_URL is set, and nothing but GET/HEAD.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, testConfig, type TestApp } from '../helpers/app';
import { expectProblem } from '../helpers/users';
import { assertBuilt, WEB_BUILD } from './campaign';

let app: TestApp;
let withTiles: TestApp;
const TILES = 'https://tiles.example.org/osm/{z}/{x}/{y}.png';

beforeAll(async () => {
  assertBuilt();
  app = await startTestApp();
  withTiles = await startTestApp({ MAP_TILE_URL: TILES, MAP_TILE_ATTRIBUTION: '© Mapas "propios" <b>' });
});

afterAll(async () => {
  await app?.close();
  await withTiles?.close();
});

const anAsset = () => `/assets/${readdirSync(join(WEB_BUILD, 'assets')).find((name) => name.endsWith('.js'))}`;

describe('serving the screens', () => {
  it('serves the war room page, revalidated, with the page CSP (and blob: images only, for incident photos) and no tile meta by default', async () => {
    const page = await app.http.get('/war-room/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self';/);
    expect(page.headers['content-security-policy']).toContain("img-src 'self' data: blob:;");
    expect(page.headers['content-security-policy']).toContain("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';");
    expect(page.headers['x-frame-options']).toBe('DENY');
    // The brigade app and the console need no blob: images.
    expect((await app.http.get('/brigada/').expect(200)).headers['content-security-policy']).toContain("img-src 'self' data:;");
    const console = await app.http.get('/').set('Accept', 'text/html').expect(200);
    expect(console.headers['content-security-policy']).toContain("img-src 'self' data:;");
    expect(console.text).not.toContain('comando:map-tiles');
    expect(page.text).not.toContain('comando:map-tiles');
    expect(page.text).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js">/);
  });

  it("writes the brigade page's script and style into it, the script allowed by its hash alone", async () => {
    const page = await app.http.get('/brigada/').expect(200);
    expect(page.text).not.toMatch(/<script[^>]+src=/);
    expect(page.text).not.toMatch(/<link rel="stylesheet"/);
    const scripts = [...page.text.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    const scriptSrc = /script-src ([^;]+);/.exec(page.headers['content-security-policy'] as string)![1];
    expect(scriptSrc).toBe(`'self' 'sha256-${hash}'`);
    expect(page.text).toContain('<style>');
  });

  it('redirects the bare path to the page folder', async () => {
    const answer = await app.http.get('/war-room').expect(308);
    expect(answer.headers.location).toBe('/war-room/');
  });

  it('caches hashed assets for a year and answers 304 to a matching ETag', async () => {
    const asset = await app.http.get(anAsset()).set('Accept-Encoding', 'gzip').expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/^application\/javascript/);
    // Not the page CSP: a script answer keeps the API's.
    expect(asset.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    await app.http.get(anAsset()).set('Accept-Encoding', 'gzip').set('If-None-Match', asset.headers.etag!).expect(304);
    const head = await app.http.head(anAsset()).set('Accept-Encoding', 'gzip').expect(200);
    expect(head.headers.etag).toBe(asset.headers.etag);
  });

  it('sends scripts compressed at build time in the encoding the browser takes, each with its own ETag', async () => {
    const raw = await app.http.get(anAsset()).set('Accept-Encoding', 'identity').expect(200);
    expect(raw.headers['content-encoding']).toBeUndefined();
    const br = await app.http.get(anAsset()).set('Accept-Encoding', 'gzip, br').expect(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    const gzip = await app.http.get(anAsset()).set('Accept-Encoding', 'gzip').expect(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    // Both decompress to the very file.
    expect(br.text).toBe(gzip.text);
    expect(br.text).toBe(raw.text);
    expect(new Set([br.headers.etag, gzip.headers.etag]).size).toBe(2);
    await app.http.get(anAsset()).set('Accept-Encoding', 'gzip').set('If-None-Match', gzip.headers.etag!).expect(304);
    await app.http.get(anAsset()).set('Accept-Encoding', 'br').set('If-None-Match', gzip.headers.etag!).expect(200);
  });

  it('answers 404 for unknown files and a 405/404 problem for other methods', async () => {
    await app.http.get('/assets/nothing-here.js').expect(404);
    const post = await app.http.post('/war-room/').send({});
    expect([404, 405]).toContain(post.status);
  });

  it('adds the tile server to the war room and the console only when MAP_TILE_URL is set, escaped', async () => {
    const page = await withTiles.http.get('/war-room/').expect(200);
    expect(page.headers['content-security-policy']).toContain("img-src 'self' data: blob: https://tiles.example.org;");
    expect(page.text).toContain(`<meta name="comando:map-tiles" content="${TILES}" />`);
    expect(page.text).toContain('content="© Mapas &quot;propios&quot; &lt;b&gt;"');
    // The console maps brigades' stations over the same tiles.
    const console = await withTiles.http.get('/').set('Accept', 'text/html').expect(200);
    expect(console.headers['content-security-policy']).toContain("img-src 'self' data: https://tiles.example.org;");
    expect(console.text).toContain(`<meta name="comando:map-tiles" content="${TILES}" />`);
    // Other pages keep the default CSP.
    const docs = await withTiles.http.get('/api/docs').expect(200);
    expect(docs.headers['content-security-policy']).not.toContain('tiles.example.org');
  });

  it('refuses a MAP_TILE_URL without its placeholders at start-up', () => {
    expect(() => testConfig({ MAP_TILE_URL: 'https://tiles.example.org/map.png' })).toThrow(/MAP_TILE_URL/);
    expect(() => testConfig({ MAP_TILE_URL: 'ftp://tiles.example.org/{z}/{x}/{y}.png' })).toThrow(/MAP_TILE_URL/);
  });

  it('the API still answers problems under /api', async () => {
    expectProblem(await app.http.get('/api/nothing'), 404);
  });
});
