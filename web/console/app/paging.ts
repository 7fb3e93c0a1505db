import { useInfiniteQuery, type InfiniteData, type QueryKey } from '@tanstack/react-query';
import type { Page } from '../../lib/api-types';
import { api } from './api';

/** A keyset-paged list as TanStack Query keeps it: the pages loaded so far, each with the cursor that follows it. */
export type CursorPages<Row> = InfiniteData<Page<Row>, string | null>;

/** `path` with the API's `limit` and `cursor` added. */
export function pagePath(path: string, limit: number, cursor: string | null): string {
  const separator = path.includes('?') ? '&' : '?';
  return `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

/**
 * A list that grows by "Cargar más" (an inbox, a thread), where `ServerTable` turns pages: the
 * API's keyset cursors, one page at a time, never a count. `key` is the cached answer's name; live
 * events patch it with `mapRows`/`setQueryData`.
 */
export function useCursorPages<Row>(key: QueryKey, path: string, limit = 25, enabled = true) {
  return useInfiniteQuery<Page<Row>, Error, CursorPages<Row>, QueryKey, string | null>({
    queryKey: key,
    queryFn: ({ pageParam }) => api.get<Page<Row>>(pagePath(path, limit, pageParam)),
    initialPageParam: null,
    getNextPageParam: (last: Page<Row>) => last.nextCursor,
    enabled,
  });
}

/** Every row loaded, in the server's order, each once (a row a live event moved may show up on a later page too). */
export function loadedRows<Row extends { id: string }>(data: CursorPages<Row> | undefined): Row[] {
  const seen = new Set<string>();
  const rows: Row[] = [];
  for (const page of data?.pages ?? []) {
    for (const row of page.data) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      rows.push(row);
    }
  }
  return rows;
}

/** The same pages with each row passed through `change` (return the row itself to keep it, null to drop it). */
export function mapRows<Row>(data: CursorPages<Row> | undefined, change: (row: Row) => Row | null): CursorPages<Row> | undefined {
  if (!data) return data;
  let changed = false;
  const pages = data.pages.map((page) => {
    const rows: Row[] = [];
    for (const row of page.data) {
      const next = change(row);
      if (next !== row) changed = true;
      if (next !== null) rows.push(next);
    }
    return rows.length === page.data.length && rows.every((row, index) => row === page.data[index]) ? page : { ...page, data: rows };
  });
  return changed ? { ...data, pages } : data;
}
