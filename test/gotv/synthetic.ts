import { instantAt } from '../../src/kernel/calendar';
import { DEFAULT_CURVE, fractionAt, type TurnoutCurve } from '../../src/modules/gotv/projection/curve';
import type { CountReport, StationInput } from '../../src/modules/gotv/projection/projection';

/**
 * Synthetic election days for the projection tests: a known curve, a day that runs a little early
 * or late, stations that run early or late on their own, per-territory turnout rates with
 * per-station noise, and witnesses who read the sign-in sheet with some error.
 */

export const TIME_ZONE = 'America/Bogota';
export const ELECTION_DATE = '2026-03-08';
export const TERRITORY_RATES = [0.4, 0.47, 0.53, 0.58, 0.65];

/** mulberry32: a tiny seeded PRNG, so every synthetic day can be replayed exactly. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export const at = (minutes: number, date = ELECTION_DATE): Date => instantAt(date, minutes, TIME_ZONE);

/** The time at which the curve reaches `fraction`. */
function inverse(curve: TurnoutCurve, fraction: number): number {
  const { points } = curve;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    if (fraction <= b.fraction && b.fraction > a.fraction) return a.minute + ((fraction - a.fraction) / (b.fraction - a.fraction)) * (b.minute - a.minute);
  }
  return curve.closesAt;
}

interface SyntheticStation {
  id: string;
  territoryId: string;
  registeredVoters: number;
  finalVoters: number;
  confirmedVoters: number;
  /** Local minutes at which each confirmed supporter who votes does so. */
  confirmedVoteTimes: number[];
  /** Witness reports through the day (empty for stations nobody reports from). */
  counts: CountReport[];
  /** The exact count read at closing (16:10). */
  closingCount: CountReport;
}

export interface SyntheticDay {
  curve: TurnoutCurve;
  stations: SyntheticStation[];
  finalTurnout: number;
  finalConfirmedVoted: number;
  /** Station inputs as the database would give them at local time `minutes`. */
  inputsAt(minutes: number, options?: { closingCounts?: boolean }): StationInput[];
}

export function syntheticDay(seed: number, stationCount = 300, reportingShare = 0.75): SyntheticDay {
  const random = mulberry32(seed);
  const curve = DEFAULT_CURVE;
  const { opensAt, closesAt } = curve;
  const dayShift = (random() * 2 - 1) * 12; // minutes: the whole day early (−) or late (+)

  const stations: SyntheticStation[] = [];
  for (let i = 0; i < stationCount; i++) {
    const territory = i % TERRITORY_RATES.length;
    const registeredVoters = 600 + Math.floor(random() * 3000);
    const rate = Math.min(0.95, Math.max(0.1, TERRITORY_RATES[territory]! + 0.05 * normal(random)));
    const finalVoters = Math.round(registeredVoters * rate);
    const shift = dayShift + 15 * normal(random);
    // The station's own curve: the known one with time warped by `shift`, fixed at opening and closing.
    const warp = (t: number) => t - shift * Math.sin(Math.PI * Math.min(1, Math.max(0, (t - opensAt) / (closesAt - opensAt))));
    const truth = (t: number) => fractionAt(curve, warp(t));

    const counts: CountReport[] = [];
    if (random() < reportingShare) {
      const reports = 1 + Math.floor(random() * 4);
      for (let r = 0; r < reports; r++) {
        const t = opensAt + 20 + random() * (closesAt - opensAt - 20);
        const read = Math.round(finalVoters * truth(t) * (1 + 0.03 * normal(random)));
        // A misread never exceeds the day's final figure: a sign-in sheet only grows.
        counts.push({ votersSoFar: Math.min(finalVoters, Math.max(0, read)), reportedAt: at(t) });
      }
    }

    const confirmedVoters = Math.round(registeredVoters * (0.02 + random() * 0.06));
    const confirmedVoteTimes: number[] = [];
    for (let v = 0; v < confirmedVoters; v++) {
      if (random() >= 0.8) continue;
      const base = inverse(curve, random());
      let t = base; // solve warp(t) = base by fixed point (the warp is a contraction here)
      for (let k = 0; k < 8; k++) t = base + shift * Math.sin(Math.PI * Math.min(1, Math.max(0, (t - opensAt) / (closesAt - opensAt))));
      confirmedVoteTimes.push(t);
    }

    stations.push({
      id: `s${i}`,
      territoryId: `t${territory}`,
      registeredVoters,
      finalVoters,
      confirmedVoters,
      confirmedVoteTimes,
      counts,
      closingCount: { votersSoFar: finalVoters, reportedAt: at(closesAt + 10) },
    });
  }

  return {
    curve,
    stations,
    finalTurnout: stations.reduce((sum, s) => sum + s.finalVoters, 0),
    finalConfirmedVoted: stations.reduce((sum, s) => sum + s.confirmedVoteTimes.length, 0),
    inputsAt(minutes, options = {}) {
      return stations.map((s) => ({
        id: s.id,
        territoryId: s.territoryId,
        registeredVoters: s.registeredVoters,
        confirmedVoters: s.confirmedVoters,
        confirmedVoted: s.confirmedVoteTimes.filter((t) => t <= minutes).length,
        counts: options.closingCounts ? [...s.counts, s.closingCount] : s.counts,
      }));
    },
  };
}
