/**
 * Data-boundary check for CI (`npm run check:boundaries`): reads every TypeScript file under src/
 * with the compiler's parser and fails, listing file:line, what and why, when
 *   - a file outside the audience module names the people tables in SQL text;
 *   - SQL text uses positional `?` markers, or SQL runs through an EntityManager's or a
 *     connection's `execute(...)` instead of `Database` (src/kernel/sql.ts is the one exception);
 *   - anything refers to knex.
 * Only string and template literals are read, so prose in comments never trips it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export type BoundaryRule = 'people-tables' | 'positional-sql' | 'knex';

export interface Violation {
  /** Path relative to the checked root, with forward slashes. */
  file: string;
  line: number;
  column: number;
  rule: BoundaryRule;
  what: string;
  why: string;
}

const PEOPLE_TABLES = ['contacts', 'contact_origins', 'consent_texts', 'consents'] as const;

const WHY: Record<BoundaryRule, string> = {
  'people-tables': "only src/modules/audience names the people tables; read them through audience's index.ts (functions or fragments such as audienceContacts(), segmentMembers())",
  'positional-sql': "values go into the sql tag (sql`… ${value} …`), which numbers them, and statements run through Database (deps.db or a repository's Queries)",
  knex: 'MikroORM 7 has no knex; write statements with the sql tag or tables<DB>() from src/kernel/sql.ts',
};

/** Files exempt from a rule: the owner of the tables, the schema's history, the one SQL runner. */
function exempt(file: string, rule: BoundaryRule): boolean {
  if (rule === 'people-tables') return file.startsWith('src/modules/audience/') || file.startsWith('src/migrations/');
  if (rule === 'positional-sql') return file === 'src/kernel/sql.ts';
  return false;
}

/** Keywords in SQL as code writes it, all lower or all upper case: capitalised prose is not SQL. */
const kw = (word: string) => `(?:${word}|${word.toUpperCase()})`;
const IDENT = `[\\w"$.]+`;

/** Shapes only a statement has; matched against literal text that is not already known to be SQL. */
const SQL_SHAPES = new RegExp(
  [
    `\\b${kw('select')}\\b[\\s\\S]*?\\b${kw('from')}\\s+(?:${IDENT}|\\()`,
    `\\b${kw('insert')}\\s+${kw('into')}\\s+${IDENT}`,
    `\\b${kw('update')}\\s+${IDENT}(?:\\s+\\w+)?\\s+${kw('set')}\\b`,
    `\\b${kw('delete')}\\s+${kw('from')}\\s+${IDENT}`,
    `\\b${kw('with')}\\s+(?:${kw('recursive')}\\s+)?${IDENT}\\s+${kw('as')}\\s*(?:${kw('not')}\\s+)?(?:${kw('materialized')}\\s+)?\\(`,
    `\\b${kw('join')}\\s+${IDENT}(?:\\s+\\w+)?\\s+${kw('on')}\\b`,
    `\\b(?:${kw('create')}|${kw('alter')}|${kw('drop')})\\s+(?:${kw('unique')}\\s+)?(?:${kw('table')}|${kw('index')})\\b`,
    `\\b${kw('truncate')}\\s+${IDENT}`,
    `^\\s*${kw('select')}\\s+\\S`,
  ].join('|'),
);

/** A people table where SQL puts a table: after from/join/into/…, or qualifying a column. */
const PEOPLE_TABLE_IN_SQL = new RegExp(
  [
    `\\b(?:from|join|into|update|table|references|truncate|using)\\s+(?:only\\s+)?(?:"?public"?\\.)?"?(${PEOPLE_TABLES.join('|')})"?(?![\\w$])`,
    `(?<![\\w$."])"?(${PEOPLE_TABLES.join('|')})"?\\.["\\w]`,
  ].join('|'),
  'gi',
);

/** Query-builder calls whose string argument is a table (`selectFrom('contacts as c')`). */
const TABLE_METHODS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'crossJoin', 'table']);
const PEOPLE_TABLE_NAME = new RegExp(`^\\s*(?:public\\.)?(${PEOPLE_TABLES.join('|')})(?:\\s+as\\s+\\w+)?\\s*$`, 'i');

/** Calls whose first argument is SQL text whatever it looks like. */
const SQL_TAKING_METHODS = new Set(['execute', 'addSql', 'raw', 'query']);

/** Words after which a `?` stands for a value, not for PostgreSQL's jsonb key-exists operator. */
const VALUE_POSITION_WORDS = new Set([
  'select',
  'and',
  'or',
  'not',
  'in',
  'is',
  'like',
  'ilike',
  'between',
  'limit',
  'offset',
  'then',
  'else',
  'when',
  'values',
  'by',
  'returning',
  'set',
  'any',
  'all',
  'distinct',
  'case',
  'where',
  'on',
  'having',
]);

/** Blanks out quoted strings, quoted identifiers, dollar-quoted bodies and comments, keeping offsets. */
function codeOnly(sqlText: string): string {
  const blank = (match: string) => match.replace(/[^\n]/g, ' ');
  return sqlText.replace(/\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$/g, blank).replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, blank);
}

/** Offsets of `?` characters used as bind markers in SQL text. */
export function positionalMarkers(sqlText: string): number[] {
  const code = codeOnly(sqlText);
  const found: number[] = [];
  for (let index = 0; index < code.length; index++) {
    if (code[index] !== '?') continue;
    const next = code[index + 1];
    if (next === '|' || next === '&') continue; // jsonb ?| and ?& take an array on their right
    if (code[index - 1] === '?') continue; // the second half of knex's `??`, already reported
    const before = code.slice(0, index).trimEnd();
    const last = before.at(-1);
    if (last === undefined || !/[\w)\]"'$]/.test(last)) {
      found.push(index); // after `(`, `,`, `=`, an operator, or at the start: a value goes here
      continue;
    }
    const word = /([A-Za-z_]+)$/.exec(before)?.[1]?.toLowerCase();
    if (word !== undefined && VALUE_POSITION_WORDS.has(word)) found.push(index);
  }
  return found;
}

interface Piece {
  /** Where this piece starts in the joined text. */
  offset: number;
  /** Where its text starts in the source file. */
  start: number;
  text: string;
}

/** A literal's text as pieces (one per template part), joined with a stand-in for each `${…}`. */
function literalPieces(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression): { text: string; pieces: Piece[] } {
  if (!ts.isTemplateExpression(node)) return { text: node.text, pieces: [{ offset: 0, start: node.getStart() + 1, text: node.text }] };
  const pieces: Piece[] = [];
  let text = '';
  const add = (part: ts.TemplateLiteralLikeNode, index: number) => {
    if (index > 0) text += ` $${index} `;
    pieces.push({ offset: text.length, start: part.getStart() + 1, text: part.text });
    text += part.text;
  };
  add(node.head, 0);
  node.templateSpans.forEach((span, index) => add(span.literal, index + 1));
  return { text, pieces };
}

function tagName(node: ts.Node): string | undefined {
  if (!ts.isTaggedTemplateExpression(node.parent)) return undefined;
  const tag = node.parent.tag;
  if (ts.isIdentifier(tag)) return tag.text;
  if (ts.isPropertyAccessExpression(tag)) return tag.name.text;
  return undefined;
}

/** The literal with any `as`, `satisfies`, `!` or parentheses around it, as its caller sees it. */
function outerExpression(node: ts.Node): ts.Node {
  let outer = node;
  while (ts.isParenthesizedExpression(outer.parent) || ts.isAsExpression(outer.parent) || ts.isSatisfiesExpression(outer.parent) || ts.isNonNullExpression(outer.parent)) {
    outer = outer.parent;
  }
  return outer;
}

function calledMethod(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  if (ts.isIdentifier(callee)) return callee.text;
  return undefined;
}

/** True when the literal is SQL: `sql`-tagged, passed as a statement, or shaped like one. */
function isSqlText(node: ts.Node, text: string): boolean {
  if (tagName(node) === 'sql') return true;
  const outer = outerExpression(node);
  const parent = outer.parent;
  if (ts.isCallExpression(parent) && parent.arguments[0] === outer) {
    const method = calledMethod(parent);
    if (method !== undefined && SQL_TAKING_METHODS.has(method)) return true;
  }
  return SQL_SHAPES.test(text);
}

/** Receivers whose `execute()` runs SQL text: the ORM's EntityManager and its connection. */
const EXECUTING_RECEIVER = /(?:^|\.)(?:em|entityManager|getEntityManager\(\)|fork\(\)|getConnection\(\)|connection|conn|getDriver\(\)|driver)$/;

/** Checks one source file; `file` is its path from the repository root (decides exemptions). */
export function checkSource(file: string, text: string): Violation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const violations: Violation[] = [];
  const report = (position: number, rule: BoundaryRule, what: string) => {
    if (exempt(file, rule)) return;
    const { line, character } = source.getLineAndCharacterOfPosition(position);
    violations.push({ file, line: line + 1, column: character + 1, rule, what, why: WHY[rule] });
  };

  /** Source position of an offset in a literal's joined text. */
  const positionIn = (pieces: Piece[], offset: number): number => {
    let piece = pieces[0]!;
    for (const candidate of pieces) if (candidate.offset <= offset) piece = candidate;
    const within = Math.min(Math.max(offset - piece.offset, 0), piece.text.length);
    const newlines = piece.text.slice(0, within).split('\n').length - 1;
    if (newlines === 0) return piece.start + within;
    // Multi-line template text: count lines in the source, which keeps template newlines as they are.
    const { line } = source.getLineAndCharacterOfPosition(piece.start);
    const column = within - piece.text.slice(0, within).lastIndexOf('\n') - 1;
    return source.getPositionOfLineAndCharacter(line + newlines, 0) + column;
  };

  const checkLiteral = (node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression) => {
    const { text, pieces } = literalPieces(node);
    const holder = outerExpression(node);
    if (ts.isStringLiteral(node) && ts.isCallExpression(holder.parent)) {
      const method = calledMethod(holder.parent);
      const table = PEOPLE_TABLE_NAME.exec(text)?.[1];
      if (method !== undefined && TABLE_METHODS.has(method) && table !== undefined) {
        report(node.getStart(), 'people-tables', `query builder ${method}('${text.trim()}') names the table ${table.toLowerCase()}`);
      }
    }
    if (ts.isStringLiteral(node) && ts.isPropertyAssignment(node.parent) && node.parent.name.getText(source) === 'tableName') {
      const table = PEOPLE_TABLE_NAME.exec(text)?.[1];
      if (table !== undefined) report(node.getStart(), 'people-tables', `an entity mapped to the table ${table.toLowerCase()}`);
    }
    if (!isSqlText(node, text)) return;
    for (const match of text.matchAll(PEOPLE_TABLE_IN_SQL)) {
      const table = (match[1] ?? match[2] ?? '').toLowerCase();
      const at = match.index + match[0].toLowerCase().indexOf(table);
      report(positionIn(pieces, at), 'people-tables', `SQL names the table ${table}`);
    }
    for (const at of positionalMarkers(text)) report(positionIn(pieces, at), 'positional-sql', 'SQL text uses a positional ? marker');
  };

  const checkExecute = (call: ts.CallExpression) => {
    const callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'execute') return;
    let target: ts.Expression = callee.expression;
    while (ts.isParenthesizedExpression(target) || ts.isAsExpression(target) || ts.isNonNullExpression(target) || ts.isSatisfiesExpression(target)) target = target.expression;
    const receiver = target.getText(source).replace(/\s+/g, '');
    // Kysely's own `execute()` takes nothing; one given SQL, or called on the ORM, runs text.
    if (call.arguments.length > 0 || EXECUTING_RECEIVER.test(receiver)) {
      report(callee.name.getStart(), 'positional-sql', `${receiver}.execute(…) runs SQL outside Database`);
    }
  };

  const mentionsKnex = (name: string) => /^(?:get)?knex$/i.test(name);

  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      checkLiteral(node);
      if (ts.isStringLiteral(node) && /(?:^|[/@])knex(?:$|\/)/.test(node.text) && isModuleSpecifier(node)) report(node.getStart(), 'knex', `imports '${node.text}'`);
    } else if (ts.isCallExpression(node)) {
      checkExecute(node);
    } else if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && mentionsKnex(node.text.replace(/^#/, ''))) {
      report(node.getStart(), 'knex', `refers to ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations.sort((a, b) => a.line - b.line || a.column - b.column);
}

function isModuleSpecifier(node: ts.StringLiteral): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return parent.moduleSpecifier === node;
  if (ts.isExternalModuleReference(parent)) return true;
  if (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent)) return true;
  if (ts.isCallExpression(parent)) {
    return parent.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(parent.expression) && parent.expression.text === 'require');
  }
  return false;
}

/** Every .ts file under `dir`, sorted, as paths relative to `root`. */
function sourceFiles(root: string, dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(root, path));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

/** Checks every TypeScript file under `root`/src. */
export function checkTree(root: string): Violation[] {
  return sourceFiles(root, 'src').flatMap((path) => checkSource(relative(root, join(root, path)).split(sep).join('/'), readFileSync(join(root, path), 'utf8')));
}

export function formatViolations(violations: readonly Violation[]): string {
  const lines = violations.map((v) => `${v.file}:${v.line}:${v.column}  [${v.rule}] ${v.what}\n    why: ${v.why}`);
  const counts = new Map<BoundaryRule, number>();
  for (const v of violations) counts.set(v.rule, (counts.get(v.rule) ?? 0) + 1);
  const summary = [...counts].map(([rule, count]) => `${count} ${rule}`).join(', ');
  return `${lines.join('\n')}\n\n${violations.length} data-boundary violation${violations.length === 1 ? '' : 's'} (${summary}).`;
}

/** Violations a file may still have per rule while it waits to be converted: `{ "file rule": count }`. */
export type Allowance = Record<string, number>;

const allowanceKey = (violation: Violation) => `${violation.file} ${violation.rule}`;

/** The current violations as an allowance: what `--record` writes. */
export function allowanceOf(violations: readonly Violation[]): Allowance {
  const allowance: Allowance = {};
  for (const violation of violations) allowance[allowanceKey(violation)] = (allowance[allowanceKey(violation)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(allowance).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The violations beyond the allowance: every violation of a file and rule that has more than it is
 * allowed (which of them is new cannot be told apart), so the debt can only shrink.
 */
export function beyondAllowance(violations: readonly Violation[], allowance: Allowance): Violation[] {
  const counts = allowanceOf(violations);
  return violations.filter((violation) => (counts[allowanceKey(violation)] ?? 0) > (allowance[allowanceKey(violation)] ?? 0));
}

const ALLOWANCE_FILE = 'scripts/check-boundaries.allowed.json';

if (require.main === module) {
  const record = process.argv.includes('--record');
  const root = process.argv.slice(2).find((argument) => !argument.startsWith('--')) ?? process.cwd();
  const violations = checkTree(root);
  const allowanceFile = join(root, ALLOWANCE_FILE);
  if (record) {
    writeFileSync(allowanceFile, `${JSON.stringify(allowanceOf(violations), null, 2)}\n`);
    process.stdout.write(`Recorded ${violations.length} allowed violation(s) in ${ALLOWANCE_FILE}.\n`);
    process.exit(0);
  }
  const allowance = existsSync(allowanceFile) ? (JSON.parse(readFileSync(allowanceFile, 'utf8')) as Allowance) : {};
  const beyond = beyondAllowance(violations, allowance);
  if (beyond.length > 0) {
    process.stderr.write(`${formatViolations(beyond)}\nFix them (the allowance in ${ALLOWANCE_FILE} only lets files that are still being converted keep what they had).\n`);
    process.exit(1);
  }
  const shrunk = Object.entries(allowance).some(([key, count]) => (allowanceOf(violations)[key] ?? 0) < count);
  const debt = violations.length ? ` ${violations.length} allowed violation(s) remain in files still being converted.` : '';
  process.stdout.write(
    `Data boundaries: nothing beyond the allowance.${debt}${shrunk ? ` Some files have fewer than allowed: run \`npm run check:boundaries -- --record\` to lower ${ALLOWANCE_FILE}.` : ''}\n`,
  );
}
