import Koa from 'koa';
import Router from '@koa/router';
import { AppError } from '../errors';
import type { RouteDefinition } from './router';

/**
 * A route's literal start: its first two path segments, fewer when one of them is a parameter or
 * a pattern (`/api/gotv/turnout` → `/api/gotv`, `/q/:code` → `/q`, `/:slug` → ``). Lower-cased:
 * the router matches paths case-insensitively.
 */
function literalStart(path: string): string {
  const literal: string[] = [];
  for (const segment of path.split('/').slice(1, 3)) {
    if (!segment || /[:*?()[\]{}+]/.test(segment)) break;
    literal.push(segment.toLowerCase());
  }
  return literal.length ? `/${literal.join('/')}` : '';
}

/** The keys a request path may belong to, longest first: `/api/gotv/turnout` → `/api/gotv`, `/api`, ``. */
function requestStarts(path: string): string[] {
  const segments = path.toLowerCase().split('/').slice(1, 3);
  const starts: string[] = [];
  for (let n = segments.length; n > 0; n--) if (segments.slice(0, n).every(Boolean)) starts.push(`/${segments.slice(0, n).join('/')}`);
  return [...starts, ''];
}

/**
 * The routes' dispatcher: one @koa/router per literal start (`/api/gotv`, `/q`, …), each holding
 * the routes of its start and of every shorter start that also matches its paths, so that a
 * request tests a few dozen patterns instead of every route's (213, about a tenth of a voter
 * report's CPU). Within a router, literal paths come before parameters in their place
 * (`/api/territories/heatmap`, served by the dashboard, before territories' `/api/territories/:id`),
 * whichever module came first; the order is otherwise the modules'. A method the resource does not
 * take is a 405 problem with `Allow` (RFC 9110), a path nothing serves a 404.
 */
export function routeDispatcher(routes: readonly RouteDefinition[]): Koa.Middleware {
  const literalFirst = [...routes].sort((a, b) => Number(a.path.includes('/:')) - Number(b.path.includes('/:')));
  const starts = new Set(literalFirst.map((route) => literalStart(route.path)));
  const byStart = new Map<string, Koa.Middleware>();
  for (const start of starts) {
    // A route whose start is a prefix of this one (or empty) may match this start's paths too.
    const covers = (routeStart: string) => routeStart === '' || start === routeStart || start.startsWith(`${routeStart}/`);
    const router = new Router();
    for (const route of literalFirst) if (covers(literalStart(route.path))) router.register(route.path, [route.method.toUpperCase()], route.middleware);
    const matched = router.routes() as Koa.Middleware;
    const unmatched = methodNotAllowed(router.allowedMethods() as Koa.Middleware);
    byStart.set(start, (ctx, next) => matched(ctx, () => unmatched(ctx, next)));
  }
  return (ctx, next) => {
    for (const start of requestStarts(ctx.path)) {
      const dispatch = byStart.get(start);
      if (dispatch) return dispatch(ctx, next);
    }
    return next();
  };
}

/**
 * A method the resource does not take is a 405 problem with the `Allow` header (RFC 9110), whether
 * the router knows the method or not (TRACE, PROPFIND, QUERY…: its own 501 would render as a 500).
 */
function methodNotAllowed<State, Context>(allowedMethods: Koa.Middleware<State, Context>): Koa.Middleware<State, Context> {
  return async (ctx, next) => {
    await allowedMethods(ctx, next);
    if (ctx.status !== 405 && ctx.status !== 501) return;
    const allow = ctx.response.get('Allow');
    if (!allow) {
      // Nothing answers at this path in any method: it is not there.
      ctx.remove('Allow');
      ctx.status = 404;
      return;
    }
    throw new AppError(405, 'method_not_allowed', 'Method not allowed', `${ctx.method} is not allowed here; this resource takes ${allow}.`);
  };
}
