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
import { ServiceBusyError } from '../../kernel/errors';
import { isDatabaseWait, isLockTimeout } from '../../kernel/http/problem';

/** Phones' clocks drift: a report up to two minutes ahead of ours is taken as "now". */
const CLOCK_SKEW_MS = 2 * 60_000;

export interface TurnoutAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}

type Outcome = { kind: 'accepted'; event: TurnoutItem } | { kind: 'duplicate' } | { kind: 'rejected'; code: string; message: string } | { kind: 'busy' };

const reject = (code: string, message: string): Outcome => ({ kind: 'rejected', code, message });
const BUSY: Outcome = { kind: 'busy' };

/** How long a phone is asked to wait before sending again the reports that could not be recorded now. */
export const TURNOUT_RETRY_AFTER_SECONDS = 5;

/**
 * Voter reports that arrive together (many phones at once, or one phone's queue) are recorded in
 * one statement: one round trip and one commit for all of them. Two batches may be in flight per
 * process. A report that finds none in flight waits REPORT_LINGER_MS for company, so election
 * day's steady stream makes batches of several rather than a statement each (a statement per
 * report cost PostgreSQL a quarter more CPU at bench:gotv's rate); the war room gets reports in
 * 100 ms windows anyway.
 */
const REPORT_LINGER_MS = 10;

/**
 * The process's voter-report batches. A batch waits at most GOTV_REPORT_LOCK_TIMEOUT for a row
 * another transaction holds (a station's tally held by a long transaction or a stuck query); then it
 * runs again taking only the rows that are free, so every report whose station is not held is
 * recorded and those whose station is come back `busy`. Stations found held are remembered and,
 * until a batch finds them free, probed rather than waited for: one held station holds up no
 * batch but its own reports, and neither of the two slots waits on it again.
 */
const voterReports = processLocal('gotv.voterReports', (deps: AppDeps) => {
  const held = new Set<string>();
  const { lockTimeoutMs, statementTimeoutMs } = deps.config.gotvReports;
  const record = (reports: VoterReport[], probeAll: boolean) =>
    deps.db.transaction((tx) => recordVoterReports(tx, reports, { probe: [...held], probeAll }), { lockTimeoutMs, statementTimeoutMs });
  return new Coalescer<VoterReport, VoterReportRow>(
    async (reports) => {
      let rows: VoterReportRow[];
      try {
        rows = await record(reports, false);
      } catch (error) {
        if (!isLockTimeout(error)) throw error;
        rows = await record(reports, true);
      }
      for (const row of rows) {
        if (row.busy === null || !row.station_id) continue;
        if (row.busy) held.add(row.station_id);
        else held.delete(row.station_id);
      }
      return rows.map((row) => (row.again ? AGAIN : row));
    },
    { maxBatch: 500, concurrency: 2, lingerMs: REPORT_LINGER_MS, metrics: { registry: deps.metrics, name: 'gotv_voter_reports' } },
  );
});

/**
 * Reports being recorded in this process, by reporter and clientReportId: a phone resending a batch
 * whose answer it gave up on waits for the same work (a voter report takes no second batch slot),
 * and is answered as a duplicate of it.
 */
const inFlightReports = processLocal('gotv.inFlightReports', () => new Map<string, Promise<Outcome>>());

/** A report's work, or the work already under way for the same reporter and clientReportId. */
function once(deps: AppDeps, actor: Actor, clientReportId: string, start: () => Promise<Outcome>): { work: Promise<Outcome>; joined: boolean } {
  const inFlight = inFlightReports(deps);
  const key = `${actor.id} ${clientReportId}`;
  const running = inFlight.get(key);
  if (running) return { work: running, joined: true };
  const work = start();
  inFlight.set(key, work);
  const forget = () => inFlight.delete(key);
  work.then(forget, forget);
  return { work, joined: false };
}

/** A report that gave up waiting (its request's deadline while queued, a lock or statement timeout, no connection) is busy. */
const busyOnWait = (error: unknown): Outcome => {
  if ((error instanceof DOMException && error.name === 'TimeoutError') || isDatabaseWait(error)) return BUSY;
  throw error;
};

async function recordVoter(deps: AppDeps, actor: Actor, report: Extract<TurnoutReportInput, { kind: 'voter' }>, time: ReportDay, deadline: AbortSignal): Promise<Outcome> {
  const item: VoterReport = {
    voter: report.voterId ? { id: report.voterId } : { documentId: report.documentId! },
    clientReportId: report.clientReportId,
    reportedById: actor.id,
    everyVoter: coversEverything(actor),
    time,
  };
  const row = await voterReports(deps).submit(item, deadline);
  if (!row.voter_id || !row.station_id) return reject('unknown_voter', 'No confirmed voter matches this report.');
  if (!row.allowed_id) return reject('forbidden', "This voter is not one of your brigade's.");
  if (row.busy) return BUSY;
  if (!row.report_id) return { kind: 'duplicate' };
  return { kind: 'accepted', event: time.rehearsal ? ['voter', row.station_id, row.voter_id, true] : ['voter', row.station_id, row.voter_id] };
}

async function recordCount(deps: AppDeps, actor: Actor, scope: BrigadeScope, report: Extract<TurnoutReportInput, { kind: 'count' }>, time: ReportDay): Promise<Outcome> {
  // A brigade's station is checked before anything is locked: a refused report holds no lock.
  if (!gotvPolicy.allows(actor, 'reportAt', { scope, stationId: report.pollingStationId })) return reject('forbidden', "This station is not one of your brigade's.");
  const { lockTimeoutMs, statementTimeoutMs } = deps.config.gotvReports;
  return deps.db.transaction(
    async (tx) => {
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
    },
    { lockTimeoutMs, statementTimeoutMs },
  );
}

type Settled = { ok: true; outcome: Outcome } | { ok: false; error: unknown };

const settled = (work: Promise<Outcome>): Promise<Settled> =>
  work.then(
    (outcome) => ({ ok: true, outcome }),
    (error: unknown) => ({ ok: false, error }),
  );

/** Accepted reports to the war room, and the projection told. */
function announce(deps: AppDeps, events: TurnoutItem[], arrivedAt: number): void {
  if (!events.length) return;
  deps.metrics.reportToPublish.observe((performance.now() - arrivedAt) / 1000);
  const publish = deps.realtime.batched(GOTV_ROOM, 'gotv:turnout', { encode: encodeTurnout });
  for (const event of events) publish(event);
  projectionChanged(deps)();
}

/**
 * Applies a batch: each accepted item is committed (voter reports of the request go out together,
 * as one statement with whatever other phones sent at the same moment; counts one after the other,
 * each in its own transaction), a rejected one (not a valid report, refused, or dated in the
 * future) writes nothing, and a resent one is a duplicate. Answers are by item, as if applied in
 * order: of two reports for one voter the earlier is the one recorded. Accepted reports reach the
 * war room batched per 100 ms.
 *
 * Within GOTV_REPORT_DEADLINE: a report not recorded by then (still waiting for a batch slot or a
 * count's turn, or held up by a row another transaction holds) makes the answer a 503 `busy` with
 * Retry-After, once every other report is recorded; the phone sends the batch again, and what was
 * recorded is a duplicate then. A report still being recorded at the deadline finishes (and reaches
 * the war room) on its own.
 */
export async function recordTurnout(deps: AppDeps, actor: Actor, items: TurnoutItemInput[]): Promise<TurnoutAnswer> {
  const arrivedAt = performance.now();
  const deadline = AbortSignal.timeout(deps.config.gotvReports.deadlineMs);
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
  const works: { work: Promise<Outcome>; joined: boolean }[] = [];
  // Counts one after the other, each begun only while the request still has time.
  let previousCount: Promise<unknown> = Promise.resolve();
  for (const [index, item] of items.entries()) {
    if (!item.valid) {
      works[index] = { work: Promise.resolve(reject('validation_failed', item.message)), joined: false };
      continue;
    }
    const { report } = item;
    const time = timeOfReport(report, seen, timeOf);
    if ('kind' in time) works[index] = { work: Promise.resolve(time), joined: false };
    else if (report.kind === 'voter') works[index] = once(deps, actor, report.clientReportId, () => recordVoter(deps, actor, report, time, deadline).catch(busyOnWait));
    else {
      const after = previousCount;
      works[index] = once(deps, actor, report.clientReportId, () =>
        after.then(() => (deadline.aborted ? BUSY : scopeFor().then((scope) => recordCount(deps, actor, scope, report, time)))).catch(busyOnWait),
      );
      previousCount = works[index].work.catch(() => undefined);
    }
  }

  const timedOut = new Promise<'late'>((resolve) => {
    if (deadline.aborted) resolve('late');
    else deadline.addEventListener('abort', () => resolve('late'), { once: true });
  });
  const results = await Promise.all(works.map(({ work }) => Promise.race([settled(work), timedOut])));

  const answer: TurnoutAnswer = { accepted: 0, duplicates: 0, rejected: [] };
  const accepted: TurnoutItem[] = [];
  let failure: { error: unknown } | undefined;
  let busy = 0;
  for (const [index, result] of results.entries()) {
    const { work, joined } = works[index]!;
    if (result === 'late') {
      busy++;
      // Recorded after the answer went: the war room still hears of it.
      if (!joined) {
        work.then(
          (outcome) => {
            if (outcome.kind === 'accepted') announce(deps, [outcome.event], arrivedAt);
          },
          () => undefined,
        );
      }
      continue;
    }
    if (!result.ok) {
      failure ??= { error: result.error };
      continue;
    }
    const { outcome } = result;
    if (outcome.kind === 'accepted' && !joined) {
      answer.accepted++;
      accepted.push(outcome.event);
    } else if (outcome.kind === 'accepted' || outcome.kind === 'duplicate') answer.duplicates++;
    else if (outcome.kind === 'busy') busy++;
    else answer.rejected.push({ index, code: outcome.code, message: outcome.message });
  }
  // A request's reports go out together (one append to the shared window, so one message), each
  // already committed, even when another failed; the projection is told once.
  announce(deps, accepted, arrivedAt);
  if (failure) throw failure.error;
  if (busy) {
    throw new ServiceBusyError(
      TURNOUT_RETRY_AFTER_SECONDS,
      `${busy} of ${items.length} reports could not be recorded now (their station is busy); send the batch again, what was recorded will be a duplicate.`,
    );
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
