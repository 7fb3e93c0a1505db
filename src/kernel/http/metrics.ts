import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { NotFoundError, UnauthorizedError } from '../errors';
import type { Metrics } from '../metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `GET /metrics` in Prometheus's text format, for a scraper holding `METRICS_TOKEN` as a bearer
 * token. Without the setting the path does not exist (404), so a deployment exposes nothing it did
 * not ask for; it sits outside the API's OpenAPI document, being for operators, not clients.
 */
export function metricsEndpoint(metrics: Metrics, token: string | undefined) {
  const expected = token === undefined ? undefined : digest(token);
  return async function serveMetrics(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== '/metrics') return next();
    if (!expected || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) throw new NotFoundError();
    const match = /^Bearer (.+)$/.exec(ctx.get('Authorization'));
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedError('The metrics need the METRICS_TOKEN as a bearer token.');
    }
    const { contentType, body } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = body;
  };
}
