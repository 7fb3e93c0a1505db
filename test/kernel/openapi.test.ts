import { openApiPath } from '../../src/kernel/openapi';
import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('documents every registered route in an OpenAPI 3.1 document', async () => {
  const response = await app.http.get('/api/openapi.json').expect(200);
  const document = response.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(document.openapi).toBe('3.1.0');
  const routes = app.runtime.created.routes;
  expect(routes.length).toBeGreaterThan(10);
  for (const route of routes) {
    expect(document.paths[openApiPath(route.path)]?.[route.method]).toBeDefined();
  }
  const create = document.paths['/api/territories']!.post as { responses: Record<string, unknown>; requestBody: unknown };
  expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409']));
  expect(create.requestBody).toBeDefined();
});

it('serves a readable reference page from local assets', async () => {
  const page = await app.http.get('/api/docs').expect(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  expect(assets.every((asset) => asset.startsWith('/api/docs/'))).toBe(true);
  for (const asset of assets) await app.http.get(asset).expect(200);
  await app.http.get('/api/docs/assets/..%2F..%2Fpackage.json').expect(404);
});
