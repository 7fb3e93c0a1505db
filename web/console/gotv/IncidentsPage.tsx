import { Alert, Badge, Button, Group, Image, Loader, Modal, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { incidentTypes, severities } from '../../lib/labels';
import { api } from '../app/api';
import { useUrlFilters, queryString } from '../app/filters';
import { formatDateTime, formatFileSize } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SearchSelect } from '../app/SearchSelect';
import { ServerTable, type Column } from '../app/ServerTable';
import { TONES, type Tone } from '../app/tones';
import { GOTV, stationSearch, useStation, type Incident } from './gotv';

const SEVERITY_TONES: Record<Incident['severity'], Tone> = { low: 'gray', medium: 'blue', high: 'orange', critical: 'red' };

function StationName({ id }: { id: string }) {
  const station = useStation(id);
  return <>{station.data ? `${station.data.name} (${station.data.code})` : '…'}</>;
}

/** A blob as a `data:` address (the console's CSP allows those images, not `blob:`). */
const dataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable photo'));
    reader.readAsDataURL(blob);
  });

/** The photo, fetched with the session's token (never a token in an image's address). */
function PhotoDialog({ incident, onClose }: { incident: Incident; onClose: () => void }) {
  const photo = useQuery({
    queryKey: ['gotv', 'incident-photo', incident.id],
    queryFn: async () => dataUrl(await api.download(`${GOTV}/incidents/${incident.id}/photo`)),
    staleTime: Infinity,
    gcTime: 60_000,
  });
  const url = photo.data;
  return (
    <Modal opened onClose={onClose} title={`Foto: ${incidentTypes[incident.type] ?? incident.type}`} size="xl" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <Stack>
        {photo.isError ? (
          <Alert color="red">{problemMessage(photo.error)}</Alert>
        ) : url ? (
          <Image src={url} alt={`Foto del incidente: ${incident.description}`} fit="contain" mah="70vh" />
        ) : (
          <Loader aria-label="Cargando la foto" />
        )}
        <Text size="sm">{incident.description}</Text>
      </Stack>
    </Modal>
  );
}

/** `/dia-electoral/incidentes`: the incidents brigades reported, newest first, with their photos, paged by the server. */
export default function IncidentsPage() {
  const filters = useUrlFilters(['puesto'] as const);
  const [showing, setShowing] = useState<Incident | null>(null);
  const columns: Column<Incident>[] = [
    { key: 'createdAt', header: 'Reportado', render: (incident) => formatDateTime(incident.createdAt) },
    { key: 'station', header: 'Puesto', render: (incident) => <StationName id={incident.pollingStationId} /> },
    { key: 'type', header: 'Tipo', render: (incident) => incidentTypes[incident.type] ?? incident.type },
    {
      key: 'severity',
      header: 'Gravedad',
      render: (incident) => {
        const tone = TONES[SEVERITY_TONES[incident.severity]];
        return (
          <Badge color={tone.color} variant="light" c={tone.text}>
            {severities[incident.severity] ?? incident.severity}
          </Badge>
        );
      },
    },
    { key: 'description', header: 'Qué pasó', render: (incident) => incident.description },
    { key: 'reportedBy', header: 'Reportó', render: (incident) => incident.reportedByName ?? '—' },
    {
      key: 'photo',
      header: 'Foto',
      render: (incident) =>
        incident.photo ? (
          <Button
            size="xs"
            variant="default"
            onClick={() => setShowing(incident)}
            aria-label={`Ver foto (${formatFileSize(incident.photo.size)}) del incidente del ${formatDateTime(incident.createdAt)}`}
          >
            Ver foto
          </Button>
        ) : (
          <Text size="sm" c="dimmed">
            Sin foto
          </Text>
        ),
    },
  ];
  return (
    <>
      <PageTitle>Incidentes</PageTitle>
      <Group align="flex-end" mb="md">
        <SearchSelect
          label="Puesto"
          placeholder="Todos los puestos"
          {...stationSearch}
          value={filters.values.puesto ?? null}
          onChange={(value) => filters.set({ puesto: value })}
          w={360}
        />
      </Group>
      <ServerTable<Incident>
        caption="Incidentes reportados, el más reciente primero"
        path={`${GOTV}/incidents${queryString({ pollingStationId: filters.values.puesto })}`}
        columns={columns}
        rowKey={(incident) => incident.id}
        empty={filters.active.length ? 'Ningún incidente en ese puesto.' : 'Aún no hay incidentes reportados.'}
      />
      {showing && <PhotoDialog incident={showing} onClose={() => setShowing(null)} />}
    </>
  );
}
