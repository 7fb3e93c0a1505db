import { averageTrend, DEFAULT_AVERAGE_OPTIONS, leadOver, pollAverage, pollWeights, type AverageOptions, type PollInput } from '../../src/modules/popularity/popularity.average';

const AS_OF = new Date('2026-03-01T00:00:00Z');
const DAY_MS = 86_400_000;
const Z95 = 1.959964;

// The hand-computed cases leave opinion drift out (driftPerDay 0); its own tests below put it back.
const options = (change: Partial<AverageOptions> = {}): AverageOptions => ({ ...DEFAULT_AVERAGE_OPTIONS, driftPerDay: 0, asOf: AS_OF, ...change });

function poll(id: string, pollster: string, ageDays: number, sampleSize: number, results: Record<string, number>, compliant = true): PollInput {
  return { id, pollster, date: new Date(AS_OF.getTime() - ageDays * DAY_MS), sampleSize, compliant, results: new Map(Object.entries(results)) };
}

const averageOf = (polls: PollInput[], competitorId: string, change: Partial<AverageOptions> = {}) => {
  const found = pollAverage(polls, options(change)).averages.find((a) => a.competitorId === competitorId);
  if (!found) throw new Error(`no average for ${competitorId}`);
  return found;
};

/**
 * Three pollsters, one poll each (no house effects):
 *   p1  A  today     n=1000  x 40  y 30   weight 1 × 1 × 1     = 1
 *   p2  B  14 d ago  n=1000  x 36  y 34   weight 1 × 0.5 × 1   = 0.5   (one half-life)
 *   p3  C  today     n=250   x 44  y 28   weight 0.5 × 1 × 1   = 0.5   (√(250/1000) = 0.5)
 */
const basic = [poll('p1', 'A', 0, 1000, { x: 40, y: 30 }), poll('p2', 'B', 14, 1000, { x: 36, y: 34 }), poll('p3', 'C', 0, 250, { x: 44, y: 28 })];

describe('poll weights', () => {
  it('multiplies sample, recency and compliance factors: an older or smaller poll counts less', () => {
    expect(pollWeights(basic, options())).toEqual([
      { pollId: 'p1', weight: 1, sampleFactor: 1, recencyFactor: 1, complianceFactor: 1 },
      { pollId: 'p2', weight: 0.5, sampleFactor: 1, recencyFactor: 0.5, complianceFactor: 1 },
      { pollId: 'p3', weight: 0.5, sampleFactor: 0.5, recencyFactor: 1, complianceFactor: 1 },
    ]);
    // 7 days = half a half-life: 0.5^0.5 = 0.7071; 28 days: 0.25.
    const [week, month] = pollWeights([poll('w', 'A', 7, 1000, { x: 1 }), poll('m', 'A', 28, 1000, { x: 1 })], options());
    expect(week!.recencyFactor).toBeCloseTo(0.7071, 4);
    expect(month!.recencyFactor).toBeCloseTo(0.25, 10);
  });

  it('bounds the sample factor to 0.2..3', () => {
    const weights = pollWeights([poll('tiny', 'A', 0, 10, { x: 1 }), poll('huge', 'A', 0, 20_000, { x: 1 }), poll('mid', 'A', 0, 4000, { x: 1 })], options());
    // √0.01 = 0.1 → 0.2;  √20 = 4.47 → 3;  √4 = 2.
    expect(weights.map((w) => w.sampleFactor)).toEqual([0.2, 3, 2]);
  });

  it('down-weights a non-compliant poll by nonCompliantWeight', () => {
    const weights = pollWeights([poll('n', 'A', 0, 1000, { x: 1 }, false)], options({ nonCompliantWeight: 0.4 }));
    expect(weights[0]).toMatchObject({ weight: 0.4, complianceFactor: 0.4 });
  });
});

describe('poll average', () => {
  it('is the weighted mean with a band from sampling and between-poll variance (hand-computed)', () => {
    // x: Σw = 2; (1·40 + 0.5·36 + 0.5·44) / 2 = 80 / 2 = 40.
    // v = p(100−p)/n: 40·60/1000 = 2.4, 36·64/1000 = 2.304, 44·56/250 = 9.856.
    // τ² = Σw(x−40)²/Σw − Σw·v/Σw = (0 + 8 + 8)/2 − (2.4 + 1.152 + 4.928)/2 = 8 − 4.24 = 3.76.
    // SE = √(1·(2.4+3.76) + 0.25·(2.304+3.76) + 0.25·(9.856+3.76)) / 2 = √11.08 / 2 = 1.66433.
    // band = 40 ± 1.959964 · 1.66433 = 40 ± 3.26203; effective polls = 2² / (1 + 0.25 + 0.25) = 2.6667.
    const x = averageOf(basic, 'x');
    expect(x.average).toBeCloseTo(40, 10);
    expect(x.standardError).toBeCloseTo(1.66433, 5);
    expect(x.low).toBeCloseTo(36.73797, 4);
    expect(x.high).toBeCloseTo(43.26203, 4);
    expect(x.effectivePolls).toBeCloseTo(2.6667, 4);
    expect(x.polls).toBe(3);
    // y: (30 + 17 + 14) / 2 = 30.5.
    expect(averageOf(basic, 'y').average).toBeCloseTo(30.5, 10);
  });

  it('sorts competitors by average and reports asOf and confidence', () => {
    const result = pollAverage(basic, options());
    expect(result.averages.map((a) => a.competitorId)).toEqual(['x', 'y']);
    expect(result.asOf).toBe('2026-03-01T00:00:00.000Z');
    expect(result.confidence).toBe(0.95);
    expect(result.houseEffects).toEqual([]);
  });

  it('counts a non-compliant poll at a quarter of its weight', () => {
    const withBadPoll = [basic[0]!, basic[1]!, { ...basic[2]!, compliant: false }];
    // p3 weight 0.5 × 0.25 = 0.125; Σw = 1.625.
    // x: (40 + 18 + 0.125·44) / 1.625 = 63.5 / 1.625 = 39.0769;  y: (30 + 17 + 3.5) / 1.625 = 31.0769.
    expect(averageOf(withBadPoll, 'x').average).toBeCloseTo(39.0769, 4);
    expect(averageOf(withBadPoll, 'y').average).toBeCloseTo(31.0769, 4);
  });

  it('ignores polls older than the window or dated after asOf, and keeps one exactly at the window edge', () => {
    const withStrays = [...basic, poll('old', 'D', 121, 1000, { x: 10 }), poll('future', 'E', -1, 1000, { x: 90 })];
    const result = pollAverage(withStrays, options());
    expect(result.weights.map((w) => w.pollId)).toEqual(['p1', 'p2', 'p3']);
    expect(result.averages.find((a) => a.competitorId === 'x')!.average).toBeCloseTo(40, 10);

    // At 120 days: 0.5^(120/14) = 0.0026287; x = (80 + 0.0026287·10) / 2.0026287 = 39.9606.
    const edge = [...basic, poll('edge', 'D', 120, 1000, { x: 10 })];
    expect(pollWeights(edge, options()).at(-1)!.weight).toBeCloseTo(0.0026287, 7);
    expect(averageOf(edge, 'x').average).toBeCloseTo(39.9606, 4);
  });

  it('widens the band when there are fewer polls', () => {
    // Four agreeing polls, n=1000, today: τ² = 0, SE = √(k · 2.4) / k = √(2.4 / k).
    const agreeing = ['a', 'b', 'c', 'd'].map((id) => poll(id, id.toUpperCase(), 0, 1000, { x: 40 }));
    const halfWidth = (polls: PollInput[]) => {
      const x = averageOf(polls, 'x');
      return (x.high - x.low) / 2;
    };
    expect(halfWidth(agreeing)).toBeCloseTo(Z95 * Math.sqrt(2.4 / 4), 4); // 1.5182
    expect(halfWidth(agreeing.slice(0, 2))).toBeCloseTo(Z95 * Math.sqrt(2.4 / 2), 4); // 2.1470
    expect(halfWidth(agreeing.slice(0, 1))).toBeCloseTo(Z95 * Math.sqrt(2.4), 4); // 3.0364
    expect(halfWidth(agreeing.slice(0, 1))).toBeGreaterThan(halfWidth(agreeing.slice(0, 2)));
  });

  it('widens the band when part of the polling gets older (weight concentrates on fewer polls)', () => {
    const fresh = [poll('a', 'A', 0, 1000, { x: 40 }), poll('b', 'B', 0, 1000, { x: 40 })];
    const oneOld = [poll('a', 'A', 0, 1000, { x: 40 }), poll('b', 'B', 28, 1000, { x: 40 })];
    // Weights 1 and 0.25: SE = √(2.4 · (1 + 0.0625)) / 1.25 = 1.27750, against √(2.4/2) = 1.09545.
    expect(averageOf(fresh, 'x').standardError).toBeCloseTo(1.09545, 5);
    expect(averageOf(oneOld, 'x').standardError).toBeCloseTo(1.2775, 4);
    expect(averageOf(oneOld, 'x').effectivePolls).toBeCloseTo(1.5625 / 1.0625, 6);
  });

  it('widens the band as every poll ages, through the opinion drift', () => {
    // Without drift a common factor on all weights cancels in SE = √Σw²(v+τ²) / Σw; drift adds driftPerDay × age to each v.
    const later = new Date(AS_OF.getTime() + 30 * DAY_MS);
    const drifting = { driftPerDay: DEFAULT_AVERAGE_OPTIONS.driftPerDay };
    expect(averageOf(basic, 'x', { asOf: later }).standardError).toBeCloseTo(averageOf(basic, 'x').standardError, 10);
    expect(averageOf(basic, 'x', { asOf: later, ...drifting }).standardError).toBeGreaterThan(averageOf(basic, 'x', drifting).standardError);
  });

  it('adds driftPerDay × age to a lone poll’s variance', () => {
    // One poll of 1,000 at 40 %, 25 days old: v = 40·60/1000 = 2.4, drift = 0.04 × 25 = 1, SE = √3.4.
    const lone: PollInput[] = [{ id: 'p', pollster: 'A', date: new Date(AS_OF.getTime() - 25 * DAY_MS), sampleSize: 1000, compliant: true, results: new Map([['x', 40]]) }];
    expect(averageOf(lone, 'x', { driftPerDay: 0.04 }).standardError).toBeCloseTo(Math.sqrt(3.4), 10);
    expect(() => pollAverage(lone, options({ driftPerDay: -1 }))).toThrow(RangeError);
  });

  it('gives one poll just its sampling error', () => {
    // √(36·64/1000) = √2.304 = 1.51789.
    const x = averageOf([basic[1]!], 'x');
    expect(x.standardError).toBeCloseTo(1.51789, 5);
    expect(x.effectivePolls).toBe(1);
  });

  it('clamps the band to 0..100', () => {
    const x = averageOf([poll('small', 'A', 0, 20, { x: 2 })], 'x');
    // p clamped to 2 is fine; SE = √(2·98/20) = 3.1305, so 2 − 6.14 < 0.
    expect(x.low).toBe(0);
    expect(x.high).toBeCloseTo(2 + Z95 * Math.sqrt((2 * 98) / 20), 4);
  });
});

describe('house effects', () => {
  it('corrects a pollster that is consistently +4 on one competitor', () => {
    // H: 44, 44, 44 (ages 0, 7, 14); others: A 40 today, B 40 at 14 days → others' weighted mean 40.
    // effect = 44 − 40 = 4, so H's adjusted values are 40, 40, 40 and the average is exactly 40
    // (unadjusted it would be (44·2.2071 + 40·1.5) / 3.7071 = 42.38).
    const polls = [
      poll('h1', 'H', 0, 1000, { x: 44, y: 30 }),
      poll('h2', 'H', 7, 1000, { x: 44, y: 30 }),
      poll('h3', 'H', 14, 1000, { x: 44, y: 30 }),
      poll('a1', 'A', 0, 1000, { x: 40, y: 30 }),
      poll('b1', 'B', 14, 1000, { x: 40, y: 30 }),
    ];
    const result = pollAverage(polls, options());
    expect(result.houseEffects).toEqual([
      { pollster: 'H', competitorId: 'x', effect: 4, polls: 3 },
      { pollster: 'H', competitorId: 'y', effect: 0, polls: 3 },
    ]);
    const x = result.averages.find((a) => a.competitorId === 'x')!;
    expect(x.average).toBeCloseTo(40, 10);
    // All adjusted values agree (τ² = 0): SE = √(2.4 · Σw²) / Σw, Σw = 3.70711, Σw² = 1 + 0.5 + 0.25 + 1 + 0.25 = 3.
    expect(x.standardError).toBeCloseTo(Math.sqrt(2.4 * 3) / 3.70711, 5);
  });

  /**
   *   h1  H  today     x 44  y 30   w 1
   *   h2  H  7 d ago   x 45  y 32   w 0.70711
   *   h3  H  14 d ago  x 43  y 29   w 0.5
   *   a1  A  today     x 40  y 32   w 1
   *   b1  B  14 d ago  x 41  y 30   w 0.5
   * H on x: plain mean 44; others (40 + 0.5·41) / 1.5 = 40.3333 → effect 3.6667, adjusted 40.3333, 41.3333, 39.3333.
   * H on y: plain mean 30.3333; others (32 + 0.5·30) / 1.5 = 31.3333 → effect −1, adjusted 31, 33, 30.
   */
  const house = [
    poll('h1', 'H', 0, 1000, { x: 44, y: 30 }),
    poll('h2', 'H', 7, 1000, { x: 45, y: 32 }),
    poll('h3', 'H', 14, 1000, { x: 43, y: 29 }),
    poll('a1', 'A', 0, 1000, { x: 40, y: 32 }),
    poll('b1', 'B', 14, 1000, { x: 41, y: 30 }),
  ];

  it('estimates the effect against the other pollsters and averages the adjusted values', () => {
    const result = pollAverage(house, options());
    const effects = result.houseEffects.map((e) => [e.pollster, e.competitorId, e.effect]);
    expect(effects).toHaveLength(2);
    expect(effects[0]![2]).toBeCloseTo(3.6667, 4);
    expect(effects[1]![2]).toBeCloseTo(-1, 10);
    // x: Σw = 3.70711; (40.3333 + 0.70711·41.3333 + 0.5·39.3333 + 40 + 0.5·41) / 3.70711 = 149.7271 / 3.70711 = 40.3892.
    expect(result.averages.find((a) => a.competitorId === 'x')!.average).toBeCloseTo(40.3892, 4);
    // y: (31 + 0.70711·33 + 0.5·30 + 32 + 0.5·30) / 3.70711 = 116.3345 / 3.70711 = 31.3815.
    expect(result.averages.find((a) => a.competitorId === 'y')!.average).toBeCloseTo(31.3815, 4);
  });

  it('leaves a pollster below houseEffectMinPolls uncorrected', () => {
    const twoFromH = house.filter((p) => p.id !== 'h3');
    expect(pollAverage(twoFromH, options()).houseEffects).toEqual([]);
    // Raw x: (44 + 0.70711·45 + 40 + 0.5·41) / 3.20711 = 136.3198 / 3.20711 = 42.5055.
    expect(averageOf(twoFromH, 'x').average).toBeCloseTo(42.5055, 4);
    expect(pollAverage(house, options({ houseEffectMinPolls: 4 })).houseEffects).toEqual([]);
  });

  it('does not estimate an effect without other pollsters to compare with', () => {
    const onlyH = house.filter((p) => p.pollster === 'H');
    expect(pollAverage(onlyH, options()).houseEffects).toEqual([]);
  });
});

describe('leadOver', () => {
  const house = [
    poll('h1', 'H', 0, 1000, { x: 44, y: 30 }),
    poll('h2', 'H', 7, 1000, { x: 45, y: 32 }),
    poll('h3', 'H', 14, 1000, { x: 43, y: 29 }),
    poll('a1', 'A', 0, 1000, { x: 40, y: 32 }),
    poll('b1', 'B', 14, 1000, { x: 41, y: 30, z: 5 }),
  ];

  it('averages the house-adjusted per-poll differences with the poll weights (hand-computed)', () => {
    // Adjusted differences (see the house effects above): h1 40.3333−31 = 9.3333, h2 41.3333−33 = 8.3333,
    // h3 39.3333−30 = 9.3333, a1 40−32 = 8, b1 41−30 = 11.
    // lead = (9.3333 + 0.70711·8.3333 + 0.5·9.3333 + 8 + 0.5·11) / 3.70711 = 33.39256 / 3.70711 = 9.00771.
    // v = (100(a+b) − d²)/n: 7.04622, 7.36389, 6.84622, 7.136, 6.979; τ² = max(0, 0.93893 − 7.09498) = 0.
    // SE = √(7.04622 + 0.5·7.36389 + 0.25·6.84622 + 7.136 + 0.25·6.979) / 3.70711 = √21.32047 / 3.70711 = 1.24556.
    // band = 9.00771 ± 1.959964 · 1.24556 = 9.00771 ± 2.44125.
    const lead = leadOver(house, 'x', 'y', options())!;
    expect(lead).toMatchObject({ leaderId: 'x', rivalId: 'y', polls: 5 });
    expect(lead.lead).toBeCloseTo(9.00771, 4);
    expect(lead.low).toBeCloseTo(6.56647, 4);
    expect(lead.high).toBeCloseTo(11.44896, 4);
  });

  it('reports from the leader’s side when our competitor is behind', () => {
    const lead = leadOver(house, 'y', 'x', options())!;
    expect(lead).toMatchObject({ leaderId: 'x', rivalId: 'y', polls: 5 });
    expect(lead.lead).toBeCloseTo(9.00771, 4);
    expect(lead.low).toBeCloseTo(6.56647, 4);
  });

  it('uses only polls that have both competitors, and is null without any', () => {
    // Only b1 has z: 41 − 5 = 36, SE = √((100·46 − 36²)/1000) = √3.304 = 1.81769.
    const lead = leadOver(house, 'x', 'z', options())!;
    expect(lead.polls).toBe(1);
    expect(lead.lead).toBeCloseTo(36, 10);
    expect(lead.high - lead.lead).toBeCloseTo(Z95 * 1.81769, 4);
    expect(leadOver(house, 'x', 'nobody', options())).toBeNull();
  });
});

describe('averageTrend', () => {
  it('returns one point per day, oldest first, with only the polls dated on or before each day', () => {
    const trend = averageTrend(basic, options(), 20);
    expect(trend).toHaveLength(20);
    // 2026-03-01 − 19 days = 2026-02-10; p2 is dated 2026-02-15.
    expect(trend[0]).toEqual({ date: '2026-02-10', averages: [] });
    expect(trend[4]).toEqual({ date: '2026-02-14', averages: [] });
    const firstWithPoll = trend[5]!;
    expect(firstWithPoll.date).toBe('2026-02-15');
    // p2 alone: 36 ± 1.959964 · √2.304 = 36 ± 2.97500.
    expect(firstWithPoll.averages.map((a) => a.competitorId)).toEqual(['x', 'y']);
    expect(firstWithPoll.averages[0]!.average).toBeCloseTo(36, 10);
    expect(firstWithPoll.averages[0]!.low).toBeCloseTo(33.025, 3);
    expect(trend[19]!.date).toBe('2026-03-01');
    expect(trend[19]!.averages[0]).toMatchObject({ competitorId: 'x', average: 40 });
    expect(trend[19]!.averages[0]!.high).toBeCloseTo(43.26203, 4);
  });

  it('refuses a non-positive number of days', () => {
    expect(() => averageTrend(basic, options(), 0)).toThrow(RangeError);
  });
});
