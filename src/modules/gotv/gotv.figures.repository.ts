import { sql, type Queries } from '../../kernel/sql';
import type { StationStatus } from './gotv.entities';
import { stationRows, type StationFilter } from './gotv.live.repository';

export interface StationFigures {
  id: string;
  code: string;
  name: string;
  status: StationStatus;
  territoryId: string | null;
  lat: number;
  lng: number;
  registeredVoters: number;
  confirmedVoters: number;
  confirmedVoted: number;
}

/** Polling stations (all, or those inside a territory or a bbox) with their confirmed voters and how many voted, from the tallies. */
export async function stationFigures(q: Queries, filter: Pick<StationFilter, 'territoryId' | 'bbox'> = {}): Promise<StationFigures[]> {
  const rows = await stationRows(q, filter);
  return rows.map((row) => ({
    id: row.id,
    code: row.code,
    name: row.name,
    status: row.status,
    territoryId: row.territory_id,
    lat: row.lat,
    lng: row.lng,
    registeredVoters: row.registered_voters,
    confirmedVoters: row.confirmed_voters,
    confirmedVoted: row.confirmed_voted,
  }));
}

export interface TurnoutTotals {
  stations: number;
  stationsOpen: number;
  stationsWithIncident: number;
  confirmedVoters: number;
  confirmedVoted: number;
}

/** The election day at a glance: stations by state and confirmed voters who voted (300 tally rows, no voter count). */
export async function turnoutTotals(q: Queries): Promise<TurnoutTotals> {
  const row = await q.first<TurnoutTotals>(sql`
    select count(*)::int as stations, count(*) filter (where s.status = 'open')::int as "stationsOpen",
      count(*) filter (where s.status = 'incident')::int as "stationsWithIncident",
      coalesce(sum(t.confirmed_voters), 0)::int as "confirmedVoters", coalesce(sum(t.confirmed_voted), 0)::int as "confirmedVoted"
    from gotv_polling_stations s left join gotv_station_tallies t on t.station_id = s.id`);
  return row ?? { stations: 0, stationsOpen: 0, stationsWithIncident: 0, confirmedVoters: 0, confirmedVoted: 0 };
}
