/**
 * What the calibration elections say about the projection's spreads (docs/gotv-projection.md, "Spreads
 * from real days"): how far the level moves between comparable elections (the previous turnout's
 * spreads: the day's, a territory's and a unit's log ratio), how far territories' turnout rates stray
 * from the overall one, and how far the day's shape moves against the previous election's curve
 * (the curve history): the log odds of the share voted by each reading against the history's, and
 * each territory's against the day's, each unit's against its territory's; and, for days read every
 * hour, the day's tilt against the default adapted to its hours (the prior without a curve
 * history). Evaluation elections are never read here.
 *
 *   npm run accuracy:projection -- --suite calibrate
 */
import { defaultCurveFor, fractionAt, pollingMinute } from '../../src/modules/gotv/projection/curve';
import { spreadFromHistory } from '../../src/modules/gotv/projection/curve-history';
import { CURVE_MODEL, curvatureOf, curveGrid, isOpeningBin, type CurveSpread } from '../../src/modules/gotv/projection/curve-model';
import { REAL_ELECTIONS, type RealElection } from './real-elections';

const CALIBRATION = ['it-europee-2024', 'romania', 'philadelphia'];

const rms = (values: number[]) => Math.sqrt(values.reduce((sum, v) => sum + v * v, 0) / Math.max(1, values.length));
const logit = (p: number) => Math.log(p / (1 - p));

/** Weighted sd around the weighted mean. */
function spread(values: { value: number; weight: number }[]): number {
  const total = values.reduce((sum, v) => sum + v.weight, 0);
  const mean = values.reduce((sum, v) => sum + v.weight * v.value, 0) / total;
  return Math.sqrt(values.reduce((sum, v) => sum + v.weight * (v.value - mean) ** 2, 0) / total);
}

interface Measures {
  election: string;
  dayLevel: number | null;
  territoryLevelSd: number | null;
  unitLevelSd: number | null;
  territoryRateSd: number | null;
  shape: { reading: number; elapsed: number; logOdds: number }[];
  territoryShapeSd: number | null;
  /** Log odds of a unit's share voted against its territory's at the same reading, rms weighted by registered voters. */
  unitShapeSd: number | null;
  /**
   * The day's tilt against the adapted default: over every bin, and over the bins after the first
   * hour (the opening wiggle's); and, after the first hour, its curvature beside its tilt (the
   * coefficient of `curvatureOf(x)`, fitted jointly with a tilt and a level).
   */
  dayTilt: { all: number; afterFirstHour: number; curvature: number } | null;
}

/** Every minute a count was read at, across the units, in order. */
function readingsOf(units: RealElection['units']): number[] {
  return [...new Set(units.flatMap((u) => u.counts.map((c) => c.minute)))].sort((a, b) => a - b);
}

/** The units' share of their final voted at a reading. */
function shareVotedAt(units: RealElection['units'], minute: number): number {
  return units.reduce((sum, u) => sum + (u.counts.find((c) => c.minute === minute)?.voters ?? 0), 0) / units.reduce((sum, u) => sum + u.final, 0);
}

/** Read at least every hour from opening (a day's bins can be told apart). */
function readHourly(opensAt: number, readings: number[]): boolean {
  return readings.every((minute, i) => minute - (i === 0 ? opensAt : readings[i - 1]!) <= 60);
}

/** Least-squares slope of `values` on `positions` (with an intercept). */
function slope(positions: number[], values: number[]): number {
  const meanX = positions.reduce((sum, x) => sum + x, 0) / positions.length;
  const meanY = values.reduce((sum, y) => sum + y, 0) / values.length;
  let sxy = 0;
  let sxx = 0;
  positions.forEach((x, i) => {
    sxy += (x - meanX) * (values[i]! - meanY);
    sxx += (x - meanX) ** 2;
  });
  return sxy / sxx;
}

/** Least-squares coefficients of `values` on an intercept, `positions` and `curvatures` (returned: slope, curvature). */
function slopeAndCurvature(positions: number[], curvatures: number[], values: number[]): { slope: number; curvature: number } {
  const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const [mx, mq, my] = [mean(positions), mean(curvatures), mean(values)];
  let sxx = 0;
  let sqq = 0;
  let sxq = 0;
  let sxy = 0;
  let sqy = 0;
  positions.forEach((x, i) => {
    const [dx, dq, dy] = [x - mx, curvatures[i]! - mq, values[i]! - my];
    sxx += dx * dx;
    sqq += dq * dq;
    sxq += dx * dq;
    sxy += dx * dy;
    sqy += dq * dy;
  });
  const det = sxx * sqq - sxq * sxq;
  return { slope: (sqq * sxy - sxq * sqy) / det, curvature: (sxx * sqy - sxq * sxy) / det };
}

/**
 * The day's tilt against the default adapted to its hours, as the model's tilt reads it: the log
 * share of each bin against the prior's, regressed on the bin's position in the day. Only for days
 * read every hour at least (linear between readings further apart says nothing about the bins).
 */
function dayTiltOf(election: RealElection, readings: number[], shareAt: (minute: number) => number): Measures['dayTilt'] {
  if (!readHourly(election.periods[0]!.opensAt, readings)) return null;
  const prior = defaultCurveFor(election.periods);
  const day = {
    opensAt: prior.opensAt,
    closesAt: prior.closesAt,
    points: [
      { minute: prior.opensAt, fraction: 0 },
      ...readings.map((minute) => ({ minute: pollingMinute(prior, minute), fraction: shareAt(minute) })),
      { minute: prior.closesAt, fraction: 1 },
    ],
  };
  const grid = curveGrid(prior);
  const positions: number[] = [];
  const deviations: number[] = [];
  const opening: boolean[] = [];
  for (let b = 0; b < grid.bins; b++) {
    const start = grid.opensAt + b * grid.width;
    const share = Math.max(CURVE_MODEL.flowFloor / grid.bins, fractionAt(day, start + grid.width) - fractionAt(day, start));
    positions.push(grid.position[b]!);
    deviations.push(Math.log(share) - grid.priorLogShare[b]!);
    opening.push(isOpeningBin(grid, b));
  }
  const later = positions.map((_, b) => b).filter((b) => !opening[b]);
  const laterPositions = later.map((b) => positions[b]!);
  const laterDeviations = later.map((b) => deviations[b]!);
  return {
    all: slope(positions, deviations),
    afterFirstHour: slope(laterPositions, laterDeviations),
    curvature: slopeAndCurvature(laterPositions, laterPositions.map(curvatureOf), laterDeviations).curvature,
  };
}

function measure(election: RealElection): Measures {
  const units = election.units;
  const withPrevious = units.filter((u) => u.previous && u.previous > 0);
  let dayLevel: number | null = null;
  let territoryLevelSd: number | null = null;
  let unitLevelSd: number | null = null;
  if (withPrevious.length > 0) {
    const final = withPrevious.reduce((sum, u) => sum + u.final, 0);
    const previous = withPrevious.reduce((sum, u) => sum + u.previous!, 0);
    dayLevel = Math.log(final / previous);
    const byTerritory = new Map<string, { final: number; previous: number }>();
    for (const u of withPrevious) {
      const key = u.territoryId ?? u.id;
      const t = byTerritory.get(key) ?? { final: 0, previous: 0 };
      t.final += u.final;
      t.previous += u.previous!;
      byTerritory.set(key, t);
    }
    territoryLevelSd = spread([...byTerritory.values()].map((t) => ({ value: Math.log(t.final / t.previous), weight: 1 })));
    // A unit against its territory, weighted by size (small comuni's ratios are mostly sampling noise).
    unitLevelSd = spread(
      withPrevious.map((u) => {
        const t = byTerritory.get(u.territoryId ?? u.id)!;
        return { value: Math.log(u.final / u.previous!) - Math.log(t.final / t.previous), weight: u.registered };
      }),
    );
  }
  // Citizens' reports share no reading times, and the file has no registered voters: only the level.
  if (election.citizenReports)
    return { election: election.id, dayLevel, territoryLevelSd, unitLevelSd, territoryRateSd: null, shape: [], territoryShapeSd: null, unitShapeSd: null, dayTilt: null };
  const rates = new Map<string, { final: number; registered: number }>();
  for (const u of units) {
    const key = u.territoryId ?? u.id;
    const t = rates.get(key) ?? { final: 0, registered: 0 };
    t.final += u.final;
    t.registered += u.registered;
    rates.set(key, t);
  }
  const territoryRateSd = spread([...rates.values()].map((t) => ({ value: Math.log(t.final / t.registered), weight: 1 })));
  // The day's share voted at each reading against the history curve's at the same polling time.
  const readings = readingsOf(units);
  const totalFinal = units.reduce((sum, u) => sum + u.final, 0);
  const history = election.historyCurve;
  const polling = defaultCurveFor(election.periods);
  const historyAt = (minute: number) => {
    if (!history) return null;
    for (let i = 1; i < history.length; i++) {
      const a = history[i - 1]!;
      const b = history[i]!;
      if (minute <= b.minute) return a.fraction + ((b.fraction - a.fraction) * (minute - a.minute)) / (b.minute - a.minute);
    }
    return 1;
  };
  const shape = history
    ? readings
        .map((minute) => ({ minute, day: shareVotedAt(units, minute), past: historyAt(minute)! }))
        .filter((r) => r.day > 0 && r.day < 1 && r.past > 0 && r.past < 1)
        .map((r) => ({
          reading: r.minute,
          elapsed: (pollingMinute(polling, r.minute) - election.opensAt) / (election.closesAt - election.opensAt),
          logOdds: logit(r.day) - logit(r.past),
        }))
    : [];
  // Territories' own shapes against the day's: the log odds of their share voted at each reading.
  let territoryShapeSd: number | null = null;
  const groups = new Map<string, typeof units>();
  for (const u of units) if (u.territoryId) groups.set(u.territoryId, [...(groups.get(u.territoryId) ?? []), u]);
  if (groups.size > 1) {
    const deviations: number[] = [];
    for (const minute of readings) {
      const day = shareVotedAt(units, minute);
      if (!(day > 0 && day < 1) || totalFinal <= 0) continue;
      for (const list of groups.values()) {
        const own = shareVotedAt(list, minute);
        if (own > 0 && own < 1) deviations.push(logit(own) - logit(day));
      }
    }
    territoryShapeSd = rms(deviations);
  }
  // Each unit's share voted against its territory's (the country's where units have none).
  let unitSquares = 0;
  let unitWeight = 0;
  const byTerritory = new Map<string, typeof units>();
  for (const u of units) byTerritory.set(u.territoryId ?? '', [...(byTerritory.get(u.territoryId ?? '') ?? []), u]);
  for (const minute of readings) {
    for (const list of byTerritory.values()) {
      const territory = shareVotedAt(list, minute);
      if (!(territory > 0 && territory < 1)) continue;
      for (const u of list) {
        const count = u.counts.find((c) => c.minute === minute)?.voters;
        if (!count || count >= u.final) continue;
        unitSquares += u.registered * (logit(count / u.final) - logit(territory)) ** 2;
        unitWeight += u.registered;
      }
    }
  }
  const unitShapeSd = Math.sqrt(unitSquares / Math.max(1, unitWeight));
  const dayTilt = dayTiltOf(election, readings, (minute) => shareVotedAt(units, minute));
  return { election: election.id, dayLevel, territoryLevelSd, unitLevelSd, territoryRateSd, shape, territoryShapeSd, unitShapeSd, dayTilt };
}

/**
 * The adapted default's spread as the shipped ADAPTED_DEFAULT_SPREAD was measured: the calibration
 * days read every hour (Romania's, all 07:00–20:00) taken as a curve history against the default
 * adapted to their hours.
 */
function adaptedDefaultSpread(): CurveSpread | null {
  const days = CALIBRATION.flatMap((name) => REAL_ELECTIONS[name]!()).filter((election) => {
    return !election.citizenReports && election.periods.length === 1 && readHourly(election.opensAt, readingsOf(election.units));
  });
  if (days.length < 3 || days.some((day) => day.opensAt !== days[0]!.opensAt || day.closesAt !== days[0]!.closesAt)) return null;
  const curves = days.map((day) => {
    const readings = readingsOf(day.units).filter((minute) => minute > day.opensAt && minute < day.closesAt);
    const points = [
      { minute: day.opensAt, fraction: 0 },
      ...readings.map((minute) => ({ minute, fraction: shareVotedAt(day.units, minute) })),
      { minute: day.closesAt, fraction: 1 },
    ];
    const curve = { opensAt: day.opensAt, closesAt: day.closesAt, points };
    return (share: number) => fractionAt(curve, day.opensAt + share * (day.closesAt - day.opensAt));
  });
  return spreadFromHistory(defaultCurveFor(days[0]!.periods), curves);
}

export function calibrationReport(): string {
  const lines: string[] = [];
  const all: Measures[] = [];
  for (const name of CALIBRATION) for (const election of REAL_ELECTIONS[name]!()) all.push(measure(election));
  const f = (value: number | null) => (value === null ? '—' : value.toFixed(3));
  lines.push(
    '| election | day level (log final ÷ previous) | territory level sd | unit level sd | territory rate sd | territory shape sd (log odds) | unit shape sd (log odds) | day tilt vs adapted default (all bins / after the first hour; curvature after it) | shape vs curve history (log odds at elapsed share) |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const m of all) {
    const shape = m.shape.map((s) => `${(100 * s.elapsed).toFixed(0)} %: ${s.logOdds >= 0 ? '+' : ''}${s.logOdds.toFixed(3)}`).join(', ');
    const tilt = m.dayTilt ? `${f(m.dayTilt.all)} / ${f(m.dayTilt.afterFirstHour)}; ${f(m.dayTilt.curvature)}` : '—';
    lines.push(
      `| ${m.election} | ${f(m.dayLevel)} | ${f(m.territoryLevelSd)} | ${f(m.unitLevelSd)} | ${f(m.territoryRateSd)} | ${f(m.territoryShapeSd)} | ${f(m.unitShapeSd)} | ${tilt} | ${shape || '—'} |`,
    );
  }
  const levels = all.flatMap((m) => (m.dayLevel === null ? [] : [m.dayLevel]));
  const shapes = all.flatMap((m) => m.shape.filter((s) => s.elapsed >= 0.2).map((s) => s.logOdds));
  const tilts = all.flatMap((m) => (m.dayTilt ? [m.dayTilt] : []));
  lines.push('');
  lines.push(
    `Day level: rms ${rms(levels).toFixed(3)} over ${levels.length} comparable pairs. Shape against the curve history: rms ${rms(shapes).toFixed(3)} log odds over ${shapes.length} readings (from 20 % of the polling time).`,
  );
  if (tilts.length)
    lines.push(
      `Day tilt against the adapted default over ${tilts.length} days read hourly: rms ${rms(tilts.map((t) => t.all)).toFixed(3)} over every bin, ${rms(tilts.map((t) => t.afterFirstHour)).toFixed(3)} after the first hour; curvature after it rms ${rms(tilts.map((t) => t.curvature)).toFixed(3)}.`,
    );
  const adapted = adaptedDefaultSpread();
  if (adapted)
    lines.push(
      `The adapted default's spread from the days read hourly (as a curve history; ADAPTED_DEFAULT_SPREAD rounds it): tilt ${adapted.tiltSd.toFixed(3)}, wiggle ${adapted.wiggleSd.toFixed(3)}, first hour ${adapted.openingWiggleSd.toFixed(3)}, λ ${adapted.futureSd.toFixed(3)}, drift ${adapted.driftSd.toFixed(3)}.`,
    );
  return lines.join('\n');
}
