import Holidays from 'date-holidays';
import { addDays } from './calendar';

/**
 * Business days: Monday to Friday except the country's public holidays, on local dates
 * ('YYYY-MM-DD', see calendar.ts for turning instants into them). The holidays come from
 * `date-holidays` (moved holidays such as Colombia's Emiliani Mondays and the Easter-based ones
 * included) and are kept per country and year, since a year's table never changes.
 */

const calendars = new Map<string, Holidays>();
const holidayYears = new Map<string, ReadonlySet<string>>();

function calendarOf(country: string): Holidays {
  let calendar = calendars.get(country);
  if (!calendar) {
    const [code, region] = country.split('-');
    calendar = region ? new Holidays(code!, region, { types: ['public'] }) : new Holidays(code!, { types: ['public'] });
    if (!calendar.getCountries()[code!]) throw new Error(`date-holidays knows no country ${code}`);
    calendars.set(country, calendar);
  }
  return calendar;
}

/** Whether the library has holiday data for this country code ('CO', or 'US-CA' for a region). */
export function knownHolidayCountry(country: string): boolean {
  const [code] = country.split('-');
  return Boolean(code && new Holidays().getCountries()[code]);
}

/** The public holidays of a year, as local dates. */
export function holidaysOf(country: string, year: number): ReadonlySet<string> {
  const key = `${country}:${year}`;
  let days = holidayYears.get(key);
  if (!days) {
    days = new Set(
      calendarOf(country)
        .getHolidays(year)
        .filter((holiday) => holiday.type === 'public')
        .map((holiday) => holiday.date.slice(0, 10)),
    );
    holidayYears.set(key, days);
  }
  return days;
}

/** 0 = Sunday … 6 = Saturday, of a local date. */
export function weekdayOf(date: string): number {
  return new Date(`${date}T12:00:00Z`).getUTCDay();
}

export function isBusinessDay(date: string, country: string): boolean {
  const weekday = weekdayOf(date);
  if (weekday === 0 || weekday === 6) return false;
  return !holidaysOf(country, Number(date.slice(0, 4))).has(date);
}

/**
 * The `count`-th business day after `date` (which itself never counts, business day or not);
 * `count` 0 is `date` itself. Negative counts go back the same way.
 */
export function addBusinessDays(date: string, count: number, country: string): string {
  if (!Number.isInteger(count)) throw new RangeError('count must be a whole number of business days');
  const step = count < 0 ? -1 : 1;
  let day = date;
  for (let left = Math.abs(count); left > 0;) {
    day = addDays(day, step);
    if (isBusinessDay(day, country)) left -= 1;
  }
  return day;
}

/**
 * How many business days lie after `from` up to and including `to`; negative (the business days
 * after `to` up to and including `from`) when `to` is earlier.
 */
export function businessDaysBetween(from: string, to: string, country: string): number {
  if (to < from) return -businessDaysBetween(to, from, country);
  let count = 0;
  for (let day = addDays(from, 1); day <= to; day = addDays(day, 1)) if (isBusinessDay(day, country)) count += 1;
  return count;
}
