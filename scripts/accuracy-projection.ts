/**
 * The projection's accuracy report (docs/gotv-projection.md).
 *
 * `--suite real` (the default): real elections (scripts/accuracy/real-elections.ts), calibration and
 * evaluation, every input variant the file allows, and the goals met or not:
 *
 *   npm run accuracy:projection -- [--elections it-politiche-2022,romania] [--every K] [--json]
 *
 * `--suite calibrate`: what the calibration elections say about the spreads (scripts/accuracy/calibrate.ts).
 * `--every K` keeps every K-th unit (quick runs while iterating; the report is made with all).
 *
 * `--suite synthetic`: for every family of synthetic days
 * (test/gotv/families.ts), the share of days whose true final lies inside the interval (coverage,
 * nominal 0.9), the mean absolute error and the mean interval width, at each checkpoint, for the
 * turnout, the confirmed supporters and each territory's turnout; and the time project() takes.
 *
 *   npm run accuracy:projection -- [--days 200] [--families default,late-surge] [--stations 300]
 *                                  [--history with,without] [--level daySd,territorySd,stationSd]
 *                                  [--spread tiltSd,wiggleSd,wiggleHourCorrelation,territoryTiltSd,driftSd,futureSd,openingWiggleSd,curvatureSd]
 *                                  [--curve-history N] [--no-flow] [--json]
 *
 * `--history`: the days with the stations' previous turnout, without it, or both (the default).
 * `--curve-history N`: the campaign keeps N past days' curves (ordinary days: test/gotv/families.ts,
 * pastDayCurves), and the prior (its curve and spread) is made from them as the settings would
 * make it; `--spread` then only overrides the spreads it names.
 * `--no-flow`: the projection without the supporters' flow (their vote times), to compare.
 * `--json` prints the measures (or the real cases) instead of the table.
 */
import { performance } from 'node:perf_hooks';
import { parseTimeOfDay } from '../src/modules/gotv/projection/curve';
import { dayPrior, MAX_HISTORY_CURVES } from '../src/modules/gotv/projection/curve-history';
import { DEFAULT_CURVE_SPREAD, DEFAULT_LEVEL_SPREAD, type CurveSpread, type LevelSpread } from '../src/modules/gotv/projection/curve-model';
import { project } from '../src/modules/gotv/projection/projection';
import { CHECKPOINTS, FAMILIES, familyDay, pastDayCurves, type Family } from '../test/gotv/families';
import { at, ELECTION_DATE, TIME_ZONE } from '../test/gotv/synthetic';
import { calibrationReport } from './accuracy/calibrate';
import { realReport, runReal } from './accuracy/real-report';

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const suite = argument('suite') ?? 'real';
if (suite !== 'real' && suite !== 'synthetic' && suite !== 'calibrate') throw new Error(`--suite takes real, calibrate or synthetic; got ${suite}`);

const days = Number(argument('days') ?? 200);
const stationCount = Number(argument('stations') ?? 300);
const asJson = process.argv.includes('--json');
const withoutFlow = process.argv.includes('--no-flow');
const families = (argument('families')?.split(',') ?? [...FAMILIES]) as Family[];
for (const family of families) if (!FAMILIES.includes(family)) throw new Error(`unknown family ${family}; known: ${FAMILIES.join(', ')}`);
const histories = (argument('history')?.split(',') ?? ['with', 'without']).map((value) => {
  if (value !== 'with' && value !== 'without') throw new Error(`--history takes with, without or both; got ${value}`);
  return value === 'with';
});
const curveHistoryDays = Number(argument('curve-history') ?? 0);
if (!Number.isInteger(curveHistoryDays) || curveHistoryDays < 0 || curveHistoryDays > MAX_HISTORY_CURVES) {
  throw new Error(`--curve-history takes a whole number of past days from 0 to ${MAX_HISTORY_CURVES}; got ${argument('curve-history')}`);
}
const [tiltSd, wiggleSd, wiggleHourCorrelation, territoryTiltSd, driftSd, futureSd, openingWiggleSd, curvatureSd] = (argument('spread')?.split(',') ?? []).map((value) =>
  value === '' ? undefined : Number(value),
);
/** The spreads `--spread` names over `base` (the default, or the one the curve history makes). */
function spreadOver(base: CurveSpread): CurveSpread {
  return {
    tiltSd: tiltSd ?? base.tiltSd,
    wiggleSd: wiggleSd ?? base.wiggleSd,
    openingWiggleSd: openingWiggleSd ?? base.openingWiggleSd,
    wiggleHourCorrelation: wiggleHourCorrelation ?? base.wiggleHourCorrelation,
    territoryTiltSd: territoryTiltSd ?? base.territoryTiltSd,
    driftSd: driftSd ?? base.driftSd,
    futureSd: futureSd ?? base.futureSd,
    ...(curvatureSd !== undefined || base.curvatureSd !== undefined ? { curvatureSd: curvatureSd ?? base.curvatureSd } : {}),
  };
}
const spread = spreadOver(DEFAULT_CURVE_SPREAD);
const [daySd, territorySd, stationSd] = (argument('level')?.split(',') ?? []).map(Number);
const level: LevelSpread = {
  daySd: daySd ?? DEFAULT_LEVEL_SPREAD.daySd,
  territorySd: territorySd ?? DEFAULT_LEVEL_SPREAD.territorySd,
  stationSd: stationSd ?? DEFAULT_LEVEL_SPREAD.stationSd,
};

/** One kind of interval at one checkpoint, over the days: coverage, mean absolute error and mean width (shares of the truth). */
export interface Measure {
  n: number;
  coverage: number;
  meanAbsoluteError: number;
  meanWidth: number;
}

export interface FamilyAccuracy {
  family: Family;
  /** Whether the stations carried their previous turnout. */
  history: boolean;
  checkpoints: { time: string; turnout: Measure; confirmed: Measure; territories: Measure }[];
  /** Share of days whose turnout interval narrowed at every checkpoint. */
  narrowingDays: number;
}

class Tally {
  private n = 0;
  private covered = 0;
  private error = 0;
  private width = 0;

  record(truth: number, projected: number | null, low: number | null, high: number | null): void {
    if (projected === null || low === null || high === null || truth <= 0) return;
    this.n += 1;
    if (low <= truth && truth <= high) this.covered += 1;
    this.error += Math.abs(projected - truth) / truth;
    this.width += (high - low) / truth;
  }

  measure(): Measure {
    const n = Math.max(1, this.n);
    return { n: this.n, coverage: this.covered / n, meanAbsoluteError: this.error / n, meanWidth: this.width / n };
  }
}

const fitTimes: number[] = [];

function measureFamily(family: Family, history: boolean): FamilyAccuracy {
  const turnout = CHECKPOINTS.map(() => new Tally());
  const confirmed = CHECKPOINTS.map(() => new Tally());
  const territories = CHECKPOINTS.map(() => new Tally());
  let narrowing = 0;
  for (let seed = 1; seed <= days; seed++) {
    const day = familyDay(family, seed, { stations: stationCount, history });
    const prior = curveHistoryDays > 0 ? dayPrior({ opensAt: '08:00', closesAt: '16:00', turnoutCurve: null, curveHistory: pastDayCurves(seed, curveHistoryDays) }) : null;
    const widths: number[] = [];
    CHECKPOINTS.forEach((time, i) => {
      const minute = parseTimeOfDay(time);
      const { stations, voterLags, voterVotes } = day.inputsAt(minute);
      const started = performance.now();
      const result = project({
        now: at(minute),
        timeZone: TIME_ZONE,
        electionDate: ELECTION_DATE,
        curve: prior?.curve ?? day.curve,
        spread: prior ? spreadOver(prior.spread) : spread,
        level,
        stations,
        voterLags,
        ...(withoutFlow ? {} : { voterVotes }),
      });
      fitTimes.push(performance.now() - started);
      const o = result.overall;
      turnout[i]!.record(day.finalTurnout, o.projectedTurnout, o.projectedTurnoutLow, o.projectedTurnoutHigh);
      confirmed[i]!.record(day.finalConfirmedVoted, o.projectedConfirmedVoted, o.low, o.high);
      for (const t of result.byTerritory) {
        const truth = day.territoryFinals.get(t.territoryId ?? '');
        if (truth) territories[i]!.record(truth.turnout, t.projectedTurnout, t.projectedTurnoutLow, t.projectedTurnoutHigh);
      }
      widths.push((o.projectedTurnoutHigh ?? 0) - (o.projectedTurnoutLow ?? 0));
    });
    if (widths.every((w, i) => i === 0 || w < widths[i - 1]!)) narrowing += 1;
  }
  return {
    family,
    history,
    checkpoints: CHECKPOINTS.map((time, i) => ({ time, turnout: turnout[i]!.measure(), confirmed: confirmed[i]!.measure(), territories: territories[i]!.measure() })),
    narrowingDays: narrowing / days,
  };
}

function synthetic(): void {
  const results: FamilyAccuracy[] = [];
  for (const history of histories) {
    for (const family of families) {
      results.push(measureFamily(family, history));
      if (!asJson) process.stderr.write(`${family} ${history ? 'with' : 'without'} history done\n`);
    }
  }

  if (asJson) {
    console.log(JSON.stringify(results));
  } else {
    const pct = (value: number) => (100 * value).toFixed(1);
    const sorted = [...fitTimes].sort((a, b) => a - b);
    const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
    console.log(
      curveHistoryDays > 0
        ? `Curve and spread from ${curveHistoryDays} past days' curves (overrides: ${argument('spread') ?? 'none'}); level spread ${JSON.stringify(level)}.`
        : `Curve spread ${JSON.stringify(spread)}; level spread ${JSON.stringify(level)}.`,
    );
    console.log(`${days} days per family, ${stationCount} stations; nominal coverage 0.90. Errors and widths in % of the true final.\n`);
    console.log(
      '| family | history | time | turnout coverage | MAE % | width % | confirmed coverage | MAE % | width % | territory coverage | territory MAE % | days narrowing 10→15 % |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const { family, history, checkpoints, narrowingDays } of results) {
      checkpoints.forEach(({ time, turnout: t, confirmed: c, territories: k }, i) => {
        const cells = [
          t.coverage.toFixed(2),
          pct(t.meanAbsoluteError),
          pct(t.meanWidth),
          c.coverage.toFixed(2),
          pct(c.meanAbsoluteError),
          pct(c.meanWidth),
          k.coverage.toFixed(2),
          pct(k.meanAbsoluteError),
        ];
        console.log(`| ${i === 0 ? family : ''} | ${i === 0 ? (history ? 'yes' : 'no') : ''} | ${time} | ${cells.join(' | ')} | ${i === 0 ? pct(narrowingDays) : ''} |`);
      });
    }
    console.log(`\nproject() for ${stationCount} stations (fit included): median ${quantile(0.5)} ms, p95 ${quantile(0.95)} ms, max ${quantile(1)} ms.`);
  }
}

if (suite === 'calibrate') console.log(calibrationReport());
else if (suite === 'real') {
  const every = Number(argument('every') ?? 1);
  const cases = runReal({ elections: argument('elections')?.split(','), every, spread: argument('spread') ? spread : undefined, level: argument('level') ? level : undefined });
  console.log(asJson ? JSON.stringify(cases) : realReport(cases));
} else synthetic();
