import { Button, NativeSelect, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { allocationBody, createResourceBody, createShiftBody } from '../../../src/modules/agenda/agenda.schemas';
import { api, queryClient } from '../app/api';
import { formatDate, formatDateTime, formatNumber, localDay, localInstant } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { InlineForm } from '../app/InlineForm';
import { deleteAndRefresh, ListTable, PanelSection } from '../app/ListPanel';
import { useSignedIn } from '../app/session';
import { AGENDA_PROBLEMS, RESOURCES_PATH, addDays, eventPath, shiftInstants, shiftRange, type AgendaEvent, type Allocation, type Resources, type Shift } from './data';

const SHIFT_MESSAGES = { startsAt: 'Elija la hora de inicio del turno.', endsAt: 'Elija una hora de fin posterior al inicio.' };

/**
 * Two times of day as the shift's instants at its event (`shiftInstants`: the day that puts it nearest
 * the event, an end before the start the next day's), each field saying which day when not the event's first.
 */
function ShiftTimes({
  event,
  onChange,
  errors,
}: {
  event: AgendaEvent;
  onChange: (times: { startsAt: string; endsAt: string }) => void;
  errors: { startsAt?: unknown; endsAt?: unknown };
}) {
  const [times, setTimes] = useState({ start: '', end: '' });
  const instants = shiftInstants(event, times.start, times.end);
  const firstDay = localDay(event.startsAt);
  const dayWords = (instant: string | undefined, from: string) => {
    if (!instant || localDay(instant) === from) return undefined;
    return localDay(instant) === addDays(from, 1) ? 'Al día siguiente' : `El ${formatDate(instant)}`;
  };
  const change = (next: typeof times) => {
    setTimes(next);
    // With one time typed, the form still holds it (on the event's first day), so only the missing one is asked for.
    onChange(shiftInstants(event, next.start, next.end) ?? { startsAt: localInstant(firstDay, next.start) ?? '', endsAt: localInstant(firstDay, next.end) ?? '' });
  };
  return (
    <>
      <TextInput
        type="time"
        label="Desde"
        description={dayWords(instants?.startsAt, firstDay)}
        required
        w={130}
        value={times.start}
        onChange={(event) => change({ ...times, start: event.currentTarget.value })}
        error={errors.startsAt as string | undefined}
      />
      <TextInput
        type="time"
        label="Hasta"
        description={instants ? dayWords(instants.endsAt, localDay(instants.startsAt)) : undefined}
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
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['agenda', 'shifts', event.id] });
  const onSubmit = submit(async (values) => {
    await api.post(path, values);
    form.reset();
    setFormKey((key) => key + 1);
    await refresh();
  });
  return (
    <PanelSection id="shifts" title="Turnos del equipo">
      <ListTable
        list={shifts}
        caption="Turnos"
        empty="Aún no hay turnos."
        headers={['Tarea', 'Horario', 'Cupos']}
        cells={(shift) => [shift.role, shiftRange(shift, event), `${shift.taken} de ${shift.slots} ocupados`]}
        action={
          runs
            ? (shift) =>
                shift.taken === 0 ? (
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="red"
                    onClick={() => void deleteAndRefresh(`${path}/${shift.id}`, refresh, AGENDA_PROBLEMS)}
                    aria-label={`Quitar el turno ${shift.role}`}
                  >
                    Quitar
                  </Button>
                ) : (
                  <Text size="xs">Con personas inscritas</Text>
                )
            : undefined
        }
      />
      {runs && event.status !== 'cancelled' && (
        <InlineForm label="Agregar un turno" onSubmit={onSubmit} submitLabel="Agregar turno" submitting={submitting} formError={formError}>
          <TextInput label="Tarea del turno" description="Logística, registro, sonido…" required w={220} {...form.getInputProps('role')} />
          <ShiftTimes key={formKey} event={event} errors={form.errors} onChange={(times) => form.setValues(times)} />
          <NumberInput label="Cupos" required min={1} allowDecimal={false} w={100} {...form.getInputProps('slots')} />
        </InlineForm>
      )}
    </PanelSection>
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
    <InlineForm label="Agregar al inventario" onSubmit={onSubmit} submitLabel="Agregar al inventario" submitting={submitting} variant="default" formError={formError}>
      <TextInput label="Nuevo recurso" description="Sonido, tarima, camisetas…" required w={220} {...form.getInputProps('name')} />
      <TextInput label="Categoría" w={160} {...form.getInputProps('category')} />
      <NumberInput label="Cantidad" required min={0} allowDecimal={false} w={110} {...form.getInputProps('quantity')} />
      <TextInput label="Unidad" w={120} {...form.getInputProps('unit')} />
    </InlineForm>
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
  return (
    <PanelSection id="inventory" title="Inventario para el evento">
      <ListTable
        list={allocations}
        caption="Inventario reservado"
        empty="El evento no tiene nada reservado."
        headers={['Recurso', 'Cantidad', 'Reservado']}
        cells={(allocation) => [
          allocation.resourceName,
          `${formatNumber(allocation.quantity)} ${allocation.unit ?? ''}`.trim(),
          `${formatDateTime(allocation.startsAt)} a ${formatDateTime(allocation.endsAt)}`,
        ]}
        action={
          runs
            ? (allocation) => (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  onClick={() => void deleteAndRefresh(`${path}/${allocation.id}`, refresh, AGENDA_PROBLEMS)}
                  aria-label={`Devolver ${allocation.resourceName}`}
                >
                  Devolver
                </Button>
              )
            : undefined
        }
      />
      {runs && canSeeStock && event.status !== 'cancelled' && (
        <Stack gap="sm">
          <InlineForm label="Reservar del inventario" onSubmit={onSubmit} submitLabel="Reservar" submitting={submitting} formError={formError}>
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
          </InlineForm>
          {agendaPolicy.allows(user, 'manageInventory') && <NewResource onCreated={refresh} />}
        </Stack>
      )}
    </PanelSection>
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
