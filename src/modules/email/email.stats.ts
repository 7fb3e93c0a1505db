import { countReachable } from './email.audience';
import { countOptedOut } from '../audience';
import type { Queries } from '../../kernel/sql';
import type { AbDecision } from './email.entities';
import { oneSidedPValue } from './email.ab';
import { loadCampaign } from './email.campaigns.service';
import { campaignStatsRows, dashboardRows } from './email.stats.repository';

/**
 * Campaign statistics, all from aggregate SQL over the send list and the events. Rates are over
 * delivered messages (SMTP accepted). Opens exclude machine opens (privacy proxies, scanners)
 * and include anyone who clicked: a click proves the message was opened even when images were
 * blocked. Machine opens are reported on their own.
 */
const ratio = (part: number, whole: number) => (whole > 0 ? Math.min(1, Math.round((part / whole) * 10_000) / 10_000) : 0);

export async function campaignStats(db: Queries, campaignId: string) {
  const campaign = await loadCampaign(db, campaignId);
  const { delivery, events, variants, variantEvents, links, templateLinks, timeline } = await campaignStatsRows(db, campaignId);
  const sent = delivery?.sent ?? 0;
  const opens = events?.open_unique ?? 0;
  const clicks = events?.click_unique ?? 0;
  const byVariant = new Map(variantEvents.map((row) => [row.variant_id, row]));
  const clicked = new Map(links.map((row) => [row.url, row]));
  const decision = campaign.decision as AbDecision | null;
  return {
    campaignId,
    status: campaign.status,
    audienceSize: campaign.audienceSize,
    sent,
    failed: delivery?.failed ?? 0,
    bounced: delivery?.bounced ?? 0,
    softBounced: delivery?.soft_bounced ?? 0,
    retrying: delivery?.retrying ?? 0,
    unsubscribed: events?.unsubscribed ?? 0,
    opens: { unique: opens, total: events?.open_total ?? 0, rate: ratio(opens, sent), machine: events?.machine ?? 0 },
    clicks: { unique: clicks, total: events?.click_total ?? 0, rate: ratio(clicks, sent), clickToOpenRate: ratio(clicks, opens) },
    variants: variants.map((variant) => {
      const counts = byVariant.get(variant.id);
      return {
        name: variant.name,
        subject: variant.subject,
        recipients: variant.recipients,
        sent: variant.sent,
        uniqueOpens: counts?.opens ?? 0,
        openRate: ratio(counts?.opens ?? 0, variant.sent),
        uniqueClicks: counts?.clicks ?? 0,
        clickRate: ratio(counts?.clicks ?? 0, variant.sent),
      };
    }),
    abTest: {
      phase: campaign.abPhase,
      winner: variants.find((variant) => variant.id === campaign.winnerVariantId)?.name ?? null,
      decidedAt: campaign.decidedAt ? campaign.decidedAt.toISOString() : null,
      metric: campaign.abTest?.metric ?? null,
      reason: decision?.reason ?? null,
      zScore: decision?.zScore ?? null,
      pValue: decision?.zScore === null || decision?.zScore === undefined ? null : oneSidedPValue(decision.zScore),
      excluded: decision?.excluded ?? [],
    },
    links: templateLinks
      .map(({ url }) => ({ url, uniqueClicks: clicked.get(url)?.unique_clicks ?? 0, totalClicks: clicked.get(url)?.total_clicks ?? 0 }))
      .sort((a, b) => b.uniqueClicks - a.uniqueClicks || a.url.localeCompare(b.url)),
    timeline: timeline.map((row) => ({ hour: new Date(row.hour).toISOString(), opens: row.opens, clicks: row.clicks })),
  };
}

export async function emailDashboard(db: Queries) {
  const since = new Date(Date.now() - 30 * 86_400_000);
  const [{ campaigns, totals, events, suppressed }, unsubscribed, size, newContacts] = await Promise.all([
    dashboardRows(db, since),
    countOptedOut(db, 'email', since),
    countReachable(db, {}),
    countReachable(db, { createdFrom: since.toISOString() }),
  ]);
  const sent = totals?.sent ?? 0;
  return {
    campaigns: campaigns.map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status as 'draft' | 'scheduled' | 'sending' | 'sent',
      abPhase: row.ab_phase as 'none' | 'testing' | 'waiting' | 'winner_sent',
      createdAt: new Date(row.created_at).toISOString(),
      sent: row.sent,
      openRate: ratio(row.opens, row.sent),
      clickRate: ratio(row.clicks, row.sent),
      unsubscribeRate: ratio(row.unsubscribes, row.sent),
      bounceRate: ratio(row.bounced, row.sent + row.bounced),
    })),
    last30Days: {
      campaigns: totals?.campaigns ?? 0,
      sent,
      uniqueOpens: events?.opens ?? 0,
      uniqueClicks: events?.clicks ?? 0,
      openRate: ratio(events?.opens ?? 0, sent),
      clickRate: ratio(events?.clicks ?? 0, sent),
      unsubscribes: events?.unsubscribes ?? 0,
      bounces: events?.bounces ?? 0,
    },
    audience: { size, newLast30Days: newContacts, unsubscribedLast30Days: unsubscribed, suppressed },
  };
}
