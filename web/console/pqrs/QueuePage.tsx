import { Anchor, Button, Group, NativeSelect, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { DUE_STATES, PQRS_CHANNELS, PQRS_STATUSES, PQRS_TYPES, type DueState } from '../../../src/modules/pqrs/pqrs.constants';
import { pqrsPolicy } from '../../../src/modules/pqrs/pqrs.policy';
import { api } from '../app/api';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDate, formatNumber } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { TerritorySelect } from '../app/SearchSelect';
import { ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { DueBadge } from './DueBadge';
import { LIST_PATH, SUMMARY_KEY, useAssignees, type PqrsRequest, type PqrsSummary } from './data';
import { CHANNEL_LABELS, DUE_STATE_LABELS, DUE_STATE_TONES, PRIORITY_LABELS, STATUS_LABELS, TONES, TYPE_LABELS, TYPE_SHORT } from './labels';

const FILTERS = ['q', 'status', 'type', 'channel', 'assigneeId', 'unassigned', 'territoryId', 'dueState'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** "Vencen pronto": what must be answered first today, overdue included. */
const SOON = 'overdue,due_soon';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const oneOf = <T extends string>(list: readonly T[], value: string | undefined): T | undefined => (list.includes(value as T) ? (value as T) : undefined);

/** The due states the address asks for, known ones only, in the API's order. */
function dueStatesOf(value: string | undefined): DueState[] {
  const asked = new Set((value ?? '').split(','));
  return DUE_STATES.filter((state) => asked.has(state));
}

/** The address's filters as the API takes them; anything hand-edited into nonsense is left out rather than refused. */
function apiFilters(values: Filters) {
  const q = values.q?.trim().slice(0, 100);
  return {
    q: q || undefined,
    type: oneOf(PQRS_TYPES, values.type),
    channel: oneOf(PQRS_CHANNELS, values.channel),
    assigneeId: values.assigneeId && UUID.test(values.assigneeId) ? values.assigneeId : undefined,
    unassigned: values.unassigned === 'true' ? 'true' : undefined,
    territoryId: values.territoryId && UUID.test(values.territoryId) ? values.territoryId : undefined,
  };
}

function SummaryButtons({ summary, selected, onToggle }: { summary: PqrsSummary | undefined; selected: DueState[]; onToggle: (state: DueState) => void }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="sm">
      {DUE_STATES.map((state) => {
        const pressed = selected.includes(state);
        const tone = TONES[DUE_STATE_TONES[state]];
        return (
          <UnstyledButton
            key={state}
            aria-pressed={pressed}
            onClick={() => onToggle(state)}
            p="sm"
            style={{
              border: `${pressed ? 2 : 1}px solid ${pressed ? tone.text : 'var(--mantine-color-gray-4)'}`,
              borderRadius: 'var(--mantine-radius-md)',
              background: pressed ? `var(--mantine-color-${tone.color}-0)` : 'var(--mantine-color-white)',
            }}
          >
            {/* Its name is what it shows, "Vencidas 3": the space keeps the two apart for screen readers. */}
            <Text component="span" display="block" size="sm" fw={600}>
              {DUE_STATE_LABELS[state]}
            </Text>{' '}
            <Text component="span" display="block" fz={26} fw={700} lh={1.2} c={state === 'overdue' || state === 'due_soon' ? tone.text : undefined}>
              {summary ? formatNumber(summary[state]) : '—'}
            </Text>
          </UnstyledButton>
        );
      })}
    </SimpleGrid>
  );
}

/** The desk's queue: every request by its legal due date, soonest first, with the header's counts as filters. */
export default function QueuePage() {
  const { user } = useSignedIn();
  const location = useLocation();
  const seesCitizens = rolePermitted(user.role, pqrsPolicy.roles('readPersonal'));
  const filters = useUrlFilters(FILTERS);
  const values = filters.values;
  const assignees = useAssignees();
  const [typed, setTyped] = useState(values.q ?? '');
  const setSearch = useDebouncedCallback((text: string) => filters.set({ q: text.trim() || undefined }, { replace: true }), 300);
  // The address changed under the box (back, forward, "Quitar filtros"): the box shows it, unless a keystroke is on its way there.
  const [addressQ, setAddressQ] = useState(values.q);
  if (values.q !== addressQ) {
    setAddressQ(values.q);
    if (!setSearch.isPending()) setTyped(values.q ?? '');
  }

  const shared = apiFilters(values);
  const status = oneOf(PQRS_STATUSES, values.status);
  const dueStates = dueStatesOf(values.dueState);
  const listPath = `${LIST_PATH}${queryString({ sort: 'due', ...shared, status, dueState: dueStates.join(',') || undefined })}`;
  const summaryPath = `${LIST_PATH}/summary${queryString(shared)}`;
  const summary = useQuery({ queryKey: [...SUMMARY_KEY, summaryPath], queryFn: () => api.get<PqrsSummary>(summaryPath) });

  const toggle = (state: DueState) => {
    const next = dueStates.includes(state) ? dueStates.filter((existing) => existing !== state) : [...dueStates, state];
    filters.set({ dueState: DUE_STATES.filter((known) => next.includes(known)).join(',') || undefined });
  };
  const view = dueStates.join(',') === SOON ? 'soon' : 'all';
  const assigneeValue = values.unassigned === 'true' ? 'none' : (shared.assigneeId ?? '');
  const clear = () => {
    setSearch.cancel();
    setTyped('');
    filters.clear();
  };

  const columns: Column<PqrsRequest>[] = [
    {
      key: 'number',
      header: 'Número',
      render: (row) => (
        <Anchor component={Link} to={`/pqrs/${row.id}`} state={{ queue: location.search }} fw={600} style={{ whiteSpace: 'nowrap' }}>
          {row.number}
        </Anchor>
      ),
    },
    { key: 'subject', header: 'Asunto', render: (row) => <Text size="sm">{row.subject}</Text> },
    ...(seesCitizens
      ? [
          {
            key: 'citizen',
            header: 'Ciudadano',
            render: (row: PqrsRequest) =>
              row.anonymous ? (
                <Text size="sm" fs="italic">
                  Anónima
                </Text>
              ) : row.citizenErased ? (
                <Text size="sm" fs="italic">
                  Datos suprimidos
                </Text>
              ) : (
                (row.personal?.citizen?.name ?? '—')
              ),
          },
        ]
      : []),
    { key: 'type', header: 'Tipo', render: (row) => TYPE_SHORT[row.type] },
    {
      key: 'status',
      header: 'Estado',
      render: (row) => (
        <Stack gap={0}>
          <Text size="sm">{STATUS_LABELS[row.status]}</Text>
          {row.priority !== 'normal' && (
            <Text size="xs" c={row.priority === 'urgent' || row.priority === 'high' ? TONES.red.text : 'dimmed'} fw={600}>
              Prioridad {PRIORITY_LABELS[row.priority].toLowerCase()}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'assignee',
      header: 'Responsable',
      render: (row) =>
        row.assigneeId ? (
          (assignees.byId.get(row.assigneeId)?.name ?? 'Otra persona del equipo')
        ) : (
          <Text size="sm" c="dimmed">
            Sin asignar
          </Text>
        ),
    },
    {
      key: 'due',
      header: 'Vence',
      render: (row) => (
        <Stack gap={2} align="flex-start">
          <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
            {formatDate(row.dueDate)}
          </Text>
          <DueBadge request={row} />
        </Stack>
      ),
    },
  ];

  return (
    <>
      <PageTitle>PQRS</PageTitle>
      <Text mb="md" c="dimmed" size="sm">
        Peticiones, quejas, reclamos, sugerencias y denuncias por fecha de vencimiento legal (Ley 1755 de 2015), la más urgente primero.
      </Text>
      <Stack gap="md">
        <section aria-labelledby="pqrs-summary-title">
          <Group gap="xs" align="baseline" mb="xs">
            <Title order={2} size="h4" id="pqrs-summary-title">
              Resumen
            </Title>
            <Text size="sm" c="dimmed">
              Pulse un estado para ver solo esas solicitudes.
            </Text>
          </Group>
          {summary.isError ? (
            <Text c="red.8" role="alert" size="sm">
              {problemMessage(summary.error)}
            </Text>
          ) : (
            <SummaryButtons summary={summary.data} selected={dueStates} onToggle={toggle} />
          )}
        </section>

        <Group align="center" wrap="wrap" gap="md">
          <SegmentedControl
            aria-label="Vista"
            value={view}
            onChange={(next) => filters.set({ dueState: next === 'soon' ? SOON : undefined })}
            data={[
              { value: 'all', label: 'Toda la cola' },
              { value: 'soon', label: 'Vencen pronto' },
            ]}
          />
          <Text size="sm" c="dimmed">
            {view === 'soon' ? 'Vencidas y las que vencen en 3 días hábiles o menos: lo que hay que responder primero.' : ''}
          </Text>
        </Group>

        <section aria-labelledby="pqrs-filters-title">
          <VisuallyHidden>
            <h2 id="pqrs-filters-title">Filtros</h2>
          </VisuallyHidden>
          <SimpleGrid cols={{ base: 1, xs: 2, sm: 3, lg: 6 }} spacing="sm" verticalSpacing="xs">
            <TextInput
              label="Buscar"
              placeholder="Asunto o número"
              value={typed}
              maxLength={100}
              onChange={(event) => {
                setTyped(event.currentTarget.value);
                setSearch(event.currentTarget.value);
              }}
            />
            <NativeSelect
              label="Estado"
              value={status ?? ''}
              onChange={(event) => filters.set({ status: event.currentTarget.value || undefined })}
              data={[{ value: '', label: 'Todos' }, ...PQRS_STATUSES.map((value) => ({ value, label: STATUS_LABELS[value] }))]}
            />
            <NativeSelect
              label="Tipo"
              value={shared.type ?? ''}
              onChange={(event) => filters.set({ type: event.currentTarget.value || undefined })}
              data={[{ value: '', label: 'Todos' }, ...PQRS_TYPES.map((value) => ({ value, label: TYPE_LABELS[value] }))]}
            />
            <NativeSelect
              label="Responsable"
              value={assigneeValue}
              onChange={(event) => {
                const next = event.currentTarget.value;
                filters.set({ assigneeId: next && next !== 'none' ? next : undefined, unassigned: next === 'none' ? 'true' : undefined });
              }}
              data={[
                { value: '', label: 'Cualquiera' },
                { value: 'none', label: 'Sin asignar' },
                ...assignees.list.map((member) => ({ value: member.id, label: member.id === user.id ? `${member.name} (yo)` : member.name })),
              ]}
            />
            <TerritorySelect label="Territorio" value={shared.territoryId ?? null} onChange={(territoryId) => filters.set({ territoryId })} />
            <NativeSelect
              label="Canal"
              value={shared.channel ?? ''}
              onChange={(event) => filters.set({ channel: event.currentTarget.value || undefined })}
              data={[{ value: '', label: 'Todos' }, ...PQRS_CHANNELS.map((value) => ({ value, label: CHANNEL_LABELS[value] }))]}
            />
          </SimpleGrid>
          {filters.active.length > 0 && (
            <Button variant="subtle" onClick={clear} mt="xs" px={0}>
              Quitar filtros
            </Button>
          )}
        </section>

        <ServerTable<PqrsRequest>
          caption="Solicitudes PQRS por fecha de vencimiento"
          path={listPath}
          columns={columns}
          rowKey={(row) => row.id}
          empty={filters.active.length ? 'Ninguna solicitud coincide con estos filtros.' : 'Aún no hay solicitudes. Las que lleguen aparecerán aquí sin recargar.'}
        />
      </Stack>
    </>
  );
}
