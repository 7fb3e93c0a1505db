import { compositeScores, DEFAULT_SCORE_WEIGHTS, SCORE_COMPONENTS, validateWeights, type ScoreInput, type ScoreWeights } from '../../src/modules/popularity/popularity.score';

const inputs: ScoreInput[] = [
  { competitorId: 'c', pollAverage: 20, favourabilityNet: null, engagementShare: null, sentiment: 40, momentum: null },
  { competitorId: 'd', pollAverage: null, favourabilityNet: null, engagementShare: null, sentiment: null, momentum: null },
  { competitorId: 'a', pollAverage: 40, favourabilityNet: 10, engagementShare: 30, sentiment: -20, momentum: 1.5 },
  { competitorId: 'b', pollAverage: 32, favourabilityNet: -30, engagementShare: 50, sentiment: 10, momentum: -2 },
];

const scoreOf = (scores: ReturnType<typeof compositeScores>, id: string) => scores.find((s) => s.competitorId === id)!;
const normalisedOf = (scores: ReturnType<typeof compositeScores>, id: string) => Object.fromEntries(scoreOf(scores, id).components.map((c) => [c.component, c.normalised]));

describe('composite score', () => {
  it('normalises each component and weights them with the defaults (hand-computed)', () => {
    const scores = compositeScores(inputs, DEFAULT_SCORE_WEIGHTS);
    // a: poll 40/40 → 100, fav (10+100)/2 → 55, engagement 30/50 → 60, sentiment (−20+100)/2 → 40, momentum 50 + 10·1.5 → 65.
    expect(normalisedOf(scores, 'a')).toEqual({ pollAverage: 100, favourabilityNet: 55, engagementShare: 60, sentiment: 40, momentum: 65 });
    // 0.4·100 + 0.2·55 + 0.15·60 + 0.15·40 + 0.1·65 = 40 + 11 + 9 + 6 + 6.5 = 72.5
    expect(scoreOf(scores, 'a').score).toBeCloseTo(72.5, 10);
    // b: 80, 35, 100, 55, 30 → 32 + 7 + 15 + 8.25 + 3 = 65.25
    expect(normalisedOf(scores, 'b')).toEqual({ pollAverage: 80, favourabilityNet: 35, engagementShare: 100, sentiment: 55, momentum: 30 });
    expect(scoreOf(scores, 'b').score).toBeCloseTo(65.25, 10);
    expect(scores.map((s) => s.competitorId)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('re-weights over the components present, and gives no score when all are missing', () => {
    const scores = compositeScores(inputs, DEFAULT_SCORE_WEIGHTS);
    const c = scoreOf(scores, 'c');
    // c has poll 20/40 → 50 and sentiment (40+100)/2 → 70; weights 0.4 and 0.15 re-normalised over 0.55.
    // (0.4·50 + 0.15·70) / 0.55 = 30.5 / 0.55 = 55.4545
    expect(c.score).toBeCloseTo(55.4545, 4);
    const byComponent = Object.fromEntries(c.components.map((k) => [k.component, k]));
    expect(byComponent.pollAverage!.weight).toBeCloseTo(0.727273, 6);
    expect(byComponent.pollAverage!.contribution).toBeCloseTo(36.3636, 4);
    expect(byComponent.sentiment!.weight).toBeCloseTo(0.272727, 6);
    expect(byComponent.sentiment!.contribution).toBeCloseTo(19.0909, 4);
    expect(byComponent.momentum).toEqual({ component: 'momentum', raw: null, normalised: null, weight: 0, contribution: null });

    const d = scoreOf(scores, 'd');
    expect(d.score).toBeNull();
    expect(d.components.every((k) => k.contribution === null)).toBe(true);
  });

  it('has contributions that sum to the score and weights that sum to 1', () => {
    for (const s of compositeScores(inputs, DEFAULT_SCORE_WEIGHTS)) {
      if (s.score === null) continue;
      expect(s.components.reduce((sum, k) => sum + (k.contribution ?? 0), 0)).toBeCloseTo(s.score, 10);
      expect(s.components.reduce((sum, k) => sum + k.weight, 0)).toBeCloseTo(1, 10);
    }
  });

  it('follows edited weights: all weight on sentiment gives the normalised sentiment', () => {
    const onlySentiment: ScoreWeights = { pollAverage: 0, favourabilityNet: 0, engagementShare: 0, sentiment: 1, momentum: 0 };
    const scores = compositeScores(inputs, onlySentiment);
    // a (−20+100)/2 = 40, b 55, c 70; d has no sentiment.
    expect(scores.map((s) => [s.competitorId, s.score])).toEqual([
      ['c', 70],
      ['b', 55],
      ['a', 40],
      ['d', null],
    ]);
  });

  it('gives no score when the only components present carry no weight', () => {
    const onlySentiment: ScoreWeights = { pollAverage: 0, favourabilityNet: 0, engagementShare: 0, sentiment: 1, momentum: 0 };
    const [scored] = compositeScores([{ competitorId: 'x', pollAverage: 30, favourabilityNet: 20, engagementShare: 10, sentiment: null, momentum: 1 }], onlySentiment);
    expect(scored!.score).toBeNull();
  });

  it('doubles a weight and moves the score accordingly', () => {
    // a with poll weight 0.8 (sum 1.4): (0.8·100 + 11 + 9 + 6 + 6.5) / 1.4 = 112.5 / 1.4 = 80.3571
    const scores = compositeScores(inputs, { ...DEFAULT_SCORE_WEIGHTS, pollAverage: 0.8 });
    expect(scoreOf(scores, 'a').score).toBeCloseTo(80.3571, 4);
  });

  it('clamps momentum to 0..100 and drops relative components when the best is 0', () => {
    const scores = compositeScores(
      [
        { competitorId: 'up', pollAverage: 0, favourabilityNet: null, engagementShare: null, sentiment: null, momentum: 6 },
        { competitorId: 'down', pollAverage: 0, favourabilityNet: null, engagementShare: null, sentiment: null, momentum: -7 },
      ],
      DEFAULT_SCORE_WEIGHTS,
    );
    // 50 + 60 = 110 → 100; 50 − 70 = −20 → 0. Poll average: best is 0, so no normalised value.
    expect(normalisedOf(scores, 'up')).toMatchObject({ momentum: 100, pollAverage: null });
    expect(scoreOf(scores, 'up').score).toBe(100);
    expect(scoreOf(scores, 'down').score).toBe(0);
  });

  it('refuses invalid weights', () => {
    expect(() => compositeScores(inputs, { ...DEFAULT_SCORE_WEIGHTS, momentum: -0.1 })).toThrow(RangeError);
  });
});

describe('validateWeights', () => {
  it('accepts the defaults, which sum to 1', () => {
    expect(validateWeights(DEFAULT_SCORE_WEIGHTS)).toBeNull();
    expect(SCORE_COMPONENTS.reduce((sum, c) => sum + DEFAULT_SCORE_WEIGHTS[c], 0)).toBeCloseTo(1, 10);
  });

  it.each<[string, ScoreWeights, RegExp]>([
    ['a negative weight', { ...DEFAULT_SCORE_WEIGHTS, sentiment: -1 }, /sentiment must not be negative/],
    ['a weight that is not a number', { ...DEFAULT_SCORE_WEIGHTS, momentum: Number.NaN }, /momentum must be a finite number/],
    ['an infinite weight', { ...DEFAULT_SCORE_WEIGHTS, pollAverage: Number.POSITIVE_INFINITY }, /pollAverage must be a finite number/],
    ['all weights zero', { pollAverage: 0, favourabilityNet: 0, engagementShare: 0, sentiment: 0, momentum: 0 }, /positive sum/],
  ])('refuses %s', (_name, weights, message) => {
    expect(validateWeights(weights)).toMatch(message);
  });

  it('refuses a missing component', () => {
    const { momentum: _dropped, ...partial } = DEFAULT_SCORE_WEIGHTS;
    expect(validateWeights(partial as ScoreWeights)).toMatch(/momentum must be a finite number/);
  });
});
