import { Alert, Paper, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from './api';
import { problemMessage, type ProblemMessages } from './problems';

/** A bordered section named by its heading. */
export function PanelSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={id}>
      <Title order={2} size="h4" id={id} mb="xs">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/**
 * What a list answer holds, as a table with a caption for screen readers (or a line saying it is
 * empty), its load refusal above; with `action`, a last "Acciones" column.
 */
export function ListTable<T extends { id: string }>({
  list,
  caption,
  empty,
  headers,
  cells,
  action,
}: {
  list: UseQueryResult<{ data: T[] }>;
  caption: string;
  empty: string;
  headers: readonly string[];
  cells: (row: T) => readonly ReactNode[];
  action?: (row: T) => ReactNode;
}) {
  const rows = list.data?.data ?? [];
  return (
    <>
      {list.isError && <Alert color="red">{problemMessage(list.error)}</Alert>}
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed" mb="sm">
          {empty}
        </Text>
      ) : (
        <Table mb="sm">
          <Table.Caption>
            <VisuallyHidden>{caption}</VisuallyHidden>
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              {headers.map((header) => (
                <Table.Th key={header}>{header}</Table.Th>
              ))}
              {action && <Table.Th>Acciones</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.id}>
                {cells(row).map((cell, index) => (
                  <Table.Td key={index}>{cell}</Table.Td>
                ))}
                {action && <Table.Td>{action(row)}</Table.Td>}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </>
  );
}

/** Deletes and refreshes what showed it; a refusal is told in a notification, as nothing on the page holds it. */
export async function deleteAndRefresh(path: string, refresh: () => Promise<unknown>, problems: ProblemMessages): Promise<void> {
  try {
    await api.delete(path);
    await refresh();
  } catch (error) {
    notifications.show({ color: 'red', message: problemMessage(error, problems) });
  }
}
