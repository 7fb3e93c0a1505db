import { z } from 'zod';

/**
 * The turnout curve: the cumulative fraction of the day's FINAL turnout that has voted by each
 * wall-clock time, in the campaign's time zone. It rises from 0 at opening to 1 at closing and is
 * what lets a count read at 11:00 say something about 16:00 (see docs/gotv-projection.md).
 * Times are minutes since local midnight, so the curve is the same whatever the date.
 */
export interface CurvePoint {
  minute: number;
  fraction: number;
}

export interface TurnoutCurve {
  opensAt: number;
  closesAt: number;
  /** Strictly increasing minutes from opensAt (fraction 0) to closesAt (fraction 1), fractions non-decreasing. */
  points: readonly CurvePoint[];
  /**
   * Polls open over several days: the pauses between them (the night), as wall-clock minutes since
   * election day's midnight (past 24 h on the following days), in order. The curve's minutes are
   * then polling time: a wall-clock minute after a pause is read as `pollingMinute` says.
   */
  pauses?: readonly { from: number; to: number }[];
}

/** A wall-clock minute (since election day's midnight) as a minute of the curve: inside a pause, its start. */
export function pollingMinute(curve: TurnoutCurve, wall: number): number {
  let shift = 0;
  for (const pause of curve.pauses ?? []) {
    if (wall >= pause.to) shift += pause.to - pause.from;
    else if (wall > pause.from) return pause.from - shift;
  }
  return wall - shift;
}

/** A minute of the curve as a wall-clock minute since election day's midnight (the end of a pause reads as its start). */
export function wallMinute(curve: TurnoutCurve, polling: number): number {
  let wall = polling;
  for (const pause of curve.pauses ?? []) if (wall > pause.from) wall += pause.to - pause.from;
  return wall;
}

export const DEFAULT_OPENS_AT = '08:00';
export const DEFAULT_CLOSES_AT = '16:00';

/**
 * A typical Colombian election day, hour by hour, interpolated linearly in between: a slow first
 * hour, a steady climb through midday and the afternoon's faster last hours.
 * This is a MODELLING ASSUMPTION, not a measurement: a campaign should replace it in the GOTV
 * settings (`turnoutCurve`) with its own history (e.g. hourly counts from the previous election).
 */
export const DEFAULT_CURVE_POINTS: readonly { time: string; fraction: number }[] = [
  { time: '08:00', fraction: 0 },
  { time: '09:00', fraction: 0.08 },
  { time: '10:00', fraction: 0.19 },
  { time: '11:00', fraction: 0.32 },
  { time: '12:00', fraction: 0.46 },
  { time: '13:00', fraction: 0.58 },
  { time: '14:00', fraction: 0.71 },
  { time: '15:00', fraction: 0.85 },
  { time: '16:00', fraction: 1 },
];

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;
export const timeOfDaySchema = z.string().regex(TIME_OF_DAY, 'expected HH:MM on a 24-hour clock');

export function parseTimeOfDay(value: string): number {
  const match = TIME_OF_DAY.exec(value);
  if (!match) throw new RangeError(`invalid time of day "${value}" (expected HH:MM)`);
  return Number(match[1]) * 60 + Number(match[2]);
}

export function formatTimeOfDay(minutes: number): string {
  const m = Math.round(minutes);
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

const curvePointSchema = z.object({ time: timeOfDaySchema, fraction: z.number().min(0).max(1) });
export const curvePointsSchema = z
  .array(curvePointSchema)
  .min(2)
  .max(24 * 4 + 1);
export type CurvePointsInput = z.infer<typeof curvePointsSchema>;

/** Everything wrong with a custom curve, as `{ index, message }` (index null: about the hours). */
export function curveProblems(opensAt: string, closesAt: string, points: CurvePointsInput): { index: number | null; message: string }[] {
  const problems: { index: number | null; message: string }[] = [];
  const malformed = points.findIndex((p) => !TIME_OF_DAY.test(p.time));
  if (!TIME_OF_DAY.test(opensAt) || !TIME_OF_DAY.test(closesAt)) return [{ index: null, message: 'opening and closing times must be HH:MM' }];
  if (malformed >= 0) return [{ index: malformed, message: `invalid time "${points[malformed]!.time}" (expected HH:MM)` }];
  const open = parseTimeOfDay(opensAt);
  const close = parseTimeOfDay(closesAt);
  if (close <= open) problems.push({ index: null, message: `closesAt (${closesAt}) must be after opensAt (${opensAt})` });
  const first = points[0];
  const last = points[points.length - 1];
  if (first && (first.time !== opensAt || first.fraction !== 0)) {
    problems.push({ index: 0, message: `the curve must start at opensAt (${opensAt}) with fraction 0` });
  }
  if (last && (last.time !== closesAt || last.fraction !== 1)) {
    problems.push({ index: points.length - 1, message: `the curve must end at closesAt (${closesAt}) with fraction 1` });
  }
  for (let i = 1; i < points.length; i++) {
    const prev = points[i - 1]!;
    const point = points[i]!;
    if (parseTimeOfDay(point.time) <= parseTimeOfDay(prev.time)) {
      problems.push({ index: i, message: `times must be strictly increasing (${point.time} after ${prev.time})` });
    }
    if (point.fraction < prev.fraction) {
      problems.push({ index: i, message: `fractions must not decrease (${point.fraction} after ${prev.fraction})` });
    }
  }
  return problems;
}

/** The curve part of the GOTV settings; the settings schema adds `electionDate` around it. */
export const curveSettingsSchema = z
  .object({
    opensAt: timeOfDaySchema.default(DEFAULT_OPENS_AT),
    closesAt: timeOfDaySchema.default(DEFAULT_CLOSES_AT),
    turnoutCurve: curvePointsSchema.optional(),
  })
  .superRefine((settings, ctx) => {
    // zod still runs this after a malformed time; the field's own issue already says what is wrong.
    const times = [settings.opensAt, settings.closesAt, ...(settings.turnoutCurve ?? []).map((p) => p.time)];
    if (!times.every((time) => TIME_OF_DAY.test(time))) return;
    const problems = settings.turnoutCurve
      ? curveProblems(settings.opensAt, settings.closesAt, settings.turnoutCurve)
      : curveProblems(settings.opensAt, settings.closesAt, [
          { time: settings.opensAt, fraction: 0 },
          { time: settings.closesAt, fraction: 1 },
        ]);
    for (const { index, message } of problems) {
      ctx.addIssue({ code: 'custom', message, path: index === null ? ['closesAt'] : ['turnoutCurve', index] });
    }
  });
export type CurveSettings = z.input<typeof curveSettingsSchema>;

export class InvalidCurveError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid turnout curve: ${problems.join('; ')}`);
    this.name = 'InvalidCurveError';
  }
}

/**
 * The curve to project with. Without a custom curve the default one is stretched onto the
 * configured hours, so changed hours keep the default's shape instead of failing.
 */
export function buildCurve(settings: CurveSettings = {}): TurnoutCurve {
  const parsed = curveSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new InvalidCurveError(parsed.error.issues.map((issue) => issue.message));
  const opensAt = parseTimeOfDay(parsed.data.opensAt);
  const closesAt = parseTimeOfDay(parsed.data.closesAt);
  if (parsed.data.turnoutCurve) {
    const points = parsed.data.turnoutCurve.map((p) => ({ minute: parseTimeOfDay(p.time), fraction: p.fraction }));
    return { opensAt, closesAt, points };
  }
  if (opensAt === parseTimeOfDay(DEFAULT_OPENS_AT) && closesAt === parseTimeOfDay(DEFAULT_CLOSES_AT))
    return { opensAt, closesAt, points: DEFAULT_CURVE_POINTS.map((p) => ({ minute: parseTimeOfDay(p.time), fraction: p.fraction })) };
  return defaultCurveFor([{ opensAt, closesAt }]);
}

/** One opening of the polls: wall-clock minutes since election day's midnight (past 24 h on a following day). */
export interface PollingPeriod {
  opensAt: number;
  closesAt: number;
}

/**
 * The default curve for other polling hours. The default is read as a flow per clock hour (how
 * many vote between 10:00 and 11:00), not as a shape to stretch: a 07:00–23:00 day stretched from
 * 08:00–16:00 would put the default's 10:30 at noon. An hour the default covers keeps its flow; an
 * hour outside it gets the default's mean hourly flow (evening hours in Italy vote about as much as
 * midday ones). Periods on several days follow each other with the pauses taken out (`pauses`).
 */
export function defaultCurveFor(periods: readonly PollingPeriod[]): TurnoutCurve {
  const defaultOpen = parseTimeOfDay(DEFAULT_OPENS_AT);
  const defaultClose = parseTimeOfDay(DEFAULT_CLOSES_AT);
  const defaultCurve: TurnoutCurve = {
    opensAt: defaultOpen,
    closesAt: defaultClose,
    points: DEFAULT_CURVE_POINTS.map((p) => ({ minute: parseTimeOfDay(p.time), fraction: p.fraction })),
  };
  const meanFlow = 1 / (defaultClose - defaultOpen);
  // Cumulative default flow from midnight to a clock minute (0–1440): the mean flow outside the default's hours.
  const cumulative = (minute: number) =>
    meanFlow * Math.min(minute, defaultOpen) + fractionAt(defaultCurve, Math.min(Math.max(minute, defaultOpen), defaultClose)) + meanFlow * Math.max(0, minute - defaultClose);
  const first = periods[0]!;
  const raw: { minute: number; mass: number }[] = [{ minute: first.opensAt, mass: 0 }];
  const pauses: { from: number; to: number }[] = [];
  let at = first.opensAt;
  let mass = 0;
  periods.forEach((period, i) => {
    if (i > 0) pauses.push({ from: periods[i - 1]!.closesAt, to: period.opensAt });
    let from = period.opensAt;
    // Whole clock hours inside the period, so the curve bends where the flow changes.
    while (from < period.closesAt) {
      const to = Math.min(period.closesAt, (Math.floor(from / 60) + 1) * 60);
      const day = Math.floor(from / 1440) * 1440;
      mass += cumulative(to - day) - cumulative(from - day);
      at += to - from;
      raw.push({ minute: at, mass });
      from = to;
    }
  });
  const points = raw.map((p, i) => ({ minute: p.minute, fraction: i === raw.length - 1 ? 1 : p.mass / mass }));
  return { opensAt: first.opensAt, closesAt: at, points, ...(pauses.length ? { pauses } : {}) };
}

export const DEFAULT_CURVE: TurnoutCurve = buildCurve();

/** Expected cumulative share of the final turnout at a time of day: 0 before opening, 1 after closing. */
export function fractionAt(curve: TurnoutCurve, minutesSinceMidnight: number): number {
  const { points } = curve;
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (minutesSinceMidnight <= first.minute) return first.fraction;
  if (minutesSinceMidnight >= last.minute) return last.fraction;
  for (let i = 1; i < points.length; i++) {
    const b = points[i]!;
    if (minutesSinceMidnight <= b.minute) {
      const a = points[i - 1]!;
      return a.fraction + ((b.fraction - a.fraction) * (minutesSinceMidnight - a.minute)) / (b.minute - a.minute);
    }
  }
  return last.fraction;
}
