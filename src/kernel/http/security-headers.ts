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

const pageOnly: [string, string][] = [
  [
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
  ],
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

/** Before the route runs, so every answer has them, even one a route writes itself. */
export function setApiHeaders(response: ServerResponse): void {
  set(response, apiAnswer);
}

/** After the route ran: an HTML page gets the page set (its CSP replaces the API one). */
export function setPageHeadersIfHtml(response: ServerResponse): void {
  if (response.headersSent) return;
  const type = response.getHeader('Content-Type');
  if (typeof type === 'string' && type.startsWith('text/html')) set(response, pageOnly);
}
