import type { WhatsAppConfig } from '../../config';
import type { Queries } from '../../kernel/sql';
import { countOptedOut } from '../audience';
import { dashboardRows } from './whatsapp.campaigns.repository';
import { campaignCounters, rates, tierUsage } from './whatsapp.stats';

/** Totals and rates over every outbound message, per campaign, conversations, opt-outs, last 24 h. */
export async function dashboard(q: Queries, config: WhatsAppConfig) {
  const [rows, optOuts, tier] = await Promise.all([dashboardRows(q), countOptedOut(q, 'whatsapp'), tierUsage(q, config)]);
  const counters = await campaignCounters(
    q,
    rows.campaigns.map((campaign) => campaign.id),
  );
  const { total, ...totals } = rows.totals;
  return {
    totals: { total, ...totals },
    rates: rates(totals),
    campaigns: rows.campaigns.map(({ id, name, status, audienceSize }) => {
      const progress = counters.get(id)!;
      return { id, name, status, audienceSize, progress, rates: rates(progress) };
    }),
    conversations: rows.conversations,
    optOuts,
    last24h: rows.last24h,
    tier,
    provider: config.provider,
  };
}
