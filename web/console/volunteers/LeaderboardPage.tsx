import { Alert, Anchor, Group, Loader, NativeSelect, Select, SimpleGrid, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ACTIVITY_TYPES } from '../../../src/modules/volunteers/volunteers.values';
import { volunteersPolicy } from '../../../src/modules/volunteers/volunteers.policy';
import { api } from '../app/api';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDate, formatNumber, localDayBound } from '../app/format';
import { PageTitle } from '../app/pages';
import { TerritorySelect } from '../app/SearchSelect';
import { useSignedIn } from '../app/session';
import { TYPE_LABELS, volunteerProblem } from './labels';
import { VOLUNTEERS_API, volunteerPath, type Leaderboard } from './types';

const TYPE_OPTIONS = ACTIVITY_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }));
const METRICS = [
  { value: 'points', label: 'Puntos' },
  { value: 'quantity', label: 'Cantidad' },
];
const GROUPS = [
  { value: 'volunteer', label: 'Por voluntario' },
  { value: 'territory', label: 'Por territorio' },
];
const SIZES = ['20', '50', '100', '200'];

/** `/voluntarios/clasificacion`: who did the most in a window (the last 30 days unless said), by points or quantity, per person or per territory. */
export default function LeaderboardPage() {
  const { user } = useSignedIn();
  const profiles = volunteersPolicy.allows(user, 'read');
  const filters = useUrlFilters(['metrica', 'por', 'tipo', 'territorio', 'desde', 'hasta', 'cuantos'] as const);
  const { metrica, por, tipo, territorio, desde, hasta, cuantos } = filters.values;
  const path = `${VOLUNTEERS_API}/leaderboard${queryString({
    metric: metrica,
    groupBy: por,
    type: tipo,
    territoryId: territorio,
    from: desde ? localDayBound(desde, 'start') : undefined,
    to: hasta ? localDayBound(hasta, 'end') : undefined,
    limit: cuantos,
  })}`;
  const board = useQuery({ queryKey: ['volunteers', 'leaderboard', path], queryFn: () => api.get<Leaderboard>(path), placeholderData: keepPreviousData });
  const byTerritory = (por ?? 'volunteer') === 'territory';
  const rows = board.data?.data ?? [];
  return (
    <>
      <PageTitle>Clasificación del voluntariado</PageTitle>
      <Text size="sm" c="dimmed" mb="md">
        Puntos por actividad según su tipo, más su cantidad según la unidad (un votante inscrito vale más que una puerta tocada).
        {board.data && ` Del ${formatDate(board.data.from)} al ${formatDate(board.data.to)}.`}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} mb="md">
        <Select
          label="Ordenar por"
          allowDeselect={false}
          data={METRICS}
          value={metrica ?? 'points'}
          onChange={(value) => filters.set({ metrica: value === 'points' ? null : value })}
        />
        <Select label="Agrupar" allowDeselect={false} data={GROUPS} value={por ?? 'volunteer'} onChange={(value) => filters.set({ por: value === 'volunteer' ? null : value })} />
        <Select
          label="Tipo de actividad"
          placeholder="Todos"
          clearable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de tipo' }}
          data={TYPE_OPTIONS}
          value={tipo ?? null}
          onChange={(value) => filters.set({ tipo: value })}
        />
        <TerritorySelect label="Territorio" value={territorio ?? null} onChange={(value) => filters.set({ territorio: value })} />
        <TextInput type="date" label="Desde" value={desde ?? ''} onChange={(event) => filters.set({ desde: event.currentTarget.value }, { replace: true })} />
        <TextInput type="date" label="Hasta" value={hasta ?? ''} onChange={(event) => filters.set({ hasta: event.currentTarget.value }, { replace: true })} />
      </SimpleGrid>
      {board.isError && (
        <Alert color="red" role="alert" mb="sm">
          {volunteerProblem(board.error)}
        </Alert>
      )}
      <Table.ScrollContainer minWidth={500}>
        <Table striped verticalSpacing="xs" aria-busy={board.isFetching}>
          <Table.Caption>
            <VisuallyHidden>Clasificación</VisuallyHidden>
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th ta="right">Puesto</Table.Th>
              <Table.Th>{byTerritory ? 'Territorio' : 'Voluntario'}</Table.Th>
              <Table.Th ta="right">Actividades</Table.Th>
              <Table.Th ta="right">Cantidad</Table.Th>
              <Table.Th ta="right">Puntos</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={`${row.rank}-${row.id ?? 'none'}`}>
                <Table.Td ta="right">{row.rank}</Table.Td>
                <Table.Td>
                  {!byTerritory && profiles && row.id ? (
                    <Anchor component={Link} to={volunteerPath(row.id)}>
                      {row.name ?? 'Persona suprimida'}
                    </Anchor>
                  ) : (
                    (row.name ?? (byTerritory ? 'Sin territorio' : 'Persona suprimida'))
                  )}
                </Table.Td>
                <Table.Td ta="right">{formatNumber(row.activities)}</Table.Td>
                <Table.Td ta="right">{formatNumber(row.quantity)}</Table.Td>
                <Table.Td ta="right">{formatNumber(row.points)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {board.isPending && (
        <Group justify="center" p="md">
          <Loader size="sm" aria-label="Cargando" />
        </Group>
      )}
      {board.isSuccess && rows.length === 0 && (
        <Text c="dimmed" ta="center" p="md">
          Nadie registró actividades en este periodo.
        </Text>
      )}
      <Group justify="flex-end" mt="sm">
        <NativeSelect
          aria-label="Cuántos mostrar"
          size="xs"
          value={cuantos ?? '20'}
          data={SIZES.map((size) => ({ value: size, label: `Los primeros ${size}` }))}
          onChange={(event) => filters.set({ cuantos: event.currentTarget.value === '20' ? null : event.currentTarget.value })}
        />
      </Group>
    </>
  );
}
