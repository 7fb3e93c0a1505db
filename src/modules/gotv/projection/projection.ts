import { createHash } from 'node:crypto';
import { z } from 'zod';
import { instant } from '../../../kernel/schemas';
import { daysBetween, instantAt, localClock } from '../../../kernel/calendar';
import { formatTimeOfDay, fractionAt, pollingMinute, wallMinute, type TurnoutCurve } from './curve';
import {
  curveGrid,
  curveShares,
  DEFAULT_CURVE_SPREAD,
  DEFAULT_LEVEL_SPREAD,
  fitDay,
  fractionGradient,
  fractionOf,
  parameterVariance,
  weightedShareGradient,
  type CurveGrid,
  type CurveShares,
  type CurveSpread,
  type DayFit,
  type FitFlow,
  type FitStation,
  type LevelSpread,
} from './curve-model';
import type { CurveSource } from './curve-history';
import { estimateLag, LAG_MODEL, reportedWithin, type LagCount, type LagDistribution } from './lag';

/**
 * The election-day projection: what the day will end at, from what has been reported so far.
 * Pure and deterministic (same input → same output). The curve the counts are scaled by is learned
 * from the day's own counts (curve-model.ts), with the configured curve as its prior.
 * Method and formulas: docs/gotv-projection.md — keep the two in step.
 */
export const PROJECTION_METHOD = 'learned-curve/v3';

export const PROJECTION_TUNING = {
  /** Nominal coverage of every interval. */
  coverage: 0.9,
  /**
   * A count read in the first minutes after opening says more about the station's timing than about
   * its turnout: it is not used. Measured in minutes, not in the prior curve's share, so that a
   * curve with a slow morning (a curve history, a long day) does not set aside the 9:00 counts.
   */
  firstMinutes: 30,
  /**
   * Below this expected share of the supporters' votes reported, the confirmed-supporter projection
   * still answers, with the widest honest interval (what is reported to every confirmed supporter).
   */
  minFraction: 0.05,
  /** Share of the day voted by the latest counts below which the answer says it is early. */
  earlyFraction: 0.3,
  /**
   * How far a territory's share voted strays from its fitted curve's, in log odds: what a tilt
   * fitted from a few readings does not capture (measured on the calibration elections).
   */
  territoryShapeSd: 0.18,
  /**
   * How far the stations without a count may vote unlike those with one, as a log factor they all
   * share: counts come from where the campaign (or a citizen) is, and those places are not a random
   * draw. Measured on the calibration elections whose counts cover few stations (Philadelphia's
   * citizen reports: the unreported divisions' projected sum erred against the reported ones' by
   * 0.136 rms in log terms).
   */
  unreportedLevelSd: 0.14,
  /** Share of the projected turnout from stations without a count above which the answer says so. */
  unreportedShareToSay: 0.25,
} as const;

/** Two-sided normal quantile for the nominal coverage (0.9 → 1.645). */
const Z = 1.6448536269514722;

export interface CountReport {
  votersSoFar: number;
  reportedAt: Date;
}

export interface StationInput {
  id: string;
  territoryId: string | null;
  registeredVoters: number;
  confirmedVoters: number;
  /** Confirmed supporters whose vote has been reported so far. */
  confirmedVoted: number;
  /** Voters at the station in the previous comparable election (null or absent: unknown). */
  previousTurnout?: number | null;
  counts: readonly CountReport[];
}

/** Recent voter reports of a territory, by whole minutes of delay (arrival − votedAt) and of age (now − votedAt). */
export interface VoterLagCount extends LagCount {
  territoryId: string | null;
}

/** Supporters' voter reports of a territory received so far, by the minute they voted (`votedAt`, whole minutes). */
export interface VoterVoteCount {
  territoryId: string | null;
  votedMinute: Date;
  count: number;
}

export interface ProjectionInput {
  now: Date;
  timeZone: string;
  /** 'YYYY-MM-DD' in `timeZone`. */
  electionDate: string;
  /** The prior curve: the configured one, or the default. */
  curve: TurnoutCurve;
  curveSource?: CurveSource;
  /** How far a day may stray from the prior curve (from curve history, else the default). */
  spread?: CurveSpread;
  /** How far this election's turnout may stray from the stations' previous turnout (default DEFAULT_LEVEL_SPREAD). */
  level?: LevelSpread;
  stations: readonly StationInput[];
  /** Voter-report delays, for the confirmed-supporter projection; none: no delay correction. */
  voterLags?: readonly VoterLagCount[];
  /** Election-day voter reports by territory and the minute of the vote: the supporters' flow, which shares the day's shape. */
  voterVotes?: readonly VoterVoteCount[];
  /** Notes from reading the settings (an unusable stored curve, …), passed through. */
  warnings?: readonly string[];
  /** Report only these stations (and their sums); every station still informs the curve. */
  only?: ReadonlySet<string>;
  /**
   * The territory each station's sums are listed under in `byTerritory`, by station id (a child
   * of the territory asked about, holding the station's own); a station not in it: its own.
   */
  sumsUnder?: ReadonlyMap<string, string | null>;
}

export type Phase = 'before_open' | 'open' | 'closed';
/** Where a station's projected turnout comes from. */
export type Basis = 'count' | 'history' | 'territory' | 'overall' | 'none';

const figuresShape = {
  confirmedVoters: z.number().int(),
  confirmedVoted: z.number().int(),
  projectedConfirmedVoted: z.number().int().nullable(),
  low: z.number().int().nullable().describe('low end of projectedConfirmedVoted'),
  high: z.number().int().nullable().describe('high end of projectedConfirmedVoted'),
  registeredVoters: z.number().int(),
  votersSoFar: z.number().int().describe('sum of the stations’ current count figures'),
  projectedTurnout: z.number().int().nullable().describe('projected voters at closing'),
  projectedTurnoutLow: z.number().int().nullable(),
  projectedTurnoutHigh: z.number().int().nullable(),
};

export const curveView = z
  .object({
    scope: z.enum(['day', 'territory']).describe('territory: this territory’s own curve (enough counts); day: the day’s pooled curve'),
    countedStations: z.number().int().describe('stations whose counts inform this curve'),
    supporterVotes: z.number().int().describe('supporters’ reported votes whose times inform this curve’s shape (those a brigade called before they voted are left out)'),
    points: z.array(
      z.object({
        time: z.string().describe('HH:MM local'),
        fraction: z.number().min(0).max(1).describe('estimated share of the final turnout cast by this time'),
        low: z.number().min(0).max(1),
        high: z.number().min(0).max(1),
        prior: z.number().min(0).max(1).describe('the configured (prior) curve at this time'),
      }),
    ),
  })
  .meta({ id: 'GotvTurnoutCurve' });

const explanationShape = {
  coverage: z.number().min(0).max(1).describe('nominal probability that each interval holds the final figure'),
  lagMinutes: z.number().nullable().describe('median minutes between a supporter’s vote and its report (null: too few reports to tell)'),
  curve: curveView,
};

const territoryExplanationShape = {
  ...explanationShape,
  curve: curveView.nullable().describe('the territory’s own curve, once its counts are enough for one; null: it follows the day’s `curve`'),
};

const aggregateShape = {
  ...figuresShape,
  stations: z.number().int(),
  reportingStations: z.number().int().describe('stations whose count is used directly'),
  reportedShare: z.number().min(0).max(1).describe('share of registered voters in reporting stations'),
};

export const stationProjectionView = z
  .object({
    id: z.string(),
    territoryId: z.string().nullable(),
    basis: z
      .enum(['count', 'history', 'territory', 'overall', 'none'])
      .describe('count: its own counts; history: its previous turnout times the day’s factor; territory, overall: a borrowed rate; none: not projected'),
    lastCountAt: instant.nullable(),
    ...figuresShape,
  })
  .meta({ id: 'GotvStationProjection' });

export const projectionView = z
  .object({
    generatedAt: instant,
    method: z.string(),
    phase: z.enum(['before_open', 'open', 'closed']),
    elapsedFraction: z.number().min(0).max(1).describe('learned curve at generatedAt: estimated share of the final turnout already cast'),
    curveSource: z.enum(['default', 'configured', 'history']).describe('where the prior curve comes from'),
    warnings: z.array(z.string()).describe('inputs set aside and why (counts going down, above registered voters, outside opening hours, …)'),
    wideBecause: z
      .array(z.string())
      .describe(
        'while polls are open: why the intervals are as wide as they are (early in the day, the default curve, no previous turnout, too few supporter reports); empty once they are not',
      ),
    ...explanationShape,
    overall: z.object(aggregateShape),
    byTerritory: z.array(z.object({ territoryId: z.string().nullable(), ...aggregateShape, ...territoryExplanationShape })),
  })
  .meta({ id: 'GotvProjection' });

/** What `project` computes: the answer, with the stations asked for (see ProjectOptions.stations). */
export const projectedDayView = projectionView.extend({ stations: z.array(stationProjectionView) });

export type Projection = z.infer<typeof projectionView>;
export type ProjectedDay = z.infer<typeof projectedDayView>;
export type StationProjection = z.infer<typeof stationProjectionView>;
export type AggregateProjection = Projection['overall'];
export type CurveView = z.infer<typeof curveView>;

/**
 * The station's count figure at `now` under the monotone rule (the highest count reported at or
 * before `now`), and when it was last confirmed: the latest report carrying that figure. A later,
 * lower report is not applied (the API keeps it, flagged), so it cannot lower the figure.
 */
export function stationFigure(counts: readonly CountReport[], from: number, now: number): { votersSoFar: number; at: Date | null } {
  let votersSoFar = 0;
  let at: Date | null = null;
  for (const report of counts) {
    const t = report.reportedAt.getTime();
    if (t < from || t > now) continue;
    if (report.votersSoFar > votersSoFar || (report.votersSoFar === votersSoFar && (at === null || t > at.getTime()))) {
      votersSoFar = report.votersSoFar;
      at = report.reportedAt;
    }
  }
  return { votersSoFar, at };
}

/** Where election day stands at `now`: polls not yet open (or an earlier day), open, or closed (or a later day). */
export function phaseAt(now: Date, timeZone: string, electionDate: string, curve: TurnoutCurve): Phase {
  const clock = localClock(now, timeZone);
  // Minutes since election day's midnight, past 24 h on the days after it, as the curve's polling time.
  const minute = pollingMinute(curve, daysBetween(electionDate, clock.date) * 24 * 60 + clock.minutes);
  if (minute < curve.opensAt) return 'before_open';
  return minute >= curve.closesAt ? 'closed' : 'open';
}

/** Counts the model set aside, by reason. */
interface SetAside {
  decreasing: number;
  aboveRegistered: number;
  beforeOpening: number;
  /** Stations whose previous turnout is above their registered voters (registered lowered since). */
  previousAboveRegistered: number;
}

/** What the curve fit sees, prepared from the input; `key` identifies it for caching. */
export interface PreparedDay {
  grid: CurveGrid;
  spread: CurveSpread;
  level: LevelSpread;
  stations: FitStation[];
  /** Supporters' votes by territory and bin, with the share of each bin reported by now. */
  flows: FitFlow[];
  /** The reporting delay over every territory (null: too few reports). */
  overallLag: LagDistribution | null;
  figures: { votersSoFar: number; at: Date | null }[];
  setAside: SetAside;
  /** The prior and every count the fit sees. */
  key: string;
}

/**
 * Minutes since the election day's local midnight. On a day without a change of offset (every
 * day in Colombia) this is plain arithmetic; otherwise the wall clock is read for each instant.
 */
function minuteReader(electionDate: string, timeZone: string, curve: TurnoutCurve): (at: Date) => number {
  const start = instantAt(electionDate, 0, timeZone).getTime();
  const plain = instantAt(electionDate, 24 * 60, timeZone).getTime() - start === 24 * 3_600_000;
  const wall = (at: Date) => {
    if (plain) return (at.getTime() - start) / 60_000;
    const clock = localClock(at, timeZone);
    return daysBetween(electionDate, clock.date) * 24 * 60 + clock.minutes;
  };
  // Polls open over several days: the pauses are taken out (the curve's polling time).
  return curve.pauses?.length ? (at) => pollingMinute(curve, wall(at)) : wall;
}

/**
 * Each station's usable count series (election day, at or before `now`), and its figure. Set aside,
 * with the reason counted: a count lower than an earlier one (the monotone rule), a count above the
 * station's registered voters, a count read before opening. Not used, without a warning: zero
 * counts and counts in the first half hour (they carry no information about the day's scale).
 */
export function prepareDay(input: ProjectionInput): PreparedDay {
  const { now, timeZone, electionDate, curve } = input;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(electionDate) || Number.isNaN(Date.parse(electionDate))) throw new RangeError(`invalid electionDate "${electionDate}"`);
  const grid = curveGrid(curve);
  const spread = input.spread ?? DEFAULT_CURVE_SPREAD;
  const level = input.level ?? DEFAULT_LEVEL_SPREAD;
  // Reports from before election day are rehearsals: they never count.
  const dayStart = instantAt(electionDate, 0, timeZone).getTime();
  const nowMs = now.getTime();
  const minuteOf = minuteReader(electionDate, timeZone, curve);
  const setAside: SetAside = { decreasing: 0, aboveRegistered: 0, beforeOpening: 0, previousAboveRegistered: 0 };
  const priorKey = `${curve.opensAt}|${curve.closesAt}|${curve.points.map((p) => `${p.minute}:${p.fraction}`).join(',')}|${JSON.stringify(curve.pauses ?? [])}|${JSON.stringify(spread)}|${JSON.stringify(level)}`;
  const hash = createHash('sha1');
  hash.update(priorKey);
  const figures: PreparedDay['figures'] = [];
  const stations: FitStation[] = input.stations.map((station) => {
    const figure = stationFigure(station.counts, dayStart, nowMs);
    figures.push(figure);
    const usable = station.counts
      .filter((report) => report.reportedAt.getTime() >= dayStart && report.reportedAt.getTime() <= nowMs)
      .sort((a, b) => a.reportedAt.getTime() - b.reportedAt.getTime() || b.votersSoFar - a.votersSoFar);
    const reports: { minute: number; votersSoFar: number }[] = [];
    let highest = 0;
    for (const report of usable) {
      const value = report.votersSoFar;
      if (value < highest) {
        setAside.decreasing += 1;
        continue;
      }
      if (value > station.registeredVoters) {
        setAside.aboveRegistered += 1;
        continue;
      }
      highest = value;
      const minute = Math.min(minuteOf(report.reportedAt), curve.closesAt);
      if (minute < curve.opensAt) {
        if (value > 0) setAside.beforeOpening += 1;
        continue;
      }
      if (value === 0 || (minute < curve.closesAt && minute - curve.opensAt < PROJECTION_TUNING.firstMinutes)) continue;
      reports.push({ minute, votersSoFar: value });
    }
    const group = station.territoryId ?? '';
    // A previous turnout of 0 says nothing about the rate's scale (log 0); one above registered is stale.
    const previous = station.previousTurnout ?? 0;
    if (previous > station.registeredVoters) setAside.previousAboveRegistered += 1;
    const previousLogRate = previous > 0 && previous <= station.registeredVoters ? Math.log(previous / station.registeredVoters) : undefined;
    hash.update(`|${group}:${station.registeredVoters}:${previousLogRate ?? ''}:${figure.votersSoFar}:${reports.map((r) => `${r.minute.toFixed(3)}=${r.votersSoFar}`).join(',')}`);
    return { group, registeredVoters: station.registeredVoters, previousLogRate, reports, floor: figure.votersSoFar, cap: Math.max(station.registeredVoters, figure.votersSoFar) };
  });
  const overallLag = estimateLag(input.voterLags ?? []);
  const flows = supporterFlows(input.voterVotes ?? [], grid, overallLag, minuteOf(now), minuteOf);
  for (const flow of flows) hash.update(`|flow ${flow.group}:${flow.bins.map((b) => `${b.bin}=${b.votes}/${b.reach.toFixed(4)}`).join(',')}`);
  return { grid, spread, level, stations, flows, overallLag, figures, setAside, key: hash.digest('base64') };
}

/**
 * The supporters' reported votes per territory and bin (bins that ended by now), each with the share
 * of its votes the reporting delay lets us have seen by now.
 */
function supporterFlows(votes: readonly VoterVoteCount[], grid: CurveGrid, lag: LagDistribution | null, nowMinute: number, minuteOf: (at: Date) => number): FitFlow[] {
  const reach = reportedWeights(grid, lag, nowMinute);
  const byGroup = new Map<string, Float64Array>();
  for (const row of votes) {
    const minute = minuteOf(row.votedMinute) + 0.5;
    if (!(row.count > 0) || !Number.isFinite(row.count) || !(minute > grid.opensAt && minute < grid.closesAt)) continue;
    const bin = Math.floor((minute - grid.opensAt) / grid.width);
    if (grid.opensAt + (bin + 1) * grid.width > nowMinute) continue;
    const group = row.territoryId ?? '';
    let bins = byGroup.get(group);
    if (!bins) byGroup.set(group, (bins = new Float64Array(grid.bins)));
    bins[bin]! += row.count;
  }
  return [...byGroup.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, bins]) => ({ group, bins: [...bins].flatMap((votes, bin) => (votes > 0 ? [{ bin, votes, reach: reach[bin]! }] : [])) }));
}

/** Supporters' votes a curve was fitted with: a territory's own (its tilt index), or every one for the day's (−1). */
export function curveSupporterVotes(fit: DayFit, tiltIndex = -1): number {
  return tiltIndex >= 0 ? (fit.supporterVotes.get(tiltIndex) ?? 0) : [...fit.supporterVotes.values()].reduce((sum, n) => sum + n, 0);
}

/** The fit of a prepared day (what the live layer caches). */
export const fitPrepared = (prepared: PreparedDay): DayFit => fitDay(prepared.grid, prepared.stations, prepared.spread, prepared.level, prepared.flows);

/**
 * One projected quantity: its value, the gradient of the value on the fit's parameters (errors
 * shared by every station through the curve and the overall rate), the territories' rate loadings
 * (shared within a territory) and the variance independent between stations.
 */
interface Quantity {
  projected: number;
  gradient: Float64Array;
  territory: Map<string, number>;
  /** Loadings on each territory's own shape error (shared within a territory). */
  shape: Map<string, number>;
  /** The projected voters of stations without a count, read from others' (one error shared by all of them). */
  unreported: number;
  independent: number;
  floor: number;
  cap: number;
}

function emptyQuantity(size: number): Quantity {
  return { projected: 0, gradient: new Float64Array(size), territory: new Map(), shape: new Map(), unreported: 0, independent: 0, floor: 0, cap: 0 };
}

function addQuantity(sum: Quantity, q: Quantity): void {
  sum.projected += q.projected;
  for (let i = 0; i < q.gradient.length; i++) sum.gradient[i]! += q.gradient[i]!;
  for (const [key, loading] of q.territory) sum.territory.set(key, (sum.territory.get(key) ?? 0) + loading);
  for (const [key, loading] of q.shape) sum.shape.set(key, (sum.shape.get(key) ?? 0) + loading);
  sum.unreported += q.unreported;
  sum.independent += q.independent;
  sum.floor += q.floor;
  sum.cap += q.cap;
}

/**
 * Integer figures with the nominal-coverage interval: log-normal around the projection, with the
 * variance of the three kinds of error, clamped to [reported so far, the most possible].
 */
function bounds(fit: DayFit, q: Quantity | null): { projected: number | null; low: number | null; high: number | null } {
  if (!q) return { projected: null, low: null, high: null };
  const cap = Math.max(q.cap, q.floor);
  const projected = Math.min(cap, Math.max(q.floor, Math.round(q.projected)));
  if (!(q.projected > 0)) return { projected, low: projected, high: projected };
  let variance = parameterVariance(fit, q.gradient) + q.independent;
  for (const [key, loading] of q.territory) variance += (fit.rateGroups.get(key)?.effectVariance ?? 0) * loading * loading;
  for (const loading of q.shape.values()) variance += (PROJECTION_TUNING.territoryShapeSd * loading) ** 2;
  variance += (PROJECTION_TUNING.unreportedLevelSd * q.unreported) ** 2;
  const sd = Math.sqrt(Math.max(0, variance)) / q.projected;
  const centre = q.projected * Math.exp((-sd * sd) / 2);
  const low = Number.isFinite(sd) ? centre * Math.exp(-Z * sd) : q.floor;
  const high = Number.isFinite(sd) ? centre * Math.exp(Z * sd) : cap;
  // A width below a millionth of a voter is rounding, not uncertainty.
  return {
    projected,
    low: Math.min(projected, Math.max(q.floor, Math.floor(low + 1e-6))),
    high: Math.max(projected, Math.min(cap, Math.ceil(high - 1e-6))),
  };
}

/** The curves the fit describes: the day's, and each territory's own where it has one. */
export interface Curves {
  day: CurveShares;
  byTilt: Map<number, CurveShares>;
  of(territory: string): { curve: CurveShares; tiltIndex: number };
}

export function fittedCurves(fit: DayFit): Curves {
  const day = curveShares(fit.grid, fit.parameters);
  const byTilt = new Map<number, CurveShares>([[-1, day]]);
  for (const group of fit.groups.values()) if (group.tiltIndex >= 0) byTilt.set(group.tiltIndex, curveShares(fit.grid, fit.parameters, group.tiltIndex));
  return {
    day,
    byTilt,
    of(territory) {
      const tiltIndex = fit.groups.get(territory)?.tiltIndex ?? -1;
      return { curve: byTilt.get(tiltIndex)!, tiltIndex };
    },
  };
}

/** Hourly points of a curve with its band (logit-normal from the fit's posterior) and the prior. */
export function curvePoints(fit: DayFit, prior: TurnoutCurve, curve: CurveShares, tiltIndex: number): CurveView['points'] {
  const { opensAt, closesAt } = fit.grid;
  const times = [opensAt];
  for (let hour = Math.floor(opensAt / 60) + 1; hour * 60 < closesAt; hour++) times.push(hour * 60);
  times.push(closesAt);
  const round = (value: number) => Math.round(value * 10_000) / 10_000;
  return times.map((minute) => {
    const fraction = fractionOf(fit.grid, curve, minute);
    let low = fraction;
    let high = fraction;
    if (fraction > 0 && fraction < 1) {
      const sd = Math.sqrt(parameterVariance(fit, fractionGradient(fit.grid, curve, fit.parameters.length, tiltIndex, minute)));
      const logit = Math.log(fraction / (1 - fraction));
      const spread = (Z * sd) / (fraction * (1 - fraction));
      low = 1 / (1 + Math.exp(-(logit - spread)));
      high = 1 / (1 + Math.exp(-(logit + spread)));
    }
    return { time: formatTimeOfDay(wallMinute(prior, minute) % (24 * 60)), fraction: round(fraction), low: round(low), high: round(high), prior: round(fractionAt(prior, minute)) };
  });
}

/**
 * For each bin, the mean probability that a vote cast in it (up to `nowMinute`) has been reported
 * by now: Σ_b share_b · weight_b is the share of the day's supporter votes reported so far.
 */
function reportedWeights(grid: CurveGrid, lag: LagDistribution | null, nowMinute: number): Float64Array {
  const weights = new Float64Array(grid.bins);
  for (let b = 0; b < grid.bins; b++) {
    const start = grid.opensAt + b * grid.width;
    const end = Math.min(start + grid.width, nowMinute);
    if (end <= start) continue;
    if (!lag) {
      weights[b] = (end - start) / grid.width;
      continue;
    }
    // Minute-wide slices (midpoint rule) are finer than any delay the estimate resolves.
    const slices = Math.max(1, Math.ceil(end - start));
    const step = (end - start) / slices;
    let sum = 0;
    for (let i = 0; i < slices; i++) sum += reportedWithin(lag, nowMinute - (start + (i + 0.5) * step));
    weights[b] = (sum * step) / grid.width;
  }
  return weights;
}

interface Aggregate {
  stations: number;
  reportingStations: number;
  registeredVoters: number;
  reportedRegistered: number;
  confirmedVoters: number;
  confirmedVoted: number;
  votersSoFar: number;
  turnout: Quantity | null;
  confirmed: Quantity | null;
}

function newAggregate(size: number): Aggregate {
  return {
    stations: 0,
    reportingStations: 0,
    registeredVoters: 0,
    reportedRegistered: 0,
    confirmedVoters: 0,
    confirmedVoted: 0,
    votersSoFar: 0,
    turnout: emptyQuantity(size),
    confirmed: emptyQuantity(size),
  };
}

/** A projection of a sum exists only if every station in it has one. */
function accumulate(aggregate: Aggregate, s: StationInput, votersSoFar: number, basis: Basis, turnout: Quantity | null, confirmed: Quantity | null): void {
  aggregate.stations += 1;
  aggregate.registeredVoters += s.registeredVoters;
  aggregate.confirmedVoters += s.confirmedVoters;
  aggregate.confirmedVoted += s.confirmedVoted;
  aggregate.votersSoFar += votersSoFar;
  if (basis === 'count') {
    aggregate.reportingStations += 1;
    aggregate.reportedRegistered += s.registeredVoters;
  }
  if (aggregate.turnout) {
    if (turnout) addQuantity(aggregate.turnout, turnout);
    else aggregate.turnout = null;
  }
  if (aggregate.confirmed) {
    if (confirmed) addQuantity(aggregate.confirmed, confirmed);
    else aggregate.confirmed = null;
  }
}

function figures(
  fit: DayFit,
  counts: { confirmedVoters: number; confirmedVoted: number; registeredVoters: number },
  votersSoFar: number,
  turnout: Quantity | null,
  confirmed: Quantity | null,
): Omit<StationProjection, 'id' | 'territoryId' | 'basis' | 'lastCountAt'> {
  const c = bounds(fit, confirmed);
  const t = bounds(fit, turnout);
  return {
    confirmedVoters: counts.confirmedVoters,
    confirmedVoted: counts.confirmedVoted,
    projectedConfirmedVoted: c.projected,
    low: c.low,
    high: c.high,
    registeredVoters: counts.registeredVoters,
    votersSoFar,
    projectedTurnout: t.projected,
    projectedTurnoutLow: t.low,
    projectedTurnoutHigh: t.high,
  };
}

function withoutShape(aggregate: Aggregate): Aggregate {
  return aggregate.turnout ? { ...aggregate, turnout: { ...aggregate.turnout, shape: new Map() } } : aggregate;
}

function aggregateFigures(fit: DayFit, a: Aggregate): AggregateProjection {
  const empty = a.stations === 0;
  return {
    ...figures(fit, a, a.votersSoFar, empty ? null : a.turnout, empty ? null : a.confirmed),
    stations: a.stations,
    reportingStations: a.reportingStations,
    reportedShare: a.registeredVoters > 0 ? Math.round((a.reportedRegistered / a.registeredVoters) * 10_000) / 10_000 : 0,
  };
}

function warningsOf(input: ProjectionInput, setAside: SetAside, fit: DayFit, phase: Phase): string[] {
  const warnings = [...(input.warnings ?? [])];
  if (setAside.decreasing) warnings.push(`${setAside.decreasing} count(s) lower than an earlier count of the same station were set aside`);
  if (setAside.aboveRegistered) warnings.push(`${setAside.aboveRegistered} count(s) above the station's registered voters were set aside`);
  if (setAside.beforeOpening) warnings.push(`${setAside.beforeOpening} count(s) read before opening were set aside`);
  if (setAside.previousAboveRegistered) {
    warnings.push(`${setAside.previousAboveRegistered} station(s) with a previous turnout above their registered voters: that history was set aside`);
  }
  if (phase !== 'before_open' && !fit.informed) warnings.push('no usable count yet: turnout is not projected and the curve is the prior');
  return warnings;
}

/** Why the intervals are as wide as they are, in the order a reader should fix them. */
function wideBecause(input: ProjectionInput, fit: DayFit, phase: Phase, elapsed: number, earlySupporters: boolean, turnout: Quantity | null): string[] {
  if (phase !== 'open') return [];
  const reasons: string[] = [];
  if (!fit.informed) reasons.push('no usable count yet: the turnout waits for a count read 30 minutes or more after opening');
  else if (elapsed < PROJECTION_TUNING.earlyFraction) {
    reasons.push(`early in the day: about ${Math.round(elapsed * 100)} % of the day's turnout has voted by now; the rest comes from the prior curve, not from counts`);
  }
  if (earlySupporters) reasons.push("too few supporters' votes expected to be reported yet to scale by: their interval runs from those reported to every confirmed supporter");
  if (input.curveSource === 'default') reasons.push('the curve is the default shape: a curve history (past days of this campaign) narrows the part of the day no count has seen');
  if (!input.stations.some((s) => (s.previousTurnout ?? 0) > 0)) reasons.push("no station has a previous turnout: the day's level comes from the counts alone");
  const unreported = turnout && turnout.projected > 0 ? turnout.unreported / turnout.projected : 0;
  if (fit.informed && unreported >= PROJECTION_TUNING.unreportedShareToSay) {
    reasons.push(
      `stations without a count carry about ${Math.round(unreported * 100)} % of the projected turnout: they are read from those that reported, which need not vote like them (counts come from where the brigades are)`,
    );
  }
  return reasons;
}

export interface ProjectOptions {
  /** Supplies the fit for a prepared day (a cache); by default the day is fitted here. */
  fit?: (prepared: PreparedDay) => DayFit;
  /**
   * The stations whose own figures to list (default: all). Each one's interval costs a quadratic
   * form in the fit's parameters, the bulk of a national day's time, while the sums need none.
   */
  stations?: (id: string) => boolean;
}

export function project(input: ProjectionInput, options: ProjectOptions = {}): ProjectedDay {
  const { now, timeZone, electionDate, curve } = input;
  const prepared = prepareDay(input);
  const phase = phaseAt(now, timeZone, electionDate, curve);
  // Before opening nothing is fitted: every projection is null and the curve is the prior.
  const fit =
    phase === 'before_open'
      ? fitDay(
          prepared.grid,
          prepared.stations.map((station) => ({ ...station, reports: [] })),
          prepared.spread,
          prepared.level,
        )
      : (options.fit ?? fitPrepared)(prepared);
  const size = fit.parameters.length;
  const curves = fittedCurves(fit);
  const clock = localClock(now, timeZone);
  const day = daysBetween(electionDate, clock.date);
  const nowMinute = day < 0 ? 0 : pollingMinute(curve, 24 * 60 * day + clock.minutes);
  const elapsed = phase === 'before_open' ? 0 : phase === 'closed' ? 1 : fractionOf(fit.grid, curves.day, nowMinute);

  // Delays of voter reports: overall, and per territory where there are enough of them.
  const lagRows = new Map<string, LagCount[]>();
  for (const row of input.voterLags ?? []) {
    const key = row.territoryId ?? '';
    const list = lagRows.get(key) ?? [];
    list.push(row);
    lagRows.set(key, list);
  }
  const overallLag = phase === 'before_open' ? null : prepared.overallLag;
  const territoryLags = new Map<string, LagDistribution | null>();
  const lagOf = (territory: string): LagDistribution | null => {
    if (phase === 'before_open') return null;
    let lag = territoryLags.get(territory);
    if (lag === undefined) {
      const rows = lagRows.get(territory) ?? [];
      const own = rows.reduce((sum, row) => sum + row.count, 0) >= LAG_MODEL.minTerritoryReports ? estimateLag(rows) : null;
      territoryLags.set(territory, (lag = own ?? overallLag));
    }
    return lag;
  };

  // Share of a territory's supporter votes reported by now, with its gradient on the fit's parameters.
  const reportedShares = new Map<string, { share: number; gradient: Float64Array }>();
  const reportedShareOf = (territory: string) => {
    let value = reportedShares.get(territory);
    if (!value) {
      // The supporters' own curve: the territory's with their tilt (γ) on top.
      const { tiltIndex } = curves.of(territory);
      const shares = curveShares(fit.grid, fit.parameters, tiltIndex, fit.supporterTiltIndex);
      const weights = reportedWeights(fit.grid, lagOf(territory), nowMinute);
      let share = 0;
      for (let b = 0; b < fit.grid.bins; b++) share += shares.shares[b]! * weights[b]!;
      // Every vote of the day reported (closed, delays over): exactly 1, not 1 less rounding.
      if (share > 1 - 1e-9) share = 1;
      value = { share, gradient: weightedShareGradient(fit.grid, shares, size, tiltIndex, weights, fit.supporterTiltIndex) };
      reportedShares.set(territory, value);
    }
    return value;
  };

  const territoryCount = new Set(input.stations.map((station) => station.territoryId ?? '')).size;
  // A final read from counts at share F of the territory's day moves with its log odds by (1 − F).
  const shapeLoading = (index: number, projected: number, closed: boolean): number => {
    if (closed || territoryCount < 2) return 0;
    const minute = prepared.stations[index]!.reports.at(-1)?.minute ?? nowMinute;
    const territory = input.stations[index]!.territoryId ?? '';
    return projected * (1 - fractionOf(fit.grid, curves.of(territory).curve, minute));
  };

  let earlySupporters = false;
  const overallSum = newAggregate(size);
  const territorySums = new Map<string | null, Aggregate>();
  const stations: StationProjection[] = [];
  input.stations.forEach((s, index) => {
    if (input.only && !input.only.has(s.id)) return;
    const figure = prepared.figures[index]!;
    const final = fit.stations[index]!;
    const territory = s.territoryId ?? '';
    const basis: Basis = phase === 'before_open' ? 'none' : final.basis;
    const turnout: Quantity | null =
      basis === 'none'
        ? null
        : {
            projected: final.projected,
            gradient: final.gradient,
            territory: new Map([[final.rateGroup, final.territoryLoading]]),
            shape: new Map([[territory, shapeLoading(index, final.projected, final.closed)]]),
            unreported: basis === 'count' ? 0 : final.projected,
            independent: final.ownVariance,
            floor: figure.votersSoFar,
            cap: Math.max(s.registeredVoters, figure.votersSoFar),
          };
    let confirmed: Quantity | null = null;
    if (phase !== 'before_open') {
      const { share, gradient } = reportedShareOf(territory);
      if (share > 0) {
        const raw = s.confirmedVoted / share;
        const cap = Math.max(s.confirmedVoters, s.confirmedVoted);
        const capped = raw >= cap;
        // Too early to scale by: the projection still answers, its interval everything still possible.
        const early = share < PROJECTION_TUNING.minFraction;
        if (early) earlySupporters = true;
        confirmed = {
          projected: Math.min(cap, Math.max(s.confirmedVoted, raw)),
          gradient: capped || early ? new Float64Array(size) : gradient.map((g) => (-s.confirmedVoted / (share * share)) * g),
          territory: new Map(),
          shape: new Map(),
          unreported: 0,
          // Which of the supporters who will vote have voted and been reported by now is binomial.
          independent: early && !capped ? Number.POSITIVE_INFINITY : capped ? 0 : (raw * (1 - Math.min(1, share))) / share,
          floor: s.confirmedVoted,
          cap,
        };
      }
    }
    const under = input.sumsUnder?.has(s.id) ? input.sumsUnder.get(s.id)! : s.territoryId;
    let territorySum = territorySums.get(under);
    if (!territorySum) territorySums.set(under, (territorySum = newAggregate(size)));
    for (const aggregate of [overallSum, territorySum]) accumulate(aggregate, s, figure.votersSoFar, basis, turnout, confirmed);
    if (options.stations && !options.stations(s.id)) return;
    stations.push({
      id: s.id,
      territoryId: s.territoryId,
      basis,
      lastCountAt: figure.at?.toISOString() ?? null,
      ...figures(fit, s, figure.votersSoFar, turnout, confirmed),
    });
  });

  const lagMinutes = (lag: LagDistribution | null) => (lag ? Math.round(lag.medianMinutes * 10) / 10 : null);
  const dayCurve = () => ({
    scope: 'day' as const,
    countedStations: fit.countedStations,
    supporterVotes: curveSupporterVotes(fit, -1),
    points: curvePoints(fit, curve, curves.day, -1),
  });
  // A territory lists its curve only where it has one of its own: the day's is already at the top.
  const territoryExplanation = (territory: string | null) => {
    const key = territory ?? '';
    const { curve: shares, tiltIndex } = curves.of(key);
    return {
      coverage: PROJECTION_TUNING.coverage,
      lagMinutes: lagMinutes(lagOf(key)),
      curve:
        tiltIndex < 0
          ? null
          : {
              scope: 'territory' as const,
              countedStations: fit.groups.get(key)?.counted ?? 0,
              supporterVotes: curveSupporterVotes(fit, tiltIndex),
              points: curvePoints(fit, curve, shares, tiltIndex),
            },
    };
  };

  const byTerritory = [...territorySums.entries()]
    .sort(([a], [b]) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
    .map(([territoryId, aggregate]) => ({ territoryId, ...aggregateFigures(fit, aggregate), ...territoryExplanation(territoryId) }));

  return {
    generatedAt: now.toISOString(),
    method: PROJECTION_METHOD,
    phase,
    elapsedFraction: Math.round(elapsed * 10_000) / 10_000,
    curveSource: input.curveSource ?? 'configured',
    warnings: warningsOf(input, prepared.setAside, fit, phase),
    wideBecause: wideBecause(input, fit, phase, elapsed, earlySupporters, overallSum.turnout),
    coverage: PROJECTION_TUNING.coverage,
    lagMinutes: lagMinutes(overallLag),
    curve: dayCurve(),
    // Territories stray from the day's curve both ways; the day's own error is already the fit's.
    overall: aggregateFigures(fit, withoutShape(overallSum)),
    stations,
    byTerritory,
  };
}
