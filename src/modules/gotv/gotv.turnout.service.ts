import type { Database } from '../../kernel/sql';
import type { AppDeps } from '../../kernel/context';
import { AGAIN, Coalescer } from '../../kernel/coalesce';
import { processLocal } from '../../kernel/process-local';
import type { Actor } from '../../kernel/auth/roles';
import { GOTV_ROOM, type TurnoutItem } from './gotv.events';
import { encodeTurnout } from './gotv.turnout-wire';
import type { TurnoutItemInput, TurnoutReportInput } from './gotv.schemas';
import { coversEverything, gotvPolicy, type BrigadeScope } from './gotv.policy';
import { scopeOf } from './gotv.scope';
import { projectionChanged } from './gotv.pushes';
import { instantAt, localClock } from '../../kernel/calendar';
import { electionDateOf } from './gotv.settings';
import { lockStationForCount, recordCountReport, recordVoterReports, type ReportDay, type VoterReport, type VoterReportRow } from './gotv.repository';

/** Phones' clocks drift: a report up to two minutes ahead of ours is taken as "now". */
const CLOCK_SKEW_MS = 2 * 60_000;

export interface TurnoutAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}

type Outcome = { kind: 'accepted'; event: TurnoutItem } | { kind: 'duplicate' } | { kind: 'rejected'; code: string; message: string };

const reject = (code: string, message: string): Outcome => ({ kind: 'rejected', code, message });

/**
 * Voter reports that arrive together (many phones at once, or one phone's queue) are recorded in
 * one statement: one round trip and one commit for all of them. Two batches may be in flight per
 * process. A report that finds none in flight waits REPORT_LINGER_MS for company, so election
 * day's steady stream makes batches of several rather than a statement each (a statement per
 * report cost PostgreSQL a quarter more CPU at bench:gotv's rate); the war room gets reports in
 * 100 ms windows anyway.
 */
const REPORT_LINGER_MS = 10;

const voterReports = processLocal(
  'gotv.voterReports',
  (deps: AppDeps) =>
    new Coalescer<VoterReport, VoterReportRow>(async (reports) => (await recordVoterReports(deps.db, reports)).map((row) => (row.again ? AGAIN : row)), {
      maxBatch: 500,
      concurrency: 2,
      lingerMs: REPORT_LINGER_MS,
    }),
);

async function recordVoter(deps: AppDeps, actor: Actor, report: Extract<TurnoutReportInput, { kind: 'voter' }>, time: ReportDay): Promise<Outcome> {
  const row = await voterReports(deps).submit({
    voter: report.voterId ? { id: report.voterId } : { documentId: report.documentId! },
    clientReportId: report.clientReportId,
    reportedById: actor.id,
    everyVoter: coversEverything(actor),
    time,
  });
  if (!row.voter_id || !row.station_id) return reject('unknown_voter', 'No confirmed voter matches this report.');
  if (!row.allowed_id) return reject('forbidden', "This voter is not one of your brigade's.");
  if (!row.report_id) return { kind: 'duplicate' };
  return { kind: 'accepted', event: time.rehearsal ? ['voter', row.station_id, row.voter_id, true] : ['voter', row.station_id, row.voter_id] };
}

async function recordCount(db: Database, actor: Actor, scope: BrigadeScope, report: Extract<TurnoutReportInput, { kind: 'count' }>, time: ReportDay): Promise<Outcome> {
  // A brigade's station is checked before anything is locked: a refused report holds no lock.
  if (!gotvPolicy.allows(actor, 'reportAt', { scope, stationId: report.pollingStationId })) return reject('forbidden', "This station is not one of your brigade's.");
  return db.transaction(async (tx) => {
    const station = await lockStationForCount(tx, report.pollingStationId);
    if (!station) return reject('unknown_station', 'No polling station has this id.');
    if (report.votersSoFar > station.registered_voters) {
      return reject('count_above_registered', `The station has ${station.registered_voters} registered voters.`);
    }
    const row = await recordCountReport(tx, {
      stationId: station.id,
      clientReportId: report.clientReportId,
      votersSoFar: report.votersSoFar,
      reportedById: actor.id,
      time,
    });
    if (!row) return { kind: 'duplicate' };
    const event: TurnoutItem = ['count', station.id, row.id, report.votersSoFar, row.flagged];
    if (time.rehearsal) event.push(true);
    return { kind: 'accepted', event };
  });
}

type Settled = { ok: true; outcome: Outcome } | { ok: false; error: unknown };

const settled = (work: Promise<Outcome>): Promise<Settled> =>
  work.then(
    (outcome) => ({ ok: true, outcome }),
    (error: unknown) => ({ ok: false, error }),
  );

/**
 * Applies a batch: each accepted item is committed (voter reports of the request go out together,
 * as one statement with whatever other phones sent at the same moment; counts one after the other,
 * each in its own transaction), a rejected one (not a valid report, refused, or dated in the
 * future) writes nothing, and a resent one is a duplicate. Answers are by item, as if applied in
 * order: of two reports for one voter the earlier is the one recorded. Accepted reports reach the
 * war room batched per 100 ms.
 */
export async function recordTurnout(deps: AppDeps, actor: Actor, items: TurnoutItemInput[]): Promise<TurnoutAnswer> {
  const electionDate = await electionDateOf(deps);
  // Counts check a brigade's stations here (cached); voter reports check scope in their statement.
  const scopeFor = () => scopeOf(deps, actor);
  const seen = new Set<string>();
  // A report made on a local date before the election date is a rehearsal (brigades practising
  // with the real call lists); without an election date none is: no day has been named the real one.
  const timeOf = (at: Date): ReportDay => {
    const { date, start, end } = localDayOf(at, deps.config.timeZone);
    return { at, dayStart: start, dayEnd: end, rehearsal: electionDate !== null && date < electionDate };
  };
  const outcomes: Promise<Settled>[] = [];
  const counts: { index: number; report: Extract<TurnoutReportInput, { kind: 'count' }>; time: ReportDay }[] = [];
  // Voter reports are submitted at once, in item order; counts wait their turn below.
  for (const [index, item] of items.entries()) {
    if (!item.valid) {
      outcomes[index] = Promise.resolve({ ok: true, outcome: reject('validation_failed', item.message) });
      continue;
    }
    const { report } = item;
    const time = timeOfReport(report, seen, timeOf);
    if ('kind' in time) outcomes[index] = Promise.resolve({ ok: true, outcome: time });
    else if (report.kind === 'voter') outcomes[index] = settled(recordVoter(deps, actor, report, time));
    else counts.push({ index, report, time });
  }
  for (const { index, report, time } of counts) {
    outcomes[index] = settled(scopeFor().then((scope) => recordCount(deps.db, actor, scope, report, time)));
    await outcomes[index];
  }

  const answer: TurnoutAnswer = { accepted: 0, duplicates: 0, rejected: [] };
  const accepted: TurnoutItem[] = [];
  let failure: { error: unknown } | undefined;
  for (const [index, result] of (await Promise.all(outcomes)).entries()) {
    if (!result.ok) {
      failure ??= { error: result.error };
      continue;
    }
    const { outcome } = result;
    if (outcome.kind === 'accepted') {
      answer.accepted++;
      accepted.push(outcome.event);
    } else if (outcome.kind === 'duplicate') answer.duplicates++;
    else answer.rejected.push({ index, code: outcome.code, message: outcome.message });
  }
  // A request's reports go out together (one append to the shared window, so one message), each
  // already committed, even when another failed; the projection is told once.
  const publish = deps.realtime.batched(GOTV_ROOM, 'gotv:turnout', { encode: encodeTurnout });
  for (const event of accepted) publish(event);
  if (accepted.length) projectionChanged(deps)();
  if (failure) throw failure.error;
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

/** The time a report is recorded at, or why it is refused before reaching the database. */
function timeOfReport(report: TurnoutReportInput, seen: Set<string>, timeOf: (at: Date) => ReportDay): ReportDay | Outcome {
  if (seen.has(report.clientReportId)) return reject('duplicate_in_batch', 'This clientReportId appears earlier in the same batch.');
  seen.add(report.clientReportId);
  const when = report.kind === 'voter' ? report.votedAt : report.reportedAt;
  const now = Date.now();
  const stated = when ? Date.parse(when) : now;
  if (stated > now + CLOCK_SKEW_MS) return reject('future_time', 'The report is dated in the future.');
  // A time a little ahead of ours is the phone's clock drifting: recorded as now.
  return timeOf(new Date(Math.min(stated, now)));
}
