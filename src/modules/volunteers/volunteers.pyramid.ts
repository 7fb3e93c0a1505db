import type { z } from 'zod';
import { daysBetween, localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { NotFoundError } from '../../kernel/errors';
import { sql, type Sql } from '../../kernel/sql';
import { electionDateOf } from '../campaign';
import { ACTIVITY_TYPES, ACTIVITY_UNITS, type ActivityType, type ActivityUnit } from './volunteers.entities';
import { activeWindow, findVolunteer, leaderboardRows, pyramidRows, type PyramidRow } from './volunteers.repository';
import type { LeaderboardInput, leaderboardView, pyramidNodeView, pyramidView } from './volunteers.schemas';
import { EARLIEST } from '../../kernel/schemas';

type Deps = Pick<AppDeps, 'db' | 'config' | 'caches'>;

const ratio = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null);

/**
 * What a steady pace would have reached by today: the goal spread evenly over the days from the
 * volunteer's joining day to election day. Null without an election day, a goal, or before joining.
 */
export function paceOf(estimated: number, goal: number, joinedOn: string, today: string, electionDate: string | null): number | null {
  if (!electionDate || goal <= 0) return null;
  const total = daysBetween(joinedOn, electionDate);
  const elapsed = Math.min(daysBetween(joinedOn, today), total);
  if (total <= 0 || elapsed <= 0) return null;
  return ratio(estimated, (goal * elapsed) / total);
}

export function presentNode(row: PyramidRow, today: string, electionDate: string | null): z.input<typeof pyramidNodeView> {
  return {
    id: row.id,
    name: row.name,
    leaderId: row.leaderId,
    level: row.level,
    status: row.status,
    active: row.active,
    direct: row.direct,
    people: row.people,
    activePeople: row.activePeople,
    activeShare: ratio(row.activePeople, row.people),
    promisedVotes: row.promisedVotes,
    teamPromisedVotes: row.teamPromisedVotes,
    estimatedVotes: row.estimatedVotes,
    voted: row.voted,
    goalProgress: ratio(row.estimatedVotes, row.promisedVotes),
    pace: paceOf(row.estimatedVotes, row.promisedVotes, row.joinedOn, today, electionDate),
  };
}

/** The leader tree, every node with its figures over the people under it (one statement, see `pyramidRows`). */
export async function pyramid(deps: Deps, query: { rootId?: string | undefined }): Promise<z.input<typeof pyramidView>> {
  if (query.rootId && !(await findVolunteer(deps.db, query.rootId))) throw new NotFoundError('No volunteer has this id, or their data was erased.');
  const at = new Date();
  const window = activeWindow(deps.config.volunteers.activeDays, at);
  const [rows, electionDate] = await Promise.all([pyramidRows(deps.db, window, query.rootId), electionDateOf(deps)]);
  const today = localClock(at, deps.config.timeZone).date;
  return {
    at: at.toISOString(),
    electionDate,
    window: { days: window.days, from: window.from.toISOString(), to: window.to.toISOString() },
    nodes: rows.map((row) => presentNode(row, today, electionDate)),
  };
}

/** Points for showing up, by type: an event shift or a training counts even without a quantity. */
export const POINTS_PER_ACTIVITY: Record<ActivityType, number> = {
  canvassing: 5,
  phone_bank: 5,
  event_staff: 10,
  poster_placement: 5,
  whatsapp_outreach: 3,
  training: 5,
  gotv: 2,
  other: 2,
};

/** Points per unit of quantity: a registered voter is worth more than a door knocked. */
export const POINTS_PER_UNIT: Record<ActivityUnit, number> = {
  doors: 1,
  calls: 1,
  posters: 1,
  voters_registered: 5,
  messages: 0.2,
  people: 0.5,
  turnout_reports: 1,
  other: 0,
};

/** The points of one activity `a`, as an expression built from the two tables above (code-written, never input). */
export function pointsSql(): Sql {
  const byType = ACTIVITY_TYPES.map((type) => `when '${type}' then ${POINTS_PER_ACTIVITY[type]}`).join(' ');
  const byUnit = ACTIVITY_UNITS.map((unit) => `when '${unit}' then ${POINTS_PER_UNIT[unit]}`).join(' ');
  return sql`((case a.type ${sql.raw(byType)} else 0 end) + coalesce(a.quantity, 0) * (case a.unit ${sql.raw(byUnit)} else 0 end))::numeric`;
}

/** Volunteers (or territories) ranked by points or quantity in a window: the last 30 days unless said. */
export async function leaderboard(deps: Deps, query: LeaderboardInput): Promise<z.input<typeof leaderboardView>> {
  const to = query.to ? new Date(query.to) : new Date();
  const from = query.from ? new Date(query.from) : new Date(Math.max(EARLIEST, to.getTime() - 30 * 86_400_000));
  const rows = await leaderboardRows(deps.db, { from, to, territoryId: query.territoryId, type: query.type }, pointsSql(), query.metric, query.groupBy, query.limit);
  return {
    metric: query.metric,
    groupBy: query.groupBy,
    from: from.toISOString(),
    to: to.toISOString(),
    data: rows.map((row, index) => ({ rank: index + 1, id: row.id, name: row.name, activities: row.activities, quantity: row.quantity, points: Number(row.points) })),
  };
}
