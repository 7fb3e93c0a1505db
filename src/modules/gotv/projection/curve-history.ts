import { z } from 'zod';
import { calendarDate } from '../../../kernel/schemas';
import { daysBetween } from '../../../kernel/calendar';
import {
  buildCurve,
  curveProblems,
  curvePointsSchema,
  DEFAULT_CLOSES_AT,
  DEFAULT_OPENS_AT,
  defaultCurveFor,
  fractionAt,
  InvalidCurveError,
  parseTimeOfDay,
  timeOfDaySchema,
  type PollingPeriod,
  type TurnoutCurve,
} from './curve';
import {
  ADAPTED_DEFAULT_SPREAD,
  CURVE_MODEL,
  curveGrid,
  DEFAULT_CURVE_SPREAD,
  DEFAULT_LEVEL_SPREAD,
  HISTORY_CURVE_SPREAD,
  isOpeningBin,
  type CurveGrid,
  type CurveSpread,
  type LevelSpread,
} from './curve-model';

/**
 * Past election days' curves, kept in the GOTV settings, and the prior they make for today: the
 * configured curve (else their mean) as the prior's mean, and how much they differ from one
 * another as its spread. docs/gotv-projection.md ("Curve history").
 */

export const MAX_HISTORY_CURVES = 20;

/** Polls may open on at most this many days after election day (Italy: one, the Monday). */
export const MAX_FOLLOWING_DAYS = 3;

/** A later polling day: its date and hours. Checked against election day by `followingDaysProblems`. */
export const followingDaySchema = z.object({ date: calendarDate, opensAt: timeOfDaySchema, closesAt: timeOfDaySchema });
export const followingDaysSchema = z.array(followingDaySchema).max(MAX_FOLLOWING_DAYS);
export type FollowingDay = z.infer<typeof followingDaySchema>;

/** Everything wrong with the later polling days against election day, as `{ index, message }`. */
export function followingDaysProblems(electionDate: string, days: readonly FollowingDay[]): { index: number; message: string }[] {
  const problems: { index: number; message: string }[] = [];
  let previous = electionDate;
  days.forEach((day, index) => {
    // zod still refines after a malformed field; that field's own issue already says what is wrong.
    if (!followingDaySchema.safeParse(day).success || !calendarDate.safeParse(previous).success) return;
    if (daysBetween(previous, day.date) < 1) problems.push({ index, message: `date ${day.date} must be after ${previous} (election day, then each earlier polling day)` });
    if (parseTimeOfDay(day.closesAt) <= parseTimeOfDay(day.opensAt)) problems.push({ index, message: `closesAt (${day.closesAt}) must be after opensAt (${day.opensAt})` });
    previous = day.date;
  });
  return problems;
}

/** The polling periods on election day's clock (minutes since its midnight, past 24 h on later days). */
export function pollingPeriods(electionDate: string, opensAt: number, closesAt: number, days: readonly FollowingDay[]): PollingPeriod[] {
  return [
    { opensAt, closesAt },
    ...days.map((day) => {
      const offset = daysBetween(electionDate, day.date) * 24 * 60;
      return { opensAt: offset + parseTimeOfDay(day.opensAt), closesAt: offset + parseTimeOfDay(day.closesAt) };
    }),
  ];
}

export const historyCurveSchema = z
  .object({
    label: z.string().trim().min(1).max(80),
    electionDate: calendarDate.optional(),
    /** From that day's opening (fraction 0) to its closing (fraction 1). */
    turnoutCurve: curvePointsSchema,
  })
  .superRefine((entry, ctx) => {
    const points = entry.turnoutCurve;
    if (!points.every((p) => /^([01]\d|2[0-3]):([0-5]\d)$/.test(p.time))) return;
    for (const { index, message } of curveProblems(points[0]!.time, points[points.length - 1]!.time, points)) {
      ctx.addIssue({ code: 'custom', message, path: index === null ? ['turnoutCurve'] : ['turnoutCurve', index] });
    }
  });
export const curveHistorySchema = z.array(historyCurveSchema).max(MAX_HISTORY_CURVES);

/** How far this election's turnout strays from the stations' previous turnout: log sds (0.1 ≈ ±10 %). */
export const previousTurnoutSpreadSchema = z
  .object({
    day: z.number().min(0.01).max(1).describe(`shared by every station (national mood, weather); default ${DEFAULT_LEVEL_SPREAD.daySd}`),
    territory: z.number().min(0).max(1).describe(`per territory; default ${DEFAULT_LEVEL_SPREAD.territorySd}`),
    station: z.number().min(0.01).max(1).describe(`per station (a start: the fit re-estimates it); default ${DEFAULT_LEVEL_SPREAD.stationSd}`),
  })
  .meta({ id: 'GotvPreviousTurnoutSpread' });
export type PreviousTurnoutSpread = z.infer<typeof previousTurnoutSpreadSchema>;

export const DEFAULT_PREVIOUS_TURNOUT_SPREAD: PreviousTurnoutSpread = {
  day: DEFAULT_LEVEL_SPREAD.daySd,
  territory: DEFAULT_LEVEL_SPREAD.territorySd,
  station: DEFAULT_LEVEL_SPREAD.stationSd,
};

/** The stored spread, or the defaults (with a warning when what is stored no longer validates). */
export function readPreviousTurnoutSpread(stored: unknown, warnings?: string[]): PreviousTurnoutSpread {
  if (stored === null || stored === undefined) return DEFAULT_PREVIOUS_TURNOUT_SPREAD;
  const parsed = previousTurnoutSpreadSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  warnings?.push('stored previousTurnoutSpread set aside: the defaults are used');
  return DEFAULT_PREVIOUS_TURNOUT_SPREAD;
}
export type HistoryCurve = z.infer<typeof historyCurveSchema>;

export type CurveSource = 'default' | 'configured' | 'history';

/** A history curve as a function of the share of its day gone by (0 at its opening, 1 at its closing). */
function relativeCurve(entry: HistoryCurve): (share: number) => number {
  const points = entry.turnoutCurve.map((p) => ({ minute: parseTimeOfDay(p.time), fraction: p.fraction }));
  const opensAt = points[0]!.minute;
  const closesAt = points[points.length - 1]!.minute;
  const curve: TurnoutCurve = { opensAt, closesAt, points };
  return (share) => fractionAt(curve, opensAt + share * (closesAt - opensAt));
}

export interface DayPrior {
  curve: TurnoutCurve;
  source: CurveSource;
  spread: CurveSpread;
  /** How far turnout may stray from the stations' previous turnout. */
  level: LevelSpread;
  /** Curves the settings hold that could not be used, and why. */
  warnings: string[];
}

/** Pseudo-days of the default spread every history estimate is blended with. */
const SPREAD_PSEUDO_DAYS = 3;

/**
 * How far days stray from the prior, from three or more past curves: each curve's log share per
 * bin against the prior's, its tilt by least squares, and the rest as wiggle (the first hour's
 * apart, as the model has it). A new day strays from the mean of n days by √((n+1)/n) times what
 * they stray among themselves; the estimate is blended with the default spread as if that were 3
 * more days, so a short history cannot make it tiny.
 */
export function spreadFromHistory(prior: TurnoutCurve, curves: ((share: number) => number)[]): CurveSpread {
  if (curves.length === 0) return DEFAULT_CURVE_SPREAD;
  if (curves.length < 3) return HISTORY_CURVE_SPREAD;
  const grid = curveGrid(prior);
  const length = prior.closesAt - prior.opensAt;
  let tiltSquares = 0;
  let wiggleSquares = 0;
  let openingSquares = 0;
  let openingBins = 0;
  for (let b = 0; b < grid.bins; b++) if (isOpeningBin(grid, b)) openingBins++;
  let sxx = 0;
  for (let b = 0; b < grid.bins; b++) sxx += grid.position[b]! ** 2;
  const deviations: Float64Array[] = [];
  for (const curve of curves) {
    const deviation = new Float64Array(grid.bins);
    deviations.push(deviation);
    let mean = 0;
    for (let b = 0; b < grid.bins; b++) {
      const share = Math.max(CURVE_MODEL.flowFloor / grid.bins, curve(((b + 1) * grid.width) / length) - curve((b * grid.width) / length));
      deviation[b] = Math.log(share) - grid.priorLogShare[b]!;
      mean += deviation[b]! / grid.bins;
    }
    let sxy = 0;
    for (let b = 0; b < grid.bins; b++) sxy += grid.position[b]! * (deviation[b]! - mean);
    const tilt = sxy / sxx;
    tiltSquares += tilt * tilt;
    for (let b = 0; b < grid.bins; b++) {
      const square = (deviation[b]! - mean - tilt * grid.position[b]!) ** 2;
      if (isOpeningBin(grid, b)) openingSquares += square / Math.max(1, openingBins);
      else wiggleSquares += square / Math.max(1, grid.bins - openingBins);
    }
  }
  const n = curves.length;
  const inflate = (n + 1) / n;
  const blend = (estimate: number, fallback: number) => Math.sqrt((n * inflate * estimate + SPREAD_PSEUDO_DAYS * fallback ** 2) / (n + SPREAD_PSEUDO_DAYS));
  const tiltSd = blend(tiltSquares / n, DEFAULT_CURVE_SPREAD.tiltSd);
  const wiggleSd = blend(wiggleSquares / n, DEFAULT_CURVE_SPREAD.wiggleSd);
  const surprise = meanSquareSurprise(grid, openingBins, deviations, tiltSd, wiggleSd);
  const futureSd = surprise === null ? DEFAULT_CURVE_SPREAD.futureSd : blend(surprise, DEFAULT_CURVE_SPREAD.futureSd);
  return {
    ...DEFAULT_CURVE_SPREAD,
    tiltSd,
    wiggleSd,
    openingWiggleSd: blend(openingSquares / n, DEFAULT_CURVE_SPREAD.openingWiggleSd),
    futureSd,
    // The drift is the same allowance as λ (the rest of the day straying from the morning), spread over the bins.
    driftSd: DEFAULT_CURVE_SPREAD.driftSd * (futureSd / DEFAULT_CURVE_SPREAD.futureSd),
  };
}

/**
 * How far the past days' rest of the day strayed from what their own morning said, the evidence for
 * λ's scale: at every whole hour from two hours after the first hour to an hour before closing, a
 * level and tilt fitted to the log flow since the first hour (the tilt shrunk by its prior sd against
 * bins that stray by the wiggle's), extrapolated, and the log of the rest's actual share over the
 * extrapolated one. The mean of its squares over days and hours (the opening bins are the first
 * `openingBins`); null when the day is too short to have such an hour.
 */
function meanSquareSurprise(grid: CurveGrid, openingBins: number, deviations: Float64Array[], tiltSd: number, wiggleSd: number): number | null {
  const binsPerHour = Math.max(1, Math.round(60 / grid.width));
  let squares = 0;
  let count = 0;
  for (const deviation of deviations) {
    for (let cut = openingBins + 2 * binsPerHour; cut < grid.bins; cut += binsPerHour) {
      // Weighted least squares of d_b ≈ m + β·x_b on the bins [openingBins, cut), with β ~ N(0, tiltSd²).
      let s1 = 0;
      let sx = 0;
      let sxx = 0;
      let sd = 0;
      let sxd = 0;
      for (let b = openingBins; b < cut; b++) {
        const x = grid.position[b]!;
        s1 += 1;
        sx += x;
        sxx += x * x;
        sd += deviation[b]!;
        sxd += x * deviation[b]!;
      }
      const a11 = s1 / wiggleSd ** 2;
      const a12 = sx / wiggleSd ** 2;
      const a22 = sxx / wiggleSd ** 2 + 1 / tiltSd ** 2;
      const r1 = sd / wiggleSd ** 2;
      const r2 = sxd / wiggleSd ** 2;
      const determinant = a11 * a22 - a12 * a12;
      const level = (a22 * r1 - a12 * r2) / determinant;
      const tilt = (a11 * r2 - a12 * r1) / determinant;
      let actual = 0;
      let extrapolated = 0;
      for (let b = cut; b < grid.bins; b++) {
        actual += Math.exp(grid.priorLogShare[b]! + deviation[b]!);
        extrapolated += Math.exp(grid.priorLogShare[b]! + level + tilt * grid.position[b]!);
      }
      squares += Math.log(actual / extrapolated) ** 2;
      count += 1;
    }
  }
  return count ? squares / count : null;
}

/**
 * Today's prior. The configured curve when there is one; else the mean of the history's curves,
 * stretched onto today's hours; else the default. A stored curve that is no longer valid (settings
 * written before a rule existed, or edited by hand) is set aside with a warning instead of failing
 * the projection: the default shape is used on the configured hours (or 08:00–16:00).
 */
export function dayPrior(settings: {
  electionDate?: string | null;
  opensAt: string;
  closesAt: string;
  turnoutCurve: { time: string; fraction: number }[] | null;
  curveHistory: unknown[];
  previousTurnoutSpread?: unknown;
  followingDays?: unknown[];
}): DayPrior {
  const warnings: string[] = [];
  const previous = readPreviousTurnoutSpread(settings.previousTurnoutSpread, warnings);
  const level: LevelSpread = { daySd: previous.day, territorySd: previous.territory, stationSd: previous.station };
  const history: HistoryCurve[] = [];
  settings.curveHistory.forEach((entry, index) => {
    const parsed = historyCurveSchema.safeParse(entry);
    if (parsed.success) history.push(parsed.data);
    else warnings.push(`history curve ${index + 1} set aside: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  });
  const relative = history.map(relativeCurve);

  const days = readFollowingDays(settings, warnings);

  let curve: TurnoutCurve;
  let source: CurveSource;
  try {
    if (days.length && settings.electionDate) {
      // Polls over several days: the history's mean (or the default) over the polling time, the nights taken out.
      const hours = buildCurve({ opensAt: settings.opensAt, closesAt: settings.closesAt });
      const periods = pollingPeriods(settings.electionDate, hours.opensAt, hours.closesAt, days);
      const byDefault = defaultCurveFor(periods);
      if (settings.turnoutCurve) warnings.push('the configured turnout curve covers one day: with later polling days the curve history or the default is used');
      curve = relative.length ? { ...meanCurve(byDefault.opensAt, byDefault.closesAt, relative), ...(byDefault.pauses ? { pauses: byDefault.pauses } : {}) } : byDefault;
      source = relative.length ? 'history' : 'default';
    } else if (settings.turnoutCurve) {
      curve = buildCurve({ opensAt: settings.opensAt, closesAt: settings.closesAt, turnoutCurve: settings.turnoutCurve });
      source = 'configured';
    } else {
      const hours = buildCurve({ opensAt: settings.opensAt, closesAt: settings.closesAt });
      curve = relative.length ? meanCurve(hours.opensAt, hours.closesAt, relative) : hours;
      source = relative.length ? 'history' : 'default';
    }
  } catch (error) {
    if (!(error instanceof InvalidCurveError)) throw error;
    warnings.push(`stored turnout curve set aside (${error.problems.join('; ')}): the default curve is used`);
    try {
      curve = buildCurve({ opensAt: settings.opensAt, closesAt: settings.closesAt });
    } catch {
      curve = buildCurve({ opensAt: DEFAULT_OPENS_AT, closesAt: DEFAULT_CLOSES_AT });
    }
    source = 'default';
  }
  const defaultHours = curve.opensAt === parseTimeOfDay(DEFAULT_OPENS_AT) && curve.closesAt === parseTimeOfDay(DEFAULT_CLOSES_AT) && !curve.pauses?.length;
  // The default adapted to other hours is a guess real days stray far from (measured, ADAPTED_DEFAULT_SPREAD).
  const spread = source === 'default' && !defaultHours ? ADAPTED_DEFAULT_SPREAD : spreadFromHistory(curve, relative);
  return { curve, source, spread, level, warnings };
}

/** The stored later polling days, or none (with a warning) when they no longer fit election day. */
function readFollowingDays(settings: { electionDate?: string | null; followingDays?: unknown[] }, warnings: string[]): FollowingDay[] {
  if (!settings.followingDays?.length || !settings.electionDate) return [];
  const parsed = followingDaysSchema.safeParse(settings.followingDays);
  const problems = parsed.success ? followingDaysProblems(settings.electionDate, parsed.data).map((p) => p.message) : parsed.error.issues.map((issue) => issue.message);
  if (!parsed.success || problems.length) {
    warnings.push(`stored later polling days set aside (${problems.join('; ')}): polls on election day only`);
    return [];
  }
  return parsed.data;
}

/** The pointwise mean of the history's curves on today's hours, every half hour. */
function meanCurve(opensAt: number, closesAt: number, curves: ((share: number) => number)[]): TurnoutCurve {
  const steps = Math.max(2, Math.round((closesAt - opensAt) / 30));
  const points = [];
  for (let i = 0; i <= steps; i++) {
    const share = i / steps;
    const fraction = i === 0 ? 0 : i === steps ? 1 : curves.reduce((sum, curve) => sum + curve(share), 0) / curves.length;
    points.push({ minute: opensAt + share * (closesAt - opensAt), fraction });
  }
  return { opensAt, closesAt, points };
}
