import { Alert, Button, Group, NativeSelect, NumberInput, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { createEventBody, updateEventBody } from '../../../src/modules/agenda/agenda.schemas';
import { EVENT_TYPES, type EventType, type Visibility } from '../../../src/modules/agenda/agenda.constants';
import { api, queryClient } from '../app/api';
import { CAMPAIGN_TIME_ZONE, localDay, localInstant } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageLoader } from '../app/PageLoader';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SearchSelect, TerritorySelect } from '../app/SearchSelect';
import { useSignedIn } from '../app/session';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { roles as ROLE_LABELS } from '../../lib/labels';
import type { Page } from '../../lib/api-types';
import { AGENDA_PROBLEMS, EVENTS_PATH, TYPE_LABELS, VISIBILITY_LABELS, eventPath, type AgendaEvent } from './data';

const ORGANISERS_PATH = '/api/agenda/organisers';
type Organiser = { id: string; name: string; role: keyof typeof ROLE_LABELS };
const organiserLabel = (organiser: Organiser) => `${organiser.name} (${ROLE_LABELS[organiser.role]})`;

/** The accounts that may run an event, found by name or email. */
const ORGANISERS = {
  queryKey: ['agenda', 'organisers'],
  search: async (text: string) => {
    const page = await api.get<Page<Organiser>>(`${ORGANISERS_PATH}?limit=20${text.trim() ? `&q=${encodeURIComponent(text.trim().slice(0, 100))}` : ''}`);
    return page.data.map((organiser) => ({ value: organiser.id, label: organiserLabel(organiser) }));
  },
  resolve: async (id: string) => {
    const found = (await api.all<Organiser>(ORGANISERS_PATH, 2000)).find((organiser) => organiser.id === id);
    return found ? organiserLabel(found) : 'Una cuenta que ya no puede organizar';
  },
} as const;

/** A wall-clock time of Bogotá (`19:00`) from an instant. */
const localClock = (instant: string) => new Date(instant).toLocaleTimeString('en-GB', { timeZone: CAMPAIGN_TIME_ZONE, hour: '2-digit', minute: '2-digit', hour12: false });

interface When {
  day: string;
  start: string;
  endDay: string;
  end: string;
}

function whenOf(event: AgendaEvent | undefined): When {
  if (!event) return { day: '', start: '', endDay: '', end: '' };
  return { day: localDay(event.startsAt), start: localClock(event.startsAt), endDay: localDay(event.endsAt), end: localClock(event.endsAt) };
}

/** The form's values; an empty number field holds '' until it is sent (left out, or null to clear it). */
function valuesOf(event: AgendaEvent | undefined) {
  return {
    title: event?.title ?? '',
    type: (event?.type ?? 'meeting') as EventType,
    startsAt: event?.local.startsAt ?? '',
    endsAt: event?.local.endsAt ?? '',
    description: event?.description ?? '',
    address: event?.address ?? '',
    territoryId: (event?.territoryId ?? null) as string | null,
    organiserId: (event?.organiserId ?? null) as string | null,
    capacity: (event?.capacity ?? '') as number | null,
    visibility: (event?.visibility ?? 'internal') as Visibility,
    budget: (event?.budget ?? '') as number | null,
    status: event ? undefined : ('scheduled' as 'draft' | 'scheduled'),
  };
}

const MESSAGES = {
  startsAt: 'Elija el día y la hora de inicio (hora de Bogotá).',
  endsAt: 'Elija un día y una hora de fin posteriores al inicio.',
  capacity: 'El cupo es un número entero desde 1 (vacío: sin límite).',
};

/** The event's fields: title, type, when in Bogotá, place, capacity, visibility, budget. New events also choose draft or scheduled. */
function EventForm({ event }: { event?: AgendaEvent }) {
  const navigate = useNavigate();
  const { user } = useSignedIn();
  const mayChooseOrganiser = agendaPolicy.allows(user, 'create');
  const [when, setWhen] = useState<When>(() => whenOf(event));
  const schema = event ? updateEventBody : createEventBody;
  const { form, submit, submitting, formError } = useSchemaForm(
    schema as typeof createEventBody,
    {
      initialValues: valuesOf(event),
      emptyAs: event
        ? { description: 'null', address: 'null', capacity: 'null', budget: 'null' }
        : { description: 'absent', address: 'absent', capacity: 'absent', budget: 'absent' },
      messages: MESSAGES,
    },
    AGENDA_PROBLEMS,
  );
  const setTime = (change: Partial<When>) => {
    const next = { ...when, ...change };
    // The end day follows the start day until it is chosen apart.
    if (change.day !== undefined && (when.endDay === '' || when.endDay === when.day)) next.endDay = change.day;
    setWhen(next);
    form.setFieldValue('startsAt', localInstant(next.day, next.start) ?? '');
    form.setFieldValue('endsAt', localInstant(next.endDay, next.end) ?? '');
  };

  const onSubmit = submit(async (values) => {
    const body = { ...values, territoryId: values.territoryId ?? (event ? null : undefined), organiserId: values.organiserId ?? (event ? null : undefined) };
    const saved = event ? await api.patch<AgendaEvent>(eventPath(event.id), body) : await api.post<AgendaEvent>(EVENTS_PATH, body);
    await queryClient.invalidateQueries({ queryKey: ['agenda'] });
    await navigate(`/agenda/${saved.id}`);
  });

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack maw={760}>
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <TextInput label="Título" required {...form.getInputProps('title')} />
        <Group grow align="flex-start">
          <NativeSelect label="Tipo" required data={EVENT_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }))} {...form.getInputProps('type')} />
          <NativeSelect label="Visibilidad" data={Object.entries(VISIBILITY_LABELS).map(([value, label]) => ({ value, label }))} {...form.getInputProps('visibility')} />
        </Group>
        <Title order={2} size="h4">
          Cuándo (hora de Bogotá)
        </Title>
        <Group grow align="flex-start">
          <TextInput type="date" label="Día de inicio" required value={when.day} onChange={(change) => setTime({ day: change.currentTarget.value })} error={form.errors.startsAt} />
          <TextInput type="time" label="Hora de inicio" required value={when.start} onChange={(change) => setTime({ start: change.currentTarget.value })} />
        </Group>
        <Group grow align="flex-start">
          <TextInput
            type="date"
            label="Día de fin"
            required
            value={when.endDay}
            onChange={(change) => setTime({ endDay: change.currentTarget.value })}
            error={form.errors.endsAt}
          />
          <TextInput type="time" label="Hora de fin" required value={when.end} onChange={(change) => setTime({ end: change.currentTarget.value })} />
        </Group>
        <Title order={2} size="h4">
          Dónde y cuántos
        </Title>
        <TextInput label="Dirección" {...form.getInputProps('address')} />
        {mayChooseOrganiser && (
          <SearchSelect
            label="Quién lo organiza"
            description="Lo edita, toma las respuestas y registra las entradas en la puerta (un voluntario de la puerta, por ejemplo). Vacío: quien lo crea."
            placeholder="Buscar por nombre o correo…"
            {...ORGANISERS}
            value={(form.getValues().organiserId as string | null) ?? null}
            onChange={(value) => form.setFieldValue('organiserId', value)}
            error={form.errors.organiserId}
          />
        )}
        <TerritorySelect label="Territorio" value={(form.getValues().territoryId as string | null) ?? null} onChange={(value) => form.setFieldValue('territoryId', value)} />
        <Group grow align="flex-start">
          <NumberInput
            label="Cupo"
            description="Quienes confirmen después de llenarse quedan en lista de espera. Vacío: sin límite."
            min={1}
            allowDecimal={false}
            {...form.getInputProps('capacity')}
          />
          <NumberInput
            label="Presupuesto (pesos)"
            description="Lo que se planea gastar; lo ven la gerencia, tesorería y quien organiza."
            min={0}
            allowDecimal={false}
            thousandSeparator="."
            decimalSeparator=","
            {...form.getInputProps('budget')}
          />
        </Group>
        <Textarea label="Descripción" autosize minRows={3} {...form.getInputProps('description')} />
        {!event && (
          <NativeSelect
            label="Estado"
            description="Un borrador solo lo ven quien organiza y la gerencia, y no recibe respuestas."
            data={[
              { value: 'scheduled', label: 'Programado (publicado)' },
              { value: 'draft', label: 'Borrador' },
            ]}
            {...form.getInputProps('status')}
          />
        )}
        <Text size="sm" c="dimmed">
          Los turnos del equipo, el inventario y las tareas se agregan en la página del evento.
        </Text>
        <Group justify="flex-end">
          <Button component={Link} to={event ? `/agenda/${event.id}` : '/agenda'} variant="default">
            Cancelar
          </Button>
          <Button type="submit" loading={submitting}>
            {event ? 'Guardar cambios' : 'Crear evento'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `/agenda/nuevo` and `/agenda/:id/editar`. */
export default function EventFormPage() {
  const { id } = useParams();
  const event = useQuery({ queryKey: ['agenda', 'event', id], queryFn: () => api.get<AgendaEvent>(eventPath(id!)), enabled: !!id });
  if (!id)
    return (
      <>
        <PageTitle>Nuevo evento</PageTitle>
        <EventForm />
      </>
    );
  if (event.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(event.error)}
      </Alert>
    );
  if (!event.data) return <PageLoader />;
  return (
    <>
      <PageTitle>{`Editar: ${event.data.title}`}</PageTitle>
      <EventForm key={event.data.updatedAt} event={event.data} />
    </>
  );
}
