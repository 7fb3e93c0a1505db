import { Anchor, Badge, Button, Group, NativeSelect, SimpleGrid, Stack, Table, Text, TextInput, Title, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { api } from '../app/api';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDate, formatNumber, formatPesos, localToday } from '../app/format';
import { PageTitle } from '../app/pages';
import { SearchForm } from '../app/SearchForm';
import { ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { CapGauge } from './CapGauge';
import { ENTRIES, KIND_LABELS, SUMMARY, financeProblem, signedPesos, summaryKey, type Entry, type EntryPage, type Summary } from './data';
import { FinanceTabs } from './FinanceTabs';

const KIND_OPTIONS = [
  { value: '', label: 'Ingresos y gastos' },
  { value: 'income', label: 'Ingresos' },
  { value: 'expense', label: 'Gastos' },
];

export const useSummary = () => useQuery({ queryKey: summaryKey, queryFn: () => api.get<Summary>(SUMMARY) });

function EntryStatus({ entry }: { entry: Entry }) {
  const badges: { label: string; tone: keyof typeof TONES }[] = [];
  if (entry.reversesId) badges.push({ label: 'Reversión', tone: 'gray' });
  if (entry.reversedById) badges.push({ label: 'Reversado', tone: 'gray' });
  if (entry.override) badges.push({ label: 'Autorizado sobre el límite', tone: 'orange' });
  if (entry.periodClosed) badges.push({ label: 'Periodo cerrado', tone: 'blue' });
  badges.push(entry.receipt ? { label: 'Con soporte', tone: 'green' } : { label: 'Sin soporte', tone: 'red' });
  return (
    <Group gap={4}>
      {badges.map((badge) => (
        <Badge key={badge.label} color={TONES[badge.tone].color} c={TONES[badge.tone].text} variant="light" tt="none">
          {badge.label}
        </Badge>
      ))}
    </Group>
  );
}

/**
 * `/finanzas`: the ledger under the Formulario 5B catalogue. The catalogue's codes with their
 * entries and totals (choosing one filters the ledger), the cap's gauge, and the entries paged by
 * the server, filtered by period, kind, code and text, with the totals of every matching entry.
 */
export default function LedgerPage() {
  const { user } = useSignedIn();
  const records = rolePermitted(user.role, financePolicy.roles('record'));
  const filters = useUrlFilters(['desde', 'hasta', 'tipo', 'codigo', 'q', 'evento'] as const);
  const { desde, hasta, tipo, codigo, q, evento } = filters.values;
  const summary = useSummary();
  const rangeError = desde && hasta && hasta < desde ? 'Debe ser el mismo día de «Desde» o uno posterior.' : null;
  const path = `${ENTRIES}${queryString({ kind: tipo, code: codigo, q, eventId: evento, ...(rangeError ? {} : { from: desde, to: hasta }) })}`;

  const columns: Column<Entry>[] = [
    {
      key: 'date',
      header: 'Fecha',
      render: (entry) => (
        <Anchor component={Link} to={`/finanzas/movimientos/${entry.id}`} style={{ whiteSpace: 'nowrap' }}>
          {formatDate(entry.date)}
          <VisuallyHidden>{`: ${KIND_LABELS[entry.kind].toLowerCase()} de ${signedPesos(entry.amount)}, ${entry.counterparty.name}`}</VisuallyHidden>
        </Anchor>
      ),
    },
    {
      key: 'code',
      header: 'Código',
      render: (entry) => (
        <Stack gap={0}>
          <Text fw={600} size="sm">
            {entry.code}
          </Text>
          <Text size="xs" c="dimmed">
            {entry.codeName}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'counterparty',
      header: 'Contraparte',
      render: (entry) => (
        <Stack gap={0}>
          <Text size="sm">{entry.counterparty.name}</Text>
          <Text size="xs" c="dimmed">
            {KIND_LABELS[entry.kind]}
          </Text>
          {entry.counterparty.idNumber && (
            <Text size="xs" c="dimmed">
              {entry.counterparty.idNumber}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'description', header: 'Descripción', render: (entry) => entry.description ?? '—' },
    {
      key: 'amount',
      header: 'Valor (COP)',
      numeric: true,
      render: (entry) => (
        <Text size="sm" fw={600} c={entry.kind === 'income' ? TONES.green.text : undefined} style={{ whiteSpace: 'nowrap' }}>
          {signedPesos(entry.amount)}
        </Text>
      ),
    },
    { key: 'status', header: 'Estado', render: (entry) => <EntryStatus entry={entry} /> },
  ];

  const byCode = summary.data?.byCode ?? [];
  return (
    <>
      <PageTitle
        actions={
          records && (
            <Button component={Link} to="/finanzas/nuevo">
              Registrar movimiento
            </Button>
          )
        }
      >
        Finanzas
      </PageTitle>
      <FinanceTabs />
      <Stack gap="lg">
        {summary.data && <CapGauge summary={summary.data} compact />}
        <section aria-labelledby="finance-catalogue-title">
          <Title order={2} size="h4" id="finance-catalogue-title" mb="xs">
            Catálogo del Formulario 5B
          </Title>
          <Text size="sm" c="dimmed" mb="xs">
            Cada código con sus movimientos y su total neto (reversiones descontadas). Elija uno para ver sus movimientos en el libro.
          </Text>
          <Table.ScrollContainer minWidth={500}>
            <Table verticalSpacing={4}>
              <Table.Caption>
                <VisuallyHidden>Códigos del catálogo con sus movimientos y totales</VisuallyHidden>
              </Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Código</Table.Th>
                  <Table.Th>Concepto</Table.Th>
                  <Table.Th ta="right">Movimientos</Table.Th>
                  <Table.Th ta="right">Total</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {byCode.map((row) => (
                  <Table.Tr key={row.code} bg={codigo === row.code ? 'var(--mantine-color-blue-light)' : undefined}>
                    <Table.Td>
                      <UnstyledButton
                        fw={600}
                        fz="sm"
                        td="underline"
                        aria-pressed={codigo === row.code}
                        aria-label={`Filtrar el libro por ${row.code} ${row.name}`}
                        onClick={() => filters.set({ codigo: codigo === row.code ? undefined : row.code, tipo: undefined })}
                      >
                        {row.code}
                      </UnstyledButton>
                    </Table.Td>
                    <Table.Td>{row.name}</Table.Td>
                    <Table.Td ta="right">{formatNumber(row.entries)}</Table.Td>
                    <Table.Td ta="right">{formatPesos(row.total)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </section>
        <section aria-labelledby="finance-ledger-title">
          <Title order={2} size="h4" id="finance-ledger-title" mb="xs">
            Libro de movimientos{codigo ? ` · ${codigo}` : ''}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} mb="sm">
            <TextInput
              type="date"
              label="Desde"
              max={localToday()}
              value={desde ?? ''}
              onChange={(event) => filters.set({ desde: event.currentTarget.value }, { replace: true })}
            />
            <TextInput
              type="date"
              label="Hasta"
              max={localToday()}
              value={hasta ?? ''}
              error={rangeError}
              onChange={(event) => filters.set({ hasta: event.currentTarget.value }, { replace: true })}
            />
            <NativeSelect label="Tipo" data={KIND_OPTIONS} value={tipo ?? ''} onChange={(event) => filters.set({ tipo: event.currentTarget.value, codigo: undefined })} />
            <NativeSelect
              label="Código"
              data={[
                { value: '', label: 'Todos los códigos' },
                ...byCode.filter((row) => !tipo || row.kind === tipo).map((row) => ({ value: row.code, label: `${row.code} ${row.name}` })),
              ]}
              value={codigo ?? ''}
              onChange={(event) => filters.set({ codigo: event.currentTarget.value })}
            />
          </SimpleGrid>
          <Group align="flex-end" justify="space-between" mb="sm">
            <div style={{ flex: 1, maxWidth: 520 }}>
              <SearchForm name="Buscar movimientos" placeholder="Contraparte o descripción" value={q ?? ''} onSearch={(value) => filters.set({ q: value })} />
            </div>
            {filters.active.length > 0 && (
              <Button variant="subtle" onClick={filters.clear}>
                Quitar filtros
              </Button>
            )}
          </Group>
          <ServerTable<Entry, EntryPage>
            caption="Movimientos del libro, el día más reciente primero"
            path={path}
            columns={columns}
            rowKey={(entry) => entry.id}
            describeError={financeProblem}
            empty={filters.active.length ? 'Ningún movimiento coincide con los filtros.' : 'Aún no hay movimientos en el libro.'}
            above={(answer) => (
              <Text size="sm" mb="xs" aria-live="polite">
                {formatNumber(answer.totals.entries)} movimientos · ingresos {formatPesos(answer.totals.income)} · gastos {formatPesos(answer.totals.expenses)} · saldo{' '}
                {signedPesos(answer.totals.balance)}
              </Text>
            )}
          />
        </section>
      </Stack>
    </>
  );
}
