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

export interface VoterReport {
  /** The voter by id, or else by cédula. */
  voter: { id: string } | { documentId: string };
  clientReportId: string;
  reportedById: string;
  /** Managers report any voter; a brigade member only their brigades'. */
  everyVoter: boolean;
  time: ReportDay;
}

export interface VoterReportRow {
  voter_id: string | null;
  station_id: string | null;
  allowed_id: string | null;
  report_id: string | null;
}

/**
 * Election day's hottest statement: a voter report in one round trip (on a busy server each round
 * trip is one more wait for the CPU). It finds the voter (by id or by document), checks a brigade
 * member's scope (the voter's station is one of their brigades', or the voter is assigned to one
 * of their brigades: the rule in gotv.policy.ts), and records the report. Out of rehearsal
 * only the voter's first report is recorded, and it marks them voted: two phones racing meet at the
 * voter's row lock, and the one that waited re-reads the row, finds the voter voted and writes
 * nothing (a duplicate leaves no row). A rehearsal's report is recorded (once per clientReportId)
 * and changes no voter. Prepared once per pooled connection.
 */
export function recordVoterReport(db: Queries, report: VoterReport): Promise<VoterReportRow | undefined> {
  const { at, rehearsal } = report.time;
  const byId = 'id' in report.voter;
  const findVoter = 'id' in report.voter ? sql`id = ${report.voter.id}::uuid` : sql`document_id = ${report.voter.documentId}`;
  const statement = sql<VoterReportRow>`
    with voter as (
      select id, polling_station_id as station_id, brigade_id from gotv_voters where ${findVoter}
    ),
    allowed as (
      select v.id, v.station_id from voter v
      where ${report.everyVoter}::boolean or ${brigadeCoversVoterSql(report.reportedById, { stationId: sql`v.station_id`, brigadeId: sql`v.brigade_id` })}
    ),
    target as (
      select g.id from gotv_voters g
      where not ${rehearsal}::boolean and g.id = (select id from allowed) and g.status <> 'voted' for update
    ),
    r as (
      insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged, rehearsal)
      select ${newId()}::uuid, ${report.clientReportId}::uuid, 'voter', a.station_id, a.id, null, ${at}::timestamptz, now(), ${report.reportedById}::uuid, false, ${rehearsal}::boolean
      from allowed a where ${rehearsal}::boolean or exists (select 1 from target)
      on conflict (client_report_id) do nothing returning id
    ),
    marked as (
      update gotv_voters set status = 'voted', voted_at = ${at}::timestamptz, updated_at = now()
      where id = (select id from target) and exists (select 1 from r)
    )
    select (select id from voter) as voter_id, (select station_id from voter) as station_id,
           (select id from allowed) as allowed_id, (select id from r) as report_id`;
  return db.first(statement.prepared(byId ? 'gotv_voter_report_by_id' : 'gotv_voter_report_by_document'));
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
