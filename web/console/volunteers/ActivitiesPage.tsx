import { Badge, Button, Group, Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ACTIVITY_TYPES } from '../../../src/modules/volunteers/volunteers.values';
import { api } from '../app/api';
import { queryString, useUrlFilters } from '../app/filters';
import { formatNumber, localDayBound } from '../app/format';
import { PageTitle } from '../app/pages';
import { TerritorySelect } from '../app/SearchSelect';
import { useSignedIn } from '../app/session';
import { volunteersPolicy } from '../../../src/modules/volunteers/volunteers.policy';
import { ActivityTable } from './ActivityTable';
import { useVolunteerNames } from './data';
import { TYPE_LABELS } from './labels';
import { VOLUNTEERS_API, type ActivityPage } from './types';
import { VolunteerSelect } from './volunteerSelect';

const TYPE_OPTIONS = ACTIVITY_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }));

/** Every matching activity counted by type (the API's totals), above the list. */
function Totals({ path }: { path: string }) {
  const totals = useQuery({ queryKey: ['volunteers', 'activity-totals', path], queryFn: () => api.get<ActivityPage>(`${path}${path.includes('?') ? '&' : '?'}limit=1`) });
  const entries = Object.entries(totals.data?.totals ?? {}).sort((a, b) => b[1].count - a[1].count);
  if (!entries.length) return null;
  return (
    <Group gap="xs" mb="sm" aria-label="Totales por tipo de actividad" role="group">
      {entries.map(([type, total]) => (
        <Badge key={type} variant="outline" color="gray" c="dark" tt="none" size="lg">
          {TYPE_LABELS[type as keyof typeof TYPE_LABELS] ?? type}: {formatNumber(total.count)}
        </Badge>
      ))}
    </Group>
  );
}

/** `/voluntarios/actividades`: the team's activity log, latest first, with its totals by type. */
export default function ActivitiesPage() {
  const { user } = useSignedIn();
  const filters = useUrlFilters(['tipo', 'territorio', 'voluntario', 'desde', 'hasta'] as const);
  const { tipo, territorio, voluntario, desde, hasta } = filters.values;
  // Names come from the pyramid, for the roles that may read it; a volunteer sees their own team's work without it.
  const names = useVolunteerNames(volunteersPolicy.allows(user, 'readPyramid'));
  const path = `${VOLUNTEERS_API}/activities${queryString({
    type: tipo,
    territoryId: territorio,
    volunteerId: voluntario,
    from: desde ? localDayBound(desde, 'start') : undefined,
    to: hasta ? localDayBound(hasta, 'end') : undefined,
  })}`;
  return (
    <>
      <PageTitle>Actividades del voluntariado</PageTitle>
      <Text size="sm" c="dimmed" mb="md">
        Lo que registra el equipo desde sus celulares y lo que llega de la agenda y del día electoral, lo más reciente primero.
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} mb="md">
        <Select
          label="Tipo de actividad"
          placeholder="Todos"
          clearable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de tipo' }}
          data={TYPE_OPTIONS}
          value={tipo ?? null}
          onChange={(value) => filters.set({ tipo: value })}
        />
        {volunteersPolicy.allows(user, 'read') && <VolunteerSelect label="Voluntario" value={voluntario ?? null} onChange={(value) => filters.set({ voluntario: value })} />}
        <TerritorySelect label="Territorio" value={territorio ?? null} onChange={(value) => filters.set({ territorio: value })} />
        <TextInput type="date" label="Desde" value={desde ?? ''} onChange={(event) => filters.set({ desde: event.currentTarget.value }, { replace: true })} />
        <TextInput type="date" label="Hasta" value={hasta ?? ''} onChange={(event) => filters.set({ hasta: event.currentTarget.value }, { replace: true })} />
      </SimpleGrid>
      {filters.active.length > 0 && (
        <Group justify="flex-end" mb="xs">
          <Button variant="subtle" onClick={filters.clear}>
            Quitar filtros
          </Button>
        </Group>
      )}
      <Totals path={path} />
      <ActivityTable caption="Actividades" path={path} names={names} empty={filters.active.length ? 'Ninguna actividad coincide con los filtros.' : 'Aún no hay actividades.'} />
    </>
  );
}
