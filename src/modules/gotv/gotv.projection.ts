import { z } from 'zod';
import { daysBetween, instantAt, localClock } from '../../kernel/calendar';
import { fractionAt, type TurnoutCurve } from './gotv.curve';

/**
 * The election-day projection: what the day will end at, from what has been reported so far.
 * Pure and deterministic (same input → same output), one pass over stations and their reports.
 * Method and formulas: docs/gotv-projection.md — keep the two in step.
 */
export const PROJECTION_METHOD = 'curve-scaled-counts/v1';

/**
 * Modelling constants. The timing terms are relative half-widths per unit of day still to come
 * (1 − f); they were set against synthetic days (test/gotv) and should be re-checked against a
 * campaign's real history together with its curve.
 */
export const PROJECTION_TUNING = {
  /** Below this curve fraction a count says too little about the final figure to scale it. */
  minFraction: 0.05,
  /** The whole day running early or late against the curve: shared by every station. */
  sharedTiming: 0.15,
  /** One station running early or late, and reading noise: independent between stations. */
  ownTiming: 0.5,
  /** Fewer reporting stations than this in a territory: borrow the overall rate instead. */
  minDonors: 3,
  /** Floor for the spread of turnout rates between stations (absolute rate, e.g. 0.05 = 5 points). */
  rateSpreadFloor: 0.05,
  /** Spread assumed when there are too few reporting stations to measure one. */
  fewDonorsSpread: 0.2,
  /** Half-width of a borrowed station's band in rate spreads. */
  spreadZ: 2,
} as const;

export interface CountReport {
  votersSoFar: number;
  reportedAt: Date;
}

export interface StationInput {
  id: string;
  territoryId: string | null;
  registeredVoters: number;
  confirmedVoters: number;
  confirmedVoted: number;
  counts: readonly CountReport[];
}

export interface ProjectionInput {
  now: Date;
  timeZone: string;
  /** 'YYYY-MM-DD' in `timeZone`. */
  electionDate: string;
  curve: TurnoutCurve;
  stations: readonly StationInput[];
}

export type Phase = 'before_open' | 'open' | 'closed';
/** Where a station's projected turnout comes from. */
export type Basis = 'count' | 'territory' | 'overall' | 'none';

const figuresShape = {
  confirmedVoters: z.number().int(),
  confirmedVoted: z.number().int(),
  projectedConfirmedVoted: z.number().int().nullable(),
  low: z.number().int().nullable().describe('low end of projectedConfirmedVoted'),
  high: z.number().int().nullable().describe('high end of projectedConfirmedVoted'),
  registeredVoters: z.number().int(),
  votersSoFar: z.number().int().describe('sum of the stations’ current count figures'),
  projectedTurnout: z.number().int().nullable().describe('projected voters at closing'),
  projectedTurnoutLow: z.number().int().nullable(),
  projectedTurnoutHigh: z.number().int().nullable(),
};
const aggregateShape = {
  ...figuresShape,
  stations: z.number().int(),
  reportingStations: z.number().int().describe('stations whose count is used directly'),
  reportedShare: z.number().min(0).max(1).describe('share of registered voters in reporting stations'),
};

export const projectionView = z
  .object({
    generatedAt: z.iso.datetime(),
    method: z.string(),
    phase: z.enum(['before_open', 'open', 'closed']),
    elapsedFraction: z.number().min(0).max(1).describe('curve fraction at generatedAt: expected share of the final turnout already cast'),
    overall: z.object(aggregateShape),
    stations: z.array(
      z.object({
        id: z.string(),
        territoryId: z.string().nullable(),
        basis: z.enum(['count', 'territory', 'overall', 'none']),
        lastCountAt: z.iso.datetime().nullable(),
        ...figuresShape,
      }),
    ),
    byTerritory: z.array(z.object({ territoryId: z.string().nullable(), ...aggregateShape })),
  })
  .meta({ id: 'GotvProjection' });

export type Projection = z.infer<typeof projectionView>;
export type StationProjection = Projection['stations'][number];
export type AggregateProjection = Projection['overall'];

/**
 * One projected quantity with its uncertainty split in two: `shared` errors move every station
 * the same way (the day's timing) and add up linearly; `own` errors are independent between
 * stations and add up in quadrature (`ownSq` holds the sum of squares).
 */
interface Estimate {
  projected: number;
  shared: number;
  ownSq: number;
  floor: number;
  cap: number;
}

const emptySum = (): Estimate => ({ projected: 0, shared: 0, ownSq: 0, floor: 0, cap: 0 });

function add(sum: Estimate, e: Estimate): void {
  sum.projected += e.projected;
  sum.shared += e.shared;
  sum.ownSq += e.ownSq;
  sum.floor += e.floor;
  sum.cap += e.cap;
}

/** Integer figures from an estimate, clamped to [reported so far, maximum possible]. */
function bounds(e: Estimate | null): { projected: number | null; low: number | null; high: number | null } {
  if (!e) return { projected: null, low: null, high: null };
  const cap = Math.max(e.cap, e.floor);
  const projected = Math.min(cap, Math.max(e.floor, Math.round(e.projected)));
  const half = e.shared + Math.sqrt(e.ownSq);
  return {
    projected,
    low: Math.min(projected, Math.max(e.floor, Math.floor(e.projected - half))),
    high: Math.max(projected, Math.min(cap, Math.ceil(e.projected + half))),
  };
}

function clamp(value: number, floor: number, cap: number): number {
  return Math.min(Math.max(cap, floor), Math.max(floor, value));
}

/**
 * The station's count figure at `now` under the monotone rule (the highest count reported at or
 * before `now`), and when it was last confirmed: the latest report carrying that figure. A later,
 * lower report is not applied (the API keeps it, flagged), so it cannot lower the figure.
 */
export function stationFigure(counts: readonly CountReport[], from: number, now: number): { votersSoFar: number; at: Date | null } {
  let votersSoFar = 0;
  let at: Date | null = null;
  for (const report of counts) {
    const t = report.reportedAt.getTime();
    if (t < from || t > now) continue;
    if (report.votersSoFar > votersSoFar || (report.votersSoFar === votersSoFar && (at === null || t > at.getTime()))) {
      votersSoFar = report.votersSoFar;
      at = report.reportedAt;
    }
  }
  return { votersSoFar, at };
}

/** Running totals of the stations that lend their turnout rate to stations without counts. */
interface Donors {
  n: number;
  registered: number;
  projected: number;
  /** Σ registered · rate², for the registered-weighted spread of rates. */
  rateSq: number;
  /** Σ projected · (1 − f), for the donors' average timing uncertainty. */
  remaining: number;
}

const emptyDonors = (): Donors => ({ n: 0, registered: 0, projected: 0, rateSq: 0, remaining: 0 });

function borrowFrom(donors: Donors): { rate: number; spread: number; meanError: number; remaining: number } {
  const rate = donors.projected / donors.registered;
  const measured = Math.sqrt(Math.max(0, donors.rateSq / donors.registered - rate * rate));
  const spread = donors.n < PROJECTION_TUNING.minDonors ? PROJECTION_TUNING.fewDonorsSpread : Math.max(PROJECTION_TUNING.rateSpreadFloor, measured);
  return {
    rate,
    spread,
    meanError: (PROJECTION_TUNING.spreadZ * spread) / Math.sqrt(donors.n),
    remaining: donors.projected > 0 ? donors.remaining / donors.projected : 0,
  };
}

interface Working {
  input: StationInput;
  votersSoFar: number;
  at: Date | null;
  fraction: number;
  basis: Basis;
  turnout: Estimate | null;
  confirmed: Estimate | null;
}

/** Where election day stands at `now`: polls not yet open (or an earlier day), open, or closed (or a later day). */
export function phaseAt(now: Date, timeZone: string, electionDate: string, curve: TurnoutCurve): Phase {
  const clock = localClock(now, timeZone);
  const day = daysBetween(electionDate, clock.date);
  if (day < 0 || (day === 0 && clock.minutes < curve.opensAt)) return 'before_open';
  return day > 0 || clock.minutes >= curve.closesAt ? 'closed' : 'open';
}

export function project(input: ProjectionInput): Projection {
  const { now, timeZone, electionDate, curve } = input;
  const T = PROJECTION_TUNING;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(electionDate) || Number.isNaN(Date.parse(electionDate))) throw new RangeError(`invalid electionDate "${electionDate}"`);
  // Reports from before election day are rehearsals: they never count.
  const dayStart = instantAt(electionDate, 0, timeZone).getTime();
  const nowMs = now.getTime();

  /** Minutes since the election day's local midnight (a later day reads past closing). */
  const fractionOf = (date: Date) => {
    const clock = localClock(date, timeZone);
    const days = daysBetween(electionDate, clock.date);
    return days < 0 ? 0 : days > 0 ? 1 : fractionAt(curve, clock.minutes);
  };

  const phase = phaseAt(now, timeZone, electionDate, curve);
  const elapsed = phase === 'before_open' ? 0 : phase === 'closed' ? 1 : fractionAt(curve, localClock(now, timeZone).minutes);

  // Pass 1: each station's figure; stations with a usable count project themselves and lend their rate.
  const overallDonors = emptyDonors();
  const territoryDonors = new Map<string, Donors>();
  const working: Working[] = input.stations.map((station) => {
    const { votersSoFar, at } = stationFigure(station.counts, dayStart, nowMs);
    const fraction = at ? fractionOf(at) : 0;
    const w: Working = { input: station, votersSoFar, at, fraction, basis: 'none', turnout: null, confirmed: null };
    if (phase === 'before_open') return w;

    const registered = station.registeredVoters;
    if (at && fraction >= T.minFraction) {
      const projected = clamp(votersSoFar / fraction, votersSoFar, registered);
      const remaining = 1 - fraction;
      w.basis = 'count';
      w.turnout = { projected, shared: T.sharedTiming * remaining * projected, ownSq: (T.ownTiming * remaining * projected) ** 2, floor: votersSoFar, cap: registered };
      if (registered > 0) {
        const donorSets = [overallDonors];
        if (station.territoryId !== null) {
          let donors = territoryDonors.get(station.territoryId);
          if (!donors) territoryDonors.set(station.territoryId, (donors = emptyDonors()));
          donorSets.push(donors);
        }
        for (const donors of donorSets) {
          donors.n += 1;
          donors.registered += registered;
          donors.projected += projected;
          donors.rateSq += (projected * projected) / registered;
          donors.remaining += projected * remaining;
        }
      }
    }
    if (elapsed >= T.minFraction) {
      const remaining = 1 - elapsed;
      const projected = clamp(station.confirmedVoted / elapsed, station.confirmedVoted, station.confirmedVoters);
      w.confirmed = {
        projected,
        shared: T.sharedTiming * remaining * projected,
        ownSq: (T.ownTiming * remaining * projected) ** 2,
        floor: station.confirmedVoted,
        cap: station.confirmedVoters,
      };
    }
    return w;
  });

  // Pass 2: stations without a usable count borrow a rate (their territory's, else the overall one).
  const overall = overallDonors.n > 0 ? borrowFrom(overallDonors) : null;
  const territoryRates = new Map<string, ReturnType<typeof borrowFrom>>();
  for (const [id, donors] of territoryDonors) if (donors.n >= T.minDonors) territoryRates.set(id, borrowFrom(donors));
  for (const w of working) {
    if (phase === 'before_open' || w.basis === 'count') continue;
    const local = w.input.territoryId === null ? undefined : territoryRates.get(w.input.territoryId);
    const source = local ?? overall;
    if (!source) continue;
    const registered = w.input.registeredVoters;
    const projected = clamp(source.rate * registered, w.votersSoFar, registered);
    w.basis = local ? 'territory' : 'overall';
    w.turnout = {
      projected,
      // The borrowed mean (and the donors' timing) is wrong the same way for every borrower.
      shared: source.meanError * registered + T.sharedTiming * source.remaining * projected,
      ownSq: (T.spreadZ * source.spread * registered) ** 2,
      floor: w.votersSoFar,
      cap: registered,
    };
  }

  // Pass 3: figures per station, per territory and overall.
  const overallSum = newAggregate();
  const territorySums = new Map<string | null, Aggregate>();
  const stations: StationProjection[] = working.map((w) => {
    const s = w.input;
    let territory = territorySums.get(s.territoryId);
    if (!territory) territorySums.set(s.territoryId, (territory = newAggregate()));
    for (const aggregate of [overallSum, territory]) accumulate(aggregate, w);
    return { id: s.id, territoryId: s.territoryId, basis: w.basis, lastCountAt: w.at?.toISOString() ?? null, ...figures(s, w.votersSoFar, w.turnout, w.confirmed) };
  });

  const byTerritory = [...territorySums.entries()]
    .sort(([a], [b]) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
    .map(([territoryId, aggregate]) => ({ territoryId, ...aggregateFigures(aggregate) }));

  return {
    generatedAt: now.toISOString(),
    method: PROJECTION_METHOD,
    phase,
    elapsedFraction: Math.round(elapsed * 10_000) / 10_000,
    overall: aggregateFigures(overallSum),
    stations,
    byTerritory,
  };
}

interface Aggregate {
  stations: number;
  reportingStations: number;
  registeredVoters: number;
  reportedRegistered: number;
  confirmedVoters: number;
  confirmedVoted: number;
  votersSoFar: number;
  turnout: Estimate | null;
  confirmed: Estimate | null;
}

function newAggregate(): Aggregate {
  return {
    stations: 0,
    reportingStations: 0,
    registeredVoters: 0,
    reportedRegistered: 0,
    confirmedVoters: 0,
    confirmedVoted: 0,
    votersSoFar: 0,
    turnout: emptySum(),
    confirmed: emptySum(),
  };
}

/** A projection of a sum exists only if every station in it has one. */
function accumulate(aggregate: Aggregate, w: Working): void {
  const s = w.input;
  aggregate.stations += 1;
  aggregate.registeredVoters += s.registeredVoters;
  aggregate.confirmedVoters += s.confirmedVoters;
  aggregate.confirmedVoted += s.confirmedVoted;
  aggregate.votersSoFar += w.votersSoFar;
  if (w.basis === 'count') {
    aggregate.reportingStations += 1;
    aggregate.reportedRegistered += s.registeredVoters;
  }
  if (aggregate.turnout) {
    if (w.turnout) add(aggregate.turnout, w.turnout);
    else aggregate.turnout = null;
  }
  if (aggregate.confirmed) {
    if (w.confirmed) add(aggregate.confirmed, w.confirmed);
    else aggregate.confirmed = null;
  }
}

function figures(
  counts: { confirmedVoters: number; confirmedVoted: number; registeredVoters: number },
  votersSoFar: number,
  turnout: Estimate | null,
  confirmed: Estimate | null,
): Omit<StationProjection, 'id' | 'territoryId' | 'basis' | 'lastCountAt'> {
  const c = bounds(confirmed);
  const t = bounds(turnout);
  return {
    confirmedVoters: counts.confirmedVoters,
    confirmedVoted: counts.confirmedVoted,
    projectedConfirmedVoted: c.projected,
    low: c.low,
    high: c.high,
    registeredVoters: counts.registeredVoters,
    votersSoFar,
    projectedTurnout: t.projected,
    projectedTurnoutLow: t.low,
    projectedTurnoutHigh: t.high,
  };
}

function aggregateFigures(a: Aggregate): AggregateProjection {
  const empty = a.stations === 0;
  return {
    ...figures(a, a.votersSoFar, empty ? null : a.turnout, empty ? null : a.confirmed),
    stations: a.stations,
    reportingStations: a.reportingStations,
    reportedShare: a.registeredVoters > 0 ? Math.round((a.reportedRegistered / a.registeredVoters) * 10_000) / 10_000 : 0,
  };
}
