import { z } from 'zod';
import { ROLES } from './auth/roles';

/** A role's name, as the API takes and answers it. */
export const roleSchema = z.enum(ROLES);

/**
 * An email address as people type it: trimmed, lower-cased, at most 254 characters. The pipe's
 * check does not reach the OpenAPI input schema by itself, so the format is stated for it.
 */
export function emailAddress(message = 'must be an email address') {
  return z.string().trim().toLowerCase().max(254).pipe(z.email(message)).meta({ format: 'email' });
}

/**
 * The years a date the API takes may fall in: every real date a campaign deals with (birth dates,
 * past elections, deadlines), and nothing that the calendar code (four-digit years through Intl)
 * cannot handle.
 */
export const FIRST_YEAR = 1900;
export const LAST_YEAR = 2100;
/** The first instant of the range, for a default computed back from a given bound. */
export const EARLIEST = Date.UTC(FIRST_YEAR, 0, 1);
const AFTER_LATEST = Date.UTC(LAST_YEAR + 1, 0, 1);
const DAYS = `from ${FIRST_YEAR}-01-01 to ${LAST_YEAR}-12-31`;
const INSTANTS = `from ${FIRST_YEAR}-01-01T00:00:00Z to ${LAST_YEAR}-12-31T23:59:59Z`;

/** Whether a well-formed date or instant lies in the range. */
const withinRange = (value: string): boolean => {
  const at = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  return at >= EARLIEST && at < AFTER_LATEST;
};
/** The range is judged only once the format has passed, so a malformed value gets one message. */
const wellFormed = (payload: { issues: readonly unknown[] }): boolean => payload.issues.length === 0;

/** A calendar date (`2026-03-08`), the only date format the API takes or gives; years 1900–2100. */
export const calendarDate = z.iso.date({ error: `expected a date as YYYY-MM-DD, ${DAYS}` }).refine(withinRange, { error: `must be a date ${DAYS}`, when: wellFormed });

/**
 * An instant with its offset (`2026-03-08T08:00:00-05:00` or `…Z`; a wall-clock time alone would be
 * ambiguous), the only date-time format the API takes or gives; 1900–2100 in UTC.
 */
const INSTANT_FORMAT = `expected an instant with its offset, as 2026-03-08T08:00:00-05:00 or 2026-03-08T13:00:00Z, ${INSTANTS}`;
/** A date and a time without any offset: the one mistake worth naming, since it looks right. */
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

export const instant = z.iso
  .datetime({
    offset: true,
    error: (issue) =>
      typeof issue.input === 'string' && WALL_CLOCK.test(issue.input)
        ? `the time zone offset is missing: write ${issue.input}-05:00 for Colombia's time, or end it in Z for UTC`
        : INSTANT_FORMAT,
  })
  .refine(withinRange, { error: `must be an instant ${INSTANTS}`, when: wellFormed });

/** A bound that may be either: a day (its start in the campaign's time zone, for the caller to apply) or an instant. */
export const calendarDateOrInstant = z.union([calendarDate, instant], {
  error: `expected a date (YYYY-MM-DD) or an instant with its offset (2026-03-08T08:00:00-05:00), ${DAYS}`,
});
