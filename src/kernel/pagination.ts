import { Cursor, DriverException } from '@mikro-orm/core';
import { sql as builderSql, type SelectQueryBuilder } from 'kysely';
import { invalidField } from './errors';
import type { Queries } from './sql';

import type { Page, PageRequest } from './page-schemas';
export { pageQueryShape, pageSchema, type Page, type PageRequest } from './page-schemas';

function assertCursorShape(cursor: string, keys: number): void {
  let decoded: unknown;
  try {
    decoded = Cursor.decode(cursor);
  } catch {
    decoded = undefined;
  }
  const valid = Array.isArray(decoded) && decoded.length === keys && decoded.every((value) => ['string', 'number', 'boolean'].includes(typeof value) || value instanceof Date);
  if (!valid) throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
}

/** A cursor whose values do not fit the columns (edited by hand) is the client's mistake. */
function cursorRefused(page: PageRequest, error: unknown): unknown {
  if (page.cursor && error instanceof DriverException && /^22/.test(String(error.code))) return invalidField('query.cursor', 'The cursor is not one this list gave out.');
  return error;
}

/**
 * A key of `queryPage`: a selected column, by its name (`id`) or, when a join makes the bare name
 * ambiguous, qualified by its table's alias (`l.id`, read back from the row's `id`).
 */
export type PageKey<Row> = (keyof Row & string) | `${string}.${keyof Row & string}`;

/**
 * The same keyset paging for a statement of the typed query builder, with cursors of the same form:
 * the rows ordered by `keys` (selected columns of the table, not null, the last one unique: the
 * id), all in one `direction`; a page after a cursor starts past its row by one row comparison.
 */
export async function queryPage<DB, Table extends keyof DB, Row extends object>(
  q: Queries,
  query: SelectQueryBuilder<DB, Table, Row>,
  keys: readonly PageKey<Row>[],
  direction: 'asc' | 'desc',
  page: PageRequest,
): Promise<Page<Row>> {
  let paged = query;
  if (page.cursor) {
    assertCursorShape(page.cursor, keys.length);
    const after = Cursor.decode(page.cursor) as unknown[];
    const columns = builderSql.join(keys.map((key) => builderSql.ref(key)));
    paged = paged.where(builderSql<boolean>`(${columns}) ${builderSql.raw(direction === 'desc' ? '<' : '>')} (${builderSql.join(after)})`);
  }
  for (const key of keys) paged = paged.orderBy(builderSql.ref(key), direction);
  const fields = keys.map((key) => key.slice(key.lastIndexOf('.') + 1));
  try {
    const rows = await q.rows(paged.limit(page.limit + 1));
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1] as Record<string, unknown> | undefined;
    return { data, nextCursor: rows.length > page.limit && last ? Cursor.encode(fields.map((field) => last[field])) : null };
  } catch (error) {
    throw cursorRefused(page, error);
  }
}

/**
 * The same keyset paging over keys already in hand (a computed list rather than a table), in their
 * string order: the page's keys and the cursor after the last of them.
 */
export function keysPage(keys: readonly string[], page: PageRequest): { keys: string[]; nextCursor: string | null } {
  let after: string | undefined;
  if (page.cursor) {
    assertCursorShape(page.cursor, 1);
    const [key] = Cursor.decode(page.cursor) as unknown[];
    if (typeof key !== 'string') throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
    after = key;
  }
  const following = [...keys].sort().filter((key) => after === undefined || key > after);
  const chosen = following.slice(0, page.limit);
  return { keys: chosen, nextCursor: following.length > page.limit ? Cursor.encode([chosen[chosen.length - 1]]) : null };
}

/** The same page with each item presented: the cursor goes through unchanged. */
export function mapPage<In, Out>(page: Page<In>, present: (item: In) => Out): Page<Out> {
  return { data: page.data.map((item) => present(item)), nextCursor: page.nextCursor };
}
