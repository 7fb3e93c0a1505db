import type { Database, Queries } from '../../kernel/sql';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { GOTV_ROOM, type TurnoutItem } from './gotv.events';
import type { TurnoutItemInput, TurnoutReportInput } from './gotv.schemas';
import { coversEverything, gotvPolicy, type BrigadeScope } from './gotv.policy';
import { scopeOf } from './gotv.scope';
import { projectionChanged } from './gotv.pushes';
import { instantAt, localClock } from '../../kernel/calendar';
import { electionDateOf } from './gotv.settings';
import { lockStationForCount, recordCountReport, recordVoterReport, type ReportDay } from './gotv.repository';

/** Phones' clocks drift: a report up to two minutes ahead of ours is taken as "now". */
const CLOCK_SKEW_MS = 2 * 60_000;

export interface TurnoutAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}

type Outcome = { kind: 'accepted'; event: TurnoutItem } | { kind: 'duplicate' } | { kind: 'rejected'; code: string; message: string };

const reject = (code: string, message: string): Outcome => ({ kind: 'rejected', code, message });

async function recordVoter(db: Queries, actor: Actor, report: Extract<TurnoutReportInput, { kind: 'voter' }>, time: ReportDay): Promise<Outcome> {
  const row = await recordVoterReport(db, {
    voter: report.voterId ? { id: report.voterId } : { documentId: report.documentId! },
    clientReportId: report.clientReportId,
    reportedById: actor.id,
    everyVoter: coversEverything(actor),
    time,
  });
  if (!row?.voter_id || !row.station_id) return reject('unknown_voter', 'No confirmed voter matches this report.');
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
  const timeOf = (at: Date): ReportDay => {
    const { date, start, end } = localDayOf(at, deps.config.timeZone);
    return { at, dayStart: start, dayEnd: end, rehearsal: electionDate !== null && date < electionDate };
  };
  const accepted: TurnoutItem[] = [];
  try {
    for (const [index, item] of items.entries()) {
      const outcome = item.valid ? await recordOne(deps.db, actor, scopeFor, item.report, seen, timeOf) : reject('validation_failed', item.message);
      if (outcome.kind === 'accepted') {
        answer.accepted++;
        accepted.push(outcome.event);
      } else if (outcome.kind === 'duplicate') answer.duplicates++;
      else answer.rejected.push({ index, code: outcome.code, message: outcome.message });
    }
  } finally {
    // A request's reports go out together (one append to the shared window, so one message), each
    // already committed, even when a later one failed; the projection is told once.
    for (const event of accepted) publish(event);
    if (accepted.length) pushProjection();
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
  db: Database,
  actor: Actor,
  scopeFor: () => Promise<BrigadeScope>,
  report: TurnoutReportInput,
  seen: Set<string>,
  timeOf: (at: Date) => ReportDay,
): Promise<Outcome> {
  if (seen.has(report.clientReportId)) return reject('duplicate_in_batch', 'This clientReportId appears earlier in the same batch.');
  seen.add(report.clientReportId);
  const when = report.kind === 'voter' ? report.votedAt : report.reportedAt;
  const now = Date.now();
  const stated = when ? Date.parse(when) : now;
  if (stated > now + CLOCK_SKEW_MS) return reject('future_time', 'The report is dated in the future.');
  // A time a little ahead of ours is the phone's clock drifting: recorded as now.
  const time = timeOf(new Date(Math.min(stated, now)));
  return report.kind === 'voter' ? recordVoter(db, actor, report, time) : recordCount(db, actor, await scopeFor(), report, time);
}
