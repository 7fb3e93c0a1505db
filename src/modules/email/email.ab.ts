import type { AppDeps } from '../../kernel/context';
import type { AbDecision } from './email.entities';
import { abVariantResults, lockAbCampaign, recordAbWinner } from './email.stats.repository';
import { EMAIL_ROOM } from './email.events';
import { sendJob } from './email.jobs';

/**
 * Picking the A/B winner.
 *
 * Rate = unique recipients with the metric's event / delivered, as the stats count them: for
 * `open`, human opens or clicks (a click proves an open); for `click`, clicks. Machine events
 * (privacy proxies, scanners) never count.
 * 1. Guardrail: a variant whose unsubscribe rate is far above the others' is excluded — far
 *    meaning at least twice the pooled rate of the rest AND a one-sided two-proportion z ≥ 1.645.
 * 2. Too small: if any remaining variant has fewer than MIN_DELIVERED delivered messages, or the
 *    leader has fewer than MIN_EVENTS events, the sample says nothing → fallback.
 * 3. The leader (highest rate) must beat the runner-up with a one-sided two-proportion z-test
 *    (pooled standard error) at z ≥ 1.645 (95 %). Otherwise (including exact ties) → fallback.
 * Fallback: the first remaining variant in the order given (A, the control): without evidence,
 * keep what the team would have sent anyway.
 */
export const MIN_DELIVERED = 30;
export const MIN_EVENTS = 5;
export const Z_CRITICAL = 1.645;

export interface VariantResult {
  id: string;
  name: string;
  delivered: number;
  hits: number;
  unsubscribes: number;
}

/** One-sided z for "a's proportion is greater than b's", pooled; 0 when undefined. */
export function twoProportionZ(hitsA: number, nA: number, hitsB: number, nB: number): number {
  if (nA === 0 || nB === 0) return 0;
  const pooled = (hitsA + hitsB) / (nA + nB);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / nA + 1 / nB));
  if (se === 0) return 0;
  return (hitsA / nA - hitsB / nB) / se;
}

/**
 * The one-sided p-value of a z score, P(Z ≥ z) under the standard normal (Abramowitz & Stegun
 * 7.1.26, error below 1.5·10⁻⁷), rounded to four places: what the decision's z means for people.
 */
export function oneSidedPValue(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  const upper = z >= 0 ? (1 - erf) / 2 : (1 + erf) / 2;
  return Math.round(upper * 10_000) / 10_000;
}

const rate = (hits: number, n: number) => (n > 0 ? hits / n : 0);

export function chooseWinner(results: VariantResult[]): { winnerId: string; decision: AbDecision } {
  const rates = results.map((result) => ({
    variant: result.name,
    delivered: result.delivered,
    hits: result.hits,
    rate: rate(result.hits, result.delivered),
    unsubscribeRate: rate(result.unsubscribes, result.delivered),
  }));
  const excluded = results.filter((result) => {
    const others = results.filter((other) => other !== result);
    const otherUnsubs = others.reduce((sum, other) => sum + other.unsubscribes, 0);
    const otherDelivered = others.reduce((sum, other) => sum + other.delivered, 0);
    const own = rate(result.unsubscribes, result.delivered);
    return own > 0 && own >= 2 * rate(otherUnsubs, otherDelivered) && twoProportionZ(result.unsubscribes, result.delivered, otherUnsubs, otherDelivered) >= Z_CRITICAL;
  });
  // If the guardrail would exclude everyone, it says nothing: keep them all.
  const candidates = excluded.length === results.length ? results : results.filter((result) => !excluded.includes(result));
  const excludedNames = candidates === results ? [] : excluded.map((result) => result.name);
  const fallback = (reason: AbDecision['reason'], zScore: number | null) => ({
    winnerId: candidates[0]!.id,
    decision: { reason, zScore, excluded: excludedNames, rates },
  });
  if (candidates.length === 1) return fallback('guardrail', null);
  const ranked = [...candidates].sort((a, b) => rate(b.hits, b.delivered) - rate(a.hits, a.delivered));
  const [leader, runnerUp] = [ranked[0]!, ranked[1]!];
  if (candidates.some((result) => result.delivered < MIN_DELIVERED) || leader.hits < MIN_EVENTS) return fallback('too_small', null);
  if (rate(leader.hits, leader.delivered) === rate(runnerUp.hits, runnerUp.delivered)) return fallback('tie', 0);
  const z = twoProportionZ(leader.hits, leader.delivered, runnerUp.hits, runnerUp.delivered);
  if (z < Z_CRITICAL) return fallback('not_significant', round(z));
  return { winnerId: leader.id, decision: { reason: 'significant', zScore: round(z), excluded: excludedNames, rates } };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

export type DecideResult = { decided: true; winner: string; decision: AbDecision } | { decided: false; reason: 'not_waiting' | 'not_due'; dueAt?: Date };

/**
 * The winner phase, exactly once: under a row lock, the campaign moves waiting → winner_sent
 * and the held remainder is queued with the winner, in one transaction. Whoever comes second
 * (a duplicate job, the startup recovery, a manager's "decide now") finds it no longer waiting.
 * `now`: decide before waitMinutes is over (the manager ends the test early).
 */
export async function decideWinner(deps: AppDeps, campaignId: string, options: { now?: boolean } = {}): Promise<DecideResult> {
  const result = await deps.db.transaction(async (tx): Promise<DecideResult> => {
    const campaign = await lockAbCampaign(tx, campaignId);
    if (!campaign || campaign.ab_phase !== 'waiting') return { decided: false, reason: 'not_waiting' };
    const dueAt = campaign.ab_decide_at ? new Date(campaign.ab_decide_at) : new Date();
    if (!options.now && dueAt.getTime() > Date.now()) return { decided: false, reason: 'not_due', dueAt };
    const results = await abVariantResults(tx, campaignId, campaign.metric);
    const { winnerId, decision } = chooseWinner(results);
    await recordAbWinner(tx, campaignId, winnerId, decision);
    return { decided: true, winner: results.find((item) => item.id === winnerId)!.name, decision };
  });
  if (result.decided) {
    await deps.jobs.enqueue(sendJob, { campaignId });
    deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sending', abPhase: 'winner_sent', winner: result.winner });
    deps.logger.info({ campaignId, winner: result.winner, reason: result.decision.reason }, 'email A/B winner decided');
  }
  return result;
}
