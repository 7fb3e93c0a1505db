import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The OpenAPI document is checked by tools that did not write it: Redocly's strictest preset (an
 * independent linter) and a JSON Schema 2020-12 validator for every documented example.
 */
let app: TestApp;
let document: Record<string, unknown>;
beforeAll(async () => {
  app = await startTestApp();
  document = (await app.http.get('/api/openapi.json').expect(200)).body as Record<string, unknown>;
});
afterAll(() => app.close());

it('passes Redocly recommended-strict with no problem', async () => {
  const config = await createConfig(
    { extends: ['recommended-strict'] },
    {
      ignore: {
        'openapi.json': {
          // Different methods (GET an image, PATCH a placement): no request can match both.
          'no-ambiguous-paths': new Set(['#/paths/~1api~1poster-qr~1codes~1{code}.{format}']),
          // A click link only ever redirects (302); it has no 2xx answer.
          'operation-2xx-response': new Set(['#/paths/~1e~1c~1{token}/get/responses']),
        },
      },
    },
  );
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  const found = problems.filter((problem) => !problem.ignored).map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
  expect(found).toEqual([]);
});

it('gives every operation a unique operationId and every tag a description', () => {
  const ids: string[] = [];
  for (const operations of Object.values(document.paths as Record<string, Record<string, { operationId: string }>>)) {
    for (const operation of Object.values(operations)) ids.push(operation.operationId);
  }
  expect(new Set(ids).size).toBe(ids.length);
  for (const tag of document.tags as { name: string; description: string }[]) expect(tag.description.length).toBeGreaterThan(10);
});

/** Every `examples` array in a schema, with the JSON pointer of the schema that holds it. */
function schemasWithExamples(node: unknown, pointer: string, found: { pointer: string; examples: unknown[] }[]): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((item, index) => schemasWithExamples(item, `${pointer}/${index}`, found));
  const record = node as Record<string, unknown>;
  if (Array.isArray(record.examples) && ('type' in record || 'anyOf' in record || 'oneOf' in record || 'properties' in record)) found.push({ pointer, examples: record.examples });
  for (const [key, value] of Object.entries(record)) schemasWithExamples(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, found);
}

it('documents examples that its own schemas accept', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'https://comando.local/openapi.json' });
  const found: { pointer: string; examples: unknown[] }[] = [];
  schemasWithExamples(document, '', found);
  expect(found.length).toBeGreaterThanOrEqual(4);
  const failures: string[] = [];
  for (const { pointer, examples } of found) {
    const validate = ajv.getSchema(`https://comando.local/openapi.json#${pointer}`)!;
    for (const example of examples) if (!validate(example)) failures.push(`${pointer}: ${ajv.errorsText(validate.errors)}`);
  }
  expect(failures).toEqual([]);
  // And a wrong example would be caught.
  const station = found.find((entry) => entry.pointer.includes('turnout') || JSON.stringify(entry.examples).includes('votersSoFar'));
  expect(station).toBeDefined();
  expect(ajv.getSchema(`https://comando.local/openapi.json#${station!.pointer}`)!({ kind: 'count', votersSoFar: -1 })).toBe(false);
});

/** Every `pattern` string in the document, with the JSON pointer of the schema that holds it. */
function patternsIn(node: unknown, pointer: string, found: { pointer: string; pattern: string }[]): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((item, index) => patternsIn(item, `${pointer}/${index}`, found));
  const record = node as Record<string, unknown>;
  if (typeof record.pattern === 'string') found.push({ pointer, pattern: record.pattern });
  for (const [key, value] of Object.entries(record)) patternsIn(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, found);
}

/** Why a JSON Schema `pattern` is not a plain ECMA-262 regex (no flags), or undefined when it is. */
function patternProblem(pattern: string): string | undefined {
  // A JS literal's slashes and flags copied into the text: `^a$/u` compiles, but matches nothing.
  if (/^\//.test(pattern) || /(^|[^\\])(\\\\)*\/[dgimsuvy]*$/.test(pattern)) return 'is a JavaScript regex literal (slashes or flags), not a pattern';
  for (const flags of ['', 'u']) {
    try {
      new RegExp(pattern, flags);
    } catch (error) {
      return `does not compile${flags ? ' in Unicode mode' : ''}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

it('writes every pattern as an ECMA-262 regex without flags', () => {
  const found: { pointer: string; pattern: string }[] = [];
  patternsIn(document, '', found);
  expect(found.length).toBeGreaterThanOrEqual(10);
  const problems = found.flatMap(({ pointer, pattern }) => {
    const problem = patternProblem(pattern);
    return problem ? [`${pointer}: ${JSON.stringify(pattern)} ${problem}`] : [];
  });
  expect(problems).toEqual([]);
  // And the leftovers it is for are caught.
  expect(patternProblem('^[\\p{L}\\p{N} _-]+$/u')).toBeDefined();
  expect(patternProblem('/^a+$/')).toBeDefined();
  expect(patternProblem('^(a$')).toBeDefined();
  expect(patternProblem('^\\/[a-z]+$')).toBeUndefined();
  expect(patternProblem('^a\\/$')).toBeUndefined();
  expect(patternProblem('^a\\/')).toBeUndefined();
});
