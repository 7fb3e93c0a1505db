import { Alert, Badge, Button, Card, Group, List, Loader, Modal, MultiSelect, Select, SimpleGrid, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueries, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { gotvPolicy } from '../../../src/modules/gotv/gotv.policy';
import { createBrigadeBody, updateBrigadeBody } from '../../../src/modules/gotv/gotv.schemas';
import { api, queryClient } from '../app/api';
import { formatNumber } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SearchMultiSelect } from '../app/SearchSelect';
import { useSignedIn } from '../app/session';
import { GOTV, SETUP_PATHS, STATION_STATUS_LABELS, stationSearch, useBrigadePeople, type Brigade, type BrigadePerson, type Station } from './gotv';

// Leaflet is loaded with the first brigade opened, not with the list.
const BrigadeMap = lazy(() => import('./BrigadeMap'));

const BRIGADES = `${GOTV}/brigades`;
const PROBLEMS = { brigade_name_taken: 'Ya hay una brigada con ese nombre.' };

const personName = (people: Map<string, BrigadePerson> | undefined, id: string) => {
  const person = people?.get(id);
  if (!person) return '…';
  return person.active ? person.name : `${person.name} (cuenta desactivada)`;
};

/** The form of a new brigade or of a change: name, members (brigade users), leader and stations. */
function BrigadeDialog({ brigade, onClose }: { brigade: Brigade | null; onClose: () => void }) {
  const people = useBrigadePeople();
  const { form, submit, submitting, formError } = useSchemaForm(
    brigade ? updateBrigadeBody : createBrigadeBody,
    {
      initialValues: {
        name: brigade?.name ?? '',
        memberIds: brigade?.memberIds ?? [],
        stationIds: brigade?.stationIds ?? [],
        leaderId: brigade?.leaderId ?? null,
      },
      // A cleared leader: none for a new brigade, removed from one that had one.
      emptyAs: { leaderId: brigade ? 'null' : 'absent' },
    },
    PROBLEMS,
  );
  const values = form.getValues() as { memberIds: string[]; leaderId: string | null };
  const everyone = [...(people.data?.values() ?? [])];
  const memberOptions = everyone
    .filter((person) => (person.role === 'brigade' && person.active) || values.memberIds.includes(person.id))
    .map((person) => ({ value: person.id, label: personName(people.data, person.id) }));
  // The leader is one of the members, or whoever leads the brigade now.
  const leaderOptions = everyone
    .filter((person) => values.memberIds.includes(person.id) || person.id === brigade?.leaderId)
    .map((person) => ({ value: person.id, label: personName(people.data, person.id) }));

  const onSubmit = submit(async (sent) => {
    const saved = brigade ? await api.patch<Brigade>(`${BRIGADES}/${brigade.id}`, sent) : await api.post<Brigade>(BRIGADES, sent);
    notifications.show({ color: 'green', message: brigade ? `Se guardó ${saved.name}.` : `Se creó ${saved.name}.` });
    await queryClient.invalidateQueries({ queryKey: ['gotv'] });
    onClose();
  });

  return (
    <Modal opened onClose={onClose} title={brigade ? `Editar ${brigade.name}` : 'Nueva brigada'} size="lg" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <TextInput label="Nombre" required data-autofocus {...form.getInputProps('name')} />
          <MultiSelect
            label="Integrantes"
            description="Cuentas activas con el rol Brigada (las invita la administración en Usuarios)."
            data={memberOptions}
            searchable
            nothingFoundMessage={people.isPending ? 'Cargando…' : 'Nadie coincide'}
            {...form.getInputProps('memberIds')}
          />
          <Select
            label="Líder"
            description="Uno de los integrantes."
            data={leaderOptions}
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el líder' }}
            {...form.getInputProps('leaderId')}
          />
          <SearchMultiSelect
            label="Puestos que cubre"
            description="Sus integrantes reportan solo en estos puestos y llaman a sus votantes."
            placeholder="Buscar por nombre o código…"
            {...stationSearch}
            value={(form.getValues() as { stationIds: string[] }).stationIds}
            onChange={(value) => form.setFieldValue('stationIds', value)}
            error={form.errors.stationIds}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancelar
            </Button>
            <Button type="submit" loading={submitting}>
              {brigade ? 'Guardar' : 'Crear brigada'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** One brigade: who is in it, the stations it covers (listed and on the map) and its voters. */
function BrigadeDetail({ brigade, canManage, onEdit }: { brigade: Brigade; canManage: boolean; onEdit: () => void }) {
  const people = useBrigadePeople();
  const stations = useQueries({
    queries: brigade.stationIds.map((id) => ({ queryKey: ['gotv', 'station', id], queryFn: () => api.get<Station>(`${GOTV}/polling-stations/${id}`), staleTime: 60_000 })),
  });
  const loaded = stations.flatMap((query) => (query.data ? [query.data] : []));
  const loading = stations.some((query) => query.isPending);
  return (
    <Card withBorder component="section" aria-labelledby="brigada-detalle">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="brigada-detalle">
          {brigade.name}
        </Title>
        {canManage && (
          <Button variant="default" onClick={onEdit}>
            Editar brigada
          </Button>
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Stack gap="xs">
          <div>
            <Text fw={600} size="sm">
              Líder
            </Text>
            <Text size="sm">{brigade.leaderId ? personName(people.data, brigade.leaderId) : 'Sin líder'}</Text>
          </div>
          <div>
            <Text fw={600} size="sm">
              Integrantes ({brigade.memberIds.length})
            </Text>
            {brigade.memberIds.length ? (
              <List size="sm">
                {brigade.memberIds.map((id) => (
                  <List.Item key={id}>{personName(people.data, id)}</List.Item>
                ))}
              </List>
            ) : (
              <Text size="sm">Aún sin integrantes.</Text>
            )}
          </div>
          <div>
            <Text fw={600} size="sm">
              Puestos ({brigade.stationIds.length})
            </Text>
            {brigade.stationIds.length ? (
              <List size="sm">
                {loaded.map((station) => (
                  <List.Item key={station.id}>
                    {station.name} ({station.code}) · {formatNumber(station.tables)} mesas · {STATION_STATUS_LABELS[station.status]}
                  </List.Item>
                ))}
              </List>
            ) : (
              <Text size="sm">Aún sin puestos: sus integrantes no pueden reportar.</Text>
            )}
          </div>
          <Text size="sm">{formatNumber(brigade.voters)} votantes asignados a la brigada, además de los de sus puestos.</Text>
        </Stack>
        <div>
          {loading ? (
            <Loader aria-label="Cargando los puestos" />
          ) : loaded.length ? (
            <Suspense fallback={<Loader aria-label="Cargando el mapa" />}>
              <BrigadeMap stations={loaded} label={`Mapa de los ${loaded.length} puestos de ${brigade.name}`} />
            </Suspense>
          ) : (
            <Text size="sm" c="dimmed">
              Sin puestos que mostrar en el mapa.
            </Text>
          )}
        </div>
      </SimpleGrid>
    </Card>
  );
}

/** `/dia-electoral/brigadas`: the brigades, their members and stations, the scope of each on a map. */
export default function BrigadesPage() {
  const { user } = useSignedIn();
  const canManage = rolePermitted(user.role, gotvPolicy.roles('manageBrigades'));
  const [params, setParams] = useSearchParams();
  const [editing, setEditing] = useState<Brigade | 'new' | null>(null);
  const brigades = useQuery({ queryKey: ['gotv', 'brigades'], queryFn: async () => (await api.get<{ data: Brigade[] }>(BRIGADES)).data });
  const people = useBrigadePeople();
  const chosen = brigades.data?.find((brigade) => brigade.id === params.get('brigada')) ?? null;

  return (
    <>
      <PageTitle
        actions={
          canManage && (
            <Button onClick={() => setEditing('new')} disabled={!brigades.data}>
              Nueva brigada
            </Button>
          )
        }
      >
        Brigadas
      </PageTitle>
      <Text size="sm" mb="md">
        Cada brigada reporta quién votó y llama a los votantes de sus puestos desde la <a href="/brigada/">app de brigada</a>. Antes del día, un reporte hecho en la app cuenta como
        simulacro. Los puestos se cargan en <Link to={SETUP_PATHS.import}>Importar puestos y votantes</Link>.
      </Text>
      {brigades.isPending ? (
        <Loader aria-label="Cargando" />
      ) : brigades.isError ? (
        <Alert color="red">{problemMessage(brigades.error)}</Alert>
      ) : (
        <Stack gap="md">
          <Table.ScrollContainer minWidth={600}>
            <Table verticalSpacing={4} striped highlightOnHover>
              <Table.Caption>Brigadas del día electoral</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Brigada</Table.Th>
                  <Table.Th>Líder</Table.Th>
                  <Table.Th ta="right">Integrantes</Table.Th>
                  <Table.Th ta="right">Puestos</Table.Th>
                  <Table.Th ta="right">Votantes asignados</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {brigades.data.length === 0 && (
                  <Table.Tr>
                    <Table.Td colSpan={5}>Aún no hay brigadas.</Table.Td>
                  </Table.Tr>
                )}
                {brigades.data.map((brigade) => (
                  <Table.Tr key={brigade.id} bg={brigade.id === chosen?.id ? 'blue.0' : undefined}>
                    <Table.Td>
                      <UnstyledButton
                        fw={600}
                        c="blue.8"
                        td="underline"
                        aria-current={brigade.id === chosen?.id ? 'true' : undefined}
                        onClick={() => setParams({ brigada: brigade.id }, { replace: true })}
                      >
                        {brigade.name}
                      </UnstyledButton>
                    </Table.Td>
                    <Table.Td>{brigade.leaderId ? personName(people.data, brigade.leaderId) : '—'}</Table.Td>
                    <Table.Td ta="right">{formatNumber(brigade.memberIds.length)}</Table.Td>
                    <Table.Td ta="right">{brigade.stationIds.length ? formatNumber(brigade.stationIds.length) : <Badge color="orange">sin puestos</Badge>}</Table.Td>
                    <Table.Td ta="right">{formatNumber(brigade.voters)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {chosen ? (
            <BrigadeDetail key={chosen.id} brigade={chosen} canManage={canManage} onEdit={() => setEditing(chosen)} />
          ) : (
            brigades.data.length > 0 && <Text size="sm">Elija una brigada para ver sus integrantes y sus puestos en el mapa.</Text>
          )}
        </Stack>
      )}
      {editing && <BrigadeDialog brigade={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </>
  );
}
