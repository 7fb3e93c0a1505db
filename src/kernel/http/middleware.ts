import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

const acceptableRequestId = /^[A-Za-z0-9._-]{8,64}$/;

/** Reuses a caller's X-Request-Id when it looks like one, so traces join up across services. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const incoming = ctx.get('X-Request-Id');
  ctx.state.requestId = acceptableRequestId.test(incoming) ? incoming : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
}

/**
 * One line per request. The route pattern is logged rather than the URL, and never the query
 * string or body, so searches by name or phone do not end up in the logs.
 */
export function accessLog(logger: Logger) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = ctx.status >= 500 ? 'error' : 'info';
      logger[level]({
        requestId: ctx.state.requestId,
        method: ctx.method,
        route: (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? (ctx.path.startsWith('/api/') ? 'unmatched' : ctx.path.split('/')[1] || '/'),
        status: ctx.status,
        ms: Math.round(ms * 10) / 10,
        userId: ctx.state.actor?.id,
      });
    }
  };
}
