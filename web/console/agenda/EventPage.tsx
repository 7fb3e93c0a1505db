import { Alert, Anchor, Badge, Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Route, Routes, useParams } from 'react-router';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDate, formatNumber, formatPesos, localDay, plural } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageLoader } from '../app/PageLoader';
import { NotFoundPage, PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SectionTabs, type Section } from '../app/SectionTabs';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { AGENDA_PROBLEMS, STATUS_LABELS, STATUS_TONES, TYPE_LABELS, VISIBILITY_LABELS, eventKey, eventPath, timeRange, type AgendaEvent } from './data';
import { DoorSection } from './DoorSection';
import { LogisticsSection } from './LogisticsSection';
import { RsvpSection, refreshPeople } from './RsvpSection';
import { TasksSection } from './TasksSection';

/** The event page's sections as links under its title: answers and the door only for those who run it. */
function EventTabs({ event, runs }: { event: AgendaEvent; runs: boolean }) {
  const base = `/agenda/${event.id}`;
  const sections: Section[] = [
    { path: base, label: 'Turnos e inventario', roles: [] },
    ...(runs
      ? [
          { path: `${base}/respuestas`, label: 'Respuestas y lista de espera', roles: [] },
          { path: `${base}/puerta`, label: 'Puerta (registrar entradas)', roles: [] },
        ]
      : []),
    { path: `${base}/tareas`, label: 'Tareas', roles: [] },
  ];
  return <SectionTabs label="Secciones del evento" sections={sections} />;
}

/** Cancelling is final: everyone going, waiting or signed up is told, once, with the reason. */
function CancelDialog({ event, opened, onClose }: { event: AgendaEvent; opened: boolean; onClose: () => void }) {
  const [reason, setReason] = useState('');
  return (
    <ConfirmDialog
      opened={opened}
      onClose={onClose}
      title="Cancelar el evento"
      confirmLabel="Cancelar el evento"
      danger
      describeError={(error) => problemMessage(error, AGENDA_PROBLEMS)}
      onConfirm={async () => {
        const changed = await api.patch<AgendaEvent>(eventPath(event.id), { status: 'cancelled', ...(reason.trim() ? { cancellationReason: reason.trim() } : {}) });
        queryClient.setQueryData(eventKey(event.id), changed);
        await queryClient.invalidateQueries({ queryKey: ['agenda'] });
        notifications.show({ color: 'green', message: 'Evento cancelado: se avisa a quienes iban, esperaban o tenían turno.' });
        onClose();
      }}
    >
      <Stack>
        <Text>«{event.title}» queda cancelado para siempre: se avisa una vez a quienes confirmaron, esperan o tienen turno, y se libera el inventario que tenía.</Text>
        <Textarea label="Motivo (va en el aviso por correo)" maxLength={500} value={reason} onChange={(change) => setReason(change.currentTarget.value)} />
      </Stack>
    </ConfirmDialog>
  );
}

/** What the event is: when in Bogotá, where, who may come, and its answers so far. */
function Summary({ event }: { event: AgendaEvent }) {
  const counts = event.counts;
  return (
    <Stack gap={4} mb="md">
      <Group gap={6}>
        <Badge variant="light" color={TONES[STATUS_TONES[event.status]].color} c={TONES[STATUS_TONES[event.status]].text} tt="none">
          {STATUS_LABELS[event.status]}
        </Badge>
        <Badge variant="light" color="gray" c={TONES.gray.text} tt="none">
          {TYPE_LABELS[event.type]}
        </Badge>
        <Badge variant="outline" color="gray" c={TONES.gray.text} tt="none">
          {VISIBILITY_LABELS[event.visibility]}
        </Badge>
      </Group>
      <Text fw={600}>
        <time dateTime={event.startsAt}>{formatDate(event.startsAt)}</time>, {timeRange(event)} (hora de Bogotá)
      </Text>
      {event.address && <Text>{event.address}</Text>}
      <Text>
        {[
          `${plural(counts.going, 'confirmado', 'confirmados')}${event.capacity ? ` de ${plural(event.capacity, 'cupo', 'cupos')}` : ' (sin límite de cupo)'}`,
          `${formatNumber(counts.waitlisted)} en lista de espera`,
          `${formatNumber(counts.maybe)} tal vez`,
          `${plural(counts.checkedIn, 'entró', 'entraron')}`,
        ].join(' · ')}
      </Text>
      {event.budget !== null && <Text size="sm">Presupuesto planeado: {formatPesos(event.budget)}</Text>}
      {event.status === 'cancelled' && (
        <Alert color="red" title="Cancelado">
          {event.cancellationReason ?? 'Sin motivo registrado.'}
        </Alert>
      )}
      {event.description && (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {event.description}
        </Text>
      )}
    </Stack>
  );
}

/** `/agenda/:id` and its sections: shifts and inventory, answers with the waitlist, the door, tasks. */
export default function EventPage() {
  const { id } = useParams();
  const { user } = useSignedIn();
  const [cancelling, setCancelling] = useState(false);
  const event = useQuery({ queryKey: eventKey(id!), queryFn: () => api.get<AgendaEvent>(eventPath(id!)) });
  useLiveEvent('agenda:event', (change) => {
    if (id && change.event.id === id) void queryClient.invalidateQueries({ queryKey: eventKey(id) });
  });
  // Another device at the same door checked someone in: the counts and the list follow.
  useLiveEvent('agenda:attendance', (attendance) => {
    if (id && attendance.events.some((open) => open.eventId === id)) void refreshPeople(id);
  });
  if (event.isError)
    return (
      <>
        <PageTitle>Evento</PageTitle>
        <Alert color="red" role="alert">
          {problemMessage(event.error)}
        </Alert>
        <Anchor component={Link} to="/agenda">
          Volver a la agenda
        </Anchor>
      </>
    );
  if (!event.data) return <PageLoader />;
  const current = event.data;
  const runs = agendaPolicy.allows(user, 'edit', current);
  return (
    <>
      <PageTitle
        actions={
          runs && current.status !== 'cancelled' ? (
            <Group gap="xs">
              <Button component={Link} to={`/agenda/${current.id}/editar`} variant="default">
                Editar
              </Button>
              <Button color="red" variant="light" onClick={() => setCancelling(true)}>
                Cancelar evento
              </Button>
            </Group>
          ) : undefined
        }
      >
        {current.title}
      </PageTitle>
      <Anchor component={Link} to={`/agenda?vista=semana&fecha=${localDay(current.startsAt)}`} size="sm" mb="xs" display="inline-block">
        ‹ Volver a la agenda
      </Anchor>
      <Summary event={current} />
      <EventTabs event={current} runs={runs} />
      <Routes>
        <Route index element={<LogisticsSection event={current} runs={runs} />} />
        {runs && <Route path="respuestas" element={<RsvpSection event={current} />} />}
        {runs && <Route path="puerta" element={<DoorSection event={current} />} />}
        <Route path="tareas" element={<TasksSection event={current} runs={runs} />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
      <CancelDialog event={current} opened={cancelling} onClose={() => setCancelling(false)} />
    </>
  );
}
