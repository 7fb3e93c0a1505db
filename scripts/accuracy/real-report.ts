/**
 * The projection on real elections (scripts/accuracy/real-elections.ts): at each checkpoint, for
 * each input variant the file allows (with or without the previous turnout, with or without the
 * previous election's curve as curve history), the projected final against the truth, and the
 * goals met or not. Calibration elections may be used to choose constants; evaluation elections
 * are only reported.
 */
import { performance } from 'node:perf_hooks';
import { instantAt } from '../../src/kernel/calendar';
import { defaultCurveFor, pollingMinute, type TurnoutCurve } from '../../src/modules/gotv/projection/curve';
import { project, type StationInput } from '../../src/modules/gotv/projection/projection';
import { ADAPTED_DEFAULT_SPREAD, HISTORY_CURVE_SPREAD, type CurveSpread, type LevelSpread } from '../../src/modules/gotv/projection/curve-model';
import { REAL_ELECTIONS, type RealElection, type Role } from './real-elections';

const TIME_ZONE = 'UTC';
const NOMINAL = 0.9;

export interface Variant {
  previous: boolean;
  history: boolean;
}

export interface RealCase {
  election: string;
  role: Role;
  variant: Variant;
  checkpoint: string;
  /** Share of the polling time gone by at the latest counts. */
  elapsed: number;
  projected: number;
  low: number;
  high: number;
  truth: number;
  registered: number;
  /** Per reported territory (region, else the model's territory): whether its interval held its final. */
  territories: { inside: number; total: number };
  warnings: string[];
  ms: number;
  /**
   * Where at least a quarter of the final is in units without a count: the log error of their
   * projected sum and of the counted units', the evidence for the error the unreported share.
   */
  unreported: { share: number; logError: number; reportedLogError: number } | null;
}

export interface RealOptions {
  elections?: string[];
  /** Keep every k-th unit (for quick runs while iterating). */
  every?: number;
  spread?: CurveSpread;
  level?: LevelSpread;
}

const variantName = (v: Variant) => `${v.previous ? 'prev' : 'no prev'}, ${v.history ? 'curve hist' : 'no hist'}`;

function variantsOf(election: RealElection): Variant[] {
  const previous = election.units.some((u) => u.previous !== null) ? [true, false] : [false];
  const history = election.historyCurve ? [true, false] : [false];
  return previous.flatMap((p) => history.map((h) => ({ previous: p, history: h })));
}

function runElection(election: RealElection, options: RealOptions): RealCase[] {
  const every = options.every ?? 1;
  const units = election.units.filter((_, i) => i % every === 0);
  const cases: RealCase[] = [];
  const at = (minute: number) => instantAt(election.date, minute, TIME_ZONE);
  for (const variant of variantsOf(election)) {
    const shape: TurnoutCurve =
      variant.history && election.historyCurve ? { opensAt: election.opensAt, closesAt: election.closesAt, points: election.historyCurve } : defaultCurveFor(election.periods);
    // The counts are on the wall clock; the pauses (the nights) make it polling time.
    const pauses = defaultCurveFor(election.periods).pauses;
    const curve: TurnoutCurve = pauses ? { ...shape, pauses } : shape;
    for (const checkpoint of election.checkpoints) {
      const stations: StationInput[] = units.map((u) => ({
        id: u.id,
        territoryId: u.territoryId,
        registeredVoters: u.registered,
        confirmedVoters: 0,
        confirmedVoted: 0,
        previousTurnout: variant.previous ? u.previous : null,
        counts: u.counts.filter((c) => c.minute <= checkpoint.countsAt).map((c) => ({ votersSoFar: c.voters, reportedAt: at(c.minute) })),
      }));
      const started = performance.now();
      const result = project({
        now: at(checkpoint.at),
        timeZone: TIME_ZONE,
        electionDate: election.date,
        curve,
        curveSource: variant.history ? 'history' : 'default',
        // As the settings make it (dayPrior): a one-day curve history, or the default on other hours, brings its spread.
        spread: options.spread ?? (variant.history ? HISTORY_CURVE_SPREAD : ADAPTED_DEFAULT_SPREAD),
        ...(options.level ? { level: options.level } : {}),
        stations,
      });
      const ms = performance.now() - started;
      const o = result.overall;
      // Territories reported on: the region where the file names it, else the model's territory.
      const groups = new Map<string, { truth: number; projected: number; low: number; high: number }>();
      result.stations.forEach((s, i) => {
        const unit = units[i]!;
        const key = unit.region ?? unit.territoryId ?? '';
        const g = groups.get(key) ?? { truth: 0, projected: 0, low: 0, high: 0 };
        g.truth += unit.final;
        g.projected += s.projectedTurnout ?? 0;
        groups.set(key, g);
      });
      // A region's interval is its stations' territories' intervals where they coincide; otherwise
      // the sum of its model territories' bounds (comonotone: their curve error is shared).
      const territoryBounds = new Map(result.byTerritory.map((t) => [t.territoryId ?? '', t]));
      for (const [key, g] of groups) {
        const members = new Set(units.filter((u) => (u.region ?? u.territoryId ?? '') === key).map((u) => u.territoryId ?? ''));
        for (const m of members) {
          const t = territoryBounds.get(m);
          g.low += t?.projectedTurnoutLow ?? 0;
          g.high += t?.projectedTurnoutHigh ?? 0;
        }
      }
      const inside = [...groups.values()].filter((g) => g.low <= g.truth && g.truth <= g.high).length;
      const sums = { unreported: { projected: 0, truth: 0 }, reported: { projected: 0, truth: 0 } };
      result.stations.forEach((s, i) => {
        const sum = stations[i]!.counts.length ? sums.reported : sums.unreported;
        sum.projected += s.projectedTurnout ?? 0;
        sum.truth += units[i]!.final;
      });
      const unreportedShare = sums.unreported.truth / Math.max(1, sums.unreported.truth + sums.reported.truth);
      cases.push({
        election: election.id,
        role: election.role,
        variant,
        checkpoint: checkpoint.label,
        elapsed: (pollingMinute(curve, checkpoint.countsAt) - election.opensAt) / (election.closesAt - election.opensAt),
        projected: o.projectedTurnout ?? Number.NaN,
        low: o.projectedTurnoutLow ?? Number.NaN,
        high: o.projectedTurnoutHigh ?? Number.NaN,
        truth: units.reduce((sum, u) => sum + u.final, 0),
        registered: o.registeredVoters,
        territories: { inside, total: groups.size },
        warnings: result.warnings,
        ms,
        unreported:
          unreportedShare >= 0.25 && sums.reported.truth > 0
            ? {
                share: unreportedShare,
                logError: Math.log(sums.unreported.projected / sums.unreported.truth),
                reportedLogError: Math.log(sums.reported.projected / sums.reported.truth),
              }
            : null,
      });
    }
  }
  return cases;
}

export function runReal(options: RealOptions = {}): RealCase[] {
  const names = options.elections ?? Object.keys(REAL_ELECTIONS);
  const cases: RealCase[] = [];
  for (const name of names) {
    const load = REAL_ELECTIONS[name];
    if (!load) throw new Error(`unknown election ${name}; known: ${Object.keys(REAL_ELECTIONS).join(', ')}`);
    for (const election of load()) {
      cases.push(...runElection(election, options));
      process.stderr.write(`${election.id} done\n`);
    }
  }
  return cases;
}

const pct = (value: number, digits = 1) => (Number.isFinite(value) ? (100 * value).toFixed(digits) : '—');
const isInside = (c: RealCase) => c.low <= c.truth && c.truth <= c.high;
const errorOf = (c: RealCase) => c.projected / c.truth - 1;

/** The table of cases and the goals, as Markdown. */
export function realReport(cases: RealCase[]): string {
  const lines: string[] = [];
  lines.push('| election | role | inputs | checkpoint | elapsed | projected % [90 % interval] | truth % | error | inside | width | territories inside | ms |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    const share = (value: number) => pct(value / c.registered);
    lines.push(
      `| ${c.election} | ${c.role} | ${variantName(c.variant)} | ${c.checkpoint} | ${pct(c.elapsed, 0)} % | ${share(c.projected)} [${share(c.low)}–${share(c.high)}] | ${share(c.truth)} | ${errorOf(c) >= 0 ? '+' : ''}${pct(errorOf(c))} % | ${isInside(c) ? 'yes' : 'no'} | ${pct((c.high - c.low) / c.truth)} % | ${c.territories.inside}/${c.territories.total} | ${c.ms.toFixed(0)} |`,
    );
  }
  lines.push('');
  lines.push('Error: projected ÷ truth − 1; width: interval ÷ truth; elapsed: share of the polling time at the latest counts.');
  lines.push('');
  const goal = (met: boolean, text: string) => lines.push(`- ${met ? 'MET' : 'NOT MET'}: ${text}`);
  for (const role of ['evaluation', 'calibration'] as const) {
    const of = cases.filter((c) => c.role === role);
    if (of.length === 0) continue;
    const coverage = of.filter(isInside).length / of.length;
    const meanWidth = of.reduce((sum, c) => sum + (c.high - c.low) / c.truth, 0) / of.length;
    lines.push(`${role === 'evaluation' ? 'Evaluation' : 'Calibration'} elections (${of.length} cases):`);
    if (role === 'evaluation') goal(coverage >= 0.85, `truth inside the 90 % interval in ≥ 85 % of cases: ${pct(coverage)} % (mean width ${pct(meanWidth)} % of the truth)`);
    else
      goal(
        coverage <= NOMINAL + 0.05 && coverage >= 0.85,
        `coverage within 85–95 % (not hiding in wide intervals): ${pct(coverage)} % (mean width ${pct(meanWidth)} % of the truth)`,
      );
    const late = of.filter((c) => c.elapsed >= 0.7);
    const withHist = late.filter((c) => c.variant.history);
    const without = late.filter((c) => !c.variant.history);
    const worst = (list: RealCase[]) => (list.length ? Math.max(...list.map((c) => Math.abs(errorOf(c)))) : Number.NaN);
    if (withHist.length) goal(worst(withHist) <= 0.05, `|error| ≤ 5 % with curve history at ≥ 70 % elapsed: worst ${pct(worst(withHist))} % over ${withHist.length} cases`);
    if (without.length) goal(worst(without) <= 0.08, `|error| ≤ 8 % without curve history at ≥ 70 % elapsed: worst ${pct(worst(without))} % over ${without.length} cases`);
    if (!late.length) lines.push('- no checkpoint at ≥ 70 % of the polling time');
    const lastCheckpoints = of.filter((c) => c.checkpoint === cases.filter((d) => d.election === c.election).at(-1)!.checkpoint);
    const territoriesInside = lastCheckpoints.reduce((sum, c) => sum + c.territories.inside, 0);
    const territoriesTotal = lastCheckpoints.reduce((sum, c) => sum + c.territories.total, 0);
    goal(
      territoriesInside >= 0.8 * territoriesTotal,
      `per territory at the late checkpoint, truth inside in ≥ 80 %: ${pct(territoriesInside / Math.max(1, territoriesTotal))} % (${territoriesInside}/${territoriesTotal})`,
    );
    const sparse = of.flatMap((c) => (c.unreported ? [c.unreported.logError - c.unreported.reportedLogError] : []));
    if (sparse.length)
      lines.push(
        `- Stations without a count against those with one (log error of their projected sums, where they hold ≥ 25 % of the final): rms ${Math.sqrt(sparse.reduce((sum, d) => sum + d * d, 0) / sparse.length).toFixed(3)} over ${sparse.length} cases (${sparse.map((d) => (d >= 0 ? '+' : '') + d.toFixed(2)).join(', ')}).`,
      );
    lines.push('');
  }
  return lines.join('\n');
}
