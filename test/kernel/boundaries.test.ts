import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { allowanceOf, beyondAllowance, checkSource, checkTree, formatViolations, positionalMarkers, type Violation } from '../../scripts/check-boundaries';

const brief = (violations: Violation[]) => violations.map((v) => `${v.line}:${v.column} ${v.rule} ${v.what}`);
const rules = (violations: Violation[]) => violations.map((v) => `${v.line} ${v.rule}`);

describe('people tables outside audience', () => {
  const file = 'src/modules/whatsapp/whatsapp.repository.ts';

  it('flags them in sql-tagged templates, plain SQL strings and query-builder calls, at their line', () => {
    const source = [
      "import { sql, tables } from '../../kernel/sql';",
      'export const a = (id: string) => sql`select id from contacts where id = ${id}`;',
      "export const b = 'select consent_texts.id, k.channel from consent_texts join consents k on k.text_id = consent_texts.id';",
      'export const c = (ids: string[]) => sql<{ id: string }>`',
      '  select m.id',
      '  from wa_messages m',
      '  join public.contact_origins o on o.contact_id = m.contact_id',
      '  where m.id = any(${ids})`;',
      "export const d = tables<never>().selectFrom('contacts as c' as never);",
      'export const e = `insert into "consents" (id) values ($1)`;',
    ].join('\n');
    expect(brief(checkSource(file, source))).toEqual([
      '2:53 people-tables SQL names the table contacts',
      '3:26 people-tables SQL names the table consent_texts',
      '3:59 people-tables SQL names the table consent_texts',
      '3:78 people-tables SQL names the table consents',
      '3:104 people-tables SQL names the table consent_texts',
      '7:15 people-tables SQL names the table contact_origins',
      "9:45 people-tables query builder selectFrom('contacts as c') names the table contacts",
      '10:32 people-tables SQL names the table consents',
    ]);
  });

  it('flags an entity mapped to one of them', () => {
    const source = "export const S = defineEntity({ name: 'Contact2', tableName: 'contacts', properties: {} });";
    expect(rules(checkSource('src/modules/qr/qr.entities.ts', source))).toEqual(['1 people-tables']);
  });

  it('leaves prose, comments, other tables and column aliases alone', () => {
    const source = [
      '// select * from contacts: this comment is prose, not SQL',
      "export const message = 'Unique contacts reached from contacts in the last 24 hours.';",
      'export const waiting = (limit: number) => `Waiting: ${limit} unique contacts per rolling 24 hours`;',
      "export const route = '/api/gotv/voters/:id/contacts';",
      'export const counts = sql`select count(*) as contacts, c.consents from wa_contacts c join gotv_voter_contacts g on g.id = c.id`;',
      "export const payload = { contacts: [{ wa_id: '1' }] };",
    ].join('\n');
    expect(checkSource(file, source)).toEqual([]);
  });

  it('lets the audience module and the migrations name them', () => {
    const source = 'export const q = sql`select id from contacts`; export const m = `create table "consents" (id uuid)`;';
    expect(checkSource('src/modules/audience/audience.repository.ts', source)).toEqual([]);
    expect(checkSource('src/migrations/Migration20260101000000_X.ts', source)).toEqual([]);
  });
});

describe('positional SQL and execute()', () => {
  const file = 'src/modules/gotv/gotv.repository.ts';

  it('flags ? bind markers in SQL text and execute() calls that run text', () => {
    const source = [
      "await em.execute('update gotv_voters set status = ? where id = ? and claimed_by_id in (?)', [a, b, c]);",
      'await em.getConnection().execute(LOCK);',
      'await deps.orm.em.fork().execute();',
      'const q = `select id from gotv_voters where name ilike ? limit ? offset ?`;',
      "const r = `select case when ?::boolean then 'a' else ? end from t where x = ? or y between ? and ?`;",
    ].join('\n');
    expect(rules(checkSource(file, source))).toEqual([
      '1 positional-sql',
      '1 positional-sql',
      '1 positional-sql',
      '1 positional-sql',
      '2 positional-sql',
      '3 positional-sql',
      '4 positional-sql',
      '4 positional-sql',
      '4 positional-sql',
      '5 positional-sql',
      '5 positional-sql',
      '5 positional-sql',
      '5 positional-sql',
      '5 positional-sql',
    ]);
    expect(brief(checkSource(file, source)).slice(0, 2)).toEqual([
      '1:10 positional-sql em.execute(…) runs SQL outside Database',
      '1:51 positional-sql SQL text uses a positional ? marker',
    ]);
  });

  it("leaves jsonb's ? operators, quoted and commented question marks, Kysely's execute() and prose alone", () => {
    const source = [
      'const a = sql`select id from wa_messages where payload ? ${key} and tags ?| array[${x}] and tags ?& ${y}`;',
      'const b = sql`select \'why?\' as q, "odd?name" from t -- really?\n where x = ${x} /* and y = ? */`;',
      "const c = await tables<DB>().selectFrom('wa_contacts').selectAll().execute();",
      "const d = 'Are you sure? This cannot be undone.';",
      'const e = sql`select $tag$ a ? b $tag$ from t`;',
    ].join('\n');
    expect(checkSource(file, source)).toEqual([]);
  });

  it('lets src/kernel/sql.ts run statements', () => {
    expect(checkSource('src/kernel/sql.ts', "await client.execute('select ? as x', [1]);")).toEqual([]);
  });

  it('finds the markers by offset', () => {
    expect(positionalMarkers('select ? , x ? y from t where a = ?')).toEqual([7, 34]);
    expect(positionalMarkers('values (?, ?)')).toEqual([8, 11]);
    expect(positionalMarkers("where x ? 'k' and y = ??")).toEqual([22]);
  });
});

describe('knex', () => {
  it('flags knex imports and references but not the word in comments or prose', () => {
    const source = [
      "import type { Knex } from '@mikro-orm/knex';",
      'const k = em.getKnex();',
      "const kx = await import('knex');",
      '// knex used to build these; now the sql tag does',
      "const note = 'no knex here';",
    ].join('\n');
    expect(brief(checkSource('src/modules/qr/qr.repository.ts', source))).toEqual([
      '1:15 knex refers to Knex',
      "1:27 knex imports '@mikro-orm/knex'",
      '2:14 knex refers to getKnex',
      "3:25 knex imports 'knex'",
    ]);
  });
});

describe('the tree check', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'boundaries-'));
    write('src/modules/audience/audience.repository.ts', 'export const q = sql`select id from contacts`;\n');
    write('src/modules/email/email.stats.ts', "\nexport const n = (em: EM) => em.execute('select count(*) from consents where id = ?', [1]);\n");
    write('src/migrations/Migration1.ts', 'this.addSql(\'create table "contacts" (id uuid primary key);\');\n');
    write('src/kernel/sql.ts', "export const run = (c: C) => c.execute('select ?', [1]);\n");
    write('src/types.d.ts', "declare const x: 'select ? from contacts';\n");
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads every .ts file under src and reports file:line, what and why', () => {
    const violations = checkTree(root);
    expect(violations.map((v) => `${v.file}:${v.line} ${v.rule}`)).toEqual([
      'src/modules/email/email.stats.ts:2 positional-sql',
      'src/modules/email/email.stats.ts:2 people-tables',
      'src/modules/email/email.stats.ts:2 positional-sql',
    ]);
    const report = formatViolations(violations);
    expect(report).toContain('src/modules/email/email.stats.ts:2:33  [positional-sql] em.execute(…) runs SQL outside Database');
    expect(report).toContain('why: only src/modules/audience names the people tables');
    expect(report).toContain('3 data-boundary violations (2 positional-sql, 1 people-tables).');
  });
});

describe('the allowance for files still being converted', () => {
  const violation = (file: string, line: number): Violation => ({ file, line, column: 1, rule: 'positional-sql', what: 'x', why: 'y' });

  it('lets a file keep the violations it had, and no more', () => {
    const now = [violation('src/a.ts', 1), violation('src/a.ts', 2), violation('src/b.ts', 3)];
    const allowance = allowanceOf(now);
    expect(allowance).toEqual({ 'src/a.ts positional-sql': 2, 'src/b.ts positional-sql': 1 });
    expect(beyondAllowance(now, allowance)).toEqual([]);
    expect(beyondAllowance([...now, violation('src/a.ts', 9)], allowance)).toHaveLength(3);
    expect(beyondAllowance([violation('src/c.ts', 1)], allowance)).toHaveLength(1);
    expect(beyondAllowance([violation('src/a.ts', 1)], allowance)).toEqual([]);
  });
});
