import { Alert, Anchor, Badge, Button, Group, Loader, Paper, SegmentedControl, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { api, queryClient } from '../app/api';
import { useUrlFilters, queryString } from '../app/filters';
import { formatTime, localInstant, localToday } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import {
  EVENTS_PATH,
  STATUS_LABELS,
  STATUS_TONES,
  TYPE_LABELS,
  addDays,
  addMonths,
  eventsByDay,
  longDayLabel,
  monthLabel,
  shortDayLabel,
  timeRange,
  visibleDays,
  type AgendaEvent,
  type CalendarView,
} from './data';
import { FeedLinks } from './FeedLinks';

const VIEWS: { value: CalendarView; label: string }[] = [
  { value: 'mes', label: 'Mes' },
  { value: 'semana', label: 'Semana' },
  { value: 'dia', label: 'Día' },
];
const WEEKDAYS = ['lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado', 'domingo'];
const MAX_EVENTS = 1000;

const isDay = (value: string | undefined): value is string => !!value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));

/** An event in a day's cell: a link with its time in words, struck through when cancelled. */
function EventLink({ event, withRange = false }: { event: AgendaEvent; withRange?: boolean }) {
  const cancelled = event.status === 'cancelled';
  return (
    <Anchor component={Link} to={`/agenda/${event.id}`} size="sm" display="block" td={cancelled ? 'line-through' : undefined} style={{ lineHeight: 1.3 }}>
      <Text span fw={700} size="sm">
        {withRange ? timeRange(event) : formatTime(event.startsAt)}
      </Text>{' '}
      {event.title}
      {event.status !== 'scheduled' && <Text span size="xs">{` (${STATUS_LABELS[event.status].toLowerCase()})`}</Text>}
    </Anchor>
  );
}

/** A table of days (the month's six weeks, or one week), each cell listing its events. */
function DaysTable({ days, byDay, month, caption, withRange }: { days: string[]; byDay: Map<string, AgendaEvent[]>; month?: string; caption: string; withRange: boolean }) {
  const today = localToday();
  const weeks = Array.from({ length: days.length / 7 }, (_, index) => days.slice(index * 7, index * 7 + 7));
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table withTableBorder withColumnBorders layout="fixed" verticalSpacing={4}>
        <Table.Caption>
          <VisuallyHidden>{caption}</VisuallyHidden>
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {WEEKDAYS.map((weekday) => (
              <Table.Th key={weekday} tt="capitalize">
                {weekday}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {weeks.map((week) => (
            <Table.Tr key={week[0]} style={{ verticalAlign: 'top' }}>
              {week.map((day) => {
                const events = byDay.get(day) ?? [];
                const outside = month !== undefined && day.slice(0, 7) !== month;
                return (
                  <Table.Td
                    key={day}
                    h={month ? 110 : 220}
                    style={day === today ? { outline: '3px solid var(--mantine-color-blue-7)', outlineOffset: -3 } : undefined}
                    aria-current={day === today ? 'date' : undefined}
                  >
                    <Anchor component={Link} to={`/agenda?${new URLSearchParams({ vista: 'dia', fecha: day })}`} size="xs" c={outside ? 'dimmed' : undefined} fw={600}>
                      <VisuallyHidden>Ver el día </VisuallyHidden>
                      {month ? Number(day.slice(8)) : shortDayLabel(day)}
                      <VisuallyHidden>{` (${longDayLabel(day)}${events.length ? `, ${events.length} ${events.length === 1 ? 'evento' : 'eventos'}` : ''})`}</VisuallyHidden>
                    </Anchor>
                    <Stack gap={4} mt={4}>
                      {events.map((event) => (
                        <EventLink key={event.id} event={event} withRange={withRange} />
                      ))}
                    </Stack>
                  </Table.Td>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** One day's events, each with its times, place and answers. */
function DayList({ events }: { events: AgendaEvent[] }) {
  if (events.length === 0) return <Text c="dimmed">No hay eventos este día.</Text>;
  return (
    <Stack gap="xs">
      {events.map((event) => (
        <Paper key={event.id} withBorder p="sm">
          <Group justify="space-between" wrap="wrap" gap="xs">
            <EventLink event={event} withRange />
            <Group gap={6}>
              <Badge variant="light" color="gray" c={TONES.gray.text} tt="none">
                {TYPE_LABELS[event.type]}
              </Badge>
              <Badge variant="light" color={TONES[STATUS_TONES[event.status]].color} c={TONES[STATUS_TONES[event.status]].text} tt="none">
                {STATUS_LABELS[event.status]}
              </Badge>
            </Group>
          </Group>
          <Text size="sm" c="dimmed">
            {[
              event.address,
              `${event.counts.going} confirmados${event.capacity ? ` de ${event.capacity}` : ''}`,
              event.counts.waitlisted ? `${event.counts.waitlisted} en espera` : null,
            ]
              .filter(Boolean)
              .join(' · ')}
          </Text>
        </Paper>
      ))}
    </Stack>
  );
}

/** `/agenda`: the calendar by month, week or day in Bogotá time, the events of the range shown, and the calendar feed. */
export default function CalendarPage() {
  const { user } = useSignedIn();
  const filters = useUrlFilters(['vista', 'fecha'] as const);
  const view: CalendarView = VIEWS.some((option) => option.value === filters.values.vista) ? (filters.values.vista as CalendarView) : 'mes';
  const day = isDay(filters.values.fecha) ? filters.values.fecha : localToday();
  const days = visibleDays(view, day);
  const from = localInstant(days[0]!, '00:00')!;
  const to = localInstant(addDays(days[days.length - 1]!, 1), '00:00')!;
  const path = `${EVENTS_PATH}${queryString({ from, to })}`;
  const events = useQuery({ queryKey: ['agenda', 'calendar', path], queryFn: () => api.all<AgendaEvent>(path, MAX_EVENTS) });
  useLiveEvent('agenda:event', () => void queryClient.invalidateQueries({ queryKey: ['agenda', 'calendar'] }));
  const byDay = eventsByDay(events.data ?? [], days);

  const step = (direction: 1 | -1) => (view === 'mes' ? addMonths(day, direction) : addDays(day, direction * (view === 'semana' ? 7 : 1)));
  const go = (next: { vista?: CalendarView; fecha?: string }) => filters.set({ vista: next.vista ?? view, fecha: next.fecha ?? day });
  const period = view === 'mes' ? monthLabel(day) : view === 'semana' ? `Semana del ${longDayLabel(days[0]!)} al ${longDayLabel(days[6]!)}` : longDayLabel(day);
  const previousLabel = view === 'mes' ? 'Mes anterior' : view === 'semana' ? 'Semana anterior' : 'Día anterior';
  const nextLabel = view === 'mes' ? 'Mes siguiente' : view === 'semana' ? 'Semana siguiente' : 'Día siguiente';

  return (
    <>
      <PageTitle
        actions={
          <Group gap="xs">
            {rolePermitted(user.role, agendaPolicy.roles('edit')) && (
              <Button component={Link} to="/agenda/puerta" variant="default">
                Registrar entradas
              </Button>
            )}
            {agendaPolicy.allows(user, 'create') && (
              <Button component={Link} to="/agenda/nuevo">
                Nuevo evento
              </Button>
            )}
          </Group>
        }
      >
        Agenda
      </PageTitle>
      <Group justify="space-between" wrap="wrap" mb="sm" gap="sm">
        <Group gap="xs">
          <Button variant="default" onClick={() => go({ fecha: step(-1) })}>
            {previousLabel}
          </Button>
          <Button variant="default" onClick={() => go({ fecha: localToday() })}>
            Hoy
          </Button>
          <Button variant="default" onClick={() => go({ fecha: step(1) })}>
            {nextLabel}
          </Button>
        </Group>
        <SegmentedControl aria-label="Vista del calendario" value={view} onChange={(next) => go({ vista: next as CalendarView })} data={VIEWS} />
      </Group>
      <Group gap="sm" mb="xs" align="baseline">
        <Title order={2} size="h3" aria-live="polite">
          {period.charAt(0).toUpperCase() + period.slice(1)}
        </Title>
        <Text size="sm" c="dimmed">
          Horas de Bogotá
        </Text>
        {events.isFetching && <Loader size="xs" aria-label="Cargando eventos" />}
      </Group>
      {events.isError && (
        <Alert color="red" role="alert" mb="sm">
          {problemMessage(events.error)}
        </Alert>
      )}
      {events.data && events.data.length >= MAX_EVENTS && (
        <Alert color="yellow" mb="sm">
          Hay más de {MAX_EVENTS} eventos en este lapso: vea la semana o el día para verlos todos.
        </Alert>
      )}
      {view === 'dia' ? (
        <DayList events={byDay.get(day) ?? []} />
      ) : (
        <DaysTable days={days} byDay={byDay} month={view === 'mes' ? day.slice(0, 7) : undefined} caption={`Eventos: ${period}`} withRange={view === 'semana'} />
      )}
      <FeedLinks />
    </>
  );
}
