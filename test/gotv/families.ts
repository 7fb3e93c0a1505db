import { DEFAULT_CURVE, formatTimeOfDay, fractionAt, type TurnoutCurve } from '../../src/modules/gotv/projection/curve';
import type { HistoryCurve } from '../../src/modules/gotv/projection/curve-history';
import type { CountReport, StationInput, VoterLagCount, VoterVoteCount } from '../../src/modules/gotv/projection/projection';
import { at, mulberry32, TERRITORY_RATES } from './synthetic';

/**
 * Families of synthetic election days for the projection's accuracy (test/gotv/projection-regression.test.ts,
 * scripts/accuracy-projection.ts). The campaign's configured curve is always the default one; the
 * day's true curve departs from it by the family's shape plus a random day-to-day variation, and
 * every station runs early or late on its own. What each family stresses: docs/gotv-projection.md.
 */
export const FAMILIES = [
  'default',
  'early-surge',
  'late-surge',
  'flat',
  'lunch-dip',
  'territory-curves',
  'silent-stations',
  'counts-stop-at-noon',
  'delayed-voter-reports',
  'flat-surge',
  'brigade-push',
] as const;
export type Family = (typeof FAMILIES)[number];

export const CHECKPOINTS = ['10:00', '11:00', '12:00', '13:00', '14:00', '15:00'] as const;

/** The shares by 10:00, 12:00, 14:00 and 15:00 reported for a real day (a flat day with a surge after 14:00). */
const FLAT_SURGE_POINTS = [
  { minute: 480, fraction: 0 },
  { minute: 600, fraction: 0.1 },
  { minute: 720, fraction: 0.26 },
  { minute: 840, fraction: 0.4 },
  { minute: 900, fraction: 0.67 },
  { minute: 960, fraction: 1 },
];

/** Day-to-day variation every family gets: a tilt, three smooth waves, the whole day shifted. */
export const DAY_VARIATION = { tiltSd: 0.25, waveSd: 0.06, shiftMinutes: 12, stationShiftSd: 15, readingSd: 0.03 } as const;

/**
 * Each station's turnout at the previous comparable election: today's final divided by a factor
 * shared by the whole day, one per territory and one per station (log-normal, these sds), capped at
 * the registered voters; a share of stations (new since then) have none. Drawn from a stream of its
 * own, the same way for every family, so a day with history is the same day as without.
 */
/**
 * brigade-push: this share of the supporters who vote are called by a brigade and brought in the
 * afternoon (vote time normal around 15:00, sd 40 min); the rest vote along the day's curve.
 */
export const BRIGADE_PUSH = { share: 0.3, atMinute: 15 * 60, sdMinutes: 40 } as const;

export const HISTORY_VARIATION = { daySd: 0.1, territorySd: 0.05, stationSd: 0.1, missingShare: 0.1 } as const;

function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * One day's own variation (DAY_VARIATION): its log flow's departure from its family's shape at
 * `u`, the share of the day gone by (a tilt and three smooth waves), and the whole day's shift in minutes.
 */
function dayVariation(random: () => number): { departure: (u: number) => number; shift: number } {
  const tilt = DAY_VARIATION.tiltSd * normal(random);
  const waves = [1, 2, 3].map((k) => ({ k, amplitude: DAY_VARIATION.waveSd * normal(random), phase: 2 * Math.PI * random() }));
  const shift = (random() * 2 - 1) * DAY_VARIATION.shiftMinutes;
  const departure = (u: number) => {
    let value = tilt * (u - 0.5);
    for (const { k, amplitude, phase } of waves) value += amplitude * Math.sin(k * Math.PI * u + phase);
    return value;
  };
  return { departure, shift };
}

/** The share of a day's voters who voted by each minute 0…length, from each minute's flow. */
function cumulativeShares(length: number, flow: (minute: number) => number): Float64Array {
  const sums = new Float64Array(length + 1);
  for (let m = 0; m < length; m++) sums[m + 1] = sums[m]! + flow(m);
  for (let m = 0; m <= length; m++) sums[m]! /= sums[length]!;
  return sums;
}

/**
 * A campaign's curve history for day `seed`: `count` past election days that followed the default
 * curve with the same day-to-day variation as any family's day (none of them a surge, a dip or
 * the flat-surge day), as `curveHistory` entries with a point every half hour. The same past days
 * whatever today's family is: a campaign's history does not know what today will bring.
 */
export function pastDayCurves(seed: number, count: number): HistoryCurve[] {
  const random = mulberry32(seed * 2_654_435 + 101);
  const { opensAt, closesAt } = DEFAULT_CURVE;
  const length = closesAt - opensAt;
  return Array.from({ length: count }, (_, index) => {
    const { departure } = dayVariation(random);
    const sums = cumulativeShares(length, (m) => {
      const prior = Math.max(1e-6, fractionAt(DEFAULT_CURVE, opensAt + m + 1) - fractionAt(DEFAULT_CURVE, opensAt + m));
      return prior * Math.exp(departure((m + 0.5) / length));
    });
    const turnoutCurve = [];
    for (let m = 0; m <= length; m += 30) turnoutCurve.push({ time: formatTimeOfDay(opensAt + m), fraction: m === length ? 1 : Math.round(sums[m]! * 1e4) / 1e4 });
    return { label: `past day ${index + 1}`, turnoutCurve };
  });
}

interface Station {
  id: string;
  territoryId: string;
  registeredVoters: number;
  finalVoters: number;
  confirmedVoters: number;
  /** Each voting supporter's vote time and report delay (minutes), and whether a brigade called them first. */
  votes: { at: number; lag: number; contacted: boolean }[];
  counts: { minute: number; votersSoFar: number }[];
  previousTurnout: number | null;
  closingCount: CountReport;
}

export interface FamilyDay {
  family: Family;
  seed: number;
  /** The configured (prior) curve. */
  curve: TurnoutCurve;
  finalTurnout: number;
  finalConfirmedVoted: number;
  territoryFinals: Map<string, { turnout: number; confirmed: number }>;
  /** The day's true cumulative curve for a territory (before station timing), at a local minute. */
  trueFraction(territoryId: string, minute: number): number;
  /** What the database would hold at local minute `now`. */
  inputsAt(now: number, options?: { closingCounts?: boolean }): { stations: StationInput[]; voterLags: VoterLagCount[]; voterVotes: VoterVoteCount[] };
}

export interface FamilyOptions {
  stations?: number;
  /** Whether stations carry their previous turnout (default true). */
  history?: boolean;
}

export function familyDay(family: Family, seed: number, options: FamilyOptions = {}): FamilyDay {
  const stationCount = options.stations ?? 300;
  // Each family draws from its own stream, so one family's days do not depend on another's.
  const random = mulberry32(seed * 7919 + FAMILIES.indexOf(family) * 104_729);
  const historyRandom = mulberry32(seed * 6_700_417 + FAMILIES.indexOf(family) * 7_919 + 13);
  const withHistory = options.history ?? true;
  const H = HISTORY_VARIATION;
  const historyDay = H.daySd * normal(historyRandom);
  const historyTerritory = TERRITORY_RATES.map(() => H.territorySd * normal(historyRandom));
  const curve = DEFAULT_CURVE;
  const { opensAt, closesAt } = curve;
  const length = closesAt - opensAt;
  const V = DAY_VARIATION;

  // The day's shape: the family's departure from the prior plus this day's own variation.
  const { departure: ordinaryDeparture, shift: dayShift } = dayVariation(random);
  const territoryTilts = [-1, -0.5, 0, 0.5, 1];
  const baseFraction = (minute: number) => (family === 'flat-surge' ? fractionAt({ opensAt, closesAt, points: FLAT_SURGE_POINTS }, minute) : fractionAt(curve, minute));
  const departure = (territory: number, minute: number): number => {
    const u = (minute - opensAt) / length;
    let value = ordinaryDeparture(u);
    if (family === 'early-surge') value += -1.2 * (u - 0.5);
    if (family === 'late-surge') value += 1.2 * (u - 0.5);
    if (family === 'lunch-dip') value += -0.7 * Math.exp(-0.5 * ((minute - 13 * 60) / 40) ** 2);
    if (family === 'territory-curves') value += territoryTilts[territory]! * (u - 0.5);
    return value;
  };
  /** Cumulative share per minute of the day, one curve per territory. */
  const cumulative = TERRITORY_RATES.map((_, territory) =>
    cumulativeShares(length, (m) => {
      const minute = opensAt + m;
      const prior = Math.max(1e-6, baseFraction(minute + 1) - baseFraction(minute));
      const flat = 1 / length;
      return (family === 'flat' ? flat : prior) * Math.exp(departure(territory, minute + 0.5));
    }),
  );
  const fractionIn = (territory: number, minute: number) => {
    const x = Math.min(length, Math.max(0, minute - opensAt));
    const m = Math.min(length - 1, Math.floor(x));
    const sums = cumulative[territory]!;
    return sums[m]! + (sums[m + 1]! - sums[m]!) * (x - m);
  };
  const inverseIn = (territory: number, share: number) => {
    const sums = cumulative[territory]!;
    let lo = 0;
    let hi = length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (sums[mid]! < share) lo = mid;
      else hi = mid;
    }
    const step = sums[hi]! - sums[lo]!;
    return opensAt + lo + (step > 0 ? (share - sums[lo]!) / step : 0);
  };

  const reportingShare = family === 'silent-stations' ? 0.4 : 0.75;
  const stations: Station[] = [];
  for (let i = 0; i < stationCount; i++) {
    const territory = i % TERRITORY_RATES.length;
    const registeredVoters = 600 + Math.floor(random() * 3000);
    const rate = Math.min(0.95, Math.max(0.1, TERRITORY_RATES[territory]! + 0.05 * normal(random)));
    const finalVoters = Math.round(registeredVoters * rate);
    const shift = dayShift + V.stationShiftSd * normal(random);
    const bend = (t: number) => Math.sin(Math.PI * Math.min(1, Math.max(0, (t - opensAt) / length)));
    // The station's clock runs `shift` minutes late at midday, on time at opening and closing.
    const truth = (t: number) => fractionIn(territory, t - shift * bend(t));

    const counts: Station['counts'] = [];
    if (random() < reportingShare) {
      const reports = 1 + Math.floor(random() * 4);
      for (let r = 0; r < reports; r++) {
        const t = opensAt + 20 + random() * (length - 20);
        const read = Math.round(finalVoters * truth(t) * (1 + V.readingSd * normal(random)));
        if (family === 'counts-stop-at-noon' && t > 12 * 60) continue;
        counts.push({ minute: t, votersSoFar: Math.min(finalVoters, Math.max(0, read)) });
      }
    }

    const confirmedVoters = Math.round(registeredVoters * (0.02 + random() * 0.06));
    const votes: Station['votes'] = [];
    for (let v = 0; v < confirmedVoters; v++) {
      if (random() >= 0.8) continue;
      const lag = family === 'delayed-voter-reports' ? 60 * random() : -5 * Math.log(Math.max(1e-12, random()));
      if (family === 'brigade-push' && random() < BRIGADE_PUSH.share) {
        // Called by a brigade, then brought to vote in the afternoon push (Gaussian, kept inside the day).
        let t = closesAt;
        while (t <= opensAt || t >= closesAt) t = BRIGADE_PUSH.atMinute + BRIGADE_PUSH.sdMinutes * normal(random);
        votes.push({ at: t, lag, contacted: true });
        continue;
      }
      const base = inverseIn(territory, random());
      let t = base; // solve t − shift·bend(t) = base by fixed point (a contraction here)
      for (let k = 0; k < 8; k++) t = base + shift * bend(t);
      votes.push({ at: t, lag, contacted: false });
    }

    const factor = Math.exp(historyDay + historyTerritory[territory]! + H.stationSd * normal(historyRandom));
    const previousTurnout = historyRandom() < H.missingShare ? null : Math.min(registeredVoters, Math.round(finalVoters / factor));

    stations.push({
      id: `s${i}`,
      territoryId: `t${territory}`,
      registeredVoters,
      finalVoters,
      confirmedVoters,
      votes,
      counts,
      previousTurnout: withHistory ? previousTurnout : null,
      closingCount: { votersSoFar: finalVoters, reportedAt: at(closesAt + 10) },
    });
  }

  const territoryFinals = new Map<string, { turnout: number; confirmed: number }>();
  for (const s of stations) {
    const sum = territoryFinals.get(s.territoryId) ?? { turnout: 0, confirmed: 0 };
    sum.turnout += s.finalVoters;
    sum.confirmed += s.votes.length;
    territoryFinals.set(s.territoryId, sum);
  }
  const instants = new Map<number, Date>();
  const instant = (minute: number) => {
    let date = instants.get(minute);
    if (!date) instants.set(minute, (date = at(minute)));
    return date;
  };

  return {
    family,
    seed,
    curve,
    finalTurnout: stations.reduce((sum, s) => sum + s.finalVoters, 0),
    finalConfirmedVoted: stations.reduce((sum, s) => sum + s.votes.length, 0),
    territoryFinals,
    trueFraction: (territoryId, minute) => fractionIn(Number(territoryId.slice(1)), minute),
    inputsAt(now, options = {}) {
      const lags = new Map<string, VoterLagCount>();
      const votesByMinute = new Map<string, VoterVoteCount>();
      const inputs = stations.map((s) => {
        let confirmedVoted = 0;
        for (const vote of s.votes) {
          if (vote.at + vote.lag > now) continue;
          confirmedVoted += 1;
          // The supporters' flow leaves out those a brigade called before they voted (their timing is the brigade's).
          if (!vote.contacted) {
            const votedMinute = Math.floor(vote.at);
            const byMinute = votesByMinute.get(`${s.territoryId}|${votedMinute}`);
            if (byMinute) byMinute.count += 1;
            else votesByMinute.set(`${s.territoryId}|${votedMinute}`, { territoryId: s.territoryId, votedMinute: instant(votedMinute), count: 1 });
          }
          if (vote.at < now - 180) continue;
          const lagMinutes = Math.floor(vote.lag);
          const ageMinutes = Math.floor(now - vote.at);
          const key = `${s.territoryId}|${lagMinutes}|${ageMinutes}`;
          const row = lags.get(key);
          if (row) row.count += 1;
          else lags.set(key, { territoryId: s.territoryId, lagMinutes, ageMinutes, count: 1 });
        }
        const counts: CountReport[] = s.counts.filter((c) => c.minute <= now).map((c) => ({ votersSoFar: c.votersSoFar, reportedAt: instant(c.minute) }));
        if (options.closingCounts) counts.push(s.closingCount);
        return {
          id: s.id,
          territoryId: s.territoryId,
          registeredVoters: s.registeredVoters,
          confirmedVoters: s.confirmedVoters,
          confirmedVoted,
          previousTurnout: s.previousTurnout,
          counts,
        };
      });
      return { stations: inputs, voterLags: [...lags.values()], voterVotes: [...votesByMinute.values()] };
    },
  };
}
