import type { Queries } from '../../kernel/sql';
import { dueSoonHorizon, localDateOf, type ClockSettings } from './pqrs.clock';
import { countRequests, openedClosedByDay, type OpenedClosedDay, type PqrsCounts } from './pqrs.repository';

/**
 * The desk's figures at an instant, for the dashboard: open requests, those past their deadline,
 * and those due within three business days (not yet overdue). One indexed count over open requests.
 */
export function pqrsCounts(q: Queries, at: Date, clock: ClockSettings): Promise<PqrsCounts> {
  return countRequests(q, at, dueSoonHorizon(localDateOf(at, clock.timeZone), clock));
}

/**
 * Requests received and requests resolved (answered, or closed without an answer) per local day
 * from `from` to `to` inclusive ('YYYY-MM-DD' in `timeZone`), every day present (zero-filled).
 */
export function pqrsOpenedClosedBetween(q: Queries, from: string, to: string, timeZone: string): Promise<OpenedClosedDay[]> {
  return openedClosedByDay(q, from, to, timeZone);
}

export type { OpenedClosedDay, PqrsCounts };
