import { twoSidedZ } from './popularity.compliance';

/**
 * A poll average with house effects and an uncertainty band, in the manner of public aggregators.
 * Pure and deterministic (same polls and options → same answer).
 * Method and formulas: docs/popularity.md ("Poll average") — keep the two in step.
 */

export interface PollInput {
  id: string;
  pollster: string;
  /** The day the poll describes: fieldwork midpoint. */
  date: Date;
  sampleSize: number;
  compliant: boolean;
  /** Competitor id → percentage (0..100); options like blank/undecided are not included. */
  results: ReadonlyMap<string, number>;
}

export interface AverageOptions {
  asOf: Date;
  /** A poll's weight halves every this many days of age. */
  halfLifeDays: number;
  /** Polls older than this many days are ignored. */
  windowDays: number;
  /** Weight multiplier of a poll that fails the Ley 2494 check. */
  nonCompliantWeight: number;
  /** A pollster needs this many polls of a competitor for its house effect to be estimated. */
  houseEffectMinPolls: number;
  /** Two-sided coverage of the band, as a fraction. */
  confidence: number;
  /**
   * Opinion moves between a poll and today: each day of a poll's age adds this much variance (pp²,
   * a random walk), so a band built from old polls is wider than one from fresh polls.
   */
  driftPerDay: number;
}

export const DEFAULT_AVERAGE_OPTIONS: Omit<AverageOptions, 'asOf'> = {
  halfLifeDays: 14,
  windowDays: 120,
  nonCompliantWeight: 0.25,
  houseEffectMinPolls: 3,
  confidence: 0.95,
  // About one point of standard deviation after a month without polls.
  driftPerDay: 0.04,
};

export interface PollWeight {
  pollId: string;
  weight: number;
  sampleFactor: number;
  recencyFactor: number;
  complianceFactor: number;
}

export interface CompetitorAverage {
  competitorId: string;
  average: number;
  low: number;
  high: number;
  standardError: number;
  polls: number;
  effectivePolls: number;
}

export interface HouseEffect {
  pollster: string;
  competitorId: string;
  effect: number;
  polls: number;
}

export interface PollAverage {
  asOf: string;
  confidence: number;
  /** Sorted by average, highest first. */
  averages: CompetitorAverage[];
  houseEffects: HouseEffect[];
  weights: PollWeight[];
}

export interface Lead {
  leaderId: string;
  rivalId: string;
  lead: number;
  low: number;
  high: number;
  polls: number;
}

export interface TrendPoint {
  /** 'YYYY-MM-DD' (UTC) of the day's as-of instant. */
  date: string;
  averages: { competitorId: string; average: number; low: number; high: number }[];
}

const DAY_MS = 86_400_000;

/** Sample factor bounds: a huge poll must not drown the rest, a tiny one still counts a little. */
const SAMPLE_FACTOR_MIN = 0.2;
const SAMPLE_FACTOR_MAX = 3;
const SAMPLE_FACTOR_REFERENCE = 1000;

/** Shares are clamped to this range for sampling variance so that a 0 % reading still carries noise. */
const VARIANCE_SHARE_MIN = 1;
const VARIANCE_SHARE_MAX = 99;

function validateOptions(options: AverageOptions): void {
  if (Number.isNaN(options.asOf.getTime())) throw new RangeError('asOf must be a valid date');
  if (!(options.halfLifeDays > 0 && Number.isFinite(options.halfLifeDays))) throw new RangeError(`halfLifeDays must be positive, got ${options.halfLifeDays}`);
  if (!(options.windowDays >= 0 && Number.isFinite(options.windowDays))) throw new RangeError(`windowDays must be zero or more, got ${options.windowDays}`);
  if (!(options.driftPerDay >= 0 && Number.isFinite(options.driftPerDay))) throw new RangeError(`driftPerDay must be zero or more, got ${options.driftPerDay}`);
  if (!(options.nonCompliantWeight >= 0 && options.nonCompliantWeight <= 1)) throw new RangeError(`nonCompliantWeight must be between 0 and 1, got ${options.nonCompliantWeight}`);
  if (!(Number.isInteger(options.houseEffectMinPolls) && options.houseEffectMinPolls >= 1)) {
    throw new RangeError(`houseEffectMinPolls must be a positive integer, got ${options.houseEffectMinPolls}`);
  }
  if (!(options.confidence > 0 && options.confidence < 1)) throw new RangeError(`confidence must be between 0 and 1 (exclusive), got ${options.confidence}`);
}

function validatePoll(poll: PollInput): void {
  if (!(Number.isFinite(poll.sampleSize) && poll.sampleSize > 0)) throw new RangeError(`poll ${poll.id}: sampleSize must be positive, got ${poll.sampleSize}`);
  for (const [competitorId, value] of poll.results) {
    if (!(Number.isFinite(value) && value >= 0 && value <= 100)) throw new RangeError(`poll ${poll.id}: result for ${competitorId} must be 0..100, got ${value}`);
  }
}

const ageInDays = (poll: PollInput, asOf: Date) => (asOf.getTime() - poll.date.getTime()) / DAY_MS;

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** A counted poll with its weight. */
interface Weighed {
  poll: PollInput;
  weight: PollWeight;
  /** The opinion drift since the poll (pp²): `driftPerDay` × its age. */
  drift: number;
}

/** The polls that count as of `options.asOf`, each with its weight and factors. */
function weigh(polls: readonly PollInput[], options: AverageOptions): Weighed[] {
  validateOptions(options);
  const weighed: Weighed[] = [];
  for (const poll of polls) {
    if (Number.isNaN(poll.date.getTime())) throw new RangeError(`poll ${poll.id}: date must be a valid date`);
    const age = ageInDays(poll, options.asOf);
    if (age < 0 || age > options.windowDays) continue;
    validatePoll(poll);
    const sampleFactor = clamp(Math.sqrt(poll.sampleSize / SAMPLE_FACTOR_REFERENCE), SAMPLE_FACTOR_MIN, SAMPLE_FACTOR_MAX);
    const recencyFactor = 0.5 ** (age / options.halfLifeDays);
    const complianceFactor = poll.compliant ? 1 : options.nonCompliantWeight;
    weighed.push({
      poll,
      weight: { pollId: poll.id, weight: sampleFactor * recencyFactor * complianceFactor, sampleFactor, recencyFactor, complianceFactor },
      drift: options.driftPerDay * age,
    });
  }
  return weighed;
}

export function pollWeights(polls: readonly PollInput[], options: AverageOptions): PollWeight[] {
  return weigh(polls, options).map((w) => w.weight);
}

/** pollster → competitor → house effect, only for the pairs that could be estimated. */
type HouseEffects = Map<string, Map<string, HouseEffect>>;

const effectOf = (effects: HouseEffects, pollster: string, competitorId: string) => effects.get(pollster)?.get(competitorId)?.effect ?? 0;

function competitorsOf(weighed: readonly Weighed[]): string[] {
  const ids = new Set<string>();
  for (const { poll } of weighed) for (const id of poll.results.keys()) ids.add(id);
  return [...ids].sort();
}

/**
 * Single-level, time-invariant house effects: a pollster's plain mean for a competitor minus the
 * weighted mean of every other pollster's polls of that competitor, when it has enough polls.
 */
function estimateHouseEffects(weighed: readonly Weighed[], options: AverageOptions): HouseEffects {
  const effects: HouseEffects = new Map();
  for (const competitorId of competitorsOf(weighed)) {
    const byPollster = new Map<string, { value: number; weight: number }[]>();
    let totalWeight = 0;
    let totalWeighted = 0;
    for (const { poll, weight } of weighed) {
      const value = poll.results.get(competitorId);
      if (value === undefined || weight.weight === 0) continue;
      let list = byPollster.get(poll.pollster);
      if (!list) byPollster.set(poll.pollster, (list = []));
      list.push({ value, weight: weight.weight });
      totalWeight += weight.weight;
      totalWeighted += weight.weight * value;
    }
    for (const [pollster, own] of byPollster) {
      if (own.length < options.houseEffectMinPolls) continue;
      const ownWeight = own.reduce((sum, o) => sum + o.weight, 0);
      const othersWeight = totalWeight - ownWeight;
      // Without other pollsters' weight there is nothing to compare against.
      if (!(othersWeight > 1e-12)) continue;
      const othersMean = (totalWeighted - own.reduce((sum, o) => sum + o.weight * o.value, 0)) / othersWeight;
      const ownMean = own.reduce((sum, o) => sum + o.value, 0) / own.length;
      let forPollster = effects.get(pollster);
      if (!forPollster) effects.set(pollster, (forPollster = new Map()));
      forPollster.set(competitorId, { pollster, competitorId, effect: ownMean - othersMean, polls: own.length });
    }
  }
  return effects;
}

/** One poll's reading of a quantity: its house-adjusted value, its weight and its sampling variance (pp²). */
interface Observation {
  value: number;
  weight: number;
  variance: number;
  /** Opinion drift since the poll (pp²): uncertainty about today that the spread between polls does not show. */
  drift: number;
}

interface Summary {
  average: number;
  standardError: number;
  effectivePolls: number;
}

/**
 * Weighted mean of the observations and its standard error, counting both sampling noise and the
 * between-poll spread beyond it (τ², method of moments); null when nothing carries weight.
 */
function summarise(observations: readonly Observation[]): Summary | null {
  let sumW = 0;
  let sumW2 = 0;
  let sumWX = 0;
  for (const o of observations) {
    sumW += o.weight;
    sumW2 += o.weight * o.weight;
    sumWX += o.weight * o.value;
  }
  if (!(sumW > 0)) return null;
  const average = sumWX / sumW;
  let spread = 0;
  let sampling = 0;
  for (const o of observations) {
    spread += o.weight * (o.value - average) ** 2;
    sampling += o.weight * o.variance;
  }
  const tau2 = Math.max(0, spread / sumW - sampling / sumW);
  let varianceSum = 0;
  for (const o of observations) varianceSum += o.weight * o.weight * (o.variance + tau2 + o.drift);
  return { average, standardError: Math.sqrt(varianceSum) / sumW, effectivePolls: (sumW * sumW) / sumW2 };
}

/** Sampling variance, in pp², of a share p (pp) from n interviews. */
function shareVariance(share: number, sampleSize: number): number {
  const p = clamp(share, VARIANCE_SHARE_MIN, VARIANCE_SHARE_MAX);
  return (p * (100 - p)) / sampleSize;
}

/** Sampling variance, in pp², of the difference of two shares of the same sample (multinomial). */
function differenceVariance(first: number, second: number, sampleSize: number): number {
  const a = clamp(first, VARIANCE_SHARE_MIN, VARIANCE_SHARE_MAX);
  const b = clamp(second, VARIANCE_SHARE_MIN, VARIANCE_SHARE_MAX);
  return (100 * (a + b) - (a - b) ** 2) / sampleSize;
}

export function pollAverage(polls: readonly PollInput[], options: AverageOptions): PollAverage {
  const weighed = weigh(polls, options);
  const effects = estimateHouseEffects(weighed, options);
  const z = twoSidedZ(options.confidence);

  const averages: CompetitorAverage[] = [];
  for (const competitorId of competitorsOf(weighed)) {
    const observations: Observation[] = [];
    for (const { poll, weight, drift } of weighed) {
      const value = poll.results.get(competitorId);
      // A poll with no weight (non-compliant at weight 0) is listed in `weights` but not counted.
      if (value === undefined || weight.weight === 0) continue;
      const adjusted = value - effectOf(effects, poll.pollster, competitorId);
      observations.push({ value: adjusted, weight: weight.weight, variance: shareVariance(adjusted, poll.sampleSize), drift });
    }
    const summary = summarise(observations);
    if (!summary) continue;
    const average = clamp(summary.average, 0, 100);
    averages.push({
      competitorId,
      average,
      low: clamp(summary.average - z * summary.standardError, 0, 100),
      high: clamp(summary.average + z * summary.standardError, 0, 100),
      standardError: summary.standardError,
      polls: observations.length,
      effectivePolls: summary.effectivePolls,
    });
  }
  averages.sort((a, b) => b.average - a.average || (a.competitorId < b.competitorId ? -1 : 1));

  const houseEffects = [...effects.values()]
    .flatMap((forPollster) => [...forPollster.values()])
    .sort((a, b) => (a.pollster === b.pollster ? (a.competitorId < b.competitorId ? -1 : 1) : a.pollster < b.pollster ? -1 : 1));

  return { asOf: options.asOf.toISOString(), confidence: options.confidence, averages, houseEffects, weights: weighed.map((w) => w.weight) };
}

/**
 * The lead between two competitors from the polls that measured both: each poll's house-adjusted
 * difference, averaged with the poll weights. Reported from the leader's side (lead ≥ 0), so the
 * ids swap when the rival is ahead; null when no counted poll has both.
 */
export function leadOver(polls: readonly PollInput[], oursId: string, rivalId: string, options: AverageOptions): Lead | null {
  if (oursId === rivalId) throw new RangeError('leadOver needs two different competitors');
  const weighed = weigh(polls, options);
  const effects = estimateHouseEffects(weighed, options);
  const observations: Observation[] = [];
  for (const { poll, weight, drift } of weighed) {
    const ours = poll.results.get(oursId);
    const rival = poll.results.get(rivalId);
    if (ours === undefined || rival === undefined || weight.weight === 0) continue;
    const oursAdjusted = ours - effectOf(effects, poll.pollster, oursId);
    const rivalAdjusted = rival - effectOf(effects, poll.pollster, rivalId);
    // Both shares drift; a gap drifts about twice as much as one share (votes may move between the two).
    observations.push({ value: oursAdjusted - rivalAdjusted, weight: weight.weight, variance: differenceVariance(oursAdjusted, rivalAdjusted, poll.sampleSize), drift: 2 * drift });
  }
  const summary = summarise(observations);
  if (!summary) return null;
  const half = twoSidedZ(options.confidence) * summary.standardError;
  const low = clamp(summary.average - half, -100, 100);
  const high = clamp(summary.average + half, -100, 100);
  if (summary.average >= 0) return { leaderId: oursId, rivalId, lead: summary.average, low, high, polls: observations.length };
  return { leaderId: rivalId, rivalId: oursId, lead: -summary.average, low: -high, high: -low, polls: observations.length };
}

/** The average as of each of the last `days` days (asOf − (days − 1) days … asOf), oldest first. */
export function averageTrend(polls: readonly PollInput[], options: AverageOptions, days: number): TrendPoint[] {
  if (!(Number.isInteger(days) && days >= 1)) throw new RangeError(`days must be a positive integer, got ${days}`);
  const points: TrendPoint[] = [];
  for (let back = days - 1; back >= 0; back -= 1) {
    const asOf = new Date(options.asOf.getTime() - back * DAY_MS);
    const average = pollAverage(polls, { ...options, asOf });
    points.push({
      date: asOf.toISOString().slice(0, 10),
      averages: average.averages.map(({ competitorId, average: value, low, high }) => ({ competitorId, average: value, low, high })),
    });
  }
  return points;
}
