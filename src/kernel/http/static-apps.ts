import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import type { Context, Next } from 'koa';
import { AppError } from '../errors';
import { escapeHtml } from '../../../landing/templates';
import { pageCsp, usePageCsp } from './security-headers';

/** The election-day screens built by `npm run build` (web/, Vite): each is a page at /<name>/. */
export const SCREENS = ['war-room', 'brigada'] as const;

/** The staff console's page (web/console): served at `/` and at every path of its own (`/personas/…`). */
const CONSOLE_PAGE = 'console/index.html';

/** Paths the console never owns: the API, sockets, and anything that names a file. */
const NOT_CONSOLE = /^\/(api|socket\.io|assets|healthz|readyz)(\/|$)|\.[a-z0-9]+$/i;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

/** Hashed names never change content: a year, immutable. Pages and the service worker: always revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

interface StaticFile {
  body: Buffer;
  /** The same bytes compressed at build time (web/vite.config.mjs), when the build wrote them. */
  encoded?: { br?: Buffer; gzip?: Buffer };
  type: string;
  cacheControl: string;
  etag: string;
  csp?: string;
}

export interface StaticAppsOptions {
  /** The build's folder (dist/web); found from the repository root when not given. */
  dir?: string;
  mapTiles?: { url: string; attribution: string } | undefined;
}

/** dist/web of the repository this file belongs to, from src/ (tsx, jest) or dist/src/ (npm start). */
function defaultDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`static-apps: no package.json above ${__dirname}`);
    dir = parent;
  }
  return join(dir, 'dist', 'web');
}

function filesUnder(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root)) {
    const path = join(root, entry);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path));
    else found.push(path);
  }
  return found;
}

/** The tile server's origin, for the page's CSP (`{z}`-style placeholders stand in for numbers). */
function tileOrigin(url: string): string {
  return new URL(url.replace(/\{[a-z]+\}/g, '0')).origin;
}

/** The war room learns its tile server from meta tags: configuration without an inline script. */
function withTileMeta(html: string, tiles: { url: string; attribution: string }): string {
  const meta = `<meta name="comando:map-tiles" content="${escapeHtml(tiles.url)}" />\n    <meta name="comando:map-attribution" content="${escapeHtml(tiles.attribution)}" />\n  </head>`;
  return html.replace('</head>', meta);
}

/**
 * The brigade page with its script and stylesheet written into it: on a phone with 2-second round
 * trips the page, then its script, cost two of them before the form works. The inline script is
 * allowed by its hash in the page's CSP, so no inline script of anyone else's could run.
 */
function withAssetsInlined(dir: string, html: string): { html: string; scriptHashes: string[] } {
  const scriptHashes: string[] = [];
  const inlined = html
    .replace(/<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/g, (tag: string, src: string) => {
      const code = readFileSync(join(dir, src)).toString('utf8');
      if (code.includes('</script')) return tag;
      scriptHashes.push(`'sha256-${createHash('sha256').update(code).digest('base64')}'`);
      return `<script type="module">${code}</script>`;
    })
    .replace(/<link rel="stylesheet" crossorigin href="(\/assets\/[^"]+\.css)">/g, (tag: string, href: string) => {
      const css = readFileSync(join(dir, href)).toString('utf8');
      return css.includes('</style') ? tag : `<style>${css}</style>`;
    });
  return { html: inlined, scriptHashes };
}

function load(dir: string, options: StaticAppsOptions): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const path of filesUnder(dir)) {
    const name = relative(dir, path).split(sep).join('/');
    const type = TYPES[extname(name)];
    if (!type) continue;
    let body = readFileSync(path);
    let csp: string | undefined;
    const screen = SCREENS.find((candidate) => name === `${candidate}/index.html`);
    if (screen === 'brigada') {
      const page = withAssetsInlined(dir, body.toString('utf8'));
      body = Buffer.from(page.html);
      csp = pageCsp([], page.scriptHashes);
    }
    if (name === CONSOLE_PAGE && options.mapTiles) {
      // The brigades screen maps their stations over the war room's tiles.
      body = Buffer.from(withTileMeta(body.toString('utf8'), options.mapTiles));
      csp = pageCsp([tileOrigin(options.mapTiles.url)]);
    }
    if (screen === 'war-room') {
      // An incident's photo is fetched with the session's token and shown from an object URL (`blob:`): no token in an image URL.
      const images = ['blob:'];
      if (options.mapTiles) {
        body = Buffer.from(withTileMeta(body.toString('utf8'), options.mapTiles));
        images.push(tileOrigin(options.mapTiles.url));
      }
      csp = pageCsp(images);
    }
    // A service worker runs under its own script's CSP: the API's `default-src 'none'` would stop it fetching the app.
    if (name.endsWith('/sw.js')) csp = "default-src 'self'";
    const encoded = {
      ...(existsSync(`${path}.br`) ? { br: readFileSync(`${path}.br`) } : {}),
      ...(existsSync(`${path}.gz`) ? { gzip: readFileSync(`${path}.gz`) } : {}),
    };
    const file: StaticFile = {
      body,
      ...(Object.keys(encoded).length ? { encoded } : {}),
      type,
      cacheControl: name.startsWith('assets/') ? IMMUTABLE : REVALIDATE,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      ...(csp ? { csp } : {}),
    };
    const url = screen ? `/${screen}/` : name === CONSOLE_PAGE ? '/' : `/${name}`;
    files.set(url, file);
  }
  return files;
}

/**
 * Serves the screens' build: the console at `/` (and its own paths), `/war-room/`, `/brigada/` (index.html, never cached), their hashed
 * scripts and styles under `/assets/` (cached a year), and the brigade app's manifest, icons and
 * service worker. Files are read once, at start-up. Without a build, the screens' paths answer 503
 * saying how to build them; everything else passes through.
 */
export function staticApps(options: StaticAppsOptions = {}) {
  const dir = options.dir ?? defaultDir();
  const files = existsSync(dir) ? load(dir, options) : undefined;
  const prefixes = [...SCREENS.map((screen) => `/${screen}`), '/assets/'];
  const serve = (ctx: Context, file: StaticFile): void => {
    ctx.set('Cache-Control', file.cacheControl);
    ctx.type = file.type;
    if (file.csp) {
      if (file.type.startsWith('text/html')) usePageCsp(ctx.res, file.csp);
      else ctx.set('Content-Security-Policy', file.csp);
    }
    // Compressed at build time, each encoding its own ETag: the browser takes the smallest it accepts.
    const takes = (name: 'br' | 'gzip') => file.encoded?.[name] !== undefined && ctx.acceptsEncodings(name, 'identity') === name;
    const encoding = takes('br') ? 'br' : takes('gzip') ? 'gzip' : undefined;
    const encoded = encoding ? file.encoded?.[encoding] : undefined;
    if (file.encoded) ctx.vary('Accept-Encoding');
    ctx.etag = encoded ? `${file.etag.slice(0, -1)}-${encoding}"` : file.etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (encoded && encoding) {
      // Already compressed: koa-compress must not touch it again.
      ctx.compress = false;
      ctx.set('Content-Encoding', encoding);
      ctx.body = encoded;
      return;
    }
    ctx.body = file.body;
  };
  return async function serveScreens(ctx: Context, next: Next): Promise<void> {
    const readable = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (readable && ctx.path === '/') {
      const page = files?.get('/');
      if (!page) throw new AppError(503, 'screens_not_built', 'Screens not built', 'The console is not built: run `npm run build`.');
      return serve(ctx, page);
    }
    if (!readable || !prefixes.some((prefix) => ctx.path.startsWith(prefix))) {
      await next();
      // A console path (`/personas/…`, opened from a bookmark or reloaded) that nothing else serves: the console's page, whose router shows it.
      const page = files?.get('/');
      if (page && readable && ctx.status === 404 && ctx.body === undefined && !NOT_CONSOLE.test(ctx.path) && /text\/html/.test(ctx.get('Accept'))) serve(ctx, page);
      return;
    }
    if (!files) throw new AppError(503, 'screens_not_built', 'Screens not built', 'The election-day screens are not built: run `npm run build`.');
    const screen = SCREENS.find((candidate) => ctx.path === `/${candidate}`);
    if (screen) {
      // The page lives at /<screen>/ so that relative paths and the service worker's scope agree.
      ctx.status = 308;
      ctx.redirect(`/${screen}/`);
      return;
    }
    const file = files.get(ctx.path);
    if (!file) return next();
    serve(ctx, file);
  };
}
