import { Alert, Badge, Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { RSVP_STATUSES, type RsvpStatus } from '../../../src/modules/agenda/agenda.constants';
import { rsvpBody } from '../../../src/modules/agenda/agenda.schemas';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { queryString, useUrlFilters } from '../app/filters';
import { formatTime } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { problemMessage } from '../app/problems';
import { SearchForm } from '../app/SearchForm';
import { PersonSelect } from '../app/SearchSelect';
import { ServerTable, invalidateServerLists, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { AGENDA_PROBLEMS, RSVP_LABELS, RSVP_TONES, attendeesPath, eventKey, eventPath, type AgendaEvent, type Attendee, type RsvpResult } from './data';

/** After an answer or a check-in: the event's counts and every list of its people. */
export async function refreshPeople(eventId: string): Promise<void> {
  await Promise.all([queryClient.invalidateQueries({ queryKey: eventKey(eventId) }), invalidateServerLists(attendeesPath(eventId))]);
}

/** An answer as a badge, the waitlist with its place in line in words. */
export function AnswerBadge({ attendee }: { attendee: Attendee }) {
  if (!attendee.status) return <Text size="sm">Sin respuesta (llegó sin inscribirse)</Text>;
  const tone = TONES[RSVP_TONES[attendee.status]];
  return (
    <Badge variant="light" color={tone.color} c={tone.text} tt="none">
      {RSVP_LABELS[attendee.status]}
      {attendee.waitlistPosition ? ` · puesto ${attendee.waitlistPosition}` : ''}
    </Badge>
  );
}

/** What an answer did, in words: confirmed, or on the waitlist at its place, and who moved up. */
function answerMessage(result: RsvpResult): string {
  const own =
    result.status === 'waitlisted'
      ? `Quedó en lista de espera (puesto ${result.waitlistPosition ?? '?'}): el evento está lleno.`
      : `Respuesta registrada: ${RSVP_LABELS[result.status]}.`;
  const moved = result.promoted.length
    ? ` ${result.promoted.length === 1 ? 'Una persona pasó' : `${result.promoted.length} personas pasaron`} de la lista de espera a confirmadas.`
    : '';
  return own + moved;
}

/** A manager takes an answer for someone (by phone, at a meeting): going to a full event joins the waitlist. */
function AnswerForm({ event }: { event: AgendaEvent }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    rsvpBody,
    { initialValues: { contactId: undefined as string | undefined, status: 'going' as 'going' | 'maybe' | 'declined' }, messages: { contactId: 'Elija a la persona.' } },
    AGENDA_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    if (!values.contactId) {
      form.setFieldError('contactId', 'Elija a la persona.');
      return;
    }
    const result = await api.post<RsvpResult>(`${eventPath(event.id)}/rsvp`, values);
    notifications.show({ color: result.status === 'waitlisted' ? 'orange' : 'green', message: answerMessage(result) });
    form.setFieldValue('contactId', undefined);
    await refreshPeople(event.id);
  });
  return (
    <Paper withBorder p="md" mb="md" component="section" aria-labelledby="rsvp-add">
      <Title order={2} size="h4" id="rsvp-add" mb="xs">
        Registrar una respuesta
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Group align="flex-start" wrap="wrap">
          <PersonSelect
            label="Persona"
            required
            w={360}
            value={(form.getValues().contactId as string | undefined) ?? null}
            onChange={(value) => form.setFieldValue('contactId', value ?? undefined)}
            error={form.errors.contactId}
          />
          <NativeSelect
            label="Respuesta"
            data={[
              { value: 'going', label: 'Va (confirmado, o en espera si está lleno)' },
              { value: 'maybe', label: 'Tal vez' },
              { value: 'declined', label: 'No va' },
            ]}
            {...form.getInputProps('status')}
          />
          <Button type="submit" loading={submitting} mt={25}>
            Registrar respuesta
          </Button>
        </Group>
        {formError && (
          <Alert color="red" role="alert" mt="sm">
            {formError}
          </Alert>
        )}
      </form>
    </Paper>
  );
}

type Acting = { kind: 'decline'; attendee: Attendee } | { kind: 'capacity' } | null;

/** `/agenda/:id/respuestas`: who is confirmed and who waits, in order; take answers, free a place, open one more. */
export function RsvpSection({ event }: { event: AgendaEvent }) {
  const { user } = useSignedIn();
  const forOthers = agendaPolicy.allows(user, 'rsvpForOthers');
  const open = event.status === 'scheduled';
  const filters = useUrlFilters(['q', 'respuesta'] as const);
  const status = RSVP_STATUSES.find((value) => value === filters.values.respuesta);
  const [acting, setActing] = useState<Acting>(null);
  const full = event.capacity !== null && event.counts.going >= event.capacity;

  const columns: Column<Attendee>[] = [
    { key: 'name', header: 'Persona', render: (row) => <Text fw={500}>{row.name}</Text> },
    { key: 'status', header: 'Respuesta', render: (row) => <AnswerBadge attendee={row} /> },
    {
      key: 'checkedIn',
      header: 'Entrada',
      render: (row) => (row.checkedInAt ? <time dateTime={row.checkedInAt}>Entró a las {formatTime(row.checkedInAt)}</time> : <Text size="sm">No ha entrado</Text>),
    },
    ...(forOthers && open
      ? [
          {
            key: 'actions',
            header: 'Acciones',
            render: (row: Attendee) =>
              row.status === 'going' || row.status === 'waitlisted' ? (
                <Button
                  size="xs"
                  variant="default"
                  onClick={() => setActing({ kind: 'decline', attendee: row })}
                  aria-label={`${row.status === 'going' ? 'Liberar cupo de' : 'Sacar de la espera a'} ${row.name}`}
                >
                  {row.status === 'going' ? 'Liberar cupo' : 'Sacar de la espera'}
                </Button>
              ) : null,
          },
        ]
      : []),
  ];

  return (
    <Stack gap={0}>
      {!open && (
        <Alert color="gray" mb="md">
          Este evento no está programado ({event.status === 'draft' ? 'es un borrador' : 'ya no recibe respuestas'}): la lista se puede consultar, no cambiar.
        </Alert>
      )}
      {forOthers && open && <AnswerForm event={event} />}
      {forOthers && open && event.capacity !== null && (
        <Group mb="md" gap="sm">
          <Text size="sm">
            {full ? `Cupo lleno (${event.counts.going} de ${event.capacity}).` : `Quedan ${event.capacity - event.counts.going} cupos.`}{' '}
            {event.counts.waitlisted ? `${event.counts.waitlisted} en lista de espera.` : ''}
          </Text>
          {event.counts.waitlisted > 0 && (
            <Button size="xs" variant="light" onClick={() => setActing({ kind: 'capacity' })}>
              Abrir un cupo más
            </Button>
          )}
        </Group>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }} mb="md">
        <SearchForm name="Buscar entre las respuestas" placeholder="Nombre" value={filters.values.q ?? ''} onSearch={(value) => filters.set({ q: value })} />
        <NativeSelect
          label="Respuesta"
          value={status ?? ''}
          onChange={(change) => filters.set({ respuesta: change.currentTarget.value })}
          data={[{ value: '', label: 'Todas' }, ...RSVP_STATUSES.map((value) => ({ value, label: RSVP_LABELS[value] }))]}
        />
      </SimpleGrid>
      <ServerTable<Attendee>
        caption="Respuestas: confirmados primero, luego la lista de espera en orden"
        path={`${attendeesPath(event.id)}${queryString({ q: filters.values.q, status })}`}
        columns={columns}
        rowKey={(row) => row.contactId}
        empty={filters.active.length ? 'Nadie coincide con la búsqueda.' : 'Aún nadie ha respondido.'}
      />
      <ConfirmDialog
        opened={acting?.kind === 'decline'}
        onClose={() => setActing(null)}
        title={acting?.kind === 'decline' && acting.attendee.status === 'going' ? 'Liberar el cupo' : 'Sacar de la lista de espera'}
        confirmLabel={acting?.kind === 'decline' && acting.attendee.status === 'going' ? 'Liberar el cupo' : 'Sacar de la espera'}
        describeError={(error) => problemMessage(error, AGENDA_PROBLEMS)}
        onConfirm={async () => {
          if (acting?.kind !== 'decline') return;
          const result = await api.post<RsvpResult>(`${eventPath(event.id)}/rsvp`, { contactId: acting.attendee.contactId, status: 'declined' as RsvpStatus });
          notifications.show({ color: 'green', message: `${acting.attendee.name} queda como «No va».${answerMessage(result).replace(/^[^.]*\./, '')}` });
          setActing(null);
          await refreshPeople(event.id);
        }}
      >
        <Text>
          {acting?.kind === 'decline' && acting.attendee.status === 'going'
            ? `${acting.attendee.name} queda como «No va» y su cupo pasa a la primera persona de la lista de espera, a quien se le avisa.`
            : `${acting?.kind === 'decline' ? acting.attendee.name : ''} queda como «No va» y sale de la lista de espera.`}
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={acting?.kind === 'capacity'}
        onClose={() => setActing(null)}
        title="Abrir un cupo más"
        confirmLabel={`Subir el cupo a ${(event.capacity ?? 0) + 1}`}
        describeError={(error) => problemMessage(error, AGENDA_PROBLEMS)}
        onConfirm={async () => {
          await api.patch(eventPath(event.id), { capacity: (event.capacity ?? 0) + 1 });
          notifications.show({ color: 'green', message: 'Cupo ampliado: la primera persona en espera quedó confirmada y se le avisa.' });
          setActing(null);
          await refreshPeople(event.id);
        }}
      >
        <Text>
          El cupo sube de {event.capacity} a {(event.capacity ?? 0) + 1}: la primera persona de la lista de espera pasa a confirmada y recibe un aviso.
        </Text>
      </ConfirmDialog>
    </Stack>
  );
}
