import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatStatement, renderQueries, staleQueries, writeQueries } from '../../scripts/queries';

const kernelSql = resolve(__dirname, '../../src/kernel/sql');

/** A module of one repository and one service, in a project of its own under a temp dir. */
function sampleProject(filter: string): string {
  const root = mkdtempSync(join(tmpdir(), 'queries-test-'));
  const module = join(root, 'src', 'modules', 'sample');
  mkdirSync(module, { recursive: true });
  writeFileSync(
    join(module, 'sample.repository.ts'),
    [
      `import { sql, type Database, type Queries } from '${kernelSql}';`,
      '',
      "export interface ThingFilter { names: readonly string[]; kind: 'b' | 'a'; archived?: boolean }",
      '',
      'export function things(q: Queries, filter: ThingFilter) {',
      `  const archived = filter.archived === undefined ? sql\`\` : sql\` and archived = \${filter.archived}\`;`,
      `  return q.rows(sql\`select id from things where ${filter} and name = any(\${filter.names}) and kind = \${filter.kind}\${archived}\`);`,
      '}',
      '',
      'export async function renameFirst(q: Queries, name: string): Promise<void> {',
      '  const row = await q.first<{ id: string }>(sql`select id from things order by id limit 1`);',
      '  if (!row) return;',
      '  await q.write(sql`update things set name = ${name} where id = ${row.id}`);',
      '}',
      '',
      'export function archiveAll(db: Database, before: Date) {',
      '  return db.transaction((tx) => tx.write(sql`update things set archived = true where created_at < ${before}`), { lockTimeoutMs: 500 });',
      '}',
      '',
      'export const thingHolder = {',
      '  erase: (q: Queries, id: string) => q.write(sql`delete from things where id = ${id}`),',
      "  label: 'things',",
      '};',
      '',
      'export function today(deps: { db: Database; label: string }) {',
      "  return deps.db.rows(sql`select ${sql.raw(`'${new Date().toISOString().slice(0, 10)}'`)}::date as day`);",
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(module, 'sample.service.ts'),
    [
      `import type { Queries } from '${kernelSql}';`,
      "import { renameFirst } from './sample.repository';",
      '',
      'export const rename = (q: Queries) => renameFirst(q, "x");',
      '',
    ].join('\n'),
  );
  return root;
}

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

describe('checked-in SQL', () => {
  it('renders each function of a file that writes statements, in order', async () => {
    const root = sampleProject('visible');
    roots.push(root);
    const rendered = await renderQueries(root);
    const file = join(root, 'src', 'modules', 'sample', 'sample.queries.sql');
    expect([...rendered.keys()]).toEqual([file]);
    const text = rendered.get(file) ?? '';
    // The service only passes its Queries on: the repository's section already shows the statement.
    expect(text).not.toContain('sample.service.ts');
    expect(text.split('\n').filter((line) => line.startsWith('-- sample.'))).toEqual([
      '-- sample.repository.ts: things',
      '-- sample.repository.ts: renameFirst',
      '-- sample.repository.ts: archiveAll',
      '-- sample.repository.ts: thingHolder.erase',
      '-- sample.repository.ts: today',
    ]);
    // Optional properties are filled in, and of a union of literals the first in sorted order is taken.
    expect(text).toContain(['select', '  id', 'from', '  things', 'where', '  visible', '  and name = any ($1)', '  and kind = $2', '  and archived = $3;'].join('\n'));
    // No row is found, so the update after the look-up never runs.
    expect(text).toContain(['-- sample.repository.ts: renameFirst', 'select', '  id', 'from', '  things', 'order by', '  id', 'limit', '  1;', ''].join('\n'));
    expect(text).toContain(['-- sample.repository.ts: archiveAll', 'begin;', 'set local lock_timeout = 500;', 'update things'].join('\n'));
    // A holder's methods and a function on the deps' `db` are rendered; the clock is the same every run.
    expect(text).toContain(['-- sample.repository.ts: thingHolder.erase', 'delete from things', 'where', '  id = $1;'].join('\n'));
    expect(text).toContain(['-- sample.repository.ts: today', 'select', "  '2026-01-15'::date as day;"].join('\n'));
  });

  it('passes when the committed file matches and fails with a diff when a statement changes', async () => {
    const committed = sampleProject('visible');
    const changed = sampleProject('not hidden');
    roots.push(committed, changed);
    writeQueries(committed, await renderQueries(committed));
    expect(staleQueries(committed, await renderQueries(committed))).toEqual([]);

    const queriesFile = join('src', 'modules', 'sample', 'sample.queries.sql');
    writeFileSync(join(changed, queriesFile), readFileSync(join(committed, queriesFile), 'utf8'));
    const stale = staleQueries(changed, await renderQueries(changed));
    expect(stale.map(({ file }) => file)).toEqual(['src/modules/sample/sample.queries.sql']);
    expect(stale[0]?.diff).toContain('-  visible\n');
    expect(stale[0]?.diff).toContain('+  not hidden\n');
  });

  it('flags a committed file that nothing renders any more', () => {
    const root = mkdtempSync(join(tmpdir(), 'queries-test-'));
    roots.push(root);
    mkdirSync(join(root, 'src', 'modules', 'gone'), { recursive: true });
    writeFileSync(join(root, 'src', 'modules', 'gone', 'gone.queries.sql'), 'select 1;\n');
    expect(staleQueries(root, new Map()).map(({ file }) => file)).toEqual(['src/modules/gone/gone.queries.sql']);
  });

  it('pretty-prints a statement and ends it with a semicolon', () => {
    expect(formatStatement('select id from things where id = $1')).toBe('select\n  id\nfrom\n  things\nwhere\n  id = $1;');
  });
});
