/**
 * How long a supporter's vote takes to be reported: the delay between `votedAt` (the phone's time
 * of the vote) and the report's arrival. Estimated from recent voter reports; only reports that
 * have already arrived are seen, so long delays are under-represented among recent votes (right
 * truncation), which the Lynden-Bell product-limit estimator corrects for. docs/gotv-projection.md.
 */

export const LAG_MODEL = {
  /** Delays are counted up to this many minutes; longer ones are taken as this long. */
  capMinutes: 180,
  /** Voter reports whose vote happened this long before now at most are used. */
  windowMinutes: 180,
  /** Fewer reports than this: no estimate (no correction, `lagMinutes` null). */
  minReports: 30,
  /** A territory needs this many for its own estimate; otherwise it uses the overall one. */
  minTerritoryReports: 150,
} as const;

/** Voter reports, counted by whole minutes of delay and of age (now − votedAt). */
export interface LagCount {
  lagMinutes: number;
  ageMinutes: number;
  count: number;
}

export interface LagDistribution {
  /** received[m]: probability that a vote is reported within m whole minutes (m = 0 … cap). */
  received: Float64Array;
  /** Median delay in minutes. */
  medianMinutes: number;
  reports: number;
}

/**
 * Lynden-Bell's estimator: with d(y) reports delayed y minutes and N(y) reports that could have
 * been seen with delay y and were delayed at most y, P(delay < y | delay ≤ y) = 1 − d(y)/N(y),
 * and the distribution is the product of these from the cap down.
 */
export function estimateLag(counts: readonly LagCount[]): LagDistribution | null {
  const cap = LAG_MODEL.capMinutes;
  const delayed = new Float64Array(cap + 1);
  const boundBelow = new Float64Array(cap + 2);
  let reports = 0;
  for (const { lagMinutes, ageMinutes, count } of counts) {
    if (!(count > 0) || !Number.isFinite(lagMinutes) || !Number.isFinite(ageMinutes)) continue;
    const lag = Math.min(cap, Math.max(0, Math.floor(lagMinutes)));
    // The age can be no less than the delay it let us see.
    const bound = Math.min(cap, Math.max(lag, Math.floor(ageMinutes)));
    delayed[lag]! += count;
    boundBelow[bound + 1]! += count;
    reports += count;
  }
  if (reports < LAG_MODEL.minReports) return null;
  const atMost = new Float64Array(cap + 1);
  let running = 0;
  for (let y = 0; y <= cap; y++) atMost[y] = running += delayed[y]!;
  let boundBefore = 0;
  const atRisk = new Float64Array(cap + 1);
  for (let y = 0; y <= cap; y++) {
    boundBefore += boundBelow[y]!;
    atRisk[y] = atMost[y]! - boundBefore;
  }
  const received = new Float64Array(cap + 1);
  received[cap] = 1;
  for (let y = cap; y >= 1; y--) {
    const ratio = atRisk[y]! > 0 ? 1 - delayed[y]! / atRisk[y]! : 1;
    received[y - 1] = received[y]! * Math.max(0, ratio);
  }
  let median = cap;
  for (let m = 0; m <= cap; m++) {
    if (received[m]! >= 0.5) {
      const before = m === 0 ? 0 : received[m - 1]!;
      median = m + (0.5 - before) / Math.max(1e-12, received[m]! - before);
      break;
    }
  }
  return { received, medianMinutes: median, reports };
}

/** Probability that a vote cast `minutesAgo` minutes ago has been reported (1 without an estimate). */
export function reportedWithin(lag: LagDistribution | null, minutesAgo: number): number {
  if (!lag) return 1;
  if (minutesAgo < 0) return 0;
  return lag.received[Math.min(LAG_MODEL.capMinutes, Math.floor(minutesAgo))]!;
}
