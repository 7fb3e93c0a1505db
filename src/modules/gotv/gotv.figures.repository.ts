import { camelRow } from '../../kernel/rows';
import { sql, type Queries } from '../../kernel/sql';
import { stationRows, type StationFilter, type StationRow } from './gotv.live.repository';

/** A station's figures for other modules: its row without the previous turnout and the latest report's time. */
const figuresOf = ({ previous_turnout, last_report_at, ...row }: StationRow) => camelRow(row);

export type StationFigures = ReturnType<typeof figuresOf>;

/** Polling stations (all, or those inside a territory or a bbox) with their confirmed voters and how many voted, from the tallies. */
export async function stationFigures(q: Queries, filter: Pick<StationFilter, 'territoryId' | 'bbox'> = {}): Promise<StationFigures[]> {
  return (await stationRows(q, filter)).map(figuresOf);
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
