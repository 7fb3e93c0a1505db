import { Alert, Button, Group, Loader, SimpleGrid, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { z } from 'zod';
import { reportQuery, type reportView } from '../../../src/modules/finance/finance.schemas';
import { api } from '../app/api';
import { downloadFile } from '../app/files';
import { queryString, useUrlFilters } from '../app/filters';
import { formatNumber, formatPesos, localToday } from '../app/format';
import { schemaErrors } from '../app/forms';
import { PageTitle } from '../app/pages';
import { FINANCE, KIND_LABELS, financeProblem, signedPesos } from './data';
import { FinanceTabs } from './FinanceTabs';

type Report = z.output<typeof reportView>;
const REPORT = `${FINANCE}/report`;

/** The file's name, as the API names it (`reporte-financiero-<desde>_<hasta>.csv`). */
const fileName = (from: string | undefined, to: string | undefined, extension: string) => {
  const range = [from, to].filter(Boolean).join('_');
  return `reporte-financiero${range ? `-${range}` : ''}.${extension}`;
};

/**
 * `/finanzas/informe`: the Cuentas Claras report for a range of days: its rows by code on screen,
 * and the same as CSV or as a workbook (with the entries), downloaded with the session's token.
 */
export default function ReportPage() {
  const filters = useUrlFilters(['desde', 'hasta'] as const);
  const { desde, hasta } = filters.values;
  const errors = schemaErrors(reportQuery, { from: desde, to: hasta });
  const valid = Object.keys(errors).length === 0;
  const range = queryString({ from: desde, to: hasta });
  const report = useQuery({ queryKey: ['finance', 'report', range], queryFn: () => api.get<Report>(`${REPORT}${range}`), enabled: valid, placeholderData: keepPreviousData });
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const download = async (format: 'csv' | 'xlsx') => {
    setBusy(format);
    setFailure(null);
    try {
      await downloadFile(`${REPORT}${queryString({ format, from: desde, to: hasta })}`, fileName(desde, hasta, format));
    } catch (error) {
      setFailure(financeProblem(error));
    } finally {
      setBusy(null);
    }
  };

  const rangeMessage = errors.to ? 'Debe ser el mismo día de «Desde» o uno posterior.' : undefined;
  return (
    <>
      <PageTitle>Informe para Cuentas Claras</PageTitle>
      <FinanceTabs />
      <Stack>
        <Text size="sm">
          Cada código con sus movimientos y su total neto, luego el total de ingresos, el de gastos y el saldo: una línea del Formulario 5B por fila. El archivo de Excel agrega la
          hoja Detalle, con cada movimiento para los anexos. Sin fechas, todo el libro.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
          <TextInput
            type="date"
            label="Desde"
            max={localToday()}
            value={desde ?? ''}
            error={errors.from}
            onChange={(event) => filters.set({ desde: event.currentTarget.value }, { replace: true })}
          />
          <TextInput
            type="date"
            label="Hasta"
            value={hasta ?? ''}
            error={rangeMessage ?? errors.to}
            onChange={(event) => filters.set({ hasta: event.currentTarget.value }, { replace: true })}
          />
        </SimpleGrid>
        <Group>
          <Button onClick={() => void download('csv')} loading={busy === 'csv'} disabled={!valid}>
            Descargar CSV
          </Button>
          <Button variant="default" onClick={() => void download('xlsx')} loading={busy === 'xlsx'} disabled={!valid}>
            Descargar Excel (.xlsx)
          </Button>
        </Group>
        {failure && (
          <Alert color="red" role="alert">
            {failure}
          </Alert>
        )}
        {report.isError && (
          <Alert color="red" role="alert">
            {financeProblem(report.error)}
          </Alert>
        )}
        {report.isPending && valid && <Loader aria-label="Cargando el informe" />}
        {report.data && (
          <Table.ScrollContainer minWidth={560}>
            <Table striped verticalSpacing={4} aria-busy={report.isFetching}>
              <Table.Caption>
                <VisuallyHidden>Informe por código</VisuallyHidden>
              </Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Código</Table.Th>
                  <Table.Th>Tipo</Table.Th>
                  <Table.Th>Concepto</Table.Th>
                  <Table.Th ta="right">Movimientos</Table.Th>
                  <Table.Th ta="right">Total (COP)</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {report.data.rows.map((row) => (
                  <Table.Tr key={row.code}>
                    <Table.Td>{row.code}</Table.Td>
                    <Table.Td>{KIND_LABELS[row.kind]}</Table.Td>
                    <Table.Td>{row.name}</Table.Td>
                    <Table.Td ta="right">{formatNumber(row.entries)}</Table.Td>
                    <Table.Td ta="right">{signedPesos(row.total)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
              <Table.Tfoot>
                <Table.Tr>
                  <Table.Th colSpan={4}>Total ingresos</Table.Th>
                  <Table.Td ta="right">{formatPesos(report.data.totals.income)}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th colSpan={4}>Total gastos</Table.Th>
                  <Table.Td ta="right">{formatPesos(report.data.totals.expenses)}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th colSpan={4}>Saldo</Table.Th>
                  <Table.Td ta="right">{signedPesos(report.data.totals.balance)}</Table.Td>
                </Table.Tr>
              </Table.Tfoot>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </>
  );
}
