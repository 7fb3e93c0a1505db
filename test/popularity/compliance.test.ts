import { checkCompliance, normalQuantile, theoreticalMarginOfError, twoSidedZ, type PollSheet } from '../../src/modules/popularity/popularity.compliance';

/** A national poll that meets every rule: n = 2000 gives a theoretical 2.191 at 95 %, so 2.2 is honest. */
const compliantSheet: PollSheet = {
  pollster: 'Invamer',
  sponsor: 'Noticias Caracol',
  fieldworkStart: '2026-02-10',
  fieldworkEnd: '2026-02-14',
  publishedAt: '2026-02-16',
  scope: 'national',
  universe: 'Colombianos mayores de 18 años, residentes en zonas urbanas y rurales',
  sampleSize: 2000,
  method: 'face_to_face',
  probabilistic: true,
  marginOfError: 2.2,
  confidenceLevel: 95,
  question: 'Si las elecciones fueran mañana, ¿por quién votaría?',
};

describe('z for a confidence level', () => {
  it('gives the textbook two-sided values to 3 decimals', () => {
    expect(twoSidedZ(0.95)).toBeCloseTo(1.96, 3);
    expect(twoSidedZ(0.99)).toBeCloseTo(2.576, 3);
    expect(twoSidedZ(0.9)).toBeCloseTo(1.645, 3);
  });

  it('is accurate in the tails and symmetric', () => {
    expect(normalQuantile(0.001)).toBeCloseTo(-3.0902, 4);
    expect(normalQuantile(0.999)).toBeCloseTo(3.0902, 4);
    expect(normalQuantile(0.5)).toBe(0);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });
});

describe('theoretical margin of error', () => {
  it('is z·√(0.25/n)·100 for a simple random sample', () => {
    // 1.959964 × √(0.25 / 1000) × 100 = 1.959964 × 1.581139 = 3.0990
    expect(theoreticalMarginOfError(1000, 95)).toBeCloseTo(3.099, 3);
    // 2.575829 × 1.581139 = 4.0727
    expect(theoreticalMarginOfError(1000, 99)).toBeCloseTo(4.073, 3);
    // 1.959964 × √(0.25 / 2000) × 100 = 2.1913
    expect(theoreticalMarginOfError(2000, 95)).toBeCloseTo(2.191, 3);
  });

  it('refuses a sample or confidence that cannot be', () => {
    expect(() => theoreticalMarginOfError(0, 95)).toThrow(RangeError);
    expect(() => theoreticalMarginOfError(1000, 100)).toThrow(RangeError);
  });
});

describe('checkCompliance (Ley 2494 de 2025)', () => {
  it('passes a fully compliant national poll (n = 2000, MoE 2.2, 95 %)', () => {
    expect(checkCompliance(compliantSheet)).toEqual({ compliant: true, problems: [] });
  });

  it.each<[string, Partial<PollSheet>]>([
    ['not_probabilistic', { probabilistic: false }],
    ['margin_above_national_limit', { marginOfError: 3.1 }],
    ['margin_above_territorial_limit', { scope: 'department', marginOfError: 5.5 }],
    // At 90 % the theoretical margin is 1.839, so 2.2 is still consistent with the sample.
    ['confidence_below_95', { confidenceLevel: 90 }],
    // 0.9 × 2.191 = 1.972 > 1.9: more precision than 2000 interviews give.
    ['margin_inconsistent_with_sample', { marginOfError: 1.9 }],
    ['missing_sponsor', { sponsor: null }],
    ['missing_universe', { universe: '   ' }],
    ['missing_question', { question: null }],
    ['fieldwork_after_publication', { publishedAt: '2026-02-13' }],
    ['fieldwork_dates_reversed', { fieldworkStart: '2026-02-15' }],
  ])('flags %s on its own', (code, change) => {
    const result = checkCompliance({ ...compliantSheet, ...change });
    expect(result.compliant).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual([code]);
    expect(result.problems[0]!.message).toMatch(/Ley 2494 de 2025/);
  });

  it('applies the territorial limit, not the national one, outside national scope', () => {
    // 4.5 points: over 3 but within 5, fine for a municipality (n = 600 → theoretical 4.001, 0.9× = 3.601).
    expect(checkCompliance({ ...compliantSheet, scope: 'municipality', sampleSize: 600, marginOfError: 4.5 }).compliant).toBe(true);
    expect(checkCompliance({ ...compliantSheet, scope: 'locality', sampleSize: 600, marginOfError: 5 }).compliant).toBe(true);
    expect(checkCompliance({ ...compliantSheet, sampleSize: 600, marginOfError: 4.5 }).problems.map((p) => p.code)).toEqual(['margin_above_national_limit']);
  });

  it('accepts a margin exactly at 0.9 × the theoretical one, and publication on the last fieldwork day', () => {
    const atTolerance = 0.9 * theoreticalMarginOfError(2000, 95);
    expect(checkCompliance({ ...compliantSheet, marginOfError: atTolerance }).compliant).toBe(true);
    expect(checkCompliance({ ...compliantSheet, publishedAt: '2026-02-14', fieldworkStart: '2026-02-14' }).compliant).toBe(true);
  });

  it('lists every problem of a bad sondeo', () => {
    const codes = checkCompliance({ ...compliantSheet, probabilistic: false, sponsor: '', question: '', confidenceLevel: 90, marginOfError: 1 }).problems.map((p) => p.code);
    expect(codes).toEqual(['not_probabilistic', 'confidence_below_95', 'margin_inconsistent_with_sample', 'missing_sponsor', 'missing_question']);
  });

  it('throws on a sheet that cannot describe a poll', () => {
    expect(() => checkCompliance({ ...compliantSheet, fieldworkEnd: '2026-02-30' })).toThrow(RangeError);
    expect(() => checkCompliance({ ...compliantSheet, sampleSize: 0 })).toThrow(RangeError);
    expect(() => checkCompliance({ ...compliantSheet, marginOfError: -1 })).toThrow(RangeError);
  });
});
