import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';
import { setApiHeaders, setPageHeadersIfHtml } from './security-headers';

const acceptableRequestId = /^[A-Za-z0-9._-]{8,64}$/;

function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
  if (matched) return matched;
  // A path nothing answered is one label, whatever a scanner tries: the series stay few.
  return ctx.path.startsWith('/api/') || ctx.status === 404 ? 'unmatched' : `/${ctx.path.split('/')[1] ?? ''}`;
}

/**
 * The outermost layer, one function on purpose (every layer costs on every request):
 * - request id: a caller's X-Request-Id is reused when it looks like one, so traces join up;
 * - security headers: the API set before anything can fail, the page set on HTML answers;
 * - one access-log line per request, with the route pattern rather than the URL and never the
 *   query string or body, so searches by name or phone do not end up in the logs;
 * - the request's time in the metrics, by method, route pattern and status.
 */
export function requestFrame(logger: Logger, metrics: Metrics) {
  return async function frame(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const incoming = ctx.get('X-Request-Id');
    const requestId = acceptableRequestId.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.res.setHeader('X-Request-Id', requestId);
    setApiHeaders(ctx.res);
    try {
      await next();
    } finally {
      setPageHeadersIfHtml(ctx.res);
      const ms = performance.now() - started;
      const route = routeOf(ctx);
      metrics.httpRequests.labels(ctx.method, route, String(ctx.status)).observe(ms / 1000);
      logger[ctx.status >= 500 ? 'error' : 'info']({
        requestId,
        method: ctx.method,
        route,
        status: ctx.status,
        ms: Math.round(ms * 10) / 10,
        userId: ctx.state.actor?.id,
      });
    }
  };
}
