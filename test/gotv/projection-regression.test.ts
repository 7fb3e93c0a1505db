import { parseTimeOfDay } from '../../src/modules/gotv/projection/curve';
import { project } from '../../src/modules/gotv/projection/projection';
import { familyDay, type Family } from './families';
import { at, ELECTION_DATE, TIME_ZONE } from './synthetic';

/**
 * Fast regression checks of the projection against the truth on a few seeded synthetic days. The
 * accuracy goals themselves (coverage near nominal over many days, real elections) belong to the
 * report `npm run accuracy:projection` (docs/gotv-projection.md); these only catch a change that
 * breaks what the report measured, on bounds loose enough for a handful of days.
 */

const SEEDS = [1, 2, 3, 4, 5, 6];
const STATIONS = 120;

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

function measured(family: Family, history: boolean, time: string) {
  const minute = parseTimeOfDay(time);
  return SEEDS.map((seed) => {
    const day = familyDay(family, seed, { stations: STATIONS, history });
    const { stations, voterLags, voterVotes } = day.inputsAt(minute);
    const o = project({ now: at(minute), timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve: day.curve, stations, voterLags, voterVotes }).overall;
    const truth = day.finalTurnout;
    return {
      error: Math.abs(o.projectedTurnout! - truth) / truth,
      inside: o.projectedTurnoutLow! <= truth && truth <= o.projectedTurnoutHigh!,
      width: (o.projectedTurnoutHigh! - o.projectedTurnoutLow!) / truth,
    };
  });
}

describe('projection regression on seeded synthetic days', () => {
  it.each<[Family, boolean]>([
    ['default', true],
    ['default', false],
    ['late-surge', true],
    ['flat', false],
  ])('%s (previous turnout: %s) at 14:00: near the truth, and the interval holds it on most days', (family, history) => {
    const rows = measured(family, history, '14:00');
    expect(mean(rows.map((r) => r.error))).toBeLessThan(0.1);
    expect(rows.filter((r) => r.inside).length).toBeGreaterThanOrEqual(SEEDS.length - 1);
    expect(mean(rows.map((r) => r.width))).toBeLessThan(0.45);
  });

  it('the flat-surge day is rescued by the previous turnout (and is not without it)', () => {
    const withLevel = measured('flat-surge', true, '14:00');
    const without = measured('flat-surge', false, '14:00');
    expect(mean(withLevel.map((r) => r.error))).toBeLessThan(0.15);
    expect(mean(without.map((r) => r.error))).toBeGreaterThan(0.25);
  });
});

// Why the flat-surge day is not held to the goals without history: up to 14:00 its curve has an
// ordinary day's shape, yet only 0.40 of its day has voted by then against an ordinary day's 0.71.
it('the flat-surge day up to 14:00 has an ordinary day’s shape and a different level', () => {
  const days = 100;
  const shape = (family: Family, seed: number) => {
    const day = familyDay(family, seed, { stations: 5 });
    const fraction = (minute: number) => mean([0, 1, 2, 3, 4].map((k) => day.trueFraction(`t${k}`, minute)));
    const by14 = fraction(14 * 60);
    return { ratios: [10, 11, 12, 13].map((hour) => fraction(hour * 60) / by14), by14 };
  };
  const ordinary = Array.from({ length: days }, (_, i) => shape('default', i + 1));
  const surging = Array.from({ length: days }, (_, i) => shape('flat-surge', i + 1));
  const range = [0, 1, 2, 3].map((k) => {
    const sorted = ordinary.map((d) => d.ratios[k]!).sort((a, b) => a - b);
    return [sorted[Math.floor(0.025 * days)]!, sorted[Math.ceil(0.975 * days) - 1]!] as const;
  });
  const inside = surging.filter((d) => d.ratios.every((ratio, k) => ratio >= range[k]![0] && ratio <= range[k]![1])).length / days;
  expect(inside).toBeGreaterThan(0.6);
  expect(mean(ordinary.map((d) => d.by14)) / mean(surging.map((d) => d.by14))).toBeGreaterThan(1.6);
});
