import { Anchor, Button, Group, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../app/api';
import { downloadFile } from '../app/files';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDateTime, formatPhone, localToday } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { ServerTable, type Column } from '../app/ServerTable';
import { CAMPAIGNS_PATH, LEADS_PATH, type Campaign, type Lead } from './data';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const columns: Column<Lead>[] = [
  {
    key: 'name',
    header: 'Nombre',
    render: (row) => (
      <Text size="sm" fw={600}>
        {row.contact.name}
      </Text>
    ),
  },
  { key: 'phone', header: 'Teléfono', render: (row) => (row.contact.phone ? formatPhone(row.contact.phone) : '—') },
  { key: 'email', header: 'Correo', render: (row) => row.contact.email ?? '—' },
  { key: 'campaign', header: 'Campaña', render: (row) => row.campaignName },
  { key: 'poster', header: 'Afiche', render: (row) => row.poster },
  { key: 'territory', header: 'Territorio', render: (row) => row.territoryName ?? row.neighbourhood ?? '—' },
  { key: 'interests', header: 'Intereses', render: (row) => row.interests.join(', ') || '—' },
  { key: 'created', header: 'Llegó', render: (row) => formatDateTime(row.createdAt) },
];

/** The people posters brought in, newest first, by name; the same selection as a CSV. */
export default function LeadsPage() {
  const filters = useUrlFilters(['campaignId', 'q'] as const);
  const campaignId = filters.values.campaignId && UUID.test(filters.values.campaignId) ? filters.values.campaignId : undefined;
  const [typed, setTyped] = useState(filters.values.q ?? '');
  const setSearch = useDebouncedCallback((text: string) => filters.set({ q: text.trim() || undefined }, { replace: true }), 300);
  const campaign = useQuery({ queryKey: ['poster-campaign', campaignId], queryFn: () => api.get<Campaign>(`${CAMPAIGNS_PATH}/${campaignId}`), enabled: !!campaignId });
  const query = { campaignId, q: filters.values.q?.trim().slice(0, 100) || undefined };
  const download = async () => {
    try {
      await downloadFile(`${LEADS_PATH}${queryString({ ...query, format: 'csv' })}`, `contactos-afiches-${localToday()}.csv`);
    } catch (error) {
      notifications.show({ color: 'red', message: problemMessage(error) });
    }
  };
  return (
    <>
      <PageTitle
        actions={
          <Button variant="default" onClick={() => void download()}>
            Descargar CSV
          </Button>
        }
      >
        {campaign.data ? `Contactos: ${campaign.data.name}` : 'Contactos captados con afiches'}
      </PageTitle>
      <Group mb="sm" align="flex-end">
        <TextInput
          label="Buscar"
          description="Nombre, teléfono o correo"
          value={typed}
          onChange={(event) => {
            setTyped(event.currentTarget.value);
            setSearch(event.currentTarget.value);
          }}
          w={320}
        />
        {campaignId && (
          <Anchor component={Link} to={`/afiches/${campaignId}`} size="sm">
            Volver a la campaña
          </Anchor>
        )}
      </Group>
      <ServerTable
        caption="Personas captadas con los afiches, las más recientes primero"
        path={`${LEADS_PATH}${queryString(query)}`}
        columns={columns}
        rowKey={(row) => row.id}
        empty="Nadie ha dejado sus datos todavía."
      />
    </>
  );
}
