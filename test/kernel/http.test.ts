import http from 'node:http';
import request from 'supertest';
import { z } from 'zod';
import Koa from 'koa';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { requireRole } from '../../src/kernel/auth/authenticate';
import { problemMiddleware } from '../../src/kernel/http/problem';
import { routeDispatcher } from '../../src/kernel/http/dispatch';
import { ApiRouter, type RouteDefinition } from '../../src/kernel/http/router';
import { modules } from '../../src/modules';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp({ CORS_ORIGINS: 'https://warroom.example.org', HTTP_KEEP_ALIVE_TIMEOUT: '70' });
  admin = await registerAdmin(app);
});
afterAll(() => app.close());

describe('diagnostics', () => {
  it('GET /api/test says the API works', async () => {
    const response = await app.http.get('/api/test').expect(200);
    expect(response.body).toEqual({ status: 'ok', service: 'comando', version: '1.0' });
  });

  it('GET /healthz and /readyz report liveness and readiness of database and Redis', async () => {
    await app.http.get('/healthz').expect(200, { status: 'ok' });
    const ready = await app.http.get('/readyz').expect(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
  });

  it('GET /readyz answers 503 when Redis is unreachable', async () => {
    const broken = await startTestApp();
    try {
      broken.runtime.deps.redis!.disconnect();
      const response = await broken.http.get('/readyz').expect(503);
      expect(response.body.checks).toMatchObject({ database: 'ok', redis: 'failed' });
    } finally {
      await broken.close();
    }
  });
});

describe('the HTTP server', () => {
  it('keeps an idle connection open as long as HTTP_KEEP_ALIVE_TIMEOUT says, above the 60 s of the proxies in front', async () => {
    expect(loadConfig({}).http).toEqual({ keepAliveTimeoutMs: 65_000, headersTimeoutMs: 66_000 });
    // This file's process was started with 70 s: the server the runtime listens with has it.
    expect(app.runtime.server.keepAliveTimeout).toBe(70_000);
    expect(app.runtime.server.headersTimeout).toBe(71_000);
    const agent = new http.Agent({ keepAlive: true });
    try {
      const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
        http
          .get(`${app.url}/api/test`, { agent }, (response) => {
            response.resume();
            resolve(response.headers['keep-alive'] as string | undefined);
          })
          .on('error', reject);
      });
      expect(keepAlive).toBe('timeout=70');
    } finally {
      agent.destroy();
    }
  });
});

describe('platform middleware', () => {
  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await app.http.get('/api/test').set('X-Request-Id', 'trace-1234abcd');
    expect(echoed.headers['x-request-id']).toBe('trace-1234abcd');
    const madeUp = await app.http.get('/api/test').set('X-Request-Id', '<script>');
    expect(madeUp.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends the API set of security headers on JSON answers, errors included', async () => {
    for (const response of [await app.http.get('/api/test'), await app.http.get('/api/no-such-thing')]) {
      expect(response.headers['content-type']).toMatch(/json/);
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['strict-transport-security']).toContain('max-age=');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-frame-options']).toBeUndefined();
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('serialises a JSON answer once, keeping its type and length, compressed or not', async () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    const documentTexts = () => stringify.mock.results.filter((result) => typeof result.value === 'string' && result.value.startsWith('{"openapi"')).length;
    try {
      for (const encoding of ['br', 'identity']) {
        stringify.mockClear();
        const response = await app.http.get('/api/openapi.json').set('Accept-Encoding', encoding).expect(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.body.openapi).toMatch(/^3\.1/);
        expect(documentTexts()).toBe(1);
        if (encoding === 'identity') expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
      }
      const problem = await app.http.get('/api/no-such-thing').expect(404);
      expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(problem.headers['content-length'])).toBe(Buffer.byteLength(problem.text));
      const head = await app.http.head('/api/test').expect(200);
      expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify({ status: 'ok', service: 'comando', version: '1.0' })));
    } finally {
      stringify.mockRestore();
    }
  });

  it('compresses large text answers, not small ones or images', async () => {
    const bundle = await app.http.get('/api/docs/assets/swagger-ui-bundle.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(bundle.headers['content-encoding']).toBe('gzip');
    expect(bundle.text.length).toBeGreaterThan(500_000);
    const openapi = await app.http.get('/api/openapi.json').set('Accept-Encoding', 'br').expect(200);
    expect(openapi.headers['content-encoding']).toBe('br');
    expect(openapi.body.openapi).toMatch(/^3\.1/);
    const small = await app.http.get('/api/test').set('Accept-Encoding', 'gzip').expect(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    const png = await app.http.get('/api/docs/assets/favicon-32x32.png').set('Accept-Encoding', 'gzip').expect(200);
    expect(png.headers['content-encoding']).toBeUndefined();
  });

  it('sends the page set on HTML pages', async () => {
    const response = await app.http.get('/api/docs').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('forbids caching of answers to signed-in callers', async () => {
    const response = await app.http.get('/api/auth/me').set(admin.auth).expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('allows CORS only for listed origins', async () => {
    const allowed = await app.http.options('/api/auth/me').set('Origin', 'https://warroom.example.org').set('Access-Control-Request-Method', 'GET');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://warroom.example.org');
    const other = await app.http.get('/api/test').set('Origin', 'https://evil.example.com');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('errors are problem+json, never 500', () => {
  it('unknown /api routes give a 404 problem', async () => {
    expectProblem(await app.http.get('/api/no-such-thing'), 404, 'not_found');
    expectProblem(await app.http.post('/api/no/such/thing').send({}), 404, 'not_found');
  });

  it('a known path with the wrong method gives 405 with the methods it takes', async () => {
    const response = await app.http.delete('/api/test');
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('HEAD, GET');
  });

  it('methods the router does not know (TRACE, PROPFIND, SEARCH, QUERY) are 405s, not 500s, and a path nothing serves is a 404', async () => {
    for (const [method, path, allow] of [
      ['TRACE', '/api/test', 'HEAD, GET'],
      ['PROPFIND', '/api/test', 'HEAD, GET'],
      ['SEARCH', '/api/territories', 'HEAD, GET, POST'],
      ['TRACE', '/q/ABC123', 'HEAD, GET'],
    ] as const) {
      const response = await rawRequest(method, path);
      expect({ method, path, status: response.status, allow: response.allow, code: (JSON.parse(response.body) as { code: string }).code }).toEqual({
        method,
        path,
        status: 405,
        allow,
        code: 'method_not_allowed',
      });
    }
    const nowhere = await rawRequest('QUERY', '/api/no-such-thing');
    expect({ status: nowhere.status, allow: nowhere.allow }).toEqual({ status: 404, allow: undefined });
  });

  it('routes by the path’s literal start as one router over every route would', async () => {
    const served = (path: string) => ({ path, middleware: async (ctx: Koa.Context) => void (ctx.body = { served: path }) });
    const definitions = [
      { method: 'get', ...served('/api/things/:id') },
      { method: 'get', ...served('/api/things/special') },
      { method: 'post', ...served('/api/things') },
      { method: 'get', ...served('/api/:anything/raw') },
      { method: 'get', ...served('/p/:code') },
      { method: 'get', ...served('/:slug') },
    ] as unknown as RouteDefinition[];
    const koa = new Koa();
    koa.use(problemMiddleware(app.runtime.deps.logger));
    koa.use(routeDispatcher(definitions));
    const http = request(koa.callback());
    // A literal beats a parameter in its place whichever came first; paths match whatever their case.
    expect((await http.get('/api/things/special').expect(200)).body).toEqual({ served: '/api/things/special' });
    expect((await http.get('/API/Things/7').expect(200)).body).toEqual({ served: '/api/things/:id' });
    // Routes whose literal start is shorter still serve paths under a longer one.
    expect((await http.get('/api/things/raw').expect(200)).body).toEqual({ served: '/api/things/:id' });
    expect((await http.get('/api/other/raw').expect(200)).body).toEqual({ served: '/api/:anything/raw' });
    expect((await http.get('/p/abc').expect(200)).body).toEqual({ served: '/p/:code' });
    expect((await http.get('/welcome').expect(200)).body).toEqual({ served: '/:slug' });
    const wrongMethod = await http.delete('/api/things');
    expectProblem(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toBe('POST');
    // Nothing serves these (the app's own 404 problem is rendered further out).
    expect((await http.get('/api/things/1/2/3')).status).toBe(404);
    expect((await http.get('/nothing/here')).status).toBe(404);
  });

  it('malformed JSON gives 400', async () => {
    const response = await app.http.post('/api/auth/login').set('Content-Type', 'application/json').send('{"email": "a@b.co", ');
    expectProblem(response, 400, 'malformed_body');
  });

  it('a NUL character anywhere in the input gives 400 naming where, and writes nothing', async () => {
    const inBody = await app.http.post('/api/territories').set(admin.auth).send({ name: 'Bo\u0000sa', type: 'zone' });
    expect(expectProblem(inBody, 400, 'validation_failed').errors).toEqual([{ path: 'body.name', message: expect.stringMatching(/NUL/) }]);
    const nested = await app.http
      .post('/api/gotv/turnout')
      .set(admin.auth)
      .send({ reports: [{ kind: 'voter', clientReportId: 'x', documentId: '1\u0000' }] });
    expect(expectProblem(nested, 400).errors).toEqual([{ path: 'body.reports.0.documentId', message: expect.stringMatching(/NUL/) }]);
    expectProblem(await app.http.get('/api/territories?q=a%00b').set(admin.auth), 400, 'validation_failed');
    const list = await app.http.get('/api/territories').set(admin.auth).expect(200);
    expect(list.body.data).toHaveLength(0);
  });

  it('a body in the wrong media type gives 415', async () => {
    const response = await app.http.post('/api/territories').set(admin.auth).set('Content-Type', 'text/plain').send('name=Bosa');
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('a JSON body over 1 MB gives 413 and writes nothing', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(1_100_000), type: 'zone' });
    const response = await app.http.post('/api/territories').set(admin.auth).set('Content-Type', 'application/json').send(huge);
    expectProblem(response, 413, 'payload_too_large');
    const list = await app.http.get('/api/territories').set(admin.auth).expect(200);
    expect(list.body.data).toHaveLength(0);
  });

  it('a form body over the limit gives 413 too', async () => {
    const response = await app.http
      .post('/api/auth/login')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`email=a%40b.co&password=${'x'.repeat(1_100_000)}`);
    expectProblem(response, 413, 'payload_too_large');
  });

  it('a JSON array or scalar where an object is expected gives 400', async () => {
    expectProblem(await app.http.post('/api/auth/login').set('Content-Type', 'application/json').send('[1,2]'), 400);
    expectProblem(await app.http.post('/api/auth/login').set('Content-Type', 'application/json').send('"text"'), 400);
  });

  it('an unexpected failure is a 500 problem that leaks no internals', async () => {
    const probe = new ApiRouter('probe').get('/api/probe/explode', { summary: 'Throws', access: 'public' }, async () => {
      throw new Error('secret internal detail at /srv/app/file.ts:12');
    });
    const withProbe = createApp(app.runtime.deps, [...modules, { name: 'probe', entities: [], routers: [probe] }]);
    const response = await request(withProbe.app.callback()).get('/api/probe/explode');
    expectProblem(response, 500, 'internal_error');
    expect(JSON.stringify(response.body)).not.toContain('secret internal detail');
  });

  it('a request that finds no database connection free within DATABASE_ACQUIRE_TIMEOUT is a 503 busy with Retry-After', async () => {
    const small = await startTestApp({ DATABASE_POOL_MAX: '2', DATABASE_ACQUIRE_TIMEOUT: '300' });
    const release: (() => void)[] = [];
    const holding: Promise<unknown>[] = [];
    try {
      const owner = await registerAdmin(small);
      await small.http.get('/api/territories').set(owner.auth).expect(200);
      // Slow work holds both of the pool's connections.
      for (let i = 0; i < 2; i++) {
        holding.push(small.runtime.deps.db.transaction(() => new Promise<void>((resolve) => release.push(resolve))));
      }
      await until(() => release.length === 2, 10_000, 'both connections held');
      const response = await small.http.get('/api/territories').set(owner.auth);
      expectProblem(response, 503, 'busy');
      expect(response.headers['retry-after']).toBe('5');
      for (const done of release) done();
      await Promise.all(holding);
      await small.http.get('/api/territories').set(owner.auth).expect(200);
    } finally {
      for (const done of release) done();
      await small.close();
    }
  });

  it('a handler whose answer breaks its response schema fails loudly outside production', async () => {
    const probe = new ApiRouter('probe').get('/api/probe/drift', { summary: 'Drifts', access: 'public', response: z.object({ id: z.uuid() }) }, async () => ({ id: 'not-a-uuid' }));
    const withProbe = createApp(app.runtime.deps, [{ name: 'probe', entities: [], routers: [probe] }]);
    expectProblem(await request(withProbe.app.callback()).get('/api/probe/drift'), 500, 'response_contract');
  });
});

describe('query parameters', () => {
  it('refuses a parameter the route does not name with 400 naming it', async () => {
    const misspelt = await app.http
      .get('/api/territories?limt=5&type=commune')
      .set({ Authorization: `Bearer ${admin.token}` })
      .expect(400);
    expectProblem(misspelt, 400, 'validation_failed');
    expect(misspelt.body.errors).toEqual([{ path: 'query.limt', message: 'is not a parameter of this route' }]);
    const none = await app.http.get('/api/test?debug=1').expect(400);
    expect(none.body.errors).toEqual([{ path: 'query.debug', message: 'is not a parameter of this route' }]);
    await app.http
      .get('/api/territories?limit=5')
      .set({ Authorization: `Bearer ${admin.token}` })
      .expect(200);
  });

  it('lets pages opened from tagged links ignore what they do not use', async () => {
    await app.http.get('/static/landing.css?v=3&utm_source=afiche').expect(200);
    await app.http.get('/q/zzzzzzzzzz?utm_source=afiche').expect(404);
  });
});

describe('requireRole, the guard any Koa route can use', () => {
  it('answers 401 without a valid token, 403 for other roles, and lets the role (and admin) through', async () => {
    const guarded = new Koa();
    guarded.context.deps = app.runtime.deps;
    guarded.use(problemMiddleware(app.runtime.deps.logger));
    guarded.use(requireRole('manager'));
    guarded.use((ctx) => {
      ctx.body = { actor: ctx.state.actor };
    });
    const call = () => request(guarded.callback()).get('/');
    const manager = await createUser(app, admin, 'manager');
    const viewer = await createUser(app, admin, 'viewer');
    expectProblem(await call(), 401, 'unauthorized');
    expectProblem(await call().set('Authorization', 'Bearer nonsense'), 401, 'unauthorized');
    expectProblem(await call().set(viewer.auth), 403, 'forbidden');
    expect((await call().set(manager.auth).expect(200)).body.actor).toEqual({ id: manager.id, role: 'manager' });
    await call().set(admin.auth).expect(200);
  });
});

/** A request in any method Node's parser accepts (fetch and supertest refuse TRACE and friends). */
function rawRequest(method: string, path: string): Promise<{ status: number; allow: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(app.url + path, { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
