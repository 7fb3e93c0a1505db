import { addBusinessDays, businessDaysBetween, isBusinessDay } from '../../kernel/business-days';
import { addDays, instantAt, localClock } from '../../kernel/calendar';
import { DUE_SOON_BUSINESS_DAYS, OPEN_STATUSES, termFor, type DueState, type PqrsStatus, type PqrsType } from './pqrs.constants';

/**
 * The legal clock of Ley 1755 de 2015, art. 14, in business days of the campaign's country and
 * time zone. The count starts the business day after the local day of filing (day 1), so a
 * request filed on a Saturday, a holiday or at 23:59 of a Friday has the next business day as
 * its first; the deadline is the end (local midnight) of the term's last business day.
 */

export interface ClockSettings {
  timeZone: string;
  holidayCountry: string;
}

export { DUE_SOON_BUSINESS_DAYS, DUE_STATES, termFor, type DueState } from './pqrs.constants';

export const localDateOf = (instant: Date, timeZone: string): string => localClock(instant, timeZone).date;

/** The last instant of a local day (the next day's local midnight minus a millisecond). */
export function endOfLocalDay(date: string, timeZone: string): Date {
  return new Date(instantAt(addDays(date, 1), 0, timeZone).getTime() - 1);
}

export interface Deadline {
  termDays: number;
  dueDate: string;
  dueAt: Date;
}

export function deadlineFor(receivedAt: Date, type: PqrsType, clock: ClockSettings): Deadline {
  const termDays = termFor(type);
  const dueDate = addBusinessDays(localDateOf(receivedAt, clock.timeZone), termDays, clock.holidayCountry);
  return { termDays, dueDate, dueAt: endOfLocalDay(dueDate, clock.timeZone) };
}

/** The latest day an extension may move the deadline to: twice the original term, counted from the same start. */
export function latestExtension(receivedAt: Date, termDays: number, clock: ClockSettings): string {
  return addBusinessDays(localDateOf(receivedAt, clock.timeZone), termDays * 2, clock.holidayCountry);
}

export interface ClockState {
  /** Business days after today up to the due day (0 on the due day itself); negative, the business days late, once overdue. */
  businessDaysLeft: number;
  overdue: boolean;
  dueSoon: boolean;
  dueState: DueState;
}

/** Where an open request stands at `now`; an answered or closed one has stopped its clock (left counted at the answer). */
export function clockState(
  request: { status: PqrsStatus; dueDate: string; dueAt: Date; answeredAt: Date | null; closedAt: Date | null },
  now: Date,
  clock: ClockSettings,
): ClockState {
  const open = OPEN_STATUSES.includes(request.status);
  const stoppedAt = open ? now : (request.answeredAt ?? request.closedAt ?? now);
  const today = localDateOf(stoppedAt, clock.timeZone);
  const late = stoppedAt.getTime() > request.dueAt.getTime();
  const businessDaysLeft = late
    ? -Math.max(1, businessDaysBetween(request.dueDate, today, clock.holidayCountry))
    : businessDaysBetween(today, request.dueDate, clock.holidayCountry);
  const dueSoon = open && !late && businessDaysLeft <= DUE_SOON_BUSINESS_DAYS;
  const dueState: DueState = open ? (late ? 'overdue' : dueSoon ? 'due_soon' : 'on_time') : request.answeredAt ? 'answered' : 'closed';
  return { businessDaysLeft, overdue: open && late, dueSoon, dueState };
}

/**
 * The latest day the one extension may move the deadline to, while it may still be asked for
 * (open, not extended yet, its deadline not passed); null otherwise.
 */
export function extensionLimit(
  request: { status: PqrsStatus; receivedAt: Date; termDays: number; dueAt: Date; extendedAt: Date | null },
  now: Date,
  clock: ClockSettings,
): string | null {
  if (!OPEN_STATUSES.includes(request.status) || request.extendedAt || now.getTime() > request.dueAt.getTime()) return null;
  return latestExtension(request.receivedAt, request.termDays, clock);
}

/** The last local day still counted as due soon on `today`: due on or before it (and not yet overdue). */
export function dueSoonHorizon(today: string, clock: ClockSettings): string {
  return addBusinessDays(today, DUE_SOON_BUSINESS_DAYS, clock.holidayCountry);
}

export { isBusinessDay };
