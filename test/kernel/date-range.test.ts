import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { registerAdmin, type TestUser } from '../helpers/users';
import { sql } from '../../src/kernel/sql';

/**
 * Every date the API takes is one of two shared types (kernel/schemas.ts) with years 1900–2100:
 * outside it, a 400 that says the range, never a 500 from the calendar code further in. The routes
 * are found in the OpenAPI document, so a new route with a date is covered without being listed.
 */
let app: TestApp;
let admin: TestUser;
let document: OpenApi;
beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
  document = (await app.http.get('/api/openapi.json').expect(200)).body as OpenApi;
});
afterAll(() => app.close());

interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minItems?: number;
  minLength?: number;
  minimum?: number;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
}

type Format = 'date' | 'date-time';
/** A date somewhere in a route's input: in the query, or in the JSON body at `at` (`[]` for an array's item), and how to make the rest of its object. */
interface DateInput {
  method: string;
  path: string;
  where: 'query' | 'body';
  at: string[];
  formats: Set<Format>;
  /** The body around the date: required fields and union discriminators filled, the date left to set. */
  build: (value: string) => unknown;
}

function deref(schema: Schema | undefined): Schema | undefined {
  let current = schema;
  while (current?.$ref)
    current = current.$ref
      .split('/')
      .slice(1)
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document) as Schema;
  return current;
}

/** A value the schema accepts, where that is easy to make (the test asserts on the date's error, not on the rest). */
function sample(raw: Schema | undefined): unknown {
  const schema = deref(raw);
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return sample(options.find((option) => deref(option)?.type !== 'null') ?? options[0]);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part) => sample(part) as object));
  const type = Array.isArray(schema.type) ? schema.type.find((name) => name !== 'null') : schema.type;
  if (schema.format === 'uuid') return randomUUID();
  if (schema.format === 'email') return 'someone@example.org';
  if (schema.format === 'date') return '2026-03-08';
  if (schema.format === 'date-time') return '2026-03-08T10:00:00-05:00';
  if (type === 'string') return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  if (type === 'integer' || type === 'number') return Math.max(1, schema.minimum ?? 1);
  if (type === 'boolean') return false;
  if (type === 'array') return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items));
  if (type === 'object' || schema.properties) return requiredOf(schema);
  return 'x';
}

function requiredOf(schema: Schema): Record<string, unknown> {
  return Object.fromEntries((schema.required ?? []).map((name) => [name, sample(schema.properties?.[name])]));
}

/**
 * The dates under `raw`, each with a builder for a body that holds it: every object on the way
 * gets its required fields, and a union is entered through the option that holds the date (its
 * discriminator filled), so a union's error reaches the date rather than stopping at "no option".
 */
function datesIn(raw: Schema | undefined, at: string[], wrap: (inner: unknown) => unknown, found: Omit<DateInput, 'method' | 'path' | 'where'>[], depth = 0): void {
  const schema = deref(raw);
  if (!schema || depth > 12) return;
  if (schema.format === 'date' || schema.format === 'date-time') {
    found.push({ at, formats: new Set([schema.format]), build: wrap });
    return;
  }
  for (const option of schema.anyOf ?? schema.oneOf ?? []) datesIn(option, at, wrap, found, depth + 1);
  if (schema.allOf) {
    const rest = Object.assign({}, ...schema.allOf.map((part) => sample(part) as object)) as Record<string, unknown>;
    for (const part of schema.allOf) datesIn(part, at, (inner) => wrap({ ...rest, ...(inner as object) }), found, depth + 1);
  }
  if (schema.items) datesIn(schema.items, [...at, '[]'], (inner) => wrap([inner]), found, depth + 1);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    datesIn(property, [...at, name], (inner) => wrap({ ...requiredOf(schema), [name]: inner }), found, depth + 1);
  }
}

function dateInputs(): DateInput[] {
  const byKey = new Map<string, DateInput>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const found: (Omit<DateInput, 'method' | 'path' | 'where'> & { where: 'query' | 'body' })[] = [];
      for (const parameter of operation.parameters ?? []) {
        const dates: Omit<DateInput, 'method' | 'path' | 'where'>[] = [];
        datesIn(parameter.schema, [parameter.name], (inner) => inner, dates);
        if (dates.length && parameter.in !== 'query') throw new Error(`${method} ${path}: a date in the ${parameter.in} (${parameter.name}); teach this test to send one`);
        found.push(...dates.map((date) => ({ ...date, where: 'query' as const })));
      }
      for (const [type, content] of Object.entries(operation.requestBody?.content ?? {})) {
        const dates: Omit<DateInput, 'method' | 'path' | 'where'>[] = [];
        datesIn(content.schema, [], (inner) => inner, dates);
        if (dates.length && type !== 'application/json') throw new Error(`${method} ${path}: a date in a ${type} body; teach this test to send one`);
        found.push(...dates.map((date) => ({ ...date, where: 'body' as const })));
      }
      for (const date of found) {
        const key = `${method} ${path} ${date.where} ${date.at.join('.')}`;
        const known = byKey.get(key);
        if (known) for (const format of date.formats) known.formats.add(format);
        else byKey.set(key, { method, path, ...date, formats: new Set(date.formats) });
      }
    }
  }
  return [...byKey.values()];
}

/** The path with its parameters filled: ids are random (a 404 at most, once the input is valid). */
function concrete(input: DateInput): string {
  const parameters = document.paths[input.path]![input.method]!.parameters ?? [];
  return input.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const schema = deref(parameters.find((parameter) => parameter.name === name && parameter.in === 'path')?.schema);
    if (schema?.format !== 'uuid') throw new Error(`${input.method} ${input.path}: teach this test a value for {${name}}`);
    return randomUUID();
  });
}

async function send(input: DateInput, value: string) {
  const url = concrete(input);
  const request = app.http[input.method as 'get' | 'post' | 'put' | 'patch' | 'delete'](url).set(admin.auth);
  return input.where === 'query' ? request.query({ [input.at[0]!]: value }) : request.send(input.build(value) as object);
}

const OUTSIDE: Record<Format, string[]> = { date: ['0999-12-31', '2101-01-01'], 'date-time': ['0999-12-31T12:00:00Z', '2101-01-01T00:00:00Z'] };
const INSIDE: Record<Format, string[]> = { date: ['1900-01-01', '2100-12-31'], 'date-time': ['1900-01-01T00:00:00Z', '2100-12-31T23:59:59Z'] };
const STATES_THE_RANGE = /1900-01-01.*2100-12-31/;

/** The problem's error that is about this date: at its path (or an enclosing one, as a batch item's), saying the range. */
function rangeErrorFor(input: DateInput, errors: { path: string; message: string }[] | undefined) {
  const at = [input.where, ...input.at.map((segment) => (segment === '[]' ? '0' : segment))].join('.');
  return errors?.find(
    (error) => STATES_THE_RANGE.test(error.message) && (at === error.path || at.startsWith(`${error.path}.`) || error.message.includes(input.at[input.at.length - 1]!)),
  );
}

it('finds the routes that take dates, in queries and bodies', () => {
  const inputs = dateInputs();
  const routes = new Set(inputs.map((input) => `${input.method} ${input.path}`));
  expect(routes.size).toBeGreaterThanOrEqual(35);
  for (const known of ['put /api/gotv/settings', 'get /api/gotv/day-curve', 'get /api/agenda/events', 'get /api/social-monitoring/comparison', 'post /api/finance/entries']) {
    expect(routes).toContain(known);
  }
});

it('answers a year outside 1900–2100 with a 400 that says the range, on every route', async () => {
  const failures: string[] = [];
  for (const input of dateInputs()) {
    for (const format of input.formats) {
      for (const value of OUTSIDE[format]) {
        const response = await send(input, value);
        const name = `${input.method.toUpperCase()} ${input.path} ${input.where}.${input.at.join('.')}=${value}`;
        if (response.status !== 400) failures.push(`${name}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
        else if (!rangeErrorFor(input, response.body.errors)) failures.push(`${name}: 400 without the range: ${JSON.stringify(response.body.errors).slice(0, 300)}`);
      }
    }
  }
  expect(failures).toEqual([]);
});

it('takes the first and last days of the range without a 500, and without a range error', async () => {
  const failures: string[] = [];
  for (const input of dateInputs()) {
    for (const format of input.formats) {
      for (const value of INSIDE[format]) {
        const response = await send(input, value);
        const name = `${input.method.toUpperCase()} ${input.path} ${input.where}.${input.at.join('.')}=${value}`;
        if (response.status >= 500) failures.push(`${name}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
        else if (response.status === 400 && rangeErrorFor(input, response.body.errors)) failures.push(`${name}: refused as out of range`);
      }
    }
  }
  expect(failures).toEqual([]);
});

it('rejects out-of-range dates in batches that judge each item (metrics, imported posts)', async () => {
  const competitor = await app.http.post('/api/social-monitoring/competitors').set(admin.auth).send({ name: 'Rival', profiles: [] }).expect(201);
  const metrics = await app.http
    .post('/api/popularity/metrics')
    .set(admin.auth)
    .send({ metrics: [{ date: '0999-12-31', competitorId: competitor.body.id, metric: 'favourability', value: 40, source: 'invamer' }] });
  expect(metrics.status).toBeLessThan(500);
  expect(JSON.stringify(metrics.body)).toMatch(STATES_THE_RANGE);
  const posts = await app.http
    .post('/api/social-monitoring/posts/import')
    .set(admin.auth)
    .send({ posts: [{ platform: 'tiktok', competitorId: competitor.body.id, postId: 'p1', publishedAt: '0999-12-31T12:00:00Z', text: 'hola' }] });
  expect(posts.status).toBeLessThan(500);
  expect(JSON.stringify(posts.body)).toMatch(STATES_THE_RANGE);
});

it('reads an election date stored before the range was enforced as not set, so the screens keep working', async () => {
  await app.http.put('/api/gotv/settings').set(admin.auth).send({ electionDate: '2026-03-08' }).expect(200);
  await app.runtime.deps.db.write(sql`update campaign_settings set election_date = '0999-12-31'`);
  // The process caches the date it read (as every other process would have): dropped as a save would.
  await app.runtime.deps.caches.named('campaign-election-date', async () => null, 1).invalidate('current');
  const answers = await Promise.all(['/api/gotv/settings', '/api/gotv/projection', '/api/gotv/live-map', '/api/gotv/dashboard'].map((path) => app.http.get(path).set(admin.auth)));
  expect(answers.map((answer) => answer.status)).toEqual([200, 409, 200, 200]);
  expect(answers[0]!.body.electionDate).toBeNull();
  expect(answers[1]!.body.code).toBe('election_date_not_set');
});

it('says an instant without its offset is missing the offset, on every route that takes one', async () => {
  const failures: string[] = [];
  for (const input of dateInputs().filter((candidate) => candidate.formats.has('date-time') && !candidate.formats.has('date'))) {
    const response = await send(input, '2026-03-08T08:00:00');
    const name = `${input.method.toUpperCase()} ${input.path} ${input.where}.${input.at.join('.')}`;
    const said = JSON.stringify(response.body.errors ?? response.body);
    if (response.status !== 400 || !said.includes('the time zone offset is missing: write 2026-03-08T08:00:00-05:00'))
      failures.push(`${name}: ${response.status} ${said.slice(0, 200)}`);
  }
  expect(failures).toEqual([]);
});
