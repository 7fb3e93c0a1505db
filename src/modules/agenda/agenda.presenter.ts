import { localClock } from '../../kernel/calendar';
import type { AgendaEventSummary } from './agenda.events';
import type { CheckInRecord, EventCounts, EventRecord, RsvpRecord, ShiftWithSignups } from './agenda.repository';

const pad = (value: number) => String(value).padStart(2, '0');

/** An instant as the wall clock of `timeZone` shows it, with that zone's offset then (`2026-12-01T19:00:00-05:00`). */
export function localIso(instant: Date, timeZone: string): string {
  const clock = localClock(instant, timeZone);
  const wholeSeconds = Math.round(clock.minutes * 60);
  const hours = Math.floor(wholeSeconds / 3600);
  const minutes = Math.floor((wholeSeconds % 3600) / 60);
  const seconds = wholeSeconds % 60;
  const wall = Date.parse(`${clock.date}T00:00:00Z`) + wholeSeconds * 1000;
  const offsetMinutes = Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  return `${clock.date}T${pad(hours)}:${pad(minutes)}:${pad(seconds)}${offset}`;
}

/** An event as an answer; `showBudget` is false for readers the planned spend is not for. */
export function presentEvent(event: EventRecord, counts: EventCounts, showBudget: boolean) {
  return {
    id: event.id,
    title: event.title,
    type: event.type,
    description: event.description,
    startsAt: event.startsAt.toISOString(),
    endsAt: event.endsAt.toISOString(),
    timeZone: event.timeZone,
    local: { startsAt: localIso(event.startsAt, event.timeZone), endsAt: localIso(event.endsAt, event.timeZone) },
    address: event.address,
    territoryId: event.territoryId,
    location: event.latitude !== null && event.longitude !== null ? { lat: event.latitude, lng: event.longitude } : null,
    capacity: event.capacity,
    visibility: event.visibility,
    status: event.status,
    organiserId: event.organiserId,
    budget: showBudget ? event.budget : null,
    cancelledAt: event.cancelledAt?.toISOString() ?? null,
    cancellationReason: event.cancellationReason,
    counts,
    createdById: event.createdById,
    createdAt: event.createdAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
  };
}

export function eventSummary(event: EventRecord): AgendaEventSummary {
  return {
    id: event.id,
    title: event.title,
    type: event.type,
    startsAt: event.startsAt.toISOString(),
    endsAt: event.endsAt.toISOString(),
    timeZone: event.timeZone,
    status: event.status,
    visibility: event.visibility,
    territoryId: event.territoryId,
  };
}

export function presentRsvp(rsvp: Pick<RsvpRecord, 'eventId' | 'contactId' | 'status' | 'respondedAt'>, waitlistPosition: number | null) {
  return { eventId: rsvp.eventId, contactId: rsvp.contactId, status: rsvp.status, waitlistPosition, respondedAt: rsvp.respondedAt.toISOString() };
}

export function presentShift(shift: ShiftWithSignups) {
  return {
    id: shift.id,
    eventId: shift.eventId,
    role: shift.role,
    startsAt: shift.startsAt.toISOString(),
    endsAt: shift.endsAt.toISOString(),
    slots: shift.slots,
    taken: shift.taken,
    contactIds: shift.contactIds,
  };
}

export function presentCheckIn(checkIn: CheckInRecord) {
  return {
    id: checkIn.id,
    eventId: checkIn.eventId,
    contactId: checkIn.contactId,
    shiftId: checkIn.shiftId,
    method: checkIn.method,
    checkedInAt: checkIn.checkedInAt.toISOString(),
  };
}
