import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { FamilyAccuracy } from '../../scripts/accuracy-projection';
import { CHECKPOINTS, FAMILIES, familyDay, type Family } from './families';

/**
 * The projection against the truth on families of synthetic days (test/gotv/families.ts): a small
 * seeded sample of what `npm run accuracy:projection` runs over 200 days per family
 * (docs/gotv-projection.md has that table), with the stations' previous turnout (every family) and
 * without it (the families the model meets without it). Goals: coverage near the nominal 0.9 from
 * 12:00 on, point error at 14:00 within 10 %, intervals narrowing through the day.
 *
 * The days are measured by the accuracy script itself, in child processes at once (with and
 * without history, and two short runs with a curve history), so that two cores share the work. With 24 days a family, coverage pooled over 12:00–15:00 (96
 * intervals, about 24 independent days' worth) is asserted within [0.8, 0.98]: the nominal ±5
 * points widened by the sample's own noise, narrow enough that intervals that always cover, or
 * cover three times in four, fail.
 */

const DAYS = 24;
const STATIONS = 240;
const NOMINAL = 0.9;

/** Families whose goals are met without the stations' previous turnout too (the others need the level it gives). */
const WITHOUT_HISTORY: Family[] = [
  'default',
  'early-surge',
  'late-surge',
  'flat',
  'territory-curves',
  'silent-stations',
  'counts-stop-at-noon',
  'delayed-voter-reports',
  'brigade-push',
];

/** Ordinary days measured again with a campaign's curve history of CURVE_HISTORY_DAYS past days. */
const CURVE_HISTORY_FAMILIES: Family[] = ['default', 'flat', 'delayed-voter-reports'];
const CURVE_HISTORY_DAYS = 8;

let withHistory: Map<Family, FamilyAccuracy>;
let withoutHistory: Map<Family, FamilyAccuracy>;
let withCurveHistory: Map<Family, FamilyAccuracy>;
let curveHistoryOnly: Map<Family, FamilyAccuracy>;

async function measure(history: 'with' | 'without', families: readonly Family[], extra: string[] = []): Promise<Map<Family, FamilyAccuracy>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/accuracy-projection.ts',
      '--json',
      '--days',
      String(DAYS),
      '--stations',
      String(STATIONS),
      '--history',
      history,
      '--families',
      families.join(','),
      ...extra,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return new Map((JSON.parse(stdout) as FamilyAccuracy[]).map((r) => [r.family, r]));
}

beforeAll(async () => {
  // Two children at once: the machine running CI has at least two cores (the last two are short).
  [withHistory, withoutHistory, withCurveHistory, curveHistoryOnly] = await Promise.all([
    measure('with', FAMILIES),
    measure('without', WITHOUT_HISTORY),
    measure('with', CURVE_HISTORY_FAMILIES, ['--curve-history', String(CURVE_HISTORY_DAYS)]),
    measure('without', ['default'], ['--curve-history', String(CURVE_HISTORY_DAYS)]),
  ]);
}, 240_000);

const fromNoon = (r: FamilyAccuracy) => r.checkpoints.filter((c) => c.time >= '12:00');
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const at = (r: FamilyAccuracy, time: string) => r.checkpoints.find((c) => c.time === time)!;

function expectCalibrated(coverage: number): void {
  expect(coverage).toBeGreaterThanOrEqual(NOMINAL - 0.1);
  expect(coverage).toBeLessThanOrEqual(0.98);
}

function expectNarrowing(widths: number[]): void {
  for (let i = 1; i < widths.length; i++) expect(widths[i]!).toBeLessThan(widths[i - 1]!);
}

const turnoutWidths = (r: FamilyAccuracy) => r.checkpoints.map((c) => c.turnout.meanWidth);

function expectTurnoutGoals(r: FamilyAccuracy): void {
  expectCalibrated(mean(fromNoon(r).map((c) => c.turnout.coverage)));
  expect(at(r, '14:00').turnout.meanAbsoluteError).toBeLessThanOrEqual(0.1);
  expectNarrowing(turnoutWidths(r));
}

function expectConfirmedGoals(r: FamilyAccuracy): void {
  expectCalibrated(mean(fromNoon(r).map((c) => c.confirmed.coverage)));
  expect(at(r, '14:00').confirmed.meanAbsoluteError).toBeLessThanOrEqual(0.1);
}

/**
 * Counts that stop at noon: calibrated, and narrowing until noon. After noon only the supporters'
 * flow tells the afternoon's shape (no count says how many voted), so the band may narrow or hold.
 */
function expectStoppedCountsGoals(r: FamilyAccuracy): void {
  expectCalibrated(mean(fromNoon(r).map((c) => c.turnout.coverage)));
  expectCalibrated(mean(fromNoon(r).map((c) => c.confirmed.coverage)));
  const widths = turnoutWidths(r);
  expectNarrowing(widths.slice(0, CHECKPOINTS.indexOf('12:00') + 1));
}

describe('projection accuracy on families of synthetic days', () => {
  it('measures every checkpoint of every family', () => {
    expect([...withHistory.keys()]).toEqual([...FAMILIES]);
    expect([...withoutHistory.keys()]).toEqual(WITHOUT_HISTORY);
    expect([...withCurveHistory.keys()]).toEqual(CURVE_HISTORY_FAMILIES);
    for (const r of [...withHistory.values(), ...withoutHistory.values(), ...withCurveHistory.values(), ...curveHistoryOnly.values()]) {
      expect(r.checkpoints.map((c) => c.time)).toEqual([...CHECKPOINTS]);
      for (const c of fromNoon(r)) expect(c.turnout.n).toBe(DAYS);
    }
  });

  describe('stations with their previous turnout', () => {
    const of = (family: Family) => withHistory.get(family)!;
    // Goals not met, asserted as they stand (`failing` fails once the goal is reached, to be promoted):
    // on these ordinary days (nearly) every interval of the sample holds the truth (pooled coverage above
    // 0.98), as the prior that lets the level pull the unseen part of the day (λ) widens them; on issue
    // 15's day the band holds its width from 13:00 to 14:00 (the level insists on a surge still to come).
    // docs/gotv-projection.md, "Where it falls short".
    const notMet = new Set([
      'early-surge:turnout',
      'late-surge:turnout',
      'late-surge:confirmed',
      'flat:turnout',
      'territory-curves:turnout',
      'territory-curves:confirmed',
      'delayed-voter-reports:turnout',
      'issue-15:turnout',
    ]);
    const test = (family: Family, what: string) => (notMet.has(`${family}:${what}`) ? it.failing : it);

    describe.each<Family>(FAMILIES.filter((f) => f !== 'counts-stop-at-noon'))('%s', (family) => {
      test(family, 'turnout')('turnout: coverage near nominal from 12:00, error at 14:00 within 10 %, intervals narrowing', () => expectTurnoutGoals(of(family)));
      // Supporters brought in by brigades vote when the brigades bring them, which no curve foretells:
      // that family checks that their flow does not move the turnout's curve, not the supporters' projection.
      if (family !== 'brigade-push') {
        test(family, 'confirmed')('confirmed supporters: coverage near nominal from 12:00, error at 14:00 within 10 %', () => expectConfirmedGoals(of(family)));
      }
    });

    it('territories with different curves: each territory’s interval holds its final near the nominal rate', () => {
      expectCalibrated(mean(fromNoon(of('territory-curves')).map((c) => c.territories.coverage)));
    });

    it.failing('counts that stop at noon: calibrated (over-covers: 1.00), and the interval narrows until noon', () => expectStoppedCountsGoals(of('counts-stop-at-noon')));

    // The same days again, the campaign keeping eight ordinary past days' curves: λ's scale and the
    // drift learned from how far those days' afternoons strayed from their mornings.
    it.each(CURVE_HISTORY_FAMILIES)('%s, with a curve history of ordinary days: nearer the truth, narrower, and still holding it', (family) => {
      const learned = withCurveHistory.get(family)!;
      const fixed = of(family);
      expect(at(learned, '14:00').turnout.meanAbsoluteError).toBeLessThan(0.9 * at(fixed, '14:00').turnout.meanAbsoluteError);
      expect(at(learned, '14:00').turnout.meanWidth).toBeLessThan(0.85 * at(fixed, '14:00').turnout.meanWidth);
      expect(mean(fromNoon(learned).map((c) => c.turnout.coverage))).toBeGreaterThanOrEqual(NOMINAL - 0.1);
      expectNarrowing(turnoutWidths(learned));
    });
  });

  describe('stations without their previous turnout (the model as it was before history)', () => {
    const of = (family: Family) => withoutHistory.get(family)!;

    // Not met, as above: silent stations' turnout intervals all hold the truth in this sample (0.96
    // pooled over 200 days, 0.99 at 12:00).
    const test = (family: Family, what: string) => (`${family}:${what}` === 'silent-stations:turnout' ? it.failing : it);
    describe.each<Family>(['default', 'early-surge', 'late-surge', 'territory-curves', 'silent-stations', 'delayed-voter-reports'])('%s', (family) => {
      test(family, 'turnout')('turnout: coverage near nominal from 12:00, error at 14:00 within 10 %, intervals narrowing', () => expectTurnoutGoals(of(family)));
      test(family, 'confirmed')('confirmed supporters: coverage near nominal from 12:00, error at 14:00 within 10 %', () => expectConfirmedGoals(of(family)));
    });

    it('territories with different curves: each territory’s interval holds its final near the nominal rate', () => {
      expectCalibrated(mean(fromNoon(of('territory-curves')).map((c) => c.territories.coverage)));
    });

    // Over-covers (0.99 pooled in this sample, 0.975 over 200 days): the supporters' flow tells the afternoon's shape, not its level.
    it.failing('counts that stop at noon: calibrated, and the interval narrows until noon', () => expectStoppedCountsGoals(of('counts-stop-at-noon')));

    it('supporters brought in by brigades: the turnout’s goals hold (their votes are left out of the flow)', () => expectTurnoutGoals(of('brigade-push')));

    // With eight ordinary past days' curves the prior's spread is theirs, not the default's wider one:
    // an ordinary day's intervals come nearer the nominal coverage (0.90–0.92 over 200 days, against 0.96–0.97).
    it('default day with a curve history of ordinary days: the goals hold, nearer the nominal coverage', () => {
      const learned = curveHistoryOnly.get('default')!;
      expectTurnoutGoals(learned);
      const miss = (r: FamilyAccuracy) => Math.abs(mean(fromNoon(r).map((c) => c.turnout.coverage)) - NOMINAL);
      expect(miss(learned)).toBeLessThan(miss(of('default')));
      expect(at(learned, '14:00').turnout.meanWidth).toBeLessThan(at(of('default'), '14:00').turnout.meanWidth);
    });

    // A flat day's strong first hour is the opening hour's own spread (openingWiggleSd), not the whole
    // day running early. Lunch-dip and issue-15 are not run without history: counts' ratios alone
    // cannot tell them from an ordinary day, which is what the previous turnout is for.
    it('flat day: turnout coverage near nominal from 12:00, error at 14:00 within 10 %, intervals narrowing', () => expectTurnoutGoals(of('flat')));

    // Why issue 15's day is not held to the goals without history: up to 14:00 its curve has an
    // ordinary day's shape (each hour's share of what has voted by 14:00 inside the default days'
    // central 95 %, on most days), yet only 0.40 of its day has voted by then against their 0.71.
    // Even a method that saw the true curve up to 14:00 would have to put both days' finals at nearly
    // the same multiple of the counts, whose right values differ 1.76-fold.
    it('issue 15’s day up to 14:00 has an ordinary day’s shape and a different level', () => {
      const days = 100;
      const shape = (family: Family, seed: number) => {
        const day = familyDay(family, seed, { stations: 5 });
        const fraction = (minute: number) => mean([0, 1, 2, 3, 4].map((k) => day.trueFraction(`t${k}`, minute)));
        const by14 = fraction(14 * 60);
        return { ratios: [10, 11, 12, 13].map((hour) => fraction(hour * 60) / by14), by14 };
      };
      const ordinary = Array.from({ length: days }, (_, i) => shape('default', i + 1));
      const surging = Array.from({ length: days }, (_, i) => shape('issue-15', i + 1));
      const range = [0, 1, 2, 3].map((k) => {
        const sorted = ordinary.map((d) => d.ratios[k]!).sort((a, b) => a - b);
        return [sorted[Math.floor(0.025 * days)]!, sorted[Math.ceil(0.975 * days) - 1]!] as const;
      });
      const inside = surging.filter((d) => d.ratios.every((ratio, k) => ratio >= range[k]![0] && ratio <= range[k]![1])).length / days;
      expect(inside).toBeGreaterThan(0.6);
      expect(mean(ordinary.map((d) => d.by14)) / mean(surging.map((d) => d.by14))).toBeGreaterThan(1.6);
    });
  });
});
