import { fractionAt, type TurnoutCurve } from './curve';
import { cholesky, choleskySolve, inverseQuadraticForm, SymmetricMatrix } from './linalg';

/**
 * The day's own turnout curve, learned from the stations' count reports and the supporters' vote
 * times, with the configured curve as the prior. Pure numerics: no dates, no database. Model, formulas and the reasons behind the
 * constants: docs/gotv-projection.md ("The learned curve").
 *
 * The day is cut into bins (30 minutes); each bin's share of the day is the prior's times
 * exp(tilt · x + wiggle), renormalised, where x runs from −½ at opening to ½ at closing, the tilt is the whole
 * day running early (< 0) or late (> 0), and the wiggle is a mean-reverting AR(1) deviation per
 * bin (a lunchtime dip, a burst). Territories with enough counts add their own tilt. A count is
 * log(count / registered) = μ + territory effect + station effect + log F(t) + noise, where the two
 * effects are random (integrated out exactly) and μ, the overall log turnout rate, is free. The
 * supporters' vote times, counted per bin, trace the same shape (with a tilt of their own): only
 * their ratios count, their number is free.
 */

export interface CurveSpread {
  /** Prior sd of the day's tilt (log flow at closing minus at opening, against the prior's). */
  tiltSd: number;
  /** Stationary sd of the local deviation of one bin's log flow. */
  wiggleSd: number;
  /**
   * The same for the bins of the first hour after opening, the least predictable part of the day
   * (queues at the door, tables that open late). With the rest's spread, a strong first hour could
   * only be read as the whole day running early.
   */
  openingWiggleSd: number;
  /** Correlation of the local deviations of bins an hour apart. */
  wiggleHourCorrelation: number;
  /** Prior sd of a territory's tilt on top of the day's. */
  territoryTiltSd: number;
  /**
   * Sd per hour of a random walk in the log flow: the rest of the day may run hotter or colder than
   * the morning said. Applied only when the stations' previous turnout pins the day's level (else
   * nothing could inform it and it would only widen every interval).
   */
  driftSd: number;
  /**
   * Scale of the Student-t prior (CURVE_MODEL.futureDegrees) on λ, a common shift of the log flow of
   * every bin after the latest count: the part of the day no count has seen. Like the drift, used
   * only when the previous turnout pins the level; heavy-tailed so that strong level evidence wins.
   */
  futureSd: number;
  /**
   * Prior sd of the day's curvature against the prior's: the coefficient of `curvatureOf(x)` in the
   * log flow, folded into the wiggles' prior covariance (no parameter of its own). A day that starts
   * slow and fades in the evening bends where a tilt can only lean; absent: no curvature.
   */
  curvatureSd?: number;
}

export const DEFAULT_CURVE_SPREAD: CurveSpread = {
  tiltSd: 0.8,
  wiggleSd: 0.1,
  openingWiggleSd: 0.4,
  wiggleHourCorrelation: 0.5,
  territoryTiltSd: 0.4,
  driftSd: 0.1,
  futureSd: 0.6,
};

/**
 * The curvature's shape at position `x` of the polling time (−½ at opening, ½ at closing): x² less its
 * mean over the day, so that bending the flow moves neither its level nor its tilt.
 */
export function curvatureOf(x: number): number {
  return x * x - 1 / 12;
}

/** Whether bin `b` is in the first hour after opening (its middle is). */
export function isOpeningBin(grid: CurveGrid, b: number): boolean {
  return (b + 0.5) * grid.width < 60;
}

/**
 * How far this election's turnout strays from the previous comparable one's, as log sds: a factor
 * shared by the whole day (national mood, weather), one per territory, one per station.
 */
export interface LevelSpread {
  daySd: number;
  territorySd: number;
  stationSd: number;
}

/**
 * The spread when the prior is the default adapted to other hours (not 08:00–16:00): how far the
 * calibration elections' days (Romania's four, 07:00–20:00) strayed from it, measured as a curve
 * history would be (`spreadFromHistory`, blended with the default as three days): real mornings
 * ramp up over hours where the default's first hour alone may stray, and a fixed tilt read from
 * them ran the projection far into the evening. The curvature is those days' bend after the first
 * hour (a slow start, a busy middle, a fading evening), fitted beside their tilt.
 */
export const ADAPTED_DEFAULT_SPREAD: CurveSpread = {
  tiltSd: 0.54,
  wiggleSd: 0.24,
  openingWiggleSd: 0.74,
  wiggleHourCorrelation: 0.5,
  territoryTiltSd: 0.4,
  driftSd: 0.085,
  futureSd: 0.51,
  curvatureSd: 2.9,
};

/**
 * Measured on the calibration elections (docs/gotv-projection.md, "Spreads from real days"): the
 * day's log ratio of final to previous final moved by 0.16 rms over five pairs, a territory's around
 * it by 0.11 rms (0.07–0.17), a comune's around its province's by 0.13.
 */
export const DEFAULT_LEVEL_SPREAD: LevelSpread = { daySd: 0.16, territorySd: 0.11, stationSd: 0.12 };

/**
 * The spread when the prior is a curve history of one or two past days (too few to measure their own
 * spread): real days follow a comparable day's curve closely (the share voted by each hour moved by
 * 0.08 rms in log odds between comparable calibration elections), so the part of the day no count has
 * seen (λ, the drift) strays little; a level far from the previous turnout is then the level's.
 */
export const HISTORY_CURVE_SPREAD: CurveSpread = { ...DEFAULT_CURVE_SPREAD, futureSd: 0.1, driftSd: (DEFAULT_CURVE_SPREAD.driftSd * 0.1) / DEFAULT_CURVE_SPREAD.futureSd };

export const CURVE_MODEL = {
  binMinutes: 30,
  /** A prior bin with less than this share of an even day's flow is raised to it: no bin is impossible. */
  flowFloor: 0.1,
  /** Log sd of a station's turnout rate around its territory's (a starting value; the fit re-estimates it). */
  stationRateSd: 0.12,
  /** Floor for the re-estimated station spread. */
  stationRateSdFloor: 0.04,
  /** Log sd of a territory's turnout rate around the overall one. */
  territoryRateSd: 0.2,
  /** Relative error of a witness's reading of the sign-in sheet. */
  readingSd: 0.03,
  /** Relative error of a count read after closing (the station's final figure). */
  closingReadingSd: 0.005,
  /** Sd of a station running early or late against its territory's curve, in minutes. */
  stationTimingMinutes: 15,
  /** Counted stations with a previous turnout the day needs before the drift and λ are used. */
  historyStations: 10,
  /** Degrees of freedom of λ's Student-t prior. */
  futureDegrees: 2,
  /**
   * Supporters' reported votes by the minute they voted (those no brigade called first): their own
   * tilt against the electorate's (a campaign's supporters may be older, or younger, than the
   * electorate) has this prior sd; the shape they share with it (a lunchtime dip, a queue) is the curve's.
   */
  supporterTiltSd: 0.5,
  /**
   * How far one bin's supporter flow may stray from the electorate's beyond its Poisson noise (log
   * sd): as much as a bin of the electorate's may stray from the prior's (the wiggle's 0.1).
   */
  supporterFlowSd: 0.1,
  /** A bin's supporter flow is fitted from this many reported votes on (and ½ of its votes reported by now). */
  supporterFlowVotes: 10,
  /** Counted stations a territory needs to get its own tilt. */
  territoryCurveStations: 8,
  /** At most this many territory tilts (the territories with most counted stations). */
  maxTerritoryCurves: 60,
  maxIterations: 25,
} as const;

/** The bins of the day and the prior's log share of each. */
export interface CurveGrid {
  opensAt: number;
  closesAt: number;
  bins: number;
  /** Minutes per bin. */
  width: number;
  priorLogShare: Float64Array;
  /** x of each bin's middle: −½ … ½ over the day. */
  position: Float64Array;
  /** Share of each bin after the latest count, and the index of λ (the shift of those bins' log flow); set by the fit. */
  future?: { share: Float64Array; index: number };
}

export function curveGrid(curve: TurnoutCurve): CurveGrid {
  const { opensAt, closesAt } = curve;
  const bins = Math.max(4, Math.round((closesAt - opensAt) / CURVE_MODEL.binMinutes));
  const width = (closesAt - opensAt) / bins;
  const shares = new Float64Array(bins);
  let total = 0;
  for (let b = 0; b < bins; b++) {
    const share = fractionAt(curve, opensAt + (b + 1) * width) - fractionAt(curve, opensAt + b * width);
    shares[b] = Math.max(share, CURVE_MODEL.flowFloor / bins);
    total += shares[b]!;
  }
  const priorLogShare = new Float64Array(bins);
  const position = new Float64Array(bins);
  for (let b = 0; b < bins; b++) {
    priorLogShare[b] = Math.log(shares[b]! / total);
    position[b] = (b + 0.5) / bins - 0.5;
  }
  return { opensAt, closesAt, bins, width, priorLogShare, position };
}

/** One curve's bin shares (summing to 1) and cumulative shares at the bins' starts. */
export interface CurveShares {
  shares: Float64Array;
  cumulative: Float64Array;
}

/** Where a time falls: its bin and how much of that bin has gone by (0–1). */
function binOf(grid: CurveGrid, minute: number): { bin: number; part: number } {
  if (minute <= grid.opensAt) return { bin: 0, part: 0 };
  if (minute >= grid.closesAt) return { bin: grid.bins - 1, part: 1 };
  const position = (minute - grid.opensAt) / grid.width;
  const bin = Math.min(grid.bins - 1, Math.floor(position));
  return { bin, part: position - bin };
}

export function fractionOf(grid: CurveGrid, curve: CurveShares, minute: number): number {
  if (minute <= grid.opensAt) return 0;
  if (minute >= grid.closesAt) return 1;
  const { bin, part } = binOf(grid, minute);
  return Math.min(1, curve.cumulative[bin]! + curve.shares[bin]! * part);
}

/**
 * A station's count series. `minute` is minutes since the election day's local midnight; a report
 * at or after closing is the station's final figure. The caller has already dropped what the model
 * must not see (counts going down, above registered, outside the day, zero).
 */
export interface FitStation {
  /** The territory whose turnout rate (and, with enough data, tilt) the station shares; '' for none. */
  group: string;
  registeredVoters: number;
  /** log(previous turnout / registered voters) when the station's previous comparable turnout is known. */
  previousLogRate?: number | undefined;
  reports: readonly { minute: number; votersSoFar: number }[];
  /** The station's figure: its projection is never below it. */
  floor: number;
  /** The most it can end at. */
  cap: number;
}

/**
 * Supporters' reported votes of one territory ('' for none) by the bin they were cast in (their
 * `votedAt`): `votes` reported so far and `reach`, the share of that bin's votes expected to have
 * been reported by now (the reporting delay). Only bins that ended before now.
 */
export interface FitFlow {
  group: string;
  bins: readonly { bin: number; votes: number; reach: number }[];
}

/** count: its own counts; history: its previous turnout times the day's factor; territory/overall: a rate borrowed; none: nothing fitted. */
export type StationBasis = 'count' | 'history' | 'territory' | 'overall' | 'none';

/** A station's projected final turnout and what its uncertainty is made of. */
export interface StationFinal {
  basis: StationBasis;
  projected: number;
  /** ∂projected/∂parameters: the shared (curve and overall rate) part of its error. */
  gradient: Float64Array;
  /** Variance independent of every other station's (its own rate given its counts). */
  ownVariance: number;
  /** Coefficient of its territory's rate error (shared with the territory's stations). */
  territoryLoading: number;
  /** A count read after closing: the final figure, no uncertainty. */
  closed: boolean;
  /** The rate group whose effect `territoryLoading` multiplies (a territory, split by whether stations have history). */
  rateGroup: string;
}

interface WorkingReport {
  station: number;
  minute: number;
  bin: number;
  part: number;
  y: number;
  closing: boolean;
  weight: number;
}

/**
 * The stations of a territory that share a rate effect: those with a previous turnout (their rate
 * is the previous one times the day's factor, ν) and those without (their rate is μ's), apart.
 */
interface GroupState {
  key: string;
  territory: string;
  history: boolean;
  /** Index of the group's level parameter: μ, or ν for stations with history. */
  level: number;
  /** Prior variance of the group's log-rate effect. */
  rateVariance: number;
  /** Index of the territory's own tilt among the parameters, or −1 (the day's curve). */
  tiltIndex: number;
  stations: number[];
  counted: number;
  /** Posterior variance of the group's log-rate effect, at the fitted parameters. */
  effectVariance: number;
}

const MU = 0;
const TILT = 1;
const FIRST_BIN = 2;

/** One curve's supporter flow, fitted as log(votes / reach) = κ + log p_b + γ x_b + noise, κ free. */
interface FlowTerm {
  /** The curve it follows: the day's (−1) or a territory's own tilt. */
  tiltIndex: number;
  /** Reported votes in its fitted bins. */
  votes: number;
  bins: number[];
  y: number[];
  weight: number[];
}

export interface DayFit {
  grid: CurveGrid;
  /** Parameters: μ, the day's tilt, one wiggle per bin, one tilt per territory curve, the supporters' tilt γ, λ, ν. */
  parameters: Float64Array;
  /** Cholesky factor of the posterior precision (Laplace approximation). */
  factor: Float64Array;
  /** Whether any count informs the fit (otherwise the curve is the prior and nothing is projected). */
  informed: boolean;
  spread: CurveSpread;
  stationRateSd: number;
  /** Sd of a station's rate around its previous one's (times the day's factor), as re-estimated. */
  historyStationSd: number;
  /** Whether the stations' previous turnout pins the day's level (and the drift is on). */
  levelFromHistory: boolean;
  stations: StationFinal[];
  /** Per territory key: its tilt index (−1: the day's curve) and counted stations. */
  groups: Map<string, { tiltIndex: number; counted: number }>;
  /** Per rate group (StationFinal.rateGroup): the posterior variance of its rate effect. */
  rateGroups: Map<string, { effectVariance: number }>;
  countedStations: number;
  /** Supporters' reported votes fitted as the flow of a curve, by its tilt index (−1: the day's). */
  supporterVotes: Map<number, number>;
  /** Index of γ, the supporters' own tilt among the parameters (its value stays 0 when no flow informs it). */
  supporterTiltIndex: number;
  iterations: number;
}

/** μ, the tilt, the bins' wiggles, the territory tilts, then the supporters' tilt γ, λ and ν. */
export function parameterCount(grid: CurveGrid, territoryCurves: number): number {
  return FIRST_BIN + grid.bins + territoryCurves + 3;
}

/**
 * The bin shares of the curve the parameters describe, for the day (tiltIndex −1) or a territory;
 * with `supporterTiltIndex`, the supporters' curve (their own tilt γ on top).
 */
export function curveShares(grid: CurveGrid, parameters: ArrayLike<number>, tiltIndex = -1, supporterTiltIndex = -1): CurveShares {
  const tilt = parameters[TILT]! + (tiltIndex >= 0 ? parameters[tiltIndex]! : 0) + (supporterTiltIndex >= 0 ? parameters[supporterTiltIndex]! : 0);
  const future = grid.future;
  const lambda = future ? parameters[future.index]! : 0;
  const shares = new Float64Array(grid.bins);
  let top = -Infinity;
  for (let b = 0; b < grid.bins; b++) {
    shares[b] = grid.priorLogShare[b]! + tilt * grid.position[b]! + parameters[FIRST_BIN + b]! + (future ? lambda * future.share[b]! : 0);
    top = Math.max(top, shares[b]!);
  }
  let total = 0;
  for (let b = 0; b < grid.bins; b++) total += shares[b] = Math.exp(shares[b]! - top);
  const cumulative = new Float64Array(grid.bins + 1);
  for (let b = 0; b < grid.bins; b++) {
    shares[b]! /= total;
    cumulative[b + 1] = cumulative[b]! + shares[b]!;
  }
  return { shares, cumulative };
}

/**
 * ∂F(minute)/∂parameters for a curve, analytically: ∂F/∂η_c = p_c (covered_c − F), where η_c is
 * bin c's log flow and covered_c the part of bin c before `minute`.
 */
export function fractionGradient(grid: CurveGrid, curve: CurveShares, size: number, tiltIndex: number, minute: number): Float64Array {
  const gradient = new Float64Array(size);
  if (minute <= grid.opensAt || minute >= grid.closesAt) return gradient;
  const { bin, part } = binOf(grid, minute);
  const f = fractionOf(grid, curve, minute);
  let tilt = 0;
  let lambda = 0;
  for (let c = 0; c < grid.bins; c++) {
    const covered = c < bin ? 1 : c === bin ? part : 0;
    const d = curve.shares[c]! * (covered - f);
    gradient[FIRST_BIN + c] = d;
    tilt += d * grid.position[c]!;
    if (grid.future) lambda += d * grid.future.share[c]!;
  }
  gradient[TILT] = tilt;
  if (tiltIndex >= 0) gradient[tiltIndex] = tilt;
  if (grid.future) gradient[grid.future.index] = lambda;
  return gradient;
}

/**
 * ∂(Σ_c p_c w_c)/∂parameters for bin weights w (the share of the day's voters a weighting picks);
 * with `supporterTiltIndex`, of the supporters' curve.
 */
export function weightedShareGradient(grid: CurveGrid, curve: CurveShares, size: number, tiltIndex: number, weights: ArrayLike<number>, supporterTiltIndex = -1): Float64Array {
  let mean = 0;
  for (let c = 0; c < grid.bins; c++) mean += curve.shares[c]! * weights[c]!;
  const gradient = new Float64Array(size);
  let tilt = 0;
  let lambda = 0;
  for (let c = 0; c < grid.bins; c++) {
    const d = curve.shares[c]! * (weights[c]! - mean);
    gradient[FIRST_BIN + c] = d;
    tilt += d * grid.position[c]!;
    if (grid.future) lambda += d * grid.future.share[c]!;
  }
  gradient[TILT] = tilt;
  if (tiltIndex >= 0) gradient[tiltIndex] = tilt;
  if (supporterTiltIndex >= 0) gradient[supporterTiltIndex] = tilt;
  if (grid.future) gradient[grid.future.index] = lambda;
  return gradient;
}

/** AR(1) coefficient between neighbouring bins. */
function binCorrelation(grid: CurveGrid, spread: CurveSpread): number {
  return spread.wiggleHourCorrelation ** (grid.width / 60);
}

/**
 * The prior's precision (inverse covariance) over the parameters; μ is left free. The wiggles
 * follow an AR(1) scaled bin by bin: z_b = s_b u_b with u_0 ~ N(0, 1), u_b − ρ u_{b−1} ~ N(0, 1 − ρ²)
 * (s_b the opening hour's sd or the rest's), a tridiagonal precision.
 */
function priorPrecision(grid: CurveGrid, spread: CurveSpread, size: number, level: LevelSpread, drift: boolean): SymmetricMatrix {
  const precision = new SymmetricMatrix(size);
  precision.add(MU, MU, 1e-8);
  precision.add(TILT, TILT, 1 / spread.tiltSd ** 2);
  const rho = binCorrelation(grid, spread);
  const sd = (b: number) => (isOpeningBin(grid, b) ? spread.openingWiggleSd : spread.wiggleSd);
  const step = drift ? spread.driftSd ** 2 * (grid.width / 60) : 0;
  const bend = (spread.curvatureSd ?? 0) ** 2;
  if (step > 0 || bend > 0) {
    // Wiggle plus drift plus curvature: covariance s² ρ^|b−c| + q² min(b, c) (a random walk from the
    // first bin) + k² c(x_b) c(x_c), inverted.
    const covariance = new SymmetricMatrix(grid.bins);
    const curvature = Array.from(grid.position, curvatureOf);
    for (let b = 0; b < grid.bins; b++) {
      for (let c = 0; c < grid.bins; c++) covariance.add(b, c, sd(b) * sd(c) * rho ** Math.abs(b - c) + step * Math.min(b, c) + bend * curvature[b]! * curvature[c]!);
    }
    const factor = cholesky(covariance);
    for (let c = 0; c < grid.bins; c++) {
      const unit = new Float64Array(grid.bins);
      unit[c] = 1;
      const column = choleskySolve(factor, unit);
      for (let b = 0; b < grid.bins; b++) precision.add(FIRST_BIN + b, FIRST_BIN + c, column[b]!);
    }
  } else {
    // The unit AR(1)'s precision, divided by s_b s_c.
    const scale = 1 / (1 - rho * rho);
    for (let b = 0; b < grid.bins; b++) {
      const i = FIRST_BIN + b;
      const edge = b === 0 || b === grid.bins - 1;
      precision.add(i, i, (scale * (edge ? 1 : 1 + rho * rho)) / sd(b) ** 2);
      if (b === 0) continue;
      const neighbours = (-scale * rho) / (sd(b) * sd(b - 1));
      precision.add(i, i - 1, neighbours);
      precision.add(i - 1, i, neighbours);
    }
  }
  for (let i = FIRST_BIN + grid.bins; i < size - 3; i++) precision.add(i, i, 1 / spread.territoryTiltSd ** 2);
  precision.add(size - 3, size - 3, 1 / CURVE_MODEL.supporterTiltSd ** 2);
  // λ: the Student-t's weight at 0 (iteratively reweighted at each step of the fit).
  precision.add(size - 2, size - 2, futureWeight(spread, 0));
  precision.add(size - 1, size - 1, 1 / level.daySd ** 2);
  return precision;
}

/**
 * λ's Student-t prior: w(λ)·λ is its negative log density's gradient, so w(λ) is the precision the
 * Gauss–Newton steps use (iteratively reweighted); `futurePenalty` is twice that negative log density.
 */
function futureWeight(spread: CurveSpread, lambda: number): number {
  const nu = CURVE_MODEL.futureDegrees;
  return (nu + 1) / (nu * spread.futureSd ** 2 + lambda * lambda);
}

function futurePenalty(spread: CurveSpread, lambda: number): number {
  const nu = CURVE_MODEL.futureDegrees;
  return (nu + 1) * Math.log1p((lambda * lambda) / (nu * spread.futureSd ** 2));
}

/** An optimum: the parameters and the Cholesky factor of the posterior precision there. */
interface Optimum {
  parameters: Float64Array;
  factor: Float64Array;
  iterations: number;
}

/** Parameters held at given values during one stage of the fit (a stiff Gaussian around each). */
interface Pinned {
  indices: readonly number[];
  values: readonly number[];
}

const PIN_PRECISION = 1e8;

function withPins<Score extends { objective: number; hessian?: SymmetricMatrix; rhs: Float64Array }>(score: Score, theta: Float64Array, pinned: Pinned | undefined): Score {
  if (!pinned) return score;
  pinned.indices.forEach((index, k) => {
    const offset = theta[index]! - pinned.values[k]!;
    score.objective += 0.5 * PIN_PRECISION * offset * offset;
    score.rhs[index]! -= PIN_PRECISION * offset;
    score.hessian?.add(index, index, PIN_PRECISION);
  });
  return score;
}

/**
 * The counts and their grouping, and the numerics over them: the objective and its Gauss–Newton
 * derivatives, the optimiser and the stations' projected finals.
 */
class DayModel {
  readonly reports: WorkingReport[] = [];
  readonly stationReports: number[][];
  readonly stationGroup: GroupState[] = [];
  readonly groups: GroupState[];
  /** Territories with their own tilt: key, tilt index, counted stations. */
  readonly territories = new Map<string, { tiltIndex: number; counted: number }>();
  readonly tiltIndices: number[];
  readonly closed = new Set<number>();
  readonly size: number;
  readonly countedStations: number;
  /** Index of ν, the day's log factor against the previous turnout. */
  readonly nu: number;
  /** Whether enough counted stations have a previous turnout for the level to inform the curve. */
  readonly levelFromHistory: boolean;
  stationRateVariance: number = CURVE_MODEL.stationRateSd ** 2;
  historyStationVariance: number;
  private readonly local: number;
  private readonly jacobian: Float64Array;

  readonly grid: CurveGrid;
  /** Index of λ, the shift of the log flow after the latest count. */
  readonly lambda: number;
  /** Index of γ, the supporters' tilt against the electorate's. */
  readonly supporterTilt: number;
  readonly flows: FlowTerm[] = [];

  constructor(
    baseGrid: CurveGrid,
    readonly input: readonly FitStation[],
    readonly spread: CurveSpread,
    readonly level: LevelSpread,
    flows: readonly FitFlow[] = [],
  ) {
    const grid = baseGrid;
    const byKey = new Map<string, GroupState>();
    this.historyStationVariance = level.stationSd ** 2;
    this.stationReports = input.map(() => []);
    let countedHistory = 0;
    const ratios = new Map<string, number>();
    input.forEach((station, index) => {
      const history = station.previousLogRate !== undefined && Number.isFinite(station.previousLogRate);
      const key = history ? `${station.group}\u0000history` : station.group;
      let group = byKey.get(key);
      if (!group) {
        const rateVariance = history ? level.territorySd ** 2 : CURVE_MODEL.territoryRateSd ** 2;
        group = { key, territory: station.group, history, level: MU, rateVariance, tiltIndex: -1, stations: [], counted: 0, effectVariance: rateVariance };
        byKey.set(key, group);
      }
      group.stations.push(index);
      this.stationGroup.push(group);
      if (station.registeredVoters <= 0) return;
      const offset = history ? station.previousLogRate! : 0;
      for (const report of station.reports) {
        if (!(report.votersSoFar > 0) || report.minute <= grid.opensAt) continue;
        const closing = report.minute >= grid.closesAt;
        if (closing) this.closed.add(index);
        const { bin, part } = binOf(grid, report.minute);
        this.stationReports[index]!.push(this.reports.length);
        this.reports.push({ station: index, minute: report.minute, bin, part, y: Math.log(report.votersSoFar / station.registeredVoters) - offset, closing, weight: 0 });
      }
      const own = this.stationReports[index]!;
      if (own.length > 0) {
        group.counted += 1;
        if (history) countedHistory += 1;
        // A territory's own shape shows only in the ratios of a station's counts read at different times.
        const first = this.reports[own[0]!]!.minute;
        if (own.some((r) => this.reports[r]!.minute - first >= CURVE_MODEL.binMinutes)) ratios.set(station.group, (ratios.get(station.group) ?? 0) + 1);
      }
    });
    this.groups = [...byKey.values()];
    const counted = new Map<string, number>();
    for (const group of this.groups) counted.set(group.territory, (counted.get(group.territory) ?? 0) + group.counted);
    // Without ratios a territory's tilt would only trade against its rate: a territory voting at a
    // lower level would be read as one voting late, and the day's curve would follow it.
    const curveTerritories = [...ratios.entries()]
      .filter(([, n]) => n >= CURVE_MODEL.territoryCurveStations)
      .sort(([a, n], [b, m]) => m - n || (a < b ? -1 : 1))
      .slice(0, CURVE_MODEL.maxTerritoryCurves);
    for (const [key, n] of counted) this.territories.set(key, { tiltIndex: -1, counted: n });
    curveTerritories.forEach(([key], i) => (this.territories.get(key)!.tiltIndex = FIRST_BIN + grid.bins + i));
    this.tiltIndices = curveTerritories.map(([key]) => this.territories.get(key)!.tiltIndex);
    this.size = parameterCount(grid, curveTerritories.length);
    this.nu = this.size - 1;
    for (const group of this.groups) {
      group.tiltIndex = this.territories.get(group.territory)!.tiltIndex;
      if (group.history) group.level = this.nu;
    }
    this.lambda = this.size - 2;
    this.supporterTilt = this.size - 3;
    this.flows = this.flowTerms(grid, flows);
    this.countedStations = this.groups.reduce((sum, group) => sum + group.counted, 0);
    this.levelFromHistory = countedHistory >= CURVE_MODEL.historyStations;
    // The bins after the latest count (before closing) are what λ shifts; only the level can tell.
    let latest = grid.opensAt;
    for (const report of this.reports) if (!report.closing) latest = Math.max(latest, report.minute);
    const share = new Float64Array(grid.bins);
    if (this.levelFromHistory) for (let b = 0; b < grid.bins; b++) share[b] = Math.min(1, Math.max(0, (grid.opensAt + (b + 1) * grid.width - latest) / grid.width));
    this.grid = { ...grid, future: { share, index: this.lambda } };
    this.local = FIRST_BIN + grid.bins + 1;
    this.jacobian = new Float64Array(this.local);
  }

  /**
   * The supporters' flows, pooled by the curve they follow (a territory with its own tilt, else the
   * day's): per bin log(votes / reach), weighted by its Poisson noise plus how far supporters may
   * stray from the electorate (CURVE_MODEL.supporterFlowSd).
   */
  private flowTerms(grid: CurveGrid, flows: readonly FitFlow[]): FlowTerm[] {
    const pooled = new Map<number, { votes: Float64Array; expected: Float64Array }>();
    for (const flow of flows) {
      const tiltIndex = this.territories.get(flow.group)?.tiltIndex ?? -1;
      let sums = pooled.get(tiltIndex);
      if (!sums) pooled.set(tiltIndex, (sums = { votes: new Float64Array(grid.bins), expected: new Float64Array(grid.bins) }));
      for (const { bin, votes, reach } of flow.bins) {
        if (!(votes > 0) || !(reach >= 0.5) || bin < 0 || bin >= grid.bins) continue;
        sums.votes[bin]! += votes;
        sums.expected[bin]! += votes / Math.min(1, reach);
      }
    }
    const terms: FlowTerm[] = [];
    for (const [tiltIndex, { votes, expected }] of pooled) {
      const term: FlowTerm = { tiltIndex, votes: 0, bins: [], y: [], weight: [] };
      for (let b = 0; b < grid.bins; b++) {
        if (votes[b]! < CURVE_MODEL.supporterFlowVotes) continue;
        term.bins.push(b);
        term.votes += votes[b]!;
        term.y.push(Math.log(expected[b]!));
        term.weight.push(1 / (1 / votes[b]! + CURVE_MODEL.supporterFlowSd ** 2));
      }
      // One bin alone says nothing about the shape (κ takes it).
      if (term.bins.length >= 2) terms.push(term);
    }
    return terms;
  }

  /**
   * The supporters' flows' part of the objective, gradient and Gauss–Newton Hessian: residual
   * r_b = y_b − (log p⁰_b + tilt·x_b + z_b + λ·u_b + γ·x_b), with κ (and the shares' normaliser, the
   * same for every bin) integrated out under a flat prior: Σ w r² − (Σ w r)² / Σ w.
   */
  private addFlows(theta: ArrayLike<number>, hessian: SymmetricMatrix | undefined, rhs: Float64Array): number {
    let objective = 0;
    const future = this.grid.future!.share;
    const sum = new Float64Array(this.size);
    const indices = [0, 0, 0, 0, 0];
    const values = [0, 0, 0, 0, 0];
    for (const term of this.flows) {
      const tilt = theta[TILT]! + (term.tiltIndex >= 0 ? theta[term.tiltIndex]! : 0) + theta[this.supporterTilt]!;
      let weightSum = 0;
      let residualSum = 0;
      sum.fill(0);
      term.bins.forEach((b, k) => {
        const x = this.grid.position[b]!;
        const r = term.y[k]! - (this.grid.priorLogShare[b]! + tilt * x + theta[FIRST_BIN + b]! + theta[this.lambda]! * future[b]!);
        const w = term.weight[k]!;
        objective += w * r * r;
        weightSum += w;
        residualSum += w * r;
        let n = 0;
        const entry = (index: number, value: number) => {
          indices[n] = index;
          values[n++] = value;
        };
        entry(FIRST_BIN + b, 1);
        entry(TILT, x);
        entry(this.supporterTilt, x);
        if (term.tiltIndex >= 0) entry(term.tiltIndex, x);
        if (future[b]! > 0) entry(this.lambda, future[b]!);
        for (let i = 0; i < n; i++) {
          const wi = w * values[i]!;
          rhs[indices[i]!]! += wi * r;
          sum[indices[i]!]! += wi;
          if (hessian) for (let j = 0; j < n; j++) hessian.add(indices[i]!, indices[j]!, wi * values[j]!);
        }
      });
      objective -= (residualSum * residualSum) / weightSum;
      for (let i = 0; i < this.size; i++) {
        const si = sum[i]!;
        if (si === 0) continue;
        rhs[i]! -= (si * residualSum) / weightSum;
        if (hessian) for (let j = 0; j < this.size; j++) if (sum[j] !== 0) hessian.add(i, j, (-si * sum[j]!) / weightSum);
      }
    }
    return objective;
  }

  /** A local coordinate's global index: the level is μ or ν, the last slot is λ. */
  globalIndex(group: GroupState, a: number): number {
    return a === MU ? group.level : a === this.local - 1 ? this.lambda : a;
  }

  /** The spread of a group's stations' rates around the group's. */
  stationVariance(group: GroupState): number {
    return group.history ? this.historyStationVariance : this.stationRateVariance;
  }

  /** A starting point: the prior curve, and μ (ν) the mean log rate (against history) it implies. */
  start(): Float64Array {
    const parameters = new Float64Array(this.size);
    const prior = curveShares(this.grid, parameters);
    const sums = new Map<number, { sum: number; n: number }>();
    for (const report of this.reports) {
      const level = this.stationGroup[report.station]!.level;
      const entry = sums.get(level) ?? { sum: 0, n: 0 };
      entry.sum += report.y - Math.log(Math.max(1e-6, fractionOf(this.grid, prior, report.minute)));
      entry.n += 1;
      sums.set(level, entry);
    }
    for (const [level, { sum, n }] of sums) parameters[level] = sum / n;
    return parameters;
  }

  curvesAt(theta: ArrayLike<number>): Map<number, CurveShares> {
    const byTilt = new Map<number, CurveShares>();
    byTilt.set(-1, curveShares(this.grid, theta));
    for (const tiltIndex of this.tiltIndices) byTilt.set(tiltIndex, curveShares(this.grid, theta, tiltIndex));
    return byTilt;
  }

  /** Each count's weight: reading noise plus the station's own timing, through the slope of log F at its time. */
  reweight(theta: ArrayLike<number>): void {
    const curves = this.curvesAt(theta);
    for (const report of this.reports) {
      if (report.closing) {
        report.weight = 1 / CURVE_MODEL.closingReadingSd ** 2;
        continue;
      }
      const curve = curves.get(this.stationGroup[report.station]!.tiltIndex)!;
      const f = Math.max(1e-9, curve.cumulative[report.bin]! + curve.shares[report.bin]! * report.part);
      const slope = curve.shares[report.bin]! / this.grid.width / f;
      report.weight = 1 / (CURVE_MODEL.readingSd ** 2 + (CURVE_MODEL.stationTimingMinutes * slope) ** 2);
    }
  }

  /** Residual y − μ (ν) − log F of report i at `theta`; fills the Jacobian of μ + log F when asked (the level in slot MU). */
  private residual(theta: ArrayLike<number>, curves: Map<number, CurveShares>, i: number, withJacobian: boolean): number {
    const report = this.reports[i]!;
    const group = this.stationGroup[report.station]!;
    const curve = curves.get(group.tiltIndex)!;
    const f = report.closing ? 1 : Math.max(1e-12, curve.cumulative[report.bin]! + curve.shares[report.bin]! * report.part);
    if (withJacobian) {
      const jacobian = this.jacobian;
      jacobian.fill(0);
      jacobian[MU] = 1;
      if (!report.closing) {
        const future = this.grid.future!.share;
        let tilt = 0;
        let lambda = 0;
        for (let c = 0; c < this.grid.bins; c++) {
          const covered = c < report.bin ? 1 : c === report.bin ? report.part : 0;
          const d = (curve.shares[c]! * covered) / f - curve.shares[c]!;
          jacobian[FIRST_BIN + c] = d;
          tilt += d * this.grid.position[c]!;
          lambda += d * future[c]!;
        }
        jacobian[TILT] = tilt;
        jacobian[this.local - 1] = lambda;
      }
    }
    return report.y - theta[group.level]! - Math.log(f);
  }

  /**
   * The negative log posterior (up to constants) and, when asked, its Gauss–Newton Hessian and the
   * right-hand side Jᵀ C⁻¹ r − P θ, where C = D + τ² per-station blocks + κ² per-territory blocks.
   * Everything is accumulated per territory in the local coordinates (μ, tilt, wiggles), then
   * scattered: a territory with its own curve sends its tilt row to its own tilt too.
   */
  evaluate(theta: Float64Array, prior: SymmetricMatrix, withDerivatives: boolean): { objective: number; hessian?: SymmetricMatrix; rhs: Float64Array } {
    const L = this.local;
    const curves = this.curvesAt(theta);
    const hessian = withDerivatives ? prior.copy() : undefined;
    const rhs = new Float64Array(this.size);
    let objective = 0;
    const local = new Float64Array(L * L);
    const localRhs = new Float64Array(L);
    const stationVector = new Float64Array(L);
    const groupVector = new Float64Array(L);
    const jacobian = this.jacobian;
    for (const group of this.groups) {
      if (group.counted === 0) continue;
      const tau2 = this.stationVariance(group);
      if (withDerivatives) {
        local.fill(0);
        localRhs.fill(0);
        groupVector.fill(0);
      }
      let groupPrecision = 0;
      let groupResidual = 0;
      for (const s of group.stations) {
        const list = this.stationReports[s]!;
        if (!list.length) continue;
        let weightSum = 0;
        let residualSum = 0;
        if (withDerivatives) stationVector.fill(0);
        for (const i of list) {
          const r = this.residual(theta, curves, i, withDerivatives);
          const w = this.reports[i]!.weight;
          weightSum += w;
          residualSum += w * r;
          objective += w * r * r;
          if (!withDerivatives) continue;
          for (let a = 0; a < L; a++) {
            const wa = w * jacobian[a]!;
            if (wa === 0) continue;
            stationVector[a]! += wa;
            localRhs[a]! += wa * r;
            const row = a * L;
            for (let b = a; b < L; b++) local[row + b]! += wa * jacobian[b]!;
          }
        }
        const shrink = 1 / (1 + tau2 * weightSum);
        objective -= tau2 * shrink * residualSum * residualSum;
        groupPrecision += weightSum * shrink;
        groupResidual += residualSum * shrink;
        if (!withDerivatives) continue;
        const c = tau2 * shrink;
        for (let a = 0; a < L; a++) {
          const va = stationVector[a]!;
          if (va === 0) continue;
          localRhs[a]! -= c * residualSum * va;
          groupVector[a]! += shrink * va;
          const row = a * L;
          for (let b = a; b < L; b++) local[row + b]! -= c * va * stationVector[b]!;
        }
      }
      const c = group.rateVariance / (1 + group.rateVariance * groupPrecision);
      objective -= c * groupResidual * groupResidual;
      if (!hessian) continue;
      for (let a = 0; a < L; a++) {
        const ga = groupVector[a]!;
        localRhs[a]! -= c * groupResidual * ga;
        const row = a * L;
        for (let b = a; b < L; b++) local[row + b]! -= c * ga * groupVector[b]!;
      }
      // Local indices are the global ones but the level (μ, or ν for stations with history); a
      // territory with its own curve also sends the tilt's row to its tilt.
      const own = group.tiltIndex;
      const at = (a: number) => this.globalIndex(group, a);
      for (let a = 0; a < L; a++) {
        rhs[at(a)]! += localRhs[a]!;
        for (let b = a; b < L; b++) {
          const value = local[a * L + b]!;
          hessian.add(at(a), at(b), value);
          if (a !== b) hessian.add(at(b), at(a), value);
        }
      }
      if (own >= 0) {
        rhs[own]! += localRhs[TILT]!;
        for (let b = 0; b < L; b++) {
          const value = b < TILT ? local[b * L + TILT]! : local[TILT * L + b]!;
          hessian.add(own, at(b), value);
          hessian.add(at(b), own, value);
        }
        hessian.add(own, own, local[TILT * L + TILT]!);
      }
    }
    objective += this.addFlows(theta, hessian, rhs);
    let penalty = 0;
    for (let i = 0; i < this.size; i++) {
      let row = 0;
      for (let j = 0; j < this.size; j++) row += prior.get(i, j) * theta[j]!;
      penalty += theta[i]! * row;
      rhs[i]! -= row;
    }
    // λ's prior is a Student-t, not the Gaussian its current weight stands for (λ is coupled to nothing in the prior).
    const lambda = theta[this.lambda]!;
    penalty += futurePenalty(this.spread, lambda) - prior.get(this.lambda, this.lambda) * lambda * lambda;
    return { objective: 0.5 * (objective + penalty), ...(hessian ? { hessian } : {}), rhs };
  }

  /**
   * Gauss–Newton with step halving, the counts' weights refreshed at every step; after two steps
   * (the curve roughly in place) the stations' rate spread is re-estimated once from their residuals.
   */
  optimise(start: Float64Array, pinned?: Pinned): Optimum {
    const spread = this.spread;
    const prior = priorPrecision(this.grid, spread, this.size, this.level, this.levelFromHistory);
    const parameters = new Float64Array(start);
    let iterations = 0;
    let factor: Float64Array;
    const score = (theta: Float64Array, withDerivatives: boolean) => withPins(this.evaluate(theta, prior, withDerivatives), theta, pinned);
    for (let moved = Infinity; ;) {
      // The weights follow the parameters (iteratively reweighted), so the objective of one step is not the next one's.
      this.reweight(parameters);
      const lambda = parameters[this.lambda]!;
      prior.values[this.lambda * this.size + this.lambda] = futureWeight(spread, lambda);
      const current = score(parameters, true);
      factor = cholesky(current.hessian!);
      const objective = current.objective;
      if (iterations >= CURVE_MODEL.maxIterations || moved < 1e-3) break;
      const step = choleskySolve(factor, current.rhs);
      const trial = new Float64Array(this.size);
      let scale = 1;
      for (let halving = 0; halving < 12; halving++, scale /= 2) {
        for (let i = 0; i < this.size; i++) trial[i] = parameters[i]! + scale * step[i]!;
        if (score(trial, false).objective <= objective + 1e-9) break;
      }
      iterations += 1;
      moved = 0;
      for (let i = 0; i < this.size; i++) moved = Math.max(moved, Math.abs(trial[i]! - parameters[i]!));
      parameters.set(trial);
      if (iterations === 2) {
        this.stationRateVariance = this.stationSpread(parameters, false) ?? this.stationRateVariance;
        this.historyStationVariance = this.stationSpread(parameters, true) ?? this.historyStationVariance;
        moved = Infinity;
      }
    }
    return { parameters, factor, iterations };
  }

  /**
   * The day's curve first, every territory on it; then the territories' own tilts around that curve,
   * held where it is. Fitted jointly, a territory's tilt also explains part of its turnout level,
   * and the day's curve moved to make the tilts better at that: on Italy's provinces, whose levels
   * differ a lot, it made the whole day run late. The posterior precision is then taken at the
   * result with the ordinary prior, so the intervals carry the day's and the territories' errors.
   */
  optimiseInStages(): Optimum {
    if (this.tiltIndices.length === 0) return this.optimise(this.start());
    const territoryTilts = { indices: this.tiltIndices, values: this.tiltIndices.map(() => 0) };
    const day = this.optimise(this.start(), territoryTilts);
    const dayIndices = [TILT, ...Array.from({ length: this.grid.bins }, (_, b) => FIRST_BIN + b), this.lambda];
    const stage = this.optimise(day.parameters, { indices: dayIndices, values: dayIndices.map((i) => day.parameters[i]!) });
    this.reweight(stage.parameters);
    const prior = priorPrecision(this.grid, this.spread, this.size, this.level, this.levelFromHistory);
    prior.values[this.lambda * this.size + this.lambda] = futureWeight(this.spread, stage.parameters[this.lambda]!);
    const factor = cholesky(this.evaluate(stage.parameters, prior, true).hessian!);
    return { parameters: stage.parameters, factor, iterations: day.iterations + stage.iterations };
  }

  /**
   * Method-of-moments spread of station rates (around their territory's, or around their previous
   * rate's): precise stations' residual scatter minus their noise.
   */
  stationSpread(theta: Float64Array, history: boolean): number | undefined {
    const curves = this.curvesAt(theta);
    let sum = 0;
    let n = 0;
    for (const group of this.groups) {
      if (group.history !== history) continue;
      const means: { mean: number; noise: number }[] = [];
      for (const s of group.stations) {
        let weightSum = 0;
        let residualSum = 0;
        for (const i of this.stationReports[s]!) {
          const w = this.reports[i]!.weight;
          weightSum += w;
          residualSum += w * this.residual(theta, curves, i, false);
        }
        // Only stations whose counts pin their rate to well under the spread being measured.
        if (weightSum >= 1 / 0.08 ** 2) means.push({ mean: residualSum / weightSum, noise: 1 / weightSum });
      }
      if (means.length < 3) continue;
      const centre = means.reduce((total, m) => total + m.mean, 0) / means.length;
      const correction = means.length / (means.length - 1);
      for (const { mean, noise } of means) {
        sum += correction * (mean - centre) ** 2 - noise;
        n += 1;
      }
    }
    if (n < 10) return undefined;
    // Shrunk towards the starting value as if it were 10 stations' worth of evidence.
    const measured = Math.max(CURVE_MODEL.stationRateSdFloor ** 2, sum / n);
    const start = history ? this.level.stationSd : CURVE_MODEL.stationRateSd;
    return (measured * n + start ** 2 * 10) / (n + 10);
  }

  /**
   * ∂(projected final)/∂parameters for every station, analytically: with P = R exp(μ + m + v/2)
   * and m the station's posterior log-rate effect, a linear function of its territory's and its
   * own weighted residuals, ∂P = P (∂μ + ∂m) and ∂r = −J. Zero where the final is clamped (to the
   * station's figure or its registered voters) or read after closing.
   */
  stationGradients(theta: ArrayLike<number>, projected: Float64Array): Float64Array[] {
    const L = this.local;
    const curves = this.curvesAt(theta);
    const gradients = this.input.map(() => new Float64Array(this.size));
    const jacobian = this.jacobian;
    for (const group of this.groups) {
      const tau2 = this.stationVariance(group);
      const stationVectors = group.stations.map(() => new Float64Array(L));
      const groupVector = new Float64Array(L);
      const shrinks = new Float64Array(group.stations.length);
      let groupPrecision = 0;
      group.stations.forEach((s, k) => {
        let weightSum = 0;
        const vector = stationVectors[k]!;
        for (const i of this.stationReports[s]!) {
          this.residual(theta, curves, i, true);
          const w = this.reports[i]!.weight;
          weightSum += w;
          for (let a = 0; a < L; a++) vector[a]! += w * jacobian[a]!;
        }
        shrinks[k] = 1 / (1 + tau2 * weightSum);
        groupPrecision += weightSum * shrinks[k]!;
        for (let a = 0; a < L; a++) groupVector[a]! += shrinks[k]! * vector[a]!;
      });
      const c = group.rateVariance / (1 + group.rateVariance * groupPrecision);
      group.stations.forEach((s, k) => {
        const station = this.input[s]!;
        const value = projected[s]!;
        if (this.closed.has(s) || value <= station.floor || value >= Math.max(station.cap, station.floor)) return;
        const gradient = gradients[s]!;
        for (let a = 0; a < L; a++) gradient[this.globalIndex(group, a)] = -value * shrinks[k]! * (c * groupVector[a]! + tau2 * stationVectors[k]![a]!);
        gradient[group.level]! += value;
        if (group.tiltIndex >= 0) gradient[group.tiltIndex] = gradient[TILT]!;
      });
    }
    return gradients;
  }

  /**
   * Every station's projected final at `theta`, and (withDetail) the parts of its variance that are
   * not the parameters': its territory's rate effect and its own rate given its counts.
   */
  stationFinals(theta: ArrayLike<number>, withDetail: boolean): { projected: Float64Array; own: Float64Array; loading: Float64Array } {
    const curves = this.curvesAt(theta);
    const n = this.input.length;
    const projected = new Float64Array(n);
    const own = new Float64Array(n);
    const loading = new Float64Array(n);
    for (const group of this.groups) {
      const tau2 = this.stationVariance(group);
      let groupPrecision = 0;
      let groupResidual = 0;
      const weightSums = new Float64Array(group.stations.length);
      const residualSums = new Float64Array(group.stations.length);
      group.stations.forEach((s, k) => {
        for (const i of this.stationReports[s]!) {
          const w = this.reports[i]!.weight;
          weightSums[k]! += w;
          residualSums[k]! += w * this.residual(theta, curves, i, false);
        }
        const shrink = 1 / (1 + tau2 * weightSums[k]!);
        groupPrecision += weightSums[k]! * shrink;
        groupResidual += residualSums[k]! * shrink;
      });
      const effectVariance = group.rateVariance / (1 + group.rateVariance * groupPrecision);
      const effect = effectVariance * groupResidual;
      if (withDetail) group.effectVariance = effectVariance;
      group.stations.forEach((s, k) => {
        const station = this.input[s]!;
        const shrink = 1 / (1 + tau2 * weightSums[k]!);
        // The station's log-rate effect given its counts and its territory's (posterior mean and variance).
        const mean = shrink * (effect + tau2 * residualSums[k]!);
        const variance = effectVariance * shrink * shrink + tau2 * shrink;
        const cap = Math.max(station.cap, station.floor);
        const offset = group.history ? station.previousLogRate! : 0;
        const value = this.closed.has(s) ? station.floor : station.registeredVoters * Math.exp(theta[group.level]! + offset + mean + variance / 2);
        projected[s] = Math.min(cap, Math.max(station.floor, value));
        if (withDetail && !this.closed.has(s)) {
          own[s] = projected[s]! ** 2 * tau2 * shrink;
          loading[s] = projected[s]! * shrink;
        }
      });
    }
    return { projected, own, loading };
  }
}

/**
 * Fits the day. Gauss–Newton on the parameters with the station and territory effects integrated
 * out (nested compound symmetry, so every sum is per station and per territory), reweighting each
 * count by how much a station running early or late moves log F at its time; the stations' rate
 * spread is then re-estimated from their residuals and the fit polished. The parameters'
 * uncertainty is the Laplace approximation (the Gauss–Newton Hessian at the optimum); each
 * station's gradient on them is taken numerically.
 */
export function fitDay(
  grid: CurveGrid,
  input: readonly FitStation[],
  spread: CurveSpread = DEFAULT_CURVE_SPREAD,
  level: LevelSpread = DEFAULT_LEVEL_SPREAD,
  flows: readonly FitFlow[] = [],
): DayFit {
  const model = new DayModel(grid, input, spread, level, flows);
  const informed = model.reports.length > 0;
  let best: Optimum;
  if (!informed) {
    best = { parameters: new Float64Array(model.size), factor: cholesky(priorPrecision(grid, spread, model.size, level, false)), iterations: 0 };
  } else {
    best = model.optimiseInStages();
    model.reweight(best.parameters);
  }

  const parameters = best.parameters;
  const size = model.size;
  const base = model.stationFinals(parameters, true);
  const gradients = informed ? model.stationGradients(parameters, base.projected) : input.map(() => new Float64Array(size));

  const stations: StationFinal[] = input.map((station, s) => {
    const group = model.stationGroup[s]!;
    const counted = model.stationReports[s]!.length > 0;
    // A station without registered voters still has an answer: its figure (zero), not a gap in every sum.
    const basis: StationBasis = !informed ? 'none' : counted ? 'count' : group.history ? 'history' : group.counted > 0 ? 'territory' : 'overall';
    return {
      basis,
      projected: basis === 'none' ? station.floor : base.projected[s]!,
      gradient: gradients[s]!,
      ownVariance: base.own[s]!,
      territoryLoading: base.loading[s]!,
      closed: model.closed.has(s),
      rateGroup: group.key,
    };
  });

  return {
    grid: model.grid,
    parameters,
    factor: best.factor,
    informed,
    spread,
    stationRateSd: Math.sqrt(model.stationRateVariance),
    historyStationSd: Math.sqrt(model.historyStationVariance),
    levelFromHistory: model.levelFromHistory,
    stations,
    groups: new Map(model.territories),
    rateGroups: new Map(model.groups.map((group) => [group.key, { effectVariance: group.effectVariance }])),
    countedStations: model.countedStations,
    supporterVotes: new Map(informed ? model.flows.map((term) => [term.tiltIndex, term.votes]) : []),
    supporterTiltIndex: model.supporterTilt,
    iterations: best.iterations,
  };
}

/** Variance of a linear function of the parameters with this gradient, under the fit's posterior. */
export function parameterVariance(fit: DayFit, gradient: ArrayLike<number>): number {
  return inverseQuadraticForm(fit.factor, gradient);
}
