import { z } from 'zod';
import { ApiRouter } from './router';
import { buildOpenApiDocument, docsInitScript, docsPage, readDocsAsset } from '../openapi';
import type { AppDeps } from '../context';
import { NotFoundError } from '../errors';
import { sql } from '../sql';

const statusView = z.object({ status: z.literal('ok'), service: z.literal('comando'), version: z.literal('1.0') });
const readinessView = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.enum(['ok', 'failed', 'not_configured'])),
});

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(run: () => Promise<unknown>): Promise<'ok' | 'failed'> {
  try {
    await withTimeout(run(), 1500);
    return 'ok';
  } catch {
    return 'failed';
  }
}

export async function readiness(deps: Pick<AppDeps, 'db' | 'redis'>) {
  const database = await check(() => deps.db.first(sql`select 1`));
  const redis: 'ok' | 'failed' | 'not_configured' = deps.redis ? await check(() => deps.redis!.ping()) : 'not_configured';
  const ready = database === 'ok' && redis !== 'failed';
  return { status: ready ? ('ready' as const) : ('not_ready' as const), checks: { database, redis } };
}

/** Diagnostics and API documentation; `allRoutes` lets the OpenAPI document list every route. */
export function systemRouter(allRoutes: () => ApiRouter['routes']): ApiRouter {
  let document: object | undefined;
  return new ApiRouter('system', 'Health, readiness and this reference')
    .get('/api/test', { summary: 'Check that the API works', access: 'public', response: statusView }, async () => ({
      status: 'ok' as const,
      service: 'comando' as const,
      version: '1.0' as const,
    }))
    .get('/healthz', { summary: 'Liveness: the process is up', access: 'public', response: z.object({ status: z.literal('ok') }) }, async () => ({
      status: 'ok' as const,
    }))
    .get(
      '/readyz',
      {
        summary: 'Readiness: the database and (when configured) Redis answer',
        access: 'public',
        response: readinessView,
        errors: { 503: 'Not ready' },
      },
      async ({ ctx }) => {
        const result = await readiness(ctx.deps);
        if (result.status !== 'ready') ctx.status = 503;
        return result;
      },
    )
    .get('/api/openapi.json', { summary: 'This API as an OpenAPI 3.1 document', access: 'public', produces: { 'application/json': 'OpenAPI 3.1' } }, async () => {
      const routes = allRoutes();
      document ??= buildOpenApiDocument(routes, [...new Map(routes.map((route) => [route.tag, { name: route.tag, description: route.tagDescription }])).values()]);
      return document;
    })
    .get('/api/docs', { summary: 'Readable API reference', access: 'public', produces: { 'text/html': 'Reference page' } }, async ({ ctx }) => {
      ctx.type = 'html';
      ctx.body = docsPage();
      return undefined;
    })
    .get('/api/docs/init.js', { summary: 'Reference page script', access: 'public', produces: { 'text/javascript': 'Script' } }, async ({ ctx }) => {
      ctx.type = 'application/javascript';
      ctx.body = docsInitScript;
      return undefined;
    })
    .get(
      '/api/docs/assets/:file',
      {
        summary: 'Reference page assets (served locally, no CDN)',
        access: 'public',
        params: z.object({ file: z.string().max(64) }),
        produces: { 'text/css': 'Stylesheet', 'application/javascript': 'Script' },
        errors: { 404: 'No such asset' },
      },
      async ({ ctx, input }) => {
        const asset = readDocsAsset(input.params.file);
        if (!asset) throw new NotFoundError('No such asset.');
        ctx.type = input.params.file.split('.').pop()!;
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = asset;
        return undefined;
      },
    );
}
