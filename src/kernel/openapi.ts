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

/** Koa's `/users/:id` is OpenAPI's `/users/{id}`. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function errorResponses(route: RouteDefinition): RouteConfig['responses'] {
  const { spec } = route;
  const responses: RouteConfig['responses'] = {};
  if (spec.params || spec.query || spec.body) responses[400] = problem('The input is not valid');
  if (spec.access !== 'public' && spec.access !== 'optional') {
    responses[401] = problem('No valid token');
    if (spec.access.length > 0) responses[403] = problem('The role may not do this');
  }
  if (spec.body) {
    responses[413] = problem('The body is too large');
    responses[415] = problem('The body is not in an accepted media type');
  }
  for (const [status, description] of Object.entries(spec.errors ?? {})) responses[status] = problem(description);
  return responses;
}

function successResponse(route: RouteDefinition): RouteConfig['responses'][string] {
  const { spec } = route;
  // A route may answer JSON and, on request, files (a report as CSV): both are documented.
  const files = Object.fromEntries(Object.keys(spec.produces ?? {}).map((type) => [type, { schema: { type: 'string' as const } }]));
  if (spec.response) return { description: 'Success', content: { 'application/json': { schema: spec.response }, ...files } };
  if (spec.produces) return { description: Object.values(spec.produces).join('; '), content: files };
  return { description: 'Success, no content' };
}

export function buildOpenApiDocument(routes: RouteDefinition[], serverUrl: string): object {
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
      responses: { [spec.status ?? 200]: successResponse(route), ...errorResponses(route) },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Comando API',
      version: '1.0',
      description: 'Realtime-first backend for running an electoral campaign. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: serverUrl }],
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
