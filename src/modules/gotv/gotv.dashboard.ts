import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { ConflictError } from '../../kernel/errors';
import type { Queries } from '../../kernel/sql';
import { STATION_STATUSES } from './gotv.entities';
import { percent, projection } from './gotv.live';
import { dashboardRows } from './gotv.live.repository';
import { getSettings, liveDayStart } from './gotv.settings';
import type { Projector } from './projection/projector';

const progress = { assigned: z.number().int(), voted: z.number().int(), pending: z.number().int() };

export const dashboardView = z
  .object({
    stations: z.record(z.enum(STATION_STATUSES), z.number().int()),
    voters: z.object({ confirmed: z.number().int(), voted: z.number().int(), pending: z.number().int(), turnoutPct: z.number() }),
    hourly: z.array(z.object({ hour: z.number().int(), voterReports: z.number().int(), countReports: z.number().int() })),
    byTerritory: z.array(z.object({ territoryId: z.uuid().nullable(), name: z.string(), ...progress })),
    byBrigade: z.array(z.object({ brigadeId: z.uuid().nullable(), name: z.string(), ...progress })),
    mostPending: z.array(z.object({ stationId: z.uuid(), code: z.string(), name: z.string(), pending: z.number().int() })),
    incidents: z
      .object({
        reported: z.number().int().describe('Incidents reported during the day (what `GET /api/gotv/incidents?since=` with `since` lists)'),
        stations: z.number().int().describe('Stations they were reported at'),
        since: instant.describe('Start of the day counted, in the campaign’s time zone'),
      })
      .describe('The day’s incidents, all of them: `stations.incident` counts only stations still marked with one (closing a station clears it)'),
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
export async function gotvDashboard(q: Queries, timeZone: string, projector?: Projector): Promise<z.input<typeof dashboardView>> {
  // The hourly curve is the live day's: today's, or election day's once it has passed.
  const dayStart = liveDayStart(new Date(), timeZone, (await getSettings(q)).electionDate);
  const { statuses, voters: totals, hourly, byTerritory, byBrigade, mostPending, incidents } = await dashboardRows(q, timeZone, dayStart);
  let summary: z.input<typeof dashboardView>['projection'] = null;
  try {
    const projected = await projection(q, timeZone, {}, projector ? { projector } : {});
    summary = { phase: projected.phase, projectedTurnout: projected.overall.projectedTurnout, projectedConfirmedVoted: projected.overall.projectedConfirmedVoted };
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error; // no election date yet: no projection
  }
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
    incidents: { ...incidents, since: dayStart.toISOString() },
    projection: summary,
    timeZone,
  };
}
