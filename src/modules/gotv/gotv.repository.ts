import { sql, type BatchColumnType, type Queries } from '../../kernel/sql';
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
  /** Another report of the batch came first for the same voter: this one goes again after it. */
  again: boolean;
  /**
   * For a report whose station was one to probe rather than wait for (see `LockWaits`): true when
   * another transaction held its station's tally or its voter (nothing recorded), false when the
   * batch took them; null for every other report.
   */
  busy: boolean | null;
}

/** Which stations a batch must not wait for: their rows are locked only if free at once (SKIP LOCKED). */
export interface LockWaits {
  /** Stations whose rows another transaction was lately found holding. */
  probe: readonly string[];
  /** Every station of the batch: after the batch gave up waiting for one it could not name. */
  probeAll: boolean;
}

/**
 * Election day's hottest statement: a batch of voter reports (one, or the many that arrived together)
 * in one round trip, an answer row per report in their order. Each report finds its voter (by id or
 * by document), checks a brigade member's scope (the voter's station is one of their brigades', or
 * the voter is assigned to one of their brigades: the rule in gotv.policy.ts) and is recorded. Out
 * of rehearsal only a voter's first report is recorded, and it marks them voted; two batches racing
 * for a voter meet at its row lock, and the one that waited re-reads the row, finds the voter voted
 * and writes nothing (a duplicate leaves no row). A second report for one voter within the batch is
 * answered `again`, to be sent after this one commits. Rows are locked station by station, the
 * station's tally first and then its voters in id order: the tally trigger updates only tallies
 * already held, and batches that share stations queue instead of deadlocking. The stations of
 * `waits.probe` (all, with `probeAll`) are not waited for: their rows are locked with SKIP LOCKED
 * once every other lock is held (so holding them never makes the batch wait), and a report whose
 * rows another transaction holds is answered `busy` with nothing recorded. A rehearsal's report
 * is recorded (once per clientReportId) and changes no voter. Its arrays are batch columns
 * (`sql.batch`): every batch, of one report or of hundreds, runs on one generic plan, not planned anew.
 */
export function recordVoterReports(db: Queries, reports: readonly VoterReport[], waits: LockWaits = { probe: [], probeAll: false }): Promise<VoterReportRow[]> {
  const column = (type: BatchColumnType, pick: (report: VoterReport) => unknown) => sql.batch(reports.map(pick), type);
  const probe = sql.batch(waits.probe, 'uuid');
  // Without stations to probe, the probing steps are skipped whole (a condition on a parameter alone is checked once).
  const probing = waits.probeAll || waits.probe.length > 0;
  const statement = sql<VoterReportRow>`
    with input as (
      select * from unnest(
        ${column('uuid', (r) => ('id' in r.voter ? r.voter.id : null))}, ${column('text', (r) => ('documentId' in r.voter ? r.voter.documentId : null))},
        ${column('uuid', (r) => r.clientReportId)}, ${column('uuid', (r) => r.reportedById)}, ${column('boolean', (r) => r.everyVoter)},
        ${column('timestamptz', (r) => r.time.at)}, ${column('boolean', (r) => r.time.rehearsal)}, ${column('uuid', () => newId())}
      ) with ordinality as i(voter_id, document_id, client_report_id, reported_by_id, every_voter, at, rehearsal, report_id, ordinal)
    ),
    voter as (
      select i.ordinal, g.id, g.station_id, g.brigade_id from input i cross join lateral (
        select id, polling_station_id as station_id, brigade_id from gotv_voters where id = i.voter_id
        union all
        select id, polling_station_id, brigade_id from gotv_voters where i.voter_id is null and document_id = i.document_id
      ) g
    ),
    allowed as (
      select v.ordinal, v.id, v.station_id, i.rehearsal from voter v join input i on i.ordinal = v.ordinal
      where i.every_voter or ${brigadeCoversVoterSql(sql`i.reported_by_id`, { stationId: sql`v.station_id`, brigadeId: sql`v.brigade_id` })}
    ),
    first as (
      select distinct on (id) ordinal, id from allowed where not rehearsal order by id, ordinal
    ),
    target as (
      select g.id from gotv_station_tallies t join gotv_voters g on g.polling_station_id = t.station_id
      where g.id in (select id from first) and g.status <> 'voted' and not (${waits.probeAll}::boolean or t.station_id = any(${probe}::uuid[]))
      order by t.station_id, g.id for no key update of t, g
    ),
    probed as (
      select g.id from gotv_voters g
      where (${probing}::boolean) and g.id in (select id from first) and g.status <> 'voted' and (${waits.probeAll}::boolean or g.polling_station_id = any(${probe}::uuid[]))
    ),
    tried as (
      -- Sorted before it locks, so reading target (every lock the batch waits for) comes first.
      select g.id from gotv_station_tallies t join gotv_voters g on g.polling_station_id = t.station_id
      where g.id in (select id from probed) and g.id not in (select id from target) and g.status <> 'voted'
      order by t.station_id, g.id for no key update of t, g skip locked
    ),
    r as (
      insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged, rehearsal)
      select i.report_id, i.client_report_id, 'voter', a.station_id, a.id, null, i.at, now(), i.reported_by_id, false, i.rehearsal
      from allowed a join input i on i.ordinal = a.ordinal
      where i.rehearsal or (a.ordinal in (select ordinal from first) and (a.id in (select id from target) or a.id in (select id from tried)))
      on conflict (client_report_id) do nothing
      returning id, voter_id, reported_at, rehearsal
    ),
    marked as (
      update gotv_voters g set status = 'voted', voted_at = r.reported_at, updated_at = now()
      from r where g.id = r.voter_id and not r.rehearsal
    )
    select v.id as voter_id, v.station_id, a.id as allowed_id, r.id as report_id,
           (a.id is not null and not i.rehearsal and not exists (select 1 from first f where f.ordinal = i.ordinal)) as again,
           case when exists (select 1 from first f where f.ordinal = i.ordinal) and a.id in (select id from probed)
             then a.id not in (select id from tried) end as busy
    from input i
    left join voter v on v.ordinal = i.ordinal
    left join allowed a on a.ordinal = i.ordinal
    left join r on r.id = i.report_id
    order by i.ordinal`;
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
  /** Null: `normal` for a new voter, kept for a registered one. */
  priorities: (string | null)[];
}

/**
 * Registers new voters and updates registered ones (by document number) in one statement: the name
 * and station always, the phone, table and priority when the row has them (a move to another
 * station without a table clears it). A row that would change nothing is left alone, so only the
 * rows returned were written; each says whether it was new.
 */
export async function upsertVoterBatch(db: Queries, batch: VoterBatch): Promise<{ created: number; updated: number }> {
  const ids = batch.names.map(() => newId());
  const row = await db.first(
    sql<{ created: number; updated: number }>`
      with input as (
        select * from unnest(${sql.batch(ids, 'uuid')}, ${sql.batch(batch.names, 'text')}, ${sql.batch(batch.documentIds, 'text')},
                             ${sql.batch(batch.phones, 'text')}, ${sql.batch(batch.stationIds, 'uuid')}, ${sql.batch(batch.tableNumbers, 'int')},
                             ${sql.batch(batch.priorities, 'text')})
          as t(id, name, document_id, phone, station_id, table_number, priority)
      ), wanted as (
        select v.id, i.name, coalesce(i.phone, v.phone) as phone, i.station_id,
               case when i.table_number is not null then i.table_number when i.station_id = v.polling_station_id then v.table_number end as table_number,
               coalesce(i.priority, v.priority) as priority
        from input i join gotv_voters v on v.document_id = i.document_id
      ), updated as (
        update gotv_voters v
        set name = w.name, phone = w.phone, polling_station_id = w.station_id, table_number = w.table_number, priority = w.priority, updated_at = now()
        from wanted w
        where v.id = w.id and (v.name, v.phone, v.polling_station_id, v.table_number, v.priority) is distinct from (w.name, w.phone, w.station_id, w.table_number, w.priority)
        returning v.id
      ), inserted as (
        insert into gotv_voters (id, name, document_id, phone, polling_station_id, table_number, priority, status, created_at, updated_at)
        select i.id, i.name, i.document_id, i.phone, i.station_id, i.table_number, coalesce(i.priority, 'normal'), 'pending', now(), now()
        from input i
        where not exists (select 1 from gotv_voters v where v.document_id = i.document_id)
        on conflict (document_id) do nothing
        returning id
      )
      select (select count(*)::int from inserted) as created, (select count(*)::int from updated) as updated`.prepared('gotv_voters_import'),
  );
  return { created: row?.created ?? 0, updated: row?.updated ?? 0 };
}

/**
 * What `upsertVoterBatch` would do with the batch, written nowhere: the voters it would create
 * (document numbers not registered) and update (registered ones the row changes), by the same rules.
 */
export async function countVoterBatch(db: Queries, batch: VoterBatch): Promise<{ created: number; updated: number }> {
  const row = await db.first(
    sql<{ created: number; updated: number }>`
      with input as (
        select * from unnest(${sql.batch(batch.names, 'text')}, ${sql.batch(batch.documentIds, 'text')}, ${sql.batch(batch.phones, 'text')},
                             ${sql.batch(batch.stationIds, 'uuid')}, ${sql.batch(batch.tableNumbers, 'int')}, ${sql.batch(batch.priorities, 'text')})
          as t(name, document_id, phone, station_id, table_number, priority)
      ), wanted as (
        select v.name as old_name, v.phone as old_phone, v.polling_station_id as old_station, v.table_number as old_table, v.priority as old_priority,
               i.name, coalesce(i.phone, v.phone) as phone, i.station_id,
               case when i.table_number is not null then i.table_number when i.station_id = v.polling_station_id then v.table_number end as table_number,
               coalesce(i.priority, v.priority) as priority
        from input i join gotv_voters v on v.document_id = i.document_id
      )
      select (select count(*)::int from input i where not exists (select 1 from gotv_voters v where v.document_id = i.document_id)) as created,
             (select count(*)::int from wanted w
               where (w.old_name, w.old_phone, w.old_station, w.old_table, w.old_priority) is distinct from (w.name, w.phone, w.station_id, w.table_number, w.priority)) as updated`.prepared(
      'gotv_voters_import_dry_run',
    ),
  );
  return { created: row?.created ?? 0, updated: row?.updated ?? 0 };
}
