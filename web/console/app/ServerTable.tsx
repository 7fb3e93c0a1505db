import { Alert, Button, Group, Loader, NativeSelect, Table, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import type { Page } from '../../lib/api-types';
import { api, queryClient } from './api';
import { problemMessage } from './problems';

/** The cached pages of every server table listing `path` (`/api/pqrs`), whatever their filters, sort or cursor. */
const listsOf = (path: string) => ({
  predicate: (query: { queryKey: readonly unknown[] }) => {
    const [kind, url] = query.queryKey;
    return kind === 'list' && typeof url === 'string' && (url === path || url.startsWith(`${path}?`));
  },
});

/** Refetches the server tables of `path` that are on screen (the others when next shown): after a live event, rows may come, go or move. */
export function invalidateServerLists(path: string): Promise<void> {
  return queryClient.invalidateQueries(listsOf(path));
}

/** Changes rows of the server tables of `path` in place, at once (a live event's new status), before their refetch confirms it. */
export function patchServerLists<Row>(path: string, patch: (row: Row) => Row): void {
  for (const [key, page] of queryClient.getQueriesData<Page<Row>>(listsOf(path))) {
    if (page) queryClient.setQueryData<Page<Row>>(key, { ...page, data: page.data.map(patch) });
  }
}

export interface Column<Row> {
  key: string;
  header: string;
  render: (row: Row) => ReactNode;
  /** The API's `sort` value for this column, when the list can be sorted by it. */
  sortKey?: string;
  /** Right-aligned numbers. */
  numeric?: boolean;
}

export interface Sort {
  key: string;
  direction: 'asc' | 'desc';
}

export interface ServerTableProps<Row, Answer extends Page<Row> = Page<Row>> {
  /** What the table lists, for screen readers (a visually hidden caption). */
  caption: string;
  /** The list endpoint with its filters and sort as that API names them (`/api/x?status=open`); the table adds `limit` and `cursor`. */
  path: string;
  columns: Column<Row>[];
  rowKey: (row: Row) => string;
  sort?: Sort;
  onSortChange?: (sort: Sort) => void;
  /** What an empty list says (with no filters, and with them). */
  empty?: ReactNode;
  /** Highlights a row (the open conversation). */
  selectedKey?: string | undefined;
  pageSizes?: number[];
  /** What a refusal of the list says (a module's own codes in Spanish); the shell's wording by default. */
  describeError?: (error: unknown) => string;
  /** Asks again every few seconds while the page shown holds rows that change without a live event (a template in review). */
  refetchWhile?: (rows: Row[]) => boolean;
  /** Shown above the table from the page's answer, for what a list answers besides its rows (the totals of every matching row). */
  above?: (answer: Answer) => ReactNode;
}

/**
 * A list the server pages: the API's keyset cursors, never a count or an offset, so a list of a
 * million rows costs the same as one of fifty. The table keeps the cursors of the pages it has
 * passed to go back; a change of filter or sort (a new `path`) starts again at the first page.
 */
export function ServerTable<Row, Answer extends Page<Row> = Page<Row>>({
  caption,
  path,
  columns,
  rowKey,
  sort,
  onSortChange,
  empty,
  selectedKey,
  pageSizes = [25, 50, 100],
  describeError = problemMessage,
  refetchWhile,
  above,
}: ServerTableProps<Row, Answer>) {
  const [limit, setLimit] = useState(pageSizes[0] ?? 50);
  // The cursors passed belong to one list (path and page size): another list starts at its first page.
  const listKey = `${path}|${limit}`;
  const [paging, setPaging] = useState<{ listKey: string; cursors: (string | null)[] }>({ listKey, cursors: [null] });
  const cursors = paging.listKey === listKey ? paging.cursors : [null];
  const setCursors = (next: (list: (string | null)[]) => (string | null)[]) => setPaging({ listKey, cursors: next(cursors) });
  const cursor = cursors[cursors.length - 1] ?? null;
  const separator = path.includes('?') ? '&' : '?';
  const url = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const page = useQuery({
    queryKey: ['list', url],
    queryFn: () => api.get<Answer>(url),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (refetchWhile?.(query.state.data?.data ?? []) ? 5000 : false),
  });
  const rows = page.data?.data ?? [];
  const pageNumber = cursors.length;

  const header = (column: Column<Row>) => {
    if (!column.sortKey || !onSortChange) return column.header;
    const active = sort?.key === column.sortKey;
    const next: Sort = { key: column.sortKey, direction: active && sort?.direction === 'asc' ? 'desc' : 'asc' };
    return (
      <UnstyledButton onClick={() => onSortChange(next)} fw={600} fz="sm">
        {column.header} {active ? (sort?.direction === 'asc' ? '▲' : '▼') : ''}
        <VisuallyHidden>{active ? (sort?.direction === 'asc' ? ' (orden ascendente)' : ' (orden descendente)') : ' (ordenar)'}</VisuallyHidden>
      </UnstyledButton>
    );
  };

  return (
    <div>
      {page.isError && (
        <Alert color="red" mb="sm" role="alert">
          {describeError(page.error)}
        </Alert>
      )}
      {above && page.data && above(page.data)}
      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover verticalSpacing="xs" aria-busy={page.isFetching}>
          <Table.Caption>
            <VisuallyHidden>{caption}</VisuallyHidden>
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => (
                <Table.Th
                  key={column.key}
                  ta={column.numeric ? 'right' : undefined}
                  aria-sort={sort && sort.key === column.sortKey && column.sortKey ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  {header(column)}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={rowKey(row)} bg={selectedKey === rowKey(row) ? 'var(--mantine-color-blue-light)' : undefined}>
                {columns.map((column) => (
                  <Table.Td key={column.key} ta={column.numeric ? 'right' : undefined}>
                    {column.render(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {page.isPending && (
        <Group justify="center" p="md">
          <Loader size="sm" aria-label="Cargando" />
        </Group>
      )}
      {page.isSuccess && rows.length === 0 && (
        <Text c="dimmed" ta="center" p="md">
          {empty ?? 'No hay nada que mostrar.'}
        </Text>
      )}
      <Group justify="space-between" mt="sm">
        <NativeSelect
          aria-label="Filas por página"
          size="xs"
          value={String(limit)}
          data={pageSizes.map((size) => ({ value: String(size), label: `${size} por página` }))}
          onChange={(event) => setLimit(Number(event.currentTarget.value))}
        />
        <Group gap="xs">
          <Text size="sm" c="dimmed" aria-live="polite">
            Página {pageNumber}
          </Text>
          <Button size="xs" variant="default" disabled={pageNumber === 1} onClick={() => setCursors((list) => list.slice(0, -1))}>
            Anterior
          </Button>
          <Button
            size="xs"
            variant="default"
            disabled={!page.data?.nextCursor || page.isPlaceholderData}
            onClick={() => {
              const next = page.data?.nextCursor;
              if (next) setCursors((list) => [...list, next]);
            }}
          >
            Siguiente
          </Button>
        </Group>
      </Group>
    </div>
  );
}
