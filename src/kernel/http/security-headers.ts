import type { ServerResponse } from 'node:http';

/**
 * Security headers, computed once rather than by helmet on every request (docs/benchmarks.md has
 * what that cost). Two sets, following OWASP's REST security guidance: JSON and other API answers get
 * the short API set, which forbids the answer from loading or framing anything; HTML pages (the
 * landing page, the poster sheet, the API reference, unsubscribe pages) get helmet's defaults with
 * the CSP tightened for pages that only load their own files.
 */
const everyAnswer: [string, string][] = [
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
];

const apiAnswer: [string, string][] = [...everyAnswer, ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"]];

/** The page CSP; `imageOrigins` adds where a page may load images from besides itself (a map's tile server). */
export function pageCsp(imageOrigins: readonly string[] = [], scriptHashes: readonly string[] = []): string {
  return (
    `default-src 'self'; script-src ${["'self'", ...scriptHashes].join(' ')}; style-src 'self' 'unsafe-inline'; img-src ${["'self'", 'data:', ...imageOrigins].join(' ')}; ` +
    "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"
  );
}

const pageOnly: [string, string][] = [
  ['Content-Security-Policy', pageCsp()],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

function set(response: ServerResponse, headers: [string, string][]): void {
  for (const [name, value] of headers) response.setHeader(name, value);
}

/** Pages whose CSP differs from the default one (the war room with a tile server), set by their route. */
const ownCsp = new WeakMap<ServerResponse, string>();

export function usePageCsp(response: ServerResponse, csp: string): void {
  ownCsp.set(response, csp);
}

/** Before the route runs, so every answer has them, even one a route writes itself. */
export function setApiHeaders(response: ServerResponse): void {
  set(response, apiAnswer);
}

/** After the route ran: an HTML page gets the page set (its CSP replaces the API one). */
export function setPageHeadersIfHtml(response: ServerResponse): void {
  if (response.headersSent) return;
  const type = response.getHeader('Content-Type');
  if (typeof type !== 'string' || !type.startsWith('text/html')) return;
  set(response, pageOnly);
  const csp = ownCsp.get(response);
  if (csp) response.setHeader('Content-Security-Policy', csp);
}
