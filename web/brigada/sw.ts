/**
 * The brigade app's service worker: the app opens with no network. The page is fetched from the
 * network first (a new version is picked up as soon as there is a connection) and from the cache
 * otherwise; hashed assets never change, so they are served from the cache once there. API calls
 * are not touched: the app's own outbox decides what to send and when.
 */

// A module (see the export at the end), so these declarations of the service-worker scope, only
// what this file uses, shadow the DOM lib's window types the rest of the app is checked with.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
declare const self: {
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
};

const CACHE = 'brigada-v1';
const PAGE = '/brigada/';
const SHELL = [PAGE, '/brigada/manifest.webmanifest', '/brigada/icon.svg'];

/** The page's own scripts and styles, read from its HTML (their names carry the build's hashes). */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
}

async function install(): Promise<void> {
  const cache = await caches.open(CACHE);
  await cache.addAll(SHELL);
  const page = await cache.match(PAGE);
  if (page) await cache.addAll(assetsOf(await page.text()));
  await self.skipWaiting();
}

/** Drops assets the current page no longer uses, so the cache does not grow with every release. */
async function activate(): Promise<void> {
  const cache = await caches.open(CACHE);
  const page = await cache.match(PAGE);
  if (page) {
    const used = new Set(assetsOf(await page.text()));
    for (const request of await cache.keys()) {
      const path = new URL(request.url).pathname;
      if (path.startsWith('/assets/') && !used.has(path)) await cache.delete(request);
    }
  }
  await self.clients.claim();
}

async function networkFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) {
      await cache.put(PAGE, response.clone());
      // A new release's assets, fetched while the network is here.
      await cache.addAll(assetsOf(await response.clone().text())).catch(() => undefined);
    }
    return response;
  } catch (error) {
    const cached = await cache.match(PAGE);
    if (cached) return cached;
    throw error;
  }
}

async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener('install', (event) => event.waitUntil(install()));
self.addEventListener('activate', (event) => event.waitUntil(activate()));
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (event.request.mode === 'navigate' && url.pathname === PAGE) event.respondWith(networkFirst(event.request));
  else if (url.pathname.startsWith('/assets/') || SHELL.includes(url.pathname)) event.respondWith(cacheFirst(event.request));
});

export {};
