import { sql, type Queries } from '../../kernel/sql';
import { newId } from '../../kernel/ids';
import { brigadeCoversVoterSql } from './gotv.policy';

/** When a report was made, and the local day it falls in: counts are cumulative within one day. */
export interface ReportDay {
  at: Date;
  dayStart: Date;
  dayEnd: Date;
  rehearsal: boolean;
}

export interface VoterReportItem {
  /** The voter by id, or else by cédula. */
  voter: { id: string } | { documentId: string };
  clientReportId: string;
  time: ReportDay;
}

export interface VoterReports {
  reportedById: string;
  /** Managers report any voter; a brigade member only their brigades'. */
  everyVoter: boolean;
  items: VoterReportItem[];
}

/** One row per item, in the items' order; nulls say why nothing was recorded. */
export interface VoterReportRow {
  voter_id: string | null;
  station_id: string | null;
  allowed_id: string | null;
  report_id: string | null;
}

/**
 * Election day's hottest statement: a phone's voter reports, one or a whole queue, in one round
 * trip (on a busy server each round trip is one more wait for the CPU). For each item it finds the
 * voter (by id or by document), checks a brigade member's scope (the voter's station is one of
 * their brigades', or the voter is assigned to one of their brigades: the rule in gotv.policy.ts),
 * and records the report. Out of rehearsal only a voter's first report is recorded, and it marks
 * them voted: two phones racing meet at the voter's row lock, and the one that waited re-reads the
 * row, finds the voter voted and writes nothing (a duplicate leaves no row); within one queue the
 * earliest item wins. A rehearsal's report is recorded (once per clientReportId) and changes no
 * voter. All or nothing: the items are one statement, whose voter row locks are taken in id order.
 * The tally trigger's station rows are locked in whatever order the update visits voters, so two
 * queues over the same stations may deadlock: the caller runs it again. Prepared once per pooled
 * connection.
 */
export async function recordVoterReports(db: Queries, batch: VoterReports): Promise<VoterReportRow[]> {
  const column = <T>(pick: (item: VoterReportItem, index: number) => T) => batch.items.map(pick);
  const statement = sql<VoterReportRow>`
    with input as (
      select * from unnest(${column((_, index) => index)}::int[], ${column((item) => ('id' in item.voter ? item.voter.id : null))}::uuid[],
        ${column((item) => ('documentId' in item.voter ? item.voter.documentId : null))}::text[], ${column((item) => item.clientReportId)}::uuid[],
        ${column((item) => item.time.at)}::timestamptz[], ${column((item) => item.time.rehearsal)}::boolean[], ${column(() => newId())}::uuid[])
        as i(ord, voter_id, document_id, client_report_id, at, rehearsal, report_id)
    ),
    voter as (
      select i.ord, g.id, g.polling_station_id as station_id, g.brigade_id from input i join gotv_voters g on g.id = i.voter_id
      union all
      select i.ord, g.id, g.polling_station_id, g.brigade_id from input i join gotv_voters g on i.voter_id is null and g.document_id = i.document_id
    ),
    allowed as (
      select v.ord, v.id, v.station_id from voter v
      where ${batch.everyVoter}::boolean or ${brigadeCoversVoterSql(batch.reportedById, { stationId: sql`v.station_id`, brigadeId: sql`v.brigade_id` })}
    ),
    earliest as (
      select distinct on (a.id) a.ord, a.id from allowed a join input i on i.ord = a.ord
      where not i.rehearsal order by a.id, a.ord
    ),
    target as (
      select e.ord, g.id from gotv_voters g join earliest e on e.id = g.id
      where g.status <> 'voted' order by g.id for update of g
    ),
    r as (
      insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged, rehearsal)
      select i.report_id, i.client_report_id, 'voter', a.station_id, a.id, null, i.at, now(), ${batch.reportedById}::uuid, false, i.rehearsal
      from allowed a join input i on i.ord = a.ord
      where i.rehearsal or a.ord in (select ord from target)
      on conflict (client_report_id) do nothing returning id, client_report_id
    ),
    marked as (
      update gotv_voters g set status = 'voted', voted_at = i.at, updated_at = now()
      from target t join input i on i.ord = t.ord join r on r.client_report_id = i.client_report_id
      where g.id = t.id
    )
    select v.id as voter_id, v.station_id, a.id as allowed_id, r.id as report_id
    from input i left join voter v on v.ord = i.ord left join allowed a on a.ord = i.ord left join r on r.client_report_id = i.client_report_id
    order by i.ord`;
  return db.rows(statement.prepared('gotv_voter_reports'));
}

/**
 * Locks the station's row (no key update: voter reports' foreign-key checks on it still pass), so
 * that counts for one station are recorded one after the other and each is flagged against every
 * count committed before it, whichever witness's phone got there first. Inside a transaction.
 */
export function lockStationForCount(tx: Queries, stationId: string) {
  return tx.first(
    sql<{ id: string; registered_voters: number }>`
      select id, registered_voters from gotv_polling_stations where id = ${stationId} for no key update`.prepared('gotv_lock_station_for_count'),
  );
}

export interface CountReport {
  stationId: string;
  clientReportId: string;
  votersSoFar: number;
  reportedById: string;
  time: ReportDay;
}

/**
 * Counts are cumulative within a day: one lower than a count of the station earlier that day (or
 * at the same time) is stored and flagged, and never lowers the station's figure. Then a
 * back-dated count that arrives after later, lower ones of its day flags those: a report's flag is
 * the same whatever order the witnesses' phones delivered them in. Returns nothing for a resent
 * report. Inside the transaction that locked the station.
 */
export async function recordCountReport(tx: Queries, report: CountReport): Promise<{ id: string; flagged: boolean } | undefined> {
  const { stationId, votersSoFar, time } = report;
  const inserted = await tx.first(
    sql<{ id: string; flagged: boolean }>`
      with previous as (
        select coalesce(max(voters_so_far), 0) as highest from gotv_turnout_reports
        where station_id = ${stationId}::uuid and kind = 'count' and reported_at >= ${time.dayStart}::timestamptz and reported_at <= ${time.at}::timestamptz
      )
      insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged, rehearsal)
      select ${newId()}::uuid, ${report.clientReportId}::uuid, 'count', ${stationId}::uuid, null, ${votersSoFar}::int, ${time.at}::timestamptz, now(),
        ${report.reportedById}::uuid, ${votersSoFar}::int < previous.highest, ${time.rehearsal}::boolean from previous
      on conflict (client_report_id) do nothing returning id, flagged`.prepared('gotv_insert_count_report'),
  );
  if (!inserted) return undefined;
  await tx.write(
    sql`update gotv_turnout_reports set flagged = true
        where station_id = ${stationId}::uuid and kind = 'count' and reported_at >= ${time.at}::timestamptz and reported_at < ${time.dayEnd}::timestamptz
          and voters_so_far < ${votersSoFar}::int and not flagged`.prepared('gotv_flag_lower_later_counts'),
  );
  return inserted;
}

/** One import batch, one array per column. */
export interface VoterBatch {
  names: string[];
  documentIds: string[];
  phones: (string | null)[];
  stationIds: string[];
  tableNumbers: (number | null)[];
  priorities: string[];
}

/**
 * One statement per import batch: atomic, and PostgreSQL expands the arrays itself (no row-by-row
 * inserts). A cédula already registered is skipped; returns the cédulas inserted.
 */
export async function insertVoterBatch(db: Queries, batch: VoterBatch): Promise<string[]> {
  const rows = await db.rows(
    sql<{ document_id: string }>`
      insert into gotv_voters (id, name, document_id, phone, polling_station_id, table_number, priority, status, created_at, updated_at)
      select id, name, document_id, phone, station_id, table_number, priority, 'pending', now(), now()
      from unnest(${batch.names.map(() => newId())}::uuid[], ${batch.names}::text[], ${batch.documentIds}::text[], ${batch.phones}::text[],
                  ${batch.stationIds}::uuid[], ${batch.tableNumbers}::int[], ${batch.priorities}::text[])
        as t(id, name, document_id, phone, station_id, table_number, priority)
      on conflict (document_id) do nothing
      returning document_id`.prepared('gotv_voters_import'),
  );
  return rows.map((row) => row.document_id);
}
