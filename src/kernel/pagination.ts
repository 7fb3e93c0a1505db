import { Cursor, DriverException, type EntityName, type FilterQuery, type QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from './errors';

import type { Page, PageRequest } from './page-schemas';
export { pageQueryShape, pageSchema, type Page, type PageRequest } from './page-schemas';

function assertCursorShape(cursor: string, keys: number): void {
  let decoded: unknown;
  try {
    decoded = Cursor.decode(cursor);
  } catch {
    decoded = undefined;
  }
  const valid =
    Array.isArray(decoded) &&
    decoded.length === keys &&
    decoded.every((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value) || value instanceof Date);
  if (!valid) throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
}

/**
 * Keyset pagination on top of MikroORM's cursor support: stable under inserts, no OFFSET scans,
 * no count query. The order must end in a unique key (the id) so that no row is skipped.
 */
export async function findPage<T extends object, Out>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: PageRequest,
  orderBy: QueryOrderMap<T>,
  present: (row: T) => Out,
  options: { populate?: readonly string[] } = {},
): Promise<Page<Out>> {
  if (page.cursor) assertCursorShape(page.cursor, Object.keys(orderBy).length);
  try {
    const result = await em.findByCursor(entity, {
      where: where as FilterQuery<NoInfer<T>>,
      first: page.limit,
      after: page.cursor,
      orderBy,
      includeCount: false,
      // Relations to load with each row (joined), e.g. a lead's contact.
      populate: options.populate as never,
    });
    return {
      data: result.items.map((row) => present(row as T)),
      nextCursor: result.hasNextPage ? result.endCursor : null,
    };
  } catch (error) {
    // A cursor whose values do not fit the columns (edited by hand) is the client's mistake.
    if (page.cursor && error instanceof DriverException && /^22/.test(String(error.code))) {
      throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
    }
    throw error;
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
