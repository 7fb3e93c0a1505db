import { Alert, Button, Group, NativeSelect, NumberInput, Paper, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { allocationBody, createResourceBody, createShiftBody } from '../../../src/modules/agenda/agenda.schemas';
import { api, queryClient } from '../app/api';
import { formatDateTime, formatNumber, localDay, localInstant } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { AGENDA_PROBLEMS, RESOURCES_PATH, eventPath, timeRange, type AgendaEvent, type Allocation, type Resources, type Shift } from './data';

const SHIFT_MESSAGES = { startsAt: 'Elija la hora de inicio del turno.', endsAt: 'Elija una hora de fin posterior al inicio.' };

/** A time of the event's day (or the next, for a shift past midnight) as an instant in Bogotá. */
function TimesOnDay({ day, onChange, errors }: { day: string; onChange: (times: { startsAt: string; endsAt: string }) => void; errors: { startsAt?: unknown; endsAt?: unknown } }) {
  const [times, setTimes] = useState({ start: '', end: '' });
  const change = (next: typeof times) => {
    setTimes(next);
    onChange({ startsAt: localInstant(day, next.start) ?? '', endsAt: localInstant(day, next.end) ?? '' });
  };
  return (
    <>
      <TextInput
        type="time"
        label="Desde"
        required
        w={130}
        value={times.start}
        onChange={(event) => change({ ...times, start: event.currentTarget.value })}
        error={errors.startsAt as string | undefined}
      />
      <TextInput
        type="time"
        label="Hasta"
        required
        w={130}
        value={times.end}
        onChange={(event) => change({ ...times, end: event.currentTarget.value })}
        error={errors.endsAt as string | undefined}
      />
    </>
  );
}

/** The shifts the event needs (roles, hours, slots) and who took them. */
function Shifts({ event, runs }: { event: AgendaEvent; runs: boolean }) {
  const path = `${eventPath(event.id)}/shifts`;
  const shifts = useQuery({ queryKey: ['agenda', 'shifts', event.id], queryFn: () => api.get<{ data: Shift[] }>(path) });
  const { form, submit, submitting, formError } = useSchemaForm(
    createShiftBody,
    { initialValues: { role: '', startsAt: '', endsAt: '', slots: 1 }, messages: SHIFT_MESSAGES },
    AGENDA_PROBLEMS,
  );
  const [formKey, setFormKey] = useState(0);
  const onSubmit = submit(async (values) => {
    await api.post(path, values);
    form.reset();
    setFormKey((key) => key + 1);
    await queryClient.invalidateQueries({ queryKey: ['agenda', 'shifts', event.id] });
  });
  const remove = async (shift: Shift) => {
    try {
      await api.delete(`${path}/${shift.id}`);
      await queryClient.invalidateQueries({ queryKey: ['agenda', 'shifts', event.id] });
    } catch (error) {
      notifications.show({ color: 'red', message: problemMessage(error, AGENDA_PROBLEMS) });
    }
  };
  const rows = shifts.data?.data ?? [];
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="shifts">
      <Title order={2} size="h4" id="shifts" mb="xs">
        Turnos del equipo
      </Title>
      {shifts.isError && <Alert color="red">{problemMessage(shifts.error)}</Alert>}
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed" mb="sm">
          Aún no hay turnos.
        </Text>
      ) : (
        <Table mb="sm">
          <Table.Caption>
            <VisuallyHidden>Turnos</VisuallyHidden>
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Tarea</Table.Th>
              <Table.Th>Horario</Table.Th>
              <Table.Th>Cupos</Table.Th>
              {runs && <Table.Th>Acciones</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((shift) => (
              <Table.Tr key={shift.id}>
                <Table.Td>{shift.role}</Table.Td>
                <Table.Td>{timeRange(shift)}</Table.Td>
                <Table.Td>{`${shift.taken} de ${shift.slots} ocupados`}</Table.Td>
                {runs && (
                  <Table.Td>
                    {shift.taken === 0 ? (
                      <Button size="compact-xs" variant="subtle" color="red" onClick={() => void remove(shift)} aria-label={`Quitar el turno ${shift.role}`}>
                        Quitar
                      </Button>
                    ) : (
                      <Text size="xs">Con personas inscritas</Text>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {runs && event.status !== 'cancelled' && (
        <form onSubmit={onSubmit} noValidate aria-label="Agregar un turno">
          <Group align="flex-start" wrap="wrap">
            <TextInput label="Tarea del turno" description="Logística, registro, sonido…" required w={220} {...form.getInputProps('role')} />
            <TimesOnDay key={formKey} day={localDay(event.startsAt)} errors={form.errors} onChange={(times) => form.setValues(times)} />
            <NumberInput label="Cupos" required min={1} allowDecimal={false} w={100} {...form.getInputProps('slots')} />
            <Button type="submit" loading={submitting} mt={25}>
              Agregar turno
            </Button>
          </Group>
          {formError && (
            <Alert color="red" role="alert" mt="sm">
              {formError}
            </Alert>
          )}
        </form>
      )}
    </Paper>
  );
}

/** A new resource in the inventory (managers). */
function NewResource({ onCreated }: { onCreated: () => Promise<void> }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    createResourceBody,
    { initialValues: { name: '', category: '', quantity: 1, unit: '' }, emptyAs: { category: 'absent', unit: 'absent' } },
    AGENDA_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    await api.post(RESOURCES_PATH, values);
    form.reset();
    await onCreated();
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Agregar al inventario">
      <Group align="flex-start" wrap="wrap">
        <TextInput label="Nuevo recurso" description="Sonido, tarima, camisetas…" required w={220} {...form.getInputProps('name')} />
        <TextInput label="Categoría" w={160} {...form.getInputProps('category')} />
        <NumberInput label="Cantidad" required min={0} allowDecimal={false} w={110} {...form.getInputProps('quantity')} />
        <TextInput label="Unidad" w={120} {...form.getInputProps('unit')} />
        <Button type="submit" variant="default" loading={submitting} mt={25}>
          Agregar al inventario
        </Button>
      </Group>
      {formError && (
        <Alert color="red" role="alert" mt="sm">
          {formError}
        </Alert>
      )}
    </form>
  );
}

/** What the event holds of the inventory over its span; holding more than is free is refused. */
function Inventory({ event, runs }: { event: AgendaEvent; runs: boolean }) {
  const { user } = useSignedIn();
  const path = `${eventPath(event.id)}/allocations`;
  const canSeeStock = rolePermitted(user.role, agendaPolicy.roles('readInventory'));
  const allocations = useQuery({ queryKey: ['agenda', 'allocations', event.id], queryFn: () => api.get<{ data: Allocation[] }>(path) });
  const resourcesPath = `${RESOURCES_PATH}?active=true&from=${encodeURIComponent(event.startsAt)}&to=${encodeURIComponent(event.endsAt)}`;
  const resources = useQuery({ queryKey: ['agenda', 'resources', event.id], queryFn: () => api.get<Resources>(resourcesPath), enabled: runs && canSeeStock });
  const { form, submit, submitting, formError } = useSchemaForm(
    allocationBody,
    { initialValues: { resourceId: '', quantity: 1 }, messages: { resourceId: 'Elija un recurso del inventario.' } },
    AGENDA_PROBLEMS,
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['agenda'], predicate: (query) => ['allocations', 'resources'].includes(String(query.queryKey[1])) });
  const onSubmit = submit(async (values) => {
    await api.post(path, values);
    form.reset();
    await refresh();
  });
  const release = async (allocation: Allocation) => {
    try {
      await api.delete(`${path}/${allocation.id}`);
      await refresh();
    } catch (error) {
      notifications.show({ color: 'red', message: problemMessage(error, AGENDA_PROBLEMS) });
    }
  };
  const rows = allocations.data?.data ?? [];
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="inventory">
      <Title order={2} size="h4" id="inventory" mb="xs">
        Inventario para el evento
      </Title>
      {allocations.isError && <Alert color="red">{problemMessage(allocations.error)}</Alert>}
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed" mb="sm">
          El evento no tiene nada reservado.
        </Text>
      ) : (
        <Table mb="sm">
          <Table.Caption>
            <VisuallyHidden>Inventario reservado</VisuallyHidden>
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Recurso</Table.Th>
              <Table.Th>Cantidad</Table.Th>
              <Table.Th>Reservado</Table.Th>
              {runs && <Table.Th>Acciones</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((allocation) => (
              <Table.Tr key={allocation.id}>
                <Table.Td>{allocation.resourceName}</Table.Td>
                <Table.Td>{`${formatNumber(allocation.quantity)} ${allocation.unit ?? ''}`.trim()}</Table.Td>
                <Table.Td>{`${formatDateTime(allocation.startsAt)} a ${formatDateTime(allocation.endsAt)}`}</Table.Td>
                {runs && (
                  <Table.Td>
                    <Button size="compact-xs" variant="subtle" onClick={() => void release(allocation)} aria-label={`Devolver ${allocation.resourceName}`}>
                      Devolver
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {runs && canSeeStock && event.status !== 'cancelled' && (
        <Stack gap="sm">
          <form onSubmit={onSubmit} noValidate aria-label="Reservar del inventario">
            <Group align="flex-start" wrap="wrap">
              <NativeSelect
                label="Recurso"
                description="Libres durante el evento"
                required
                w={320}
                data={[
                  { value: '', label: resources.isPending ? 'Cargando…' : 'Elija un recurso' },
                  ...(resources.data?.data ?? []).map((resource) => ({
                    value: resource.id,
                    label: `${resource.name}: ${formatNumber(resource.available)} de ${formatNumber(resource.quantity)} libres${resource.unit ? ` (${resource.unit})` : ''}`,
                  })),
                ]}
                {...form.getInputProps('resourceId')}
              />
              <NumberInput label="Cantidad" required min={1} allowDecimal={false} w={110} {...form.getInputProps('quantity')} />
              <Button type="submit" loading={submitting} mt={25}>
                Reservar
              </Button>
            </Group>
            {formError && (
              <Alert color="red" role="alert" mt="sm">
                {formError}
              </Alert>
            )}
          </form>
          {agendaPolicy.allows(user, 'manageInventory') && <NewResource onCreated={refresh} />}
        </Stack>
      )}
    </Paper>
  );
}

/** `/agenda/:id`: the shifts and the inventory the event needs. */
export function LogisticsSection({ event, runs }: { event: AgendaEvent; runs: boolean }) {
  return (
    <Stack>
      <Shifts event={event} runs={runs} />
      <Inventory event={event} runs={runs} />
    </Stack>
  );
}
