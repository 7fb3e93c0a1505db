import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ConflictError } from '../../kernel/errors';
import { STATION_STATUSES } from './gotv.entities';
import { percent, projection } from './gotv.live';
import { getSettings, liveDayStart } from './gotv.settings';

const progress = { assigned: z.number().int(), voted: z.number().int(), pending: z.number().int() };

export const dashboardView = z
  .object({
    stations: z.record(z.enum(STATION_STATUSES), z.number().int()),
    voters: z.object({ confirmed: z.number().int(), voted: z.number().int(), pending: z.number().int(), turnoutPct: z.number() }),
    hourly: z.array(z.object({ hour: z.number().int(), voterReports: z.number().int(), countReports: z.number().int() })),
    byTerritory: z.array(z.object({ territoryId: z.uuid().nullable(), name: z.string(), ...progress })),
    byBrigade: z.array(z.object({ brigadeId: z.uuid().nullable(), name: z.string(), ...progress })),
    mostPending: z.array(z.object({ stationId: z.uuid(), code: z.string(), name: z.string(), pending: z.number().int() })),
    projection: z
      .object({ phase: z.string(), projectedTurnout: z.number().int().nullable(), projectedConfirmedVoted: z.number().int().nullable() })
      .nullable()
      .describe('null until the election date is set'),
    timeZone: z.string(),
  })
  .meta({ id: 'GotvDashboard' });

/**
 * The war room's one-screen summary, each block one aggregate query (the voters' totals from the
 * stations' tallies). Hours are in the campaign's time zone.
 */
export async function gotvDashboard(em: EntityManager, timeZone: string): Promise<z.input<typeof dashboardView>> {
  // The hourly curve is the live day's: today's, or election day's once it has passed.
  const dayStart = liveDayStart(new Date(), timeZone, (await getSettings(em)).electionDate);
  const [statuses, voters, hourly, byTerritory, byBrigade, mostPending] = await Promise.all([
    em.execute<{ status: (typeof STATION_STATUSES)[number]; n: number }[]>('select status, count(*)::int as n from gotv_polling_stations group by status'),
    em.execute<{ confirmed: number; voted: number }[]>(
      'select coalesce(sum(confirmed_voters), 0)::int as confirmed, coalesce(sum(confirmed_voted), 0)::int as voted from gotv_station_tallies',
    ),
    em.execute<{ hour: number; voter_reports: number; count_reports: number }[]>(
      `select extract(hour from reported_at at time zone ?)::int as hour,
              count(*) filter (where kind = 'voter')::int as voter_reports, count(*) filter (where kind = 'count')::int as count_reports
       from gotv_turnout_reports where reported_at >= ? and reported_at < ?::timestamptz + interval '1 day' group by 1 order by 1`,
      [timeZone, dayStart, dayStart],
    ),
    em.execute<{ territory_id: string | null; name: string | null; assigned: number; voted: number }[]>(
      `select s.territory_id, t.name, sum(c.confirmed_voters)::int as assigned, sum(c.confirmed_voted)::int as voted
       from gotv_station_tallies c join gotv_polling_stations s on s.id = c.station_id left join territories t on t.id = s.territory_id
       where c.confirmed_voters > 0 group by s.territory_id, t.name order by assigned desc`,
    ),
    em.execute<{ brigade_id: string | null; name: string | null; assigned: number; voted: number }[]>(
      `select v.brigade_id, b.name, count(v.id)::int as assigned, count(v.id) filter (where v.status = 'voted')::int as voted
       from gotv_voters v left join gotv_brigades b on b.id = v.brigade_id group by v.brigade_id, b.name order by assigned desc`,
    ),
    em.execute<{ station_id: string; code: string; name: string; pending: number }[]>(
      `select s.id as station_id, s.code, s.name, c.confirmed_voters - c.confirmed_voted as pending
       from gotv_station_tallies c join gotv_polling_stations s on s.id = c.station_id
       where c.confirmed_voters > c.confirmed_voted order by pending desc, s.name limit 10`,
    ),
  ]);
  let summary: z.input<typeof dashboardView>['projection'] = null;
  try {
    const projected = await projection(em, timeZone);
    summary = { phase: projected.phase, projectedTurnout: projected.overall.projectedTurnout, projectedConfirmedVoted: projected.overall.projectedConfirmedVoted };
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error; // no election date yet: no projection
  }
  const totals = voters[0] ?? { confirmed: 0, voted: 0 };
  return {
    stations: Object.fromEntries(STATION_STATUSES.map((status) => [status, statuses.find((row) => row.status === status)?.n ?? 0])) as Record<
      (typeof STATION_STATUSES)[number],
      number
    >,
    voters: { confirmed: totals.confirmed, voted: totals.voted, pending: totals.confirmed - totals.voted, turnoutPct: percent(totals.voted, totals.confirmed) },
    hourly: hourly.map((row) => ({ hour: row.hour, voterReports: row.voter_reports, countReports: row.count_reports })),
    byTerritory: byTerritory.map((row) => ({
      territoryId: row.territory_id,
      name: row.name ?? 'Sin territorio',
      assigned: row.assigned,
      voted: row.voted,
      pending: row.assigned - row.voted,
    })),
    byBrigade: byBrigade.map((row) => ({
      brigadeId: row.brigade_id,
      name: row.name ?? 'Sin brigada',
      assigned: row.assigned,
      voted: row.voted,
      pending: row.assigned - row.voted,
    })),
    mostPending: mostPending.map((row) => ({ stationId: row.station_id, code: row.code, name: row.name, pending: row.pending })),
    projection: summary,
    timeZone,
  };
}
