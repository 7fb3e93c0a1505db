import { Anchor, Badge, Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { PeopleSort } from '../../../src/modules/audience/audience.people.schemas';
import { api } from '../app/api';
import { fileNamePart, saveFile } from '../app/files';
import { formatDate, formatDateTime, formatPhone, localDayBound, localToday } from '../app/format';
import { PageTitle } from '../app/pages';
import { ServerTable, type Column, type Sort } from '../app/ServerTable';
import { SearchForm } from '../app/SearchForm';
import { TerritorySelect } from '../app/SearchSelect';
import { CHANNEL_LABELS, CONSENT_FILTER_LABELS, CONSENT_STATE_COLOURS, CONSENT_STATE_LABELS, ORIGIN_LABELS } from './labels';
import { peopleProblem } from './problems';
import { PEOPLE, personPath, type Person } from './types';

/**
 * The list's filters as the address says them (`/personas?q=300…&whatsapp=reachable`): a link is
 * shareable, the back button undoes a filter, and a reload keeps them. Dates are local days.
 */
const PARAMS = ['q', 'territorio', 'origen', 'campana', 'whatsapp', 'correo', 'etiqueta', 'desde', 'hasta', 'orden'] as const;
type Param = (typeof PARAMS)[number];

const SORTS: { value: PeopleSort; label: string }[] = [
  { value: '-createdAt', label: 'Más recientes primero' },
  { value: 'createdAt', label: 'Más antiguas primero' },
  { value: 'name', label: 'Nombre, de la A a la Z' },
  { value: '-name', label: 'Nombre, de la Z a la A' },
];

const CONSENT_OPTIONS = Object.entries(CONSENT_FILTER_LABELS).map(([value, label]) => ({ value, label }));

/** The API's query for the filters in the address (without paging). */
function apiQuery(params: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  const set = (name: string, value: string | null | undefined) => {
    if (value) query.set(name, value);
  };
  set('q', params.get('q')?.trim());
  set('territoryId', params.get('territorio'));
  set('originKind', params.get('origen'));
  if (params.get('origen')) set('originRef', params.get('campana'));
  set('whatsapp', params.get('whatsapp'));
  set('email', params.get('correo'));
  set('tag', params.get('etiqueta')?.trim());
  set('createdFrom', localDayBound(params.get('desde') ?? '', 'start'));
  set('createdTo', localDayBound(params.get('hasta') ?? '', 'end'));
  set('sort', params.get('orden') ?? '-createdAt');
  return query;
}

const sortOf = (value: string): Sort => (value.startsWith('-') ? { key: value.slice(1), direction: 'desc' } : { key: value, direction: 'asc' });
const sortValue = (sort: Sort): string => (sort.direction === 'desc' ? `-${sort.key}` : sort.key);

/** Each channel's state in a word (the filter and the person's page say it in full). */
const CONSENT_SHORT = { reachable: 'sí', opted_out: 'retiró', no_consent: 'no' } as const;

function ConsentBadges({ person }: { person: Person }) {
  return (
    <Stack gap={2} align="flex-start">
      {(['whatsapp', 'email'] as const).map((channel) => (
        <Badge
          key={channel}
          size="sm"
          variant="dot"
          color={CONSENT_STATE_COLOURS[person.consent[channel]]}
          tt="none"
          title={`${CHANNEL_LABELS[channel]}: ${CONSENT_STATE_LABELS[person.consent[channel]]}`}
        >
          {CHANNEL_LABELS[channel]}: {CONSENT_SHORT[person.consent[channel]]}
        </Badge>
      ))}
    </Stack>
  );
}

const COLUMNS: Column<Person>[] = [
  {
    key: 'name',
    header: 'Nombre',
    sortKey: 'name',
    render: (person) => (
      <Anchor component={Link} to={personPath(person.id)} fw={500}>
        {person.name}
      </Anchor>
    ),
  },
  { key: 'phone', header: 'Teléfono', render: (person) => (person.phone ? <span style={{ whiteSpace: 'nowrap' }}>{formatPhone(person.phone)}</span> : '—') },
  { key: 'email', header: 'Correo', render: (person) => person.email ?? '—' },
  { key: 'territory', header: 'Territorio', render: (person) => person.territory?.name ?? '—' },
  {
    key: 'tags',
    header: 'Etiquetas',
    render: (person) =>
      person.tags.length ? (
        <Group gap={4}>
          {person.tags.map((tag) => (
            <Badge key={tag} size="sm" variant="outline" tt="none">
              {tag}
            </Badge>
          ))}
        </Group>
      ) : (
        '—'
      ),
  },
  { key: 'consent', header: 'Autorizaciones', render: (person) => <ConsentBadges person={person} /> },
  {
    key: 'createdAt',
    header: 'Registro',
    sortKey: 'createdAt',
    render: (person) => (
      <time dateTime={person.createdAt} title={formatDateTime(person.createdAt)} style={{ whiteSpace: 'nowrap' }}>
        {formatDate(person.createdAt)}
      </time>
    ),
  },
];

/** QR campaigns to narrow "came from a poster" to one of them. */
function CampaignSelect({ value, onChange }: { value: string | null; onChange: (id: string | null) => void }) {
  const campaigns = useQuery({
    queryKey: ['poster-qr', 'campaigns', 'all'],
    queryFn: () => api.all<{ id: string; name: string }>('/api/poster-qr/campaigns', 400),
    staleTime: 60_000,
  });
  return (
    <Select
      label="Campaña de afiches"
      placeholder={campaigns.isPending ? 'Cargando…' : 'Todas'}
      clearable
      clearButtonProps={{ 'aria-label': 'Quitar el filtro de campaña' }}
      searchable
      data={(campaigns.data ?? []).map((campaign) => ({ value: campaign.id, label: campaign.name }))}
      value={value}
      onChange={onChange}
      nothingFoundMessage="Ninguna campaña con ese nombre"
    />
  );
}

/** A text filter that applies when the person presses Enter or leaves the field, not at every key (keyed by its value: Back shows the value again). */
function CommittedInput({ label, value, onCommit, placeholder }: { label: string; value: string; onCommit: (value: string) => void; placeholder?: string }) {
  const [draft, setDraft] = useState(value);
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      value={draft}
      onChange={(event) => setDraft(event.currentTarget.value)}
      onBlur={() => draft !== value && onCommit(draft)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          onCommit(draft);
        }
      }}
    />
  );
}

/** `/personas`: one search box for name, phone, email or cédula, filters, and the list the server pages. */
export default function PeopleList() {
  const [params, setParams] = useSearchParams();
  const get = (name: Param) => params.get(name) ?? '';
  const [exporting, setExporting] = useState(false);

  /** One filter changed: a new entry in the history, so Back undoes it. */
  const change = (updates: Partial<Record<Param, string | null>>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(updates)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    if (updates.origen !== undefined && next.get('origen') !== 'qr_campaign') next.delete('campana');
    setParams(next);
  };

  const query = apiQuery(params);
  const sort = sortOf(query.get('sort') ?? '-createdAt');
  const filtered = PARAMS.some((name) => name !== 'orden' && params.get(name));

  const exportCsv = async () => {
    setExporting(true);
    try {
      const csvQuery = new URLSearchParams(query);
      csvQuery.set('format', 'csv');
      // The session's token goes in a header, never in the address: the file is fetched, then saved.
      const blob = await api.download(`/api/audience/contacts?${csvQuery.toString()}`, 300_000);
      const search = params.get('q');
      saveFile(blob, `personas${filtered ? '-filtradas' : ''}${search ? `-${fileNamePart(search)}` : ''}-${localToday()}.csv`);
    } catch (error) {
      notifications.show({ color: 'red', title: 'No se pudo exportar', message: peopleProblem(error) });
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <PageTitle
        actions={
          <Group gap="xs">
            <Button component={Link} to={`${PEOPLE}/importar`} variant="default">
              Importar
            </Button>
            <Button component={Link} to={`${PEOPLE}/duplicados`} variant="default">
              Duplicados
            </Button>
            {/* A title, not a tooltip: Mantine's tooltip would bring 9 KB of floating-ui into the console's first load. */}
            <Button onClick={() => void exportCsv()} loading={exporting} title="Todas las personas de este filtro, no solo esta página">
              Exportar CSV
            </Button>
          </Group>
        }
      >
        Personas
      </PageTitle>
      <Stack gap="md">
        <SearchForm
          name="Buscar personas"
          description="Nombre, teléfono (en cualquier formato), correo o cédula"
          placeholder="Ej.: 300 123 4567, ana@correo.co, José Pérez"
          value={get('q')}
          onSearch={(value) => change({ q: value || null })}
        />
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
          <TerritorySelect label="Territorio" value={params.get('territorio')} onChange={(id) => change({ territorio: id })} />
          <Select
            label="Origen"
            placeholder="Todos"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de origen' }}
            data={Object.entries(ORIGIN_LABELS).map(([value, label]) => ({ value, label }))}
            value={params.get('origen')}
            onChange={(value) => change({ origen: value })}
          />
          {get('origen') === 'qr_campaign' && <CampaignSelect value={params.get('campana')} onChange={(id) => change({ campana: id })} />}
          <Select
            label="WhatsApp"
            placeholder="Cualquiera"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de WhatsApp' }}
            data={CONSENT_OPTIONS}
            value={params.get('whatsapp')}
            onChange={(value) => change({ whatsapp: value })}
          />
          <Select
            label="Correo"
            placeholder="Cualquiera"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de correo' }}
            data={CONSENT_OPTIONS}
            value={params.get('correo')}
            onChange={(value) => change({ correo: value })}
          />
          <CommittedInput
            key={`etiqueta:${get('etiqueta')}`}
            label="Etiqueta"
            placeholder="Ej.: líder"
            value={get('etiqueta')}
            onCommit={(value) => change({ etiqueta: value.trim() || null })}
          />
          <TextInput
            label="Registradas desde"
            type="date"
            value={get('desde')}
            max={get('hasta') || undefined}
            onChange={(event) => change({ desde: event.currentTarget.value || null })}
          />
          <TextInput
            label="Registradas hasta"
            type="date"
            value={get('hasta')}
            min={get('desde') || undefined}
            onChange={(event) => change({ hasta: event.currentTarget.value || null })}
          />
          <Select label="Orden" data={SORTS} value={query.get('sort')} allowDeselect={false} onChange={(value) => change({ orden: value === '-createdAt' ? null : value })} />
        </SimpleGrid>
        {get('campana') && get('origen') && get('origen') !== 'qr_campaign' && (
          <Group gap="xs">
            <Badge variant="outline" tt="none">
              Solo las personas de {get('origen') === 'import' ? 'una importación' : 'un origen'} en particular
            </Badge>
            <Button variant="subtle" size="xs" onClick={() => change({ campana: null })}>
              Ver todas las de ese origen
            </Button>
          </Group>
        )}
        {filtered && (
          <Group>
            <Button variant="subtle" size="xs" onClick={() => setParams(new URLSearchParams())}>
              Quitar la búsqueda y los filtros
            </Button>
          </Group>
        )}
        <ServerTable
          caption="Personas"
          path={`/api/audience/contacts?${query.toString()}`}
          columns={COLUMNS}
          rowKey={(person) => person.id}
          sort={sort}
          onSortChange={(next) => change({ orden: sortValue(next) === '-createdAt' ? null : sortValue(next) })}
          describeError={peopleProblem}
          empty={
            filtered ? (
              <Text span>Nadie coincide con esta búsqueda y estos filtros.</Text>
            ) : (
              <Text span>
                Aún no hay personas. Llegan por los afiches, las PQRS, el voluntariado, los eventos o{' '}
                <Anchor component={Link} to={`${PEOPLE}/importar`}>
                  importando un archivo
                </Anchor>
                .
              </Text>
            )
          }
        />
      </Stack>
    </>
  );
}
