import type { InferKyselyDB } from '@mikro-orm/sql';
import type { NotNull } from 'kysely';
import { camelRow } from '../../kernel/rows';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { territoryAndDescendants } from '../territories';
import type { VolunteerActivitySchema, VolunteerSchema } from './volunteers.entities';

const db = tables<InferKyselyDB<typeof VolunteerSchema | typeof VolunteerActivitySchema>>();

const within = (column: Sql, territoryIds: readonly string[] | undefined): Sql => (territoryIds?.length ? sql`and ${column} in (${territoryAndDescendants(territoryIds)})` : sql``);

/** Activities logged per local day in [since, until) (by when they happened), optionally inside territories. */
export function activitiesByDay(q: Queries, since: Date, until: Date, timeZone: string, territoryIds?: readonly string[]): Promise<{ day: string; count: number }[]> {
  return q.rows(sql`
    select (occurred_at at time zone ${timeZone}::text)::date::text as day, count(*)::int as count from volunteer_activities
    where occurred_at >= ${since}::timestamptz and occurred_at < ${until}::timestamptz ${within(sql`territory_id`, territoryIds)}
    group by 1`);
}

/**
 * How many volunteers were active as of each instant (an activity in the `activeDays` before it,
 * both ends included: the same rule as `activeVolunteers`), in one statement for a whole series.
 */
export async function activeVolunteersAt(q: Queries, instants: readonly Date[], activeDays: number, territoryIds?: readonly string[]): Promise<number[]> {
  if (instants.length === 0) return [];
  const rows = await q.rows<{ i: number; n: number }>(sql`
    select p.i::int as i, (select count(*) from volunteers v where v.erased_at is null ${within(sql`v.territory_id`, territoryIds)}
      and exists (select 1 from volunteer_activities a where a.volunteer_id = v.id
        and a.occurred_at >= p.at - make_interval(days => ${activeDays}::int) and a.occurred_at <= p.at))::int as n
    from unnest(${instants.map((at) => at.toISOString())}::timestamptz[]) with ordinality as p(at, i)`);
  const counts = new Array<number>(instants.length).fill(0);
  for (const row of rows) counts[row.i - 1] = row.n;
  return counts;
}

/** Volunteers with status active (not prospects, not inactive) by their territory. */
export async function volunteersByTerritory(q: Queries): Promise<{ territoryId: string; count: number }[]> {
  const rows = await q.rows(
    db
      .selectFrom('volunteers')
      .select((volunteer) => ['territory_id', volunteer.cast<number>(volunteer.fn.countAll(), 'integer').as('count')])
      .where('erased_at', 'is', null)
      .where('status', '=', 'active')
      .where('territory_id', 'is not', null)
      .groupBy('territory_id')
      .$narrowType<{ territory_id: NotNull }>(),
  );
  return rows.map((row) => camelRow(row));
}

/** Activities logged since `since`, by the territory they were done in. */
export async function activitiesByTerritory(q: Queries, since: Date): Promise<{ territoryId: string; count: number }[]> {
  const rows = await q.rows(
    db
      .selectFrom('volunteer_activities')
      .select((activity) => ['territory_id', activity.cast<number>(activity.fn.countAll(), 'integer').as('count')])
      .where('occurred_at', '>=', since)
      .where('territory_id', 'is not', null)
      .groupBy('territory_id')
      .$narrowType<{ territory_id: NotNull }>(),
  );
  return rows.map((row) => camelRow(row));
}
