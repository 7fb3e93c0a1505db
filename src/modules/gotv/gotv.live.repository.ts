import type { InferKyselyDB } from '@mikro-orm/sql';
import type { NotNull, Selectable } from 'kysely';
import type { WithNumbers } from '../../kernel/rows';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { territoryAndDescendants, territoryDirectory } from '../territories';
import type { PollingStationSchema, StationStatus, StationTallySchema, TurnoutReportSchema } from './gotv.entities';

type LiveTables = InferKyselyDB<typeof PollingStationSchema | typeof StationTallySchema | typeof TurnoutReportSchema>;
const db = tables<LiveTables>();
type Station = Selectable<LiveTables['gotv_polling_stations']>;
type Tally = Selectable<LiveTables['gotv_station_tallies']>;
type Report = Selectable<LiveTables['gotv_turnout_reports']>;

// The war room's reads: every station's figures for the map and the projection, and the
// dashboard's aggregates. Confirmed-voter figures come from the tallies triggers keep (see
// StationTallySchema), so none of these counts the voters table on a busy day.

/** A station with its tallies (0 without a row) and when its latest report arrived (null before any); pg gives the doubles as numbers. */
export type StationRow = WithNumbers<Pick<Station, 'id' | 'code' | 'name' | 'status' | 'territory_id' | 'lat' | 'lng' | 'registered_voters' | 'previous_turnout'>, 'lat' | 'lng'> &
  Pick<Tally, 'confirmed_voters' | 'confirmed_voted'> & { last_report_at: Report['received_at'] | null };

export interface StationFilter {
  territoryId?: string | undefined;
  /** [minLng, minLat, maxLng, maxLat] */
  bbox?: [number, number, number, number] | undefined;
  /** Only these stations (a push for the stations whose numbers just changed). */
  ids?: string[] | undefined;
}

/** Each territory's parent: how the projection sums stations under the territories a reader asked about. */
export function territoryParents(q: Queries): Promise<{ id: string; parent_id: string | null }[]> {
  return q.rows(sql<{ id: string; parent_id: string | null }>`select id, parent_id from ${territoryDirectory()} t`);
}

/** Every station (or those the filter keeps; a territory includes the territories inside it) with its tallies and latest report time. */
export function stationRows(q: Queries, filter: StationFilter): Promise<StationRow[]> {
  const clauses: Sql<never>[] = [];
  if (filter.ids) clauses.push(sql`s.id = any(${filter.ids}::uuid[])`);
  if (filter.territoryId) clauses.push(sql`s.territory_id in (${territoryAndDescendants([filter.territoryId])})`);
  if (filter.bbox) {
    const [minLng, minLat, maxLng, maxLat] = filter.bbox;
    clauses.push(sql`s.lng between ${minLng} and ${maxLng} and s.lat between ${minLat} and ${maxLat}`);
  }
  const where = clauses.length ? sql`where ${sql.join(clauses, ' and ')}` : sql``;
  return q.rows(
    sql<StationRow>`
      select s.id, s.code, s.name, s.status, s.territory_id, s.lat, s.lng, s.registered_voters, s.previous_turnout,
             coalesce(t.confirmed_voters, 0) as confirmed_voters, coalesce(t.confirmed_voted, 0) as confirmed_voted,
             (select max(r.received_at) from gotv_turnout_reports r where r.station_id = s.id) as last_report_at
      from gotv_polling_stations s left join gotv_station_tallies t on t.station_id = s.id
      ${where}
      order by s.name, s.id`,
  );
}

/** Count reports since `since` (and before `until`), of these stations or all, oldest first. */
export function countReportsSince(q: Queries, since: Date, ids?: readonly string[], until?: Date) {
  let query = db
    .selectFrom('gotv_turnout_reports')
    .select(['station_id', 'voters_so_far', 'reported_at'])
    .where('kind', '=', 'count')
    .where('reported_at', '>=', since)
    // A count report always has its figure.
    .$narrowType<{ voters_so_far: NotNull }>();
  if (until) query = query.where('reported_at', '<', until);
  // One array parameter however many stations, as before (`in (…)` would add one per station).
  if (ids) query = query.where('station_id', '=', (report) => report.fn.any(report.val([...ids])));
  return q.rows(query.orderBy('reported_at'));
}

export interface VoterLagRow {
  territory_id: string | null;
  lag_minutes: number;
  /** The vote's minute (votedAt truncated), from which its age at any `now` follows. */
  voted_minute: Date;
  n: number;
}

/**
 * Election-day voter reports voted since `since` and received by `now`, counted by territory, whole
 * minutes between the vote and the report's arrival, and the vote's minute: the delay histogram the
 * projection's reporting-lag estimate reads (a few thousand rows at most, however many reports).
 */
export function voterLagRows(q: Queries, since: Date, now: Date): Promise<VoterLagRow[]> {
  return q.rows(
    sql<VoterLagRow>`
      select s.territory_id, floor(extract(epoch from (r.received_at - r.reported_at)) / 60)::int as lag_minutes,
             date_trunc('minute', r.reported_at) as voted_minute, count(*)::int as n
      from gotv_turnout_reports r join gotv_polling_stations s on s.id = r.station_id
      where r.kind = 'voter' and not r.rehearsal and r.reported_at >= ${since}::timestamptz
        and r.reported_at <= ${now}::timestamptz and r.received_at <= ${now}::timestamptz
      group by 1, 2, 3`,
  );
}

export interface VoterVoteRow {
  territory_id: string | null;
  /** The vote's minute (votedAt truncated). */
  voted_minute: Date;
  n: number;
}

/**
 * Voter reports voted from `since` to `until` and received by `now`, of supporters no brigade
 * contacted that day before their vote, counted by territory and the vote's minute: the supporters'
 * flow, whose shape the learned curve shares (a called supporter votes when the brigade gets them
 * there). At most one row per territory and minute of the day, however many reports; the contacts
 * are looked up by their (voter, created_at) index.
 */
export function voterVoteRows(q: Queries, since: Date, until: Date, now: Date): Promise<VoterVoteRow[]> {
  return q.rows(
    sql<VoterVoteRow>`
      select s.territory_id, date_trunc('minute', r.reported_at) as voted_minute, count(*)::int as n
      from gotv_turnout_reports r join gotv_polling_stations s on s.id = r.station_id
      where r.kind = 'voter' and not r.rehearsal and r.reported_at >= ${since}::timestamptz
        and r.reported_at <= ${until}::timestamptz and r.received_at <= ${now}::timestamptz
        and not exists (
          select 1 from gotv_voter_contacts c
          where c.voter_id = r.voter_id and c.created_at >= ${since}::timestamptz and c.created_at <= r.reported_at)
      group by 1, 2`,
  );
}

/** Which of these stations got reports received after `since`: the (station_id, received_at) index answers it. */
export async function stationsReportedSince(q: Queries, ids: readonly string[], since: Date): Promise<string[]> {
  const rows = await q.rows(
    db
      .selectFrom('gotv_turnout_reports')
      .select('station_id')
      .distinct()
      .where('station_id', '=', (report) => report.fn.any(report.val([...ids])))
      .where('received_at', '>', since),
  );
  return rows.map((row) => row.station_id);
}

export interface DashboardRows {
  statuses: { status: StationStatus; n: number }[];
  voters: { confirmed: number; voted: number };
  hourly: { hour: number; voter_reports: number; count_reports: number }[];
  byTerritory: { territory_id: string | null; name: string | null; assigned: number; voted: number }[];
  byBrigade: { brigade_id: string | null; name: string | null; assigned: number; voted: number }[];
  mostPending: { station_id: string; code: string; name: string; pending: number }[];
  /** Incidents reported during the day, and at how many stations. */
  incidents: { reported: number; stations: number };
}

/** The dashboard's blocks, each one aggregate statement, run side by side; hours in `timeZone`, of the day starting at `dayStart`. */
export async function dashboardRows(q: Queries, timeZone: string, dayStart: Date): Promise<DashboardRows> {
  const [statuses, voters, hourly, byTerritory, byBrigade, mostPending, incidents] = await Promise.all([
    q.rows(sql<DashboardRows['statuses'][number]>`select status, count(*)::int as n from gotv_polling_stations group by status`),
    q.first(
      sql<DashboardRows['voters']>`
        select coalesce(sum(confirmed_voters), 0)::int as confirmed, coalesce(sum(confirmed_voted), 0)::int as voted from gotv_station_tallies`,
    ),
    q.rows(
      sql<DashboardRows['hourly'][number]>`
        select extract(hour from reported_at at time zone ${timeZone})::int as hour,
               count(*) filter (where kind = 'voter')::int as voter_reports, count(*) filter (where kind = 'count')::int as count_reports
        from gotv_turnout_reports where reported_at >= ${dayStart}::timestamptz and reported_at < ${dayStart}::timestamptz + interval '1 day'
        group by 1 order by 1`,
    ),
    q.rows(
      sql<DashboardRows['byTerritory'][number]>`
        select s.territory_id, t.name, sum(c.confirmed_voters)::int as assigned, sum(c.confirmed_voted)::int as voted
        from gotv_station_tallies c join gotv_polling_stations s on s.id = c.station_id left join ${territoryDirectory()} t on t.id = s.territory_id
        where c.confirmed_voters > 0 group by s.territory_id, t.name order by assigned desc`,
    ),
    q.rows(
      sql<DashboardRows['byBrigade'][number]>`
        select v.brigade_id, b.name, count(v.id)::int as assigned, count(v.id) filter (where v.status = 'voted')::int as voted
        from gotv_voters v left join gotv_brigades b on b.id = v.brigade_id group by v.brigade_id, b.name order by assigned desc`,
    ),
    q.rows(
      sql<DashboardRows['mostPending'][number]>`
        select s.id as station_id, s.code, s.name, c.confirmed_voters - c.confirmed_voted as pending
        from gotv_station_tallies c join gotv_polling_stations s on s.id = c.station_id
        where c.confirmed_voters > c.confirmed_voted order by pending desc, s.name limit 10`,
    ),
    q.first(
      sql<DashboardRows['incidents']>`
        select count(*)::int as reported, count(distinct station_id)::int as stations
        from gotv_incidents where created_at >= ${dayStart}::timestamptz and created_at < ${dayStart}::timestamptz + interval '1 day'`,
    ),
  ]);
  return { statuses, voters: voters ?? { confirmed: 0, voted: 0 }, hourly, byTerritory, byBrigade, mostPending, incidents: incidents ?? { reported: 0, stations: 0 } };
}
