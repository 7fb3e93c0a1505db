import type { z } from 'zod';
import type { EventStatus, EventType, RsvpStatus } from '../../../src/modules/agenda/agenda.constants';
import type {
  allocationView,
  attendeeView,
  checkInView,
  eventView,
  feedTokenView,
  resourceListView,
  rsvpResultView,
  shiftView,
  taskView,
} from '../../../src/modules/agenda/agenda.schemas';
import { CAMPAIGN_TIME_ZONE, formatDate, formatTime, localDay, localInstant } from '../app/format';
import type { ProblemMessages } from '../app/problems';
import type { Tone } from '../app/tones';

export type AgendaEvent = z.output<typeof eventView>;
export type Attendee = z.output<typeof attendeeView>;
export type Shift = z.output<typeof shiftView>;
export type Task = z.output<typeof taskView>;
export type Allocation = z.output<typeof allocationView>;
export type Resources = z.output<typeof resourceListView>;
export type RsvpResult = z.output<typeof rsvpResultView>;
export type CheckInResult = z.output<typeof checkInView>;
export type FeedToken = z.output<typeof feedTokenView>;

export const EVENTS_PATH = '/api/agenda/events';
export const eventPath = (id: string) => `${EVENTS_PATH}/${id}`;
export const attendeesPath = (eventId: string) => `${eventPath(eventId)}/attendees`;
/** The cached answer of one event (its counts move with every answer and check-in). */
export const eventKey = (id: string) => ['agenda', 'event', id] as const;
export const RESOURCES_PATH = '/api/agenda/resources';
export const FEED_TOKEN_PATH = '/api/agenda/feed-token';

export const TYPE_LABELS: Record<EventType, string> = {
  rally: 'Mitin',
  meeting: 'Reunión',
  canvass: 'Recorrido',
  training: 'Capacitación',
  debate: 'Debate',
  door_to_door: 'Puerta a puerta',
  other: 'Otro',
};
export const STATUS_LABELS: Record<EventStatus, string> = { draft: 'Borrador', scheduled: 'Programado', cancelled: 'Cancelado', done: 'Realizado' };
export const STATUS_TONES: Record<EventStatus, Tone> = { draft: 'gray', scheduled: 'blue', cancelled: 'red', done: 'green' };
export const RSVP_LABELS: Record<RsvpStatus, string> = { going: 'Confirmado', waitlisted: 'En lista de espera', maybe: 'Tal vez', declined: 'No va' };
export const RSVP_TONES: Record<RsvpStatus, Tone> = { going: 'green', waitlisted: 'orange', maybe: 'blue', declined: 'gray' };
export const VISIBILITY_LABELS = { internal: 'Solo el equipo', public: 'Pública (en el calendario público)' } as const;

/** The agenda's refusals, in Spanish, by the API's codes. */
export const AGENDA_PROBLEMS: ProblemMessages = {
  event_cancelled: 'El evento fue cancelado: ya no admite cambios ni respuestas.',
  event_draft: 'El evento es un borrador: publíquelo (Programado) antes de tomar respuestas o registrar entradas.',
  event_over: 'El evento ya terminó: no admite respuestas.',
  event_not_over: 'Solo se marca como realizado cuando ya terminó.',
  event_has_rsvps: 'Ya hay respuestas: no puede volver a borrador.',
  check_in_closed: 'La entrada se registra desde seis horas antes del inicio hasta un día después del final.',
  shift_full: 'El turno está lleno.',
  shift_taken: 'Hay personas inscritas en el turno: no puede tener menos cupos que ellas.',
  over_allocated: 'No hay unidades libres suficientes en ese lapso: otros eventos ya las tienen.',
  resource_inactive: 'Ese recurso está retirado del inventario.',
  resource_exists: 'Ya hay un recurso con ese nombre.',
};

/** Start and end times in Bogotá, whatever the browser's zone; an end on a later day says which (a night shift past midnight, a two-day fair). */
export function timeRange(event: Pick<AgendaEvent, 'startsAt' | 'endsAt'>): string {
  const [startDay, endDay] = [localDay(event.startsAt), localDay(event.endsAt)];
  const endingDay = endDay === startDay ? '' : endDay === addDays(startDay, 1) ? ' del día siguiente' : ` del ${formatDate(event.endsAt)}`;
  return `${formatTime(event.startsAt)}–${formatTime(event.endsAt)}${endingDay}`;
}

/**
 * A shift's start and end as instants, from two times of day typed at an event: on the day among
 * the event's that puts the shift nearest to it (first the event's first day), so that 01:00–05:00 at
 * an 18:00–06:00 watch is the night's, not the morning before; an end before the start is the next
 * day's. Undefined until both times are typed.
 */
export function shiftInstants(event: Pick<AgendaEvent, 'startsAt' | 'endsAt'>, start: string, end: string): { startsAt: string; endsAt: string } | undefined {
  const [first, last] = [localDay(event.startsAt), localDay(event.endsAt)];
  const [opens, closes] = [Date.parse(event.startsAt), Date.parse(event.endsAt)];
  let best: { startsAt: string; endsAt: string; gap: number } | undefined;
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const startsAt = localInstant(day, start);
    const endsAt = localInstant(end < start ? addDays(day, 1) : day, end);
    if (!startsAt || !endsAt) return undefined;
    // How far the shift lies outside the event: 0 when they overlap.
    const gap = Math.max(0, opens - Date.parse(endsAt), Date.parse(startsAt) - closes);
    if (!best || gap < best.gap) best = { startsAt, endsAt, gap };
  }
  return best && { startsAt: best.startsAt, endsAt: best.endsAt };
}

/** A shift's times at its event: with its day first when it starts on a later day than the event. */
export function shiftRange(shift: Pick<Shift, 'startsAt' | 'endsAt'>, event: Pick<AgendaEvent, 'startsAt'>): string {
  const day = localDay(shift.startsAt);
  if (day === localDay(event.startsAt)) return timeRange(shift);
  return `${day === addDays(localDay(event.startsAt), 1) ? 'Día siguiente' : formatDate(shift.startsAt)}, ${timeRange(shift)}`;
}

// ───────────── calendar days (local dates of the campaign's zone, as YYYY-MM-DD)

/** A local date moved by whole days (calendar arithmetic at noon UTC: no zone or DST moves it). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** 0 for Monday … 6 for Sunday (Colombian calendars start on Monday). */
export const weekdayIndex = (day: string) => (new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7;

export const startOfWeek = (day: string) => addDays(day, -weekdayIndex(day));

export const startOfMonth = (day: string) => `${day.slice(0, 7)}-01`;

export function addMonths(day: string, months: number): string {
  const date = new Date(`${startOfMonth(day)}T12:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 10);
}

export type CalendarView = 'mes' | 'semana' | 'dia';

/** The days a view shows: six weeks from the Monday before the 1st, seven from Monday, or the day. */
export function visibleDays(view: CalendarView, day: string): string[] {
  if (view === 'dia') return [day];
  const first = view === 'semana' ? startOfWeek(day) : startOfWeek(startOfMonth(day));
  return Array.from({ length: view === 'semana' ? 7 : 42 }, (_, index) => addDays(first, index));
}

const monthName = new Intl.DateTimeFormat('es-CO', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const longDay = new Intl.DateTimeFormat('es-CO', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const shortDay = new Intl.DateTimeFormat('es-CO', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

const atNoon = (day: string) => new Date(`${day}T12:00:00Z`);
export const monthLabel = (day: string) => monthName.format(atNoon(day));
export const longDayLabel = (day: string) => longDay.format(atNoon(day));
export const shortDayLabel = (day: string) => shortDay.format(atNoon(day));

/** The local days an event covers in the campaign's zone (an event past midnight shows on both). */
export function daysOf(event: Pick<AgendaEvent, 'startsAt' | 'endsAt'>): string[] {
  const first = localDay(event.startsAt, CAMPAIGN_TIME_ZONE);
  // An end at midnight sharp belongs to the day before.
  const last = localDay(new Date(Date.parse(event.endsAt) - 1), CAMPAIGN_TIME_ZONE);
  const days = [first];
  while (days.length < 62 && days[days.length - 1]! < last) days.push(addDays(days[days.length - 1]!, 1));
  return days;
}

/** The events of each visible day, soonest first. */
export function eventsByDay(events: AgendaEvent[], days: string[]): Map<string, AgendaEvent[]> {
  const byDay = new Map<string, AgendaEvent[]>(days.map((day) => [day, []]));
  for (const event of [...events].sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt))) {
    for (const day of daysOf(event)) byDay.get(day)?.push(event);
  }
  return byDay;
}
