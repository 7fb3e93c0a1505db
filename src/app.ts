import { constants as zlibConstants } from 'node:zlib';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import cors from '@koa/cors';
import compress from 'koa-compress';
import type { AppDeps } from './kernel/context';
import { problemMiddleware } from './kernel/http/problem';
import { routeDispatcher } from './kernel/http/dispatch';
import { requestFrame } from './kernel/http/middleware';
import type { ApiRouter, RouteDefinition } from './kernel/http/router';
import { metricsEndpoint } from './kernel/http/metrics';
import { staticApps } from './kernel/http/static-apps';
import { systemRouter } from './kernel/http/system.routes';
import type { ModuleManifest } from './kernel/module';

/** Text formats worth compressing; images and PDFs are compressed already. */
const COMPRESSIBLE = /^(text\/|application\/(json|problem\+json|javascript|geo\+json)|image\/svg\+xml)/;

/**
 * A JSON answer becomes its text here, once. Left as an object, it is serialised twice: by the
 * compression layer, to compare its length with the threshold, and again by Koa to send it (or to
 * compress it). Plain objects and arrays only; anything else is left to Koa. The content type the
 * route chose (problem+json, geo+json) stays, and the length is set from the text.
 */
function serializeJsonOnce(ctx: Koa.Context): void {
  const body: unknown = ctx.body;
  if (body === null || typeof body !== 'object') return;
  const prototype: unknown = Object.getPrototypeOf(body);
  if (prototype !== Object.prototype && !Array.isArray(body)) return;
  ctx.body = JSON.stringify(body);
}

export interface CreatedApp {
  app: Koa;
  routes: RouteDefinition[];
}

/**
 * The Koa app without listen(), so tests mount it as it is. Middleware order:
 * request frame (id, security headers, access log) → compression → JSON text (once) → CORS → errors → screens → body → routes.
 */
export function createApp(deps: AppDeps, modules: ModuleManifest[]): CreatedApp {
  const { config } = deps;
  const app = new Koa();
  app.proxy = config.trustProxy;
  app.context.deps = deps;
  // Errors are answered by problemMiddleware; Koa's own handler only sees what escapes it.
  app.silent = true;

  const routers: ApiRouter[] = modules.flatMap((module) => module.routers ?? []);
  const routes: RouteDefinition[] = [];
  routers.unshift(systemRouter(() => routes));
  for (const apiRouter of routers) routes.push(...apiRouter.routes);

  const allowedOrigins = new Set(config.corsOrigins);
  app.use(requestFrame(deps.logger, deps.metrics));
  // Text answers above 2 KB go out compressed (the API reference is 2 MB of script). Answers that carry a
  // token (sign-in) are left alone: a secret beside reflected input in a compressed body is what BREACH reads.
  app.use(
    compress({
      threshold: 2048,
      filter: (type) => COMPRESSIBLE.test(type),
      br: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    }),
  );
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/api/auth/')) ctx.compress = false;
    await next();
    serializeJsonOnce(ctx);
  });
  const corsMiddleware = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowedOrigins.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: ['Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
  // Same-origin and non-browser callers send no Origin: nothing for CORS to do.
  app.use((ctx, next) => (ctx.get('Origin') ? corsMiddleware(ctx, next) : next()));
  app.use(problemMiddleware(deps.logger));
  app.use(metricsEndpoint(deps.metrics, config.metricsToken));
  // The election-day screens (web/, built into dist/web): static files, before any body parsing.
  app.use(staticApps({ mapTiles: config.mapTiles }));
  const bodyOptions = {
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: config.bodyLimit,
    formLimit: config.bodyLimit,
    textLimit: config.bodyLimit,
    jsonStrict: true,
    includeUnparsed: false,
  };
  const parseBody = koaBody(bodyOptions);
  // Routes whose signature covers the exact bytes (webhooks) also keep them as ctx.request.rawBody.
  const parseKeepingRaw = koaBody({ ...bodyOptions, includeUnparsed: true });
  const rawBodyPaths = new Set(routes.filter((route) => route.spec.rawBody).map((route) => route.path));
  // Import routes take larger bodies than the rest; each gets a parser with its own limit.
  const largeBodyParsers = new Map(
    routes
      .filter((route) => route.spec.bodyLimit)
      .map((route) => [route.path, koaBody({ ...bodyOptions, jsonLimit: route.spec.bodyLimit, formLimit: route.spec.bodyLimit, textLimit: route.spec.bodyLimit })]),
  );
  // GET, HEAD and OPTIONS carry no body: skip the parser's work for them.
  app.use((ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    if (rawBodyPaths.has(ctx.path)) return parseKeepingRaw(ctx, next);
    return (largeBodyParsers.get(ctx.path) ?? parseBody)(ctx, next);
  });
  app.use(routeDispatcher(routes));
  return { app, routes };
}
