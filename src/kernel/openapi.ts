import fs from 'node:fs';
import path from 'node:path';
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodObject } from 'zod';
import { z } from 'zod';
import { PROBLEM_CONTENT_TYPE } from './http/problem';
import { bodyMediaTypes, type BodyType, type RouteDefinition } from './http/router';

const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

const problem = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } },
});

const htmlPage = { schema: { type: 'string' as const } };

/** How a route's errors come back: problems, HTML pages for pages, both for routes that take form posts. */
function errorAnswer(route: RouteDefinition, description: string) {
  const { spec } = route;
  const producesOnlyHtml = spec.produces !== undefined && !spec.response && Object.keys(spec.produces).every((type) => type === 'text/html');
  const takesForms = (spec.bodyTypes?.includes('form') ?? false) || spec.errorPages === true;
  if (producesOnlyHtml && !takesForms) return { description, content: { 'text/html': htmlPage } };
  if (takesForms) return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema }, 'text/html': htmlPage } };
  return problem(description);
}

/** Text answers are strings; images, PDFs and workbooks are bytes; a JSON document is an object. */
function fileSchema(type: string) {
  if (type === 'application/json') return { type: 'object' as const };
  if (type.startsWith('text/') || type.endsWith('javascript') || type.endsWith('+xml')) return { type: 'string' as const };
  return { type: 'string' as const, contentMediaType: type };
}

/** `get /api/gotv/polling-stations/:id` → `getGotvPollingStationsById`, `get /q/:code` → `getWebQByCode`: stable, unique, readable in generated clients. */
export function operationIdOf(method: string, koaPath: string): string {
  // Paths outside /api/ (pages, tracking links, probes) are marked, so `/pqrs` and `/api/pqrs` differ.
  const words = (koaPath.startsWith('/api/') ? koaPath.slice(4) : `/web${koaPath}`)
    .split('/')
    .filter(Boolean)
    .flatMap((segment) =>
      segment
        .split(/[^A-Za-z0-9:]+/)
        .filter(Boolean)
        .map((part) => (part.startsWith(':') ? `by ${part.slice(1)}` : part)),
    )
    .flatMap((part) => part.split(' '));
  return [method, ...words].map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('');
}

/** Koa's `/users/:id` is OpenAPI's `/users/{id}`. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function errorResponses(route: RouteDefinition): RouteConfig['responses'] {
  const { spec } = route;
  const responses: RouteConfig['responses'] = {};
  const answer = (description: string) => errorAnswer(route, description);
  // Without `openQuery`, a query parameter the route does not name is a 400 too.
  if (spec.params || spec.query || spec.body || !spec.openQuery) responses[400] = answer('The input is not valid (an unknown query parameter included)');
  if (spec.access !== 'public' && spec.access !== 'optional') {
    responses[401] = problem('No valid token');
    if (spec.access.length > 0) responses[403] = problem('The role may not do this');
  }
  if (spec.body) {
    responses[413] = problem('The body is too large');
    responses[415] = problem('The body is not in an accepted media type');
  }
  for (const [status, description] of Object.entries(spec.errors ?? {})) responses[status] = answer(description);
  return responses;
}

function successResponse(route: RouteDefinition): RouteConfig['responses'][string] {
  const { spec } = route;
  // A route may answer JSON and, on request, files (a report as CSV): both are documented.
  const files = Object.fromEntries(Object.keys(spec.produces ?? {}).map((type) => [type, { schema: fileSchema(type) }]));
  if (spec.response) return { description: 'Success', content: { 'application/json': { schema: spec.response }, ...files } };
  if (spec.produces) return { description: Object.values(spec.produces).join('; '), content: files };
  return { description: 'Success, no content' };
}

function redirectResponses(route: RouteDefinition): RouteConfig['responses'] {
  return Object.fromEntries(
    Object.entries(route.spec.redirects ?? {}).map(([status, description]) => [
      status,
      { description, headers: { Location: { description: 'Where to go', schema: { type: 'string' } } } },
    ]),
  );
}

export function buildOpenApiDocument(routes: RouteDefinition[], tags: readonly { name: string; description: string }[]): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  for (const route of routes) {
    const { spec } = route;
    const bodyTypes = spec.bodyTypes ?? ['json'];
    registry.registerPath({
      method: route.method,
      path: openApiPath(route.path),
      tags: [route.tag],
      summary: spec.summary,
      description: spec.description,
      security: spec.access === 'public' ? [] : spec.access === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      request: {
        params: spec.params as ZodObject | undefined,
        query: spec.query as ZodObject | undefined,
        body: spec.body
          ? {
              required: true,
              content: Object.fromEntries(bodyTypes.map((type: BodyType) => [bodyMediaTypes[type], { schema: spec.body }])),
            }
          : undefined,
      },
      operationId: spec.operationId ?? operationIdOf(route.method, route.path),
      // A route that only redirects (a click link) has no success answer of its own.
      responses: { ...(spec.redirects?.[spec.status ?? 200] ? {} : { [spec.status ?? 200]: successResponse(route) }), ...redirectResponses(route), ...errorResponses(route) },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Comando API',
      version: '1.0',
      description: 'Realtime-first backend for running an electoral campaign. Errors are RFC 9457 problem details.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the document is right on whatever host and port serves it.
    servers: [{ url: '/', description: 'This server' }],
    tags: [...tags],
  });
}

/** The reference page: Swagger UI from the installed package, no CDN. */
export const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
export const docsAssets = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

export function docsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Comando API reference</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>`;
}

export const docsInitScript = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#reference', deepLinking: true });\n`;

export function readDocsAsset(name: string): Buffer | undefined {
  if (!docsAssets.has(name)) return undefined;
  return fs.readFileSync(path.join(swaggerUiDir, name));
}
