/** Local dates and times in the campaign's time zone (DST-aware, through Intl). */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Building an Intl formatter costs far more than using one: one per time zone, kept. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local date ('YYYY-MM-DD') and minutes since local midnight (seconds as a fraction) of an instant. */
export function localClock(date: Date, timeZone: string): { date: string; minutes: number } {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(date)) parts[part.type] = part.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute) + Number(parts.second) / 60,
  };
}

/** Today's date ('YYYY-MM-DD') where the campaign is: dates people type are local, never UTC's. */
export const todayIn = (timeZone: string, now = new Date()): string => localClock(now, timeZone).date;

export function minutesOfDay(date: Date, timeZone: string): number {
  return localClock(date, timeZone).minutes;
}

/** Whole days from local date `from` to local date `to` (both 'YYYY-MM-DD'). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * The instant at which the wall clock in `timeZone` reads `localDate` + `minutes`. Two passes
 * over the zone offset so that a DST change between the guess and the answer is accounted for.
 */
export function instantAt(localDate: string, minutes: number, timeZone: string): Date {
  const guess = Date.parse(`${localDate}T00:00:00Z`) + minutes * 60_000;
  const offsetAt = (instant: number) => {
    const clock = localClock(new Date(instant), timeZone);
    const asUtc = Date.parse(`${clock.date}T00:00:00Z`) + clock.minutes * 60_000;
    return Math.round((asUtc - instant) / 60_000) * 60_000;
  };
  const first = guess - offsetAt(guess);
  const second = guess - offsetAt(first);
  return new Date(second);
}

/** The local date `count` days after `localDate` (both 'YYYY-MM-DD'; negative counts go back). */
export function addDays(localDate: string, count: number): string {
  // Noon UTC keeps the arithmetic on the same calendar day whatever the offset.
  return new Date(Date.parse(`${localDate}T12:00:00Z`) + count * 86_400_000).toISOString().slice(0, 10);
}
