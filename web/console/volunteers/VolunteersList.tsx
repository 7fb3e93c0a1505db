import { Anchor, Button, Group, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link } from 'react-router';
import { SKILL_CATALOGUE, VOLUNTEER_STATUSES } from '../../../src/modules/volunteers/volunteers.values';
import { api } from '../app/api';
import { saveFile } from '../app/files';
import { queryString, useUrlFilters } from '../app/filters';
import { formatNumber, formatPhone, localToday } from '../app/format';
import { PageTitle } from '../app/pages';
import { SearchForm } from '../app/SearchForm';
import { TerritorySelect } from '../app/SearchSelect';
import { ServerTable, type Column } from '../app/ServerTable';
import { RelativeTime } from '../app/Time';
import { skillLabel, STATUS_LABELS, volunteerProblem } from './labels';
import { StatusBadge } from './StatusBadge';
import { VOLUNTEERS_API, volunteerPath, type VolunteerRow } from './types';
import { VolunteerSelect } from './volunteerSelect';

const STATUS_OPTIONS = VOLUNTEER_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }));
const SKILL_OPTIONS = SKILL_CATALOGUE.map((skill) => ({ value: skill, label: skillLabel(skill) }));
const ACTIVE_OPTIONS = [
  { value: 'true', label: 'Con actividad reciente' },
  { value: 'false', label: 'Sin actividad reciente' },
];

const COLUMNS: Column<VolunteerRow>[] = [
  {
    key: 'name',
    header: 'Voluntario',
    render: (volunteer) => (
      <Stack gap={0}>
        <Anchor component={Link} to={volunteerPath(volunteer.id)} fw={500}>
          {volunteer.name}
        </Anchor>
        <Text size="sm" c="dimmed">
          {[volunteer.phone && formatPhone(volunteer.phone), volunteer.email].filter(Boolean).join(' · ') || '—'}
        </Text>
      </Stack>
    ),
  },
  { key: 'status', header: 'Estado', render: (volunteer) => <StatusBadge status={volunteer.status} /> },
  {
    key: 'activity',
    header: 'Actividad reciente',
    render: (volunteer) =>
      volunteer.lastActivityAt ? (
        <Text size="sm">
          {formatNumber(volunteer.activityCount)} · <RelativeTime value={volunteer.lastActivityAt} />
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          Ninguna
        </Text>
      ),
  },
  { key: 'skills', header: 'Habilidades', render: (volunteer) => (volunteer.skills.length ? volunteer.skills.map(skillLabel).join(', ') : '—') },
  {
    key: 'reliability',
    header: 'Asistencia a eventos',
    render: (volunteer) => (volunteer.reliability.score === null ? '—' : `${formatNumber(volunteer.reliability.attended)} de ${formatNumber(volunteer.reliability.committed)}`),
  },
];

/** `/voluntarios`: the team, filtered as the API allows (the filters in the address), paged by the server. */
export default function VolunteersList() {
  const filters = useUrlFilters(['q', 'estado', 'territorio', 'habilidad', 'lider', 'activo'] as const);
  const { q, estado, territorio, habilidad, lider, activo } = filters.values;
  const query = queryString({ q, status: estado, territoryId: territorio, skill: habilidad, leaderId: lider, active: activo });
  const [downloading, setDownloading] = useState(false);
  const download = async () => {
    setDownloading(true);
    try {
      saveFile(await api.download(`${VOLUNTEERS_API}${query ? `${query}&` : '?'}format=csv`), `voluntarios-${localToday()}.csv`);
    } catch (error) {
      notifications.show({ color: 'red', message: volunteerProblem(error) });
    } finally {
      setDownloading(false);
    }
  };
  return (
    <>
      <PageTitle
        actions={
          <Button variant="default" onClick={() => void download()} loading={downloading}>
            Descargar CSV
          </Button>
        }
      >
        Voluntarios
      </PageTitle>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} mb="md">
        <SearchForm name="Buscar voluntarios" placeholder="Nombre, correo o teléfono" value={q ?? ''} onSearch={(value) => filters.set({ q: value })} />
        <Select
          label="Estado"
          placeholder="Todos"
          clearable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de estado' }}
          data={STATUS_OPTIONS}
          value={estado ?? null}
          onChange={(value) => filters.set({ estado: value })}
        />
        <Select
          label="Actividad"
          description="En los últimos días que cuentan como activos"
          placeholder="Todas"
          clearable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de actividad' }}
          data={ACTIVE_OPTIONS}
          value={activo ?? null}
          onChange={(value) => filters.set({ activo: value })}
        />
        <TerritorySelect
          label="Territorio"
          description="Incluye los territorios dentro de él"
          value={territorio ?? null}
          onChange={(value) => filters.set({ territorio: value })}
        />
        <Select
          label="Habilidad"
          placeholder="Todas"
          clearable
          searchable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de habilidad' }}
          data={SKILL_OPTIONS}
          value={habilidad ?? null}
          onChange={(value) => filters.set({ habilidad: value })}
        />
        <VolunteerSelect label="Líder" description="Las personas que lidera directamente" value={lider ?? null} onChange={(value) => filters.set({ lider: value })} />
      </SimpleGrid>
      {filters.active.length > 0 && (
        <Group justify="flex-end" mb="xs">
          <Button variant="subtle" onClick={filters.clear}>
            Quitar filtros
          </Button>
        </Group>
      )}
      <ServerTable<VolunteerRow>
        caption="Voluntarios"
        path={`${VOLUNTEERS_API}${query}`}
        columns={COLUMNS}
        rowKey={(volunteer) => volunteer.id}
        describeError={volunteerProblem}
        empty={filters.active.length ? 'Ningún voluntario coincide con los filtros.' : 'Aún no hay voluntarios.'}
      />
    </>
  );
}
