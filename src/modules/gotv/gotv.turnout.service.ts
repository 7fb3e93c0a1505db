import type { MikroORM } from '@mikro-orm/postgresql';
import { inTransaction, PreparedStatement } from '../../kernel/db';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { newId } from '../../kernel/ids';
import { GOTV_ROOM, type TurnoutItem } from './gotv.events';
import type { TurnoutItemInput, TurnoutReportInput } from './gotv.schemas';
import { coversStation, scopeOf, type Scope } from './gotv.scope';
import { projectionChanged } from './gotv.pushes';
import { instantAt, localClock } from './gotv.curve';
import { electionDateOf } from './gotv.settings';

/** Phones' clocks drift: a report up to two minutes ahead of ours is taken as "now". */
const CLOCK_SKEW_MS = 2 * 60_000;

export interface TurnoutAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}

type Outcome = { kind: 'accepted'; event: TurnoutItem } | { kind: 'duplicate' } | { kind: 'rejected'; code: string; message: string };

const reject = (code: string, message: string): Outcome => ({ kind: 'rejected', code, message });

/** When and in what kind of day a report was made. */
interface ReportTime {
  at: Date;
  /** The local midnights around `at`: counts are cumulative within one day. */
  dayStart: Date;
  dayEnd: Date;
  rehearsal: boolean;
}

/**
 * Election day's hottest statement: a voter report in one round trip (on a busy server each round
 * trip is one more wait for the CPU). It finds the voter (by id or by document), checks a brigade
 * member's scope (the voter's station is one of their brigades', or the voter is assigned to one
 * of their brigades: what gotv.scope.ts decides for the other routes), and records the report.
 * Out of rehearsal only the voter's first report is recorded, and it marks them voted: two phones
 * racing meet at the voter's row lock, and the one that waited re-reads the row, finds the voter
 * voted and writes nothing (a duplicate leaves no row). A rehearsal's report is recorded (once per
 * clientReportId) and changes no voter. Prepared once per pooled connection.
 */
const voterReportSql = (findVoter: string) => `
  with voter as (
    select id, polling_station_id as station_id, brigade_id from gotv_voters where ${findVoter}
  ),
  allowed as (
    select v.id, v.station_id from voter v
    where ?::boolean or exists (
      select 1 from gotv_brigade_members m
      where m.user_id = ?::uuid and (m.brigade_id = v.brigade_id
        or exists (select 1 from gotv_brigade_stations s where s.brigade_id = m.brigade_id and s.station_id = v.station_id)))
  ),
  target as (
    select g.id from gotv_voters g
    where not ?::boolean and g.id = (select id from allowed) and g.status <> 'voted' for update
  ),
  r as (
    insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged, rehearsal)
    select ?::uuid, ?::uuid, 'voter', a.station_id, a.id, null, ?::timestamptz, now(), ?::uuid, false, ?::boolean
    from allowed a where ?::boolean or exists (select 1 from target)
    on conflict (client_report_id) do nothing returning id
  ),
  marked as (
    update gotv_voters set status = 'voted', voted_at = ?::timestamptz, updated_at = now()
    where id = (select id from target) and exists (select 1 from r)
  )
  select (select id from voter) as voter_id, (select station_id from voter) as station_id,
         (select id from allowed) as allowed_id, (select id from r) as report_id`;

interface VoterReportRow {
  voter_id: string | null;
  station_id: string | null;
  allowed_id: string | null;
  report_id: string | null;
}

const voterReportById = new PreparedStatement<VoterReportRow>('gotv_voter_report_by_id', voterReportSql('id = ?::uuid'));
const voterReportByDocument = new PreparedStatement<VoterReportRow>('gotv_voter_report_by_document', voterReportSql('document_id = ?'));

async function recordVoterReport(orm: MikroORM, actor: Actor, report: Extract<TurnoutReportInput, { kind: 'voter' }>, time: ReportTime): Promise<Outcome> {
  const { at, rehearsal } = time;
  const statement = report.voterId ? voterReportById : voterReportByDocument;
  const everyVoter = actor.role !== 'brigade';
  const [row] = await statement.run(orm, [report.voterId ?? report.documentId, everyVoter, actor.id, rehearsal, newId(), report.clientReportId, at, actor.id, rehearsal, rehearsal, at]);
  if (!row?.voter_id || !row.station_id) return reject('unknown_voter', 'No confirmed voter matches this report.');
  if (!row.allowed_id) return reject('forbidden', "This voter is not one of your brigade's.");
  if (!row.report_id) return { kind: 'duplicate' };
  return { kind: 'accepted', event: rehearsal ? ['voter', row.station_id, row.voter_id, true] : ['voter', row.station_id, row.voter_id] };
}

// Locks the station's row (no key update: voter reports' foreign-key checks on it still pass), so
// that counts for one station are recorded one after the other and each is flagged against every
// count committed before it, whichever witness's phone got there first.
const lockStationForCount = new PreparedStatement<{ id: string; registered_voters: number }>(
  'gotv_lock_station_for_count',
  'select id, registered_voters from gotv_polling_stations where id = ? for no key update',
);
// Counts are cumulative within a day: one lower than a count of the station earlier that day (or at
// the same time) is stored and flagged, and never lowers the station's figure.
const insertCountReport = new PreparedStatement<{ id: string; flagged: boolean }>(
  'gotv_insert_count_report',
  `with previous as (
     select coalesce(max(voters_so_far), 0) as highest from gotv_turnout_reports
     where station_id = ?::uuid and kind = 'count' and reported_at >= ?::timestamptz and reported_at <= ?::timestamptz
   )
   insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged, rehearsal)
   select ?::uuid, ?::uuid, 'count', ?::uuid, null, ?::int, ?::timestamptz, now(), ?::uuid, ?::int < previous.highest, ?::boolean from previous
   on conflict (client_report_id) do nothing returning id, flagged`,
);

// A back-dated count can arrive after later, lower ones of its day: those are flagged now, so that
// a report's flag is the same whatever order the witnesses' phones delivered them in.
const flagLowerLaterCounts = new PreparedStatement<never>(
  'gotv_flag_lower_later_counts',
  `update gotv_turnout_reports set flagged = true
   where station_id = ?::uuid and kind = 'count' and reported_at >= ?::timestamptz and reported_at < ?::timestamptz
     and voters_so_far < ?::int and not flagged`,
);

async function recordCountReport(orm: MikroORM, actor: Actor, scope: Scope, report: Extract<TurnoutReportInput, { kind: 'count' }>, time: ReportTime): Promise<Outcome> {
  // A brigade's station is checked before anything is locked: a refused report holds no lock.
  if (!coversStation(scope, report.pollingStationId)) return reject('forbidden', "This station is not one of your brigade's.");
  return inTransaction(orm, async (run) => {
    const [station] = await run(lockStationForCount, [report.pollingStationId]);
    if (!station) return reject('unknown_station', 'No polling station has this id.');
    if (report.votersSoFar > station.registered_voters) {
      return reject('count_above_registered', `The station has ${station.registered_voters} registered voters.`);
    }
    const { at, dayStart, dayEnd, rehearsal } = time;
    const [row] = await run(insertCountReport, [station.id, dayStart, at, newId(), report.clientReportId, station.id, report.votersSoFar, at, actor.id, report.votersSoFar, rehearsal]);
    if (!row) return { kind: 'duplicate' };
    await run(flagLowerLaterCounts, [station.id, at, dayEnd, report.votersSoFar]);
    const event: TurnoutItem = ['count', station.id, row.id, report.votersSoFar, row.flagged];
    if (rehearsal) event.push(true);
    return { kind: 'accepted', event };
  });
}

/**
 * Applies a batch item by item: each accepted item is committed on its own, a rejected one (not a
 * valid report, refused, or dated in the future) writes nothing, and a resent one is a duplicate.
 * Accepted reports reach the war room batched per 100 ms.
 */
export async function recordTurnout(deps: AppDeps, actor: Actor, items: TurnoutItemInput[]): Promise<TurnoutAnswer> {
  const electionDate = await electionDateOf(deps);
  // Counts check a brigade's stations here (cached); voter reports check scope in their statement.
  const scopeFor = () => scopeOf(deps, actor);
  const answer: TurnoutAnswer = { accepted: 0, duplicates: 0, rejected: [] };
  const seen = new Set<string>();
  const publish = deps.realtime.batched(GOTV_ROOM, 'gotv:turnout');
  const pushProjection = projectionChanged(deps);
  // A report made on a local date before the election date is a rehearsal (brigades practising
  // with the real call lists); without an election date none is: no day has been named the real one.
  const timeOf = (at: Date): ReportTime => {
    const { date, start, end } = localDayOf(at, deps.config.timeZone);
    return { at, dayStart: start, dayEnd: end, rehearsal: electionDate !== null && date < electionDate };
  };
  for (const [index, item] of items.entries()) {
    const outcome = item.valid ? await recordOne(deps.orm, actor, scopeFor, item.report, seen, timeOf) : reject('validation_failed', item.message);
    if (outcome.kind === 'accepted') {
      answer.accepted++;
      publish(outcome.event);
      pushProjection();
    } else if (outcome.kind === 'duplicate') answer.duplicates++;
    else answer.rejected.push({ index, code: outcome.code, message: outcome.message });
  }
  return answer;
}

/** The last local day looked up: nearly every report of a day falls in it, and time-zone arithmetic is not free. */
let lastDay: { timeZone: string; date: string; start: Date; end: Date } | undefined;

function localDayOf(at: Date, timeZone: string): { date: string; start: Date; end: Date } {
  const known = lastDay;
  if (known && known.timeZone === timeZone && at >= known.start && at < known.end) return known;
  const { date } = localClock(at, timeZone);
  lastDay = { timeZone, date, start: instantAt(date, 0, timeZone), end: instantAt(date, 24 * 60, timeZone) };
  return lastDay;
}

async function recordOne(
  orm: MikroORM,
  actor: Actor,
  scopeFor: () => Promise<Scope>,
  report: TurnoutReportInput,
  seen: Set<string>,
  timeOf: (at: Date) => ReportTime,
): Promise<Outcome> {
  if (seen.has(report.clientReportId)) return reject('duplicate_in_batch', 'This clientReportId appears earlier in the same batch.');
  seen.add(report.clientReportId);
  const when = report.kind === 'voter' ? report.votedAt : report.reportedAt;
  const now = Date.now();
  const stated = when ? Date.parse(when) : now;
  if (stated > now + CLOCK_SKEW_MS) return reject('future_time', 'The report is dated in the future.');
  // A time a little ahead of ours is the phone's clock drifting: recorded as now.
  const time = timeOf(new Date(Math.min(stated, now)));
  return report.kind === 'voter' ? recordVoterReport(orm, actor, report, time) : recordCountReport(orm, actor, await scopeFor(), report, time);
}
