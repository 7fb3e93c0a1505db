import type { MikroORM } from '@mikro-orm/postgresql';
import { PreparedStatement } from '../../kernel/db';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { newId } from '../../kernel/ids';
import { GOTV_ROOM, type ProjectionSummary, type TurnoutItem } from './gotv.events';
import type { TurnoutReportInput } from './gotv.schemas';
import { coversStation, coversVoter, scopeOf, type Scope } from './gotv.scope';
import { projection } from './gotv.live';
import { ConflictError } from '../../kernel/errors';

/** Phones' clocks drift: a report up to two minutes ahead of ours is taken as "now". */
const CLOCK_SKEW_MS = 2 * 60_000;

export interface TurnoutAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}

type Outcome = { kind: 'accepted'; event: TurnoutItem } | { kind: 'duplicate' } | { kind: 'rejected'; code: string; message: string };

const reject = (code: string, message: string): Outcome => ({ kind: 'rejected', code, message });

// Election day's hottest statements: prepared once per connection (no ORM query building per report).
const voterById = new PreparedStatement<VoterRow>('gotv_voter_by_id', 'select id, polling_station_id as station_id, brigade_id from gotv_voters where id = ?');
const voterByDocument = new PreparedStatement<VoterRow>(
  'gotv_voter_by_document',
  'select id, polling_station_id as station_id, brigade_id from gotv_voters where document_id = ?',
);
// One statement: the report is recorded once per clientReportId, and only the first report for a
// voter marks them voted (two phones racing meet at the row lock).
const insertVoterReport = new PreparedStatement<{ report_id: string | null; voter_id: string | null }>(
  'gotv_insert_voter_report',
  `with r as (
     insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged)
     values (?::uuid, ?::uuid, 'voter', ?::uuid, ?::uuid, null, ?::timestamptz, now(), ?::uuid, false)
     on conflict (client_report_id) do nothing returning id
   ),
   v as (
     update gotv_voters set status = 'voted', voted_at = ?::timestamptz, updated_at = now()
     where id = ?::uuid and status <> 'voted' and exists (select 1 from r) returning id
   )
   select (select id from r) as report_id, (select id from v) as voter_id`,
);

interface VoterRow {
  id: string;
  station_id: string;
  brigade_id: string | null;
}

async function recordVoterReport(orm: MikroORM, actor: Actor, scope: Scope, report: Extract<TurnoutReportInput, { kind: 'voter' }>, at: Date): Promise<Outcome> {
  const [voter] = report.voterId ? await voterById.run(orm, [report.voterId]) : await voterByDocument.run(orm, [report.documentId]);
  if (!voter) return reject('unknown_voter', 'No confirmed voter matches this report.');
  if (!coversVoter(scope, voter)) {
    return reject('forbidden', "This voter is not one of your brigade's.");
  }
  const [row] = await insertVoterReport.run(orm, [newId(), report.clientReportId, voter.station_id, voter.id, at, actor.id, at, voter.id]);
  if (!row?.report_id || !row.voter_id) return { kind: 'duplicate' };
  return { kind: 'accepted', event: ['voter', row.report_id, voter.station_id, voter.id] };
}

const stationForCount = new PreparedStatement<{ id: string; registered_voters: number }>(
  'gotv_station_for_count',
  'select id, registered_voters from gotv_polling_stations where id = ?',
);
// Counts are monotone in time: one lower than the station's highest count at or before this
// report's time is stored and flagged, and never lowers the station's figure.
const insertCountReport = new PreparedStatement<{ id: string; flagged: boolean }>(
  'gotv_insert_count_report',
  `with previous as (
     select coalesce(max(voters_so_far), 0) as highest from gotv_turnout_reports
     where station_id = ?::uuid and kind = 'count' and reported_at <= ?::timestamptz
   )
   insert into gotv_turnout_reports (id, client_report_id, kind, station_id, voter_id, voters_so_far, reported_at, received_at, reported_by_id, flagged)
   select ?::uuid, ?::uuid, 'count', ?::uuid, null, ?::int, ?::timestamptz, now(), ?::uuid, ?::int < previous.highest from previous
   on conflict (client_report_id) do nothing returning id, flagged`,
);

async function recordCountReport(orm: MikroORM, actor: Actor, scope: Scope, report: Extract<TurnoutReportInput, { kind: 'count' }>, at: Date): Promise<Outcome> {
  const [station] = await stationForCount.run(orm, [report.pollingStationId]);
  if (!station) return reject('unknown_station', 'No polling station has this id.');
  if (!coversStation(scope, station.id)) return reject('forbidden', "This station is not one of your brigade's.");
  if (report.votersSoFar > station.registered_voters) {
    return reject('count_above_registered', `The station has ${station.registered_voters} registered voters.`);
  }
  const [row] = await insertCountReport.run(orm, [station.id, at, newId(), report.clientReportId, station.id, report.votersSoFar, at, actor.id, report.votersSoFar]);
  if (!row) return { kind: 'duplicate' };
  return { kind: 'accepted', event: ['count', row.id, station.id, report.votersSoFar, row.flagged] };
}

/** The projection summary to push, or nothing before the election date is set. */
async function projectionOrNothing(deps: AppDeps): Promise<ProjectionSummary | undefined> {
  try {
    const { stations: _perStation, ...summary } = await projection(deps.orm.em.fork(), deps.config.timeZone);
    return summary;
  } catch (error) {
    if (error instanceof ConflictError) return undefined;
    throw error;
  }
}

/**
 * Applies a batch item by item: each accepted item is committed on its own, a rejected one writes
 * nothing, and a resent one is a duplicate. Accepted reports reach the war room batched per 100 ms.
 */
export async function recordTurnout(deps: AppDeps, actor: Actor, reports: TurnoutReportInput[]): Promise<TurnoutAnswer> {
  const scope = await scopeOf(deps, actor);
  const answer: TurnoutAnswer = { accepted: 0, duplicates: 0, rejected: [] };
  const seen = new Set<string>();
  const publish = deps.realtime.batched(GOTV_ROOM, 'gotv:turnout');
  const pushProjection = deps.realtime.coalesced(GOTV_ROOM, 'gotv:projection', () => projectionOrNothing(deps));
  for (const [index, report] of reports.entries()) {
    const when = report.kind === 'voter' ? report.votedAt : report.reportedAt;
    const at = when ? new Date(when) : new Date();
    let outcome: Outcome;
    if (seen.has(report.clientReportId)) outcome = reject('duplicate_in_batch', 'This clientReportId appears earlier in the same batch.');
    else if (at.getTime() > Date.now() + CLOCK_SKEW_MS) outcome = reject('future_time', 'The report is dated in the future.');
    else outcome = report.kind === 'voter' ? await recordVoterReport(deps.orm, actor, scope, report, at) : await recordCountReport(deps.orm, actor, scope, report, at);
    seen.add(report.clientReportId);
    if (outcome.kind === 'accepted') {
      answer.accepted++;
      publish(outcome.event);
      pushProjection();
    } else if (outcome.kind === 'duplicate') answer.duplicates++;
    else answer.rejected.push({ index, code: outcome.code, message: outcome.message });
  }
  return answer;
}
