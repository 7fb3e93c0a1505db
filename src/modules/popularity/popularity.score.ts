/**
 * A composite popularity score per competitor (0–100) with every component shown, so that staff can
 * see what drives it and disagree with a weight rather than with a number.
 * Pure. Normalisations and formula: docs/popularity.md ("Composite score") — keep the two in step.
 */

export const SCORE_COMPONENTS = ['pollAverage', 'favourabilityNet', 'engagementShare', 'sentiment', 'momentum'] as const;
export type ScoreComponent = (typeof SCORE_COMPONENTS)[number];
export type ScoreWeights = Record<ScoreComponent, number>;

export const DEFAULT_SCORE_WEIGHTS: ScoreWeights = { pollAverage: 0.4, favourabilityNet: 0.2, engagementShare: 0.15, sentiment: 0.15, momentum: 0.1 };

export interface ScoreInput {
  competitorId: string;
  /** Poll average, %. */
  pollAverage: number | null;
  /** Favourability − unfavourability, −100..100. */
  favourabilityNet: number | null;
  /** Share of voice, %. */
  engagementShare: number | null;
  /** Net sentiment, −100..100. */
  sentiment: number | null;
  /** Change of the poll average over 14 days, percentage points. */
  momentum: number | null;
}

export interface ScoredComponent {
  component: ScoreComponent;
  raw: number | null;
  /** 0..100, null when the component is missing. */
  normalised: number | null;
  /** The effective weight after re-weighting over the components present (0 when missing). */
  weight: number;
  /** weight × normalised; the contributions of a competitor sum to its score. */
  contribution: number | null;
}

export interface CompetitorScore {
  competitorId: string;
  score: number | null;
  components: ScoredComponent[];
}

/** Points of score per percentage point of momentum, around a neutral 50. */
const MOMENTUM_POINTS_PER_PP = 10;

const clampScore = (value: number) => Math.min(100, Math.max(0, value));

/** An error message when the weights cannot make a score (negative, not finite, or summing to 0), else null. */
export function validateWeights(weights: ScoreWeights): string | null {
  let sum = 0;
  for (const component of SCORE_COMPONENTS) {
    const weight = weights[component];
    if (typeof weight !== 'number' || !Number.isFinite(weight)) return `weight for ${component} must be a finite number`;
    if (weight < 0) return `weight for ${component} must not be negative (got ${weight})`;
    sum += weight;
  }
  return sum > 0 ? null : 'weights must have a positive sum';
}

/** The largest non-null value among the competitors, or null when there is none. */
function maxOf(values: readonly (number | null)[]): number | null {
  let max: number | null = null;
  for (const value of values) if (value !== null && (max === null || value > max)) max = value;
  return max;
}

/** Builds each component's normaliser; relative components need the whole field to know the best. */
function normalisers(inputs: readonly ScoreInput[]): Record<ScoreComponent, (raw: number) => number | null> {
  const relativeToBest = (best: number | null) => (raw: number) => (best === null || best <= 0 ? null : clampScore((raw / best) * 100));
  const net = (raw: number) => clampScore((raw + 100) / 2);
  return {
    pollAverage: relativeToBest(maxOf(inputs.map((i) => i.pollAverage))),
    favourabilityNet: net,
    engagementShare: relativeToBest(maxOf(inputs.map((i) => i.engagementShare))),
    sentiment: net,
    momentum: (raw) => clampScore(50 + MOMENTUM_POINTS_PER_PP * raw),
  };
}

const compareIds = (a: CompetitorScore, b: CompetitorScore) => (a.competitorId < b.competitorId ? -1 : a.competitorId > b.competitorId ? 1 : 0);

export function compositeScores(inputs: readonly ScoreInput[], weights: ScoreWeights): CompetitorScore[] {
  const invalid = validateWeights(weights);
  if (invalid) throw new RangeError(invalid);
  for (const input of inputs) {
    for (const component of SCORE_COMPONENTS) {
      const raw = input[component];
      if (raw !== null && !Number.isFinite(raw)) throw new RangeError(`${input.competitorId}: ${component} must be a finite number or null`);
    }
  }
  const normalise = normalisers(inputs);

  const scores = inputs.map((input): CompetitorScore => {
    const present = SCORE_COMPONENTS.map((component) => {
      const raw = input[component];
      return { component, raw, normalised: raw === null ? null : normalise[component](raw) };
    });
    const presentWeight = present.reduce((sum, c) => sum + (c.normalised === null ? 0 : weights[c.component]), 0);
    // Components present but all weighted 0 say nothing: no score rather than a division by zero.
    if (!(presentWeight > 0)) {
      return { competitorId: input.competitorId, score: null, components: present.map((c) => ({ ...c, weight: 0, contribution: null })) };
    }
    const components = present.map((c): ScoredComponent => {
      if (c.normalised === null) return { ...c, weight: 0, contribution: null };
      const weight = weights[c.component] / presentWeight;
      return { ...c, weight, contribution: weight * c.normalised };
    });
    const score = components.reduce((sum, c) => sum + (c.contribution ?? 0), 0);
    return { competitorId: input.competitorId, score, components };
  });

  return scores.sort((a, b) => {
    if (a.score === null || b.score === null) return a.score === b.score ? compareIds(a, b) : a.score === null ? 1 : -1;
    return b.score - a.score || compareIds(a, b);
  });
}
