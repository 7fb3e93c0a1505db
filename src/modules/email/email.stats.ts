import type { EntityManager } from '@mikro-orm/postgresql';
import { countReachable } from './email.audience';
import { countOptedOut } from '../audience';
import type { Queries } from '../../kernel/sql';
import type { AbDecision } from './email.entities';
import { loadCampaign } from './email.campaigns.service';

/**
 * Campaign statistics, all from aggregate SQL over the send list and the events. Rates are over
 * delivered messages (SMTP accepted). Opens exclude machine opens (privacy proxies, scanners)
 * and include anyone who clicked: a click proves the message was opened even when images were
 * blocked. Machine opens are reported on their own.
 */
const ratio = (part: number, whole: number) => (whole > 0 ? Math.min(1, Math.round((part / whole) * 10_000) / 10_000) : 0);

const HUMAN_OPEN = `((kind = 'open' or kind = 'click') and not machine)`;
const HUMAN_CLICK = `(kind = 'click' and not machine)`;

export async function campaignStats(em: EntityManager, campaignId: string) {
  const campaign = await loadCampaign(em, campaignId);
  const [[delivery], [events], variants, variantEvents, links, templateLinks, timeline] = await Promise.all([
    em.execute<{ sent: number; failed: number; bounced: number }[]>(
      `select count(*) filter (where status = 'sent')::int as sent, count(*) filter (where status = 'failed')::int as failed,
              count(*) filter (where status = 'bounced')::int as bounced
       from email_recipients where campaign_id = ?`,
      [campaignId],
    ),
    em.execute<{ open_unique: number; open_total: number; machine: number; click_unique: number; click_total: number; unsubscribed: number }[]>(
      `select count(distinct recipient_id) filter (where ${HUMAN_OPEN})::int as open_unique,
              count(*) filter (where kind = 'open' and not machine)::int as open_total,
              count(*) filter (where kind = 'open' and machine)::int as machine,
              count(distinct recipient_id) filter (where ${HUMAN_CLICK})::int as click_unique,
              count(*) filter (where ${HUMAN_CLICK})::int as click_total,
              count(distinct recipient_id) filter (where kind = 'unsubscribe')::int as unsubscribed
       from email_events where campaign_id = ?`,
      [campaignId],
    ),
    em.execute<{ id: string; name: string; subject: string; recipients: number; sent: number }[]>(
      `select v.id, v.name, v.subject, count(r.id)::int as recipients, count(r.id) filter (where r.status = 'sent')::int as sent
       from email_variants v left join email_recipients r on r.variant_id = v.id
       where v.campaign_id = ? group by v.id order by v.position`,
      [campaignId],
    ),
    em.execute<{ variant_id: string; opens: number; clicks: number }[]>(
      `select variant_id, count(distinct recipient_id) filter (where ${HUMAN_OPEN})::int as opens,
              count(distinct recipient_id) filter (where ${HUMAN_CLICK})::int as clicks
       from email_events where campaign_id = ? group by variant_id`,
      [campaignId],
    ),
    em.execute<{ url: string; unique_clicks: number; total_clicks: number }[]>(
      `select t.links->>e.link_index as url, count(distinct e.recipient_id)::int as unique_clicks, count(*)::int as total_clicks
       from email_events e join email_variants v on v.id = e.variant_id join email_templates t on t.id = v.template_id
       where e.campaign_id = ? and e.kind = 'click' and not e.machine group by 1`,
      [campaignId],
    ),
    em.execute<{ url: string }[]>(
      `select distinct jsonb_array_elements_text(t.links) as url from email_variants v join email_templates t on t.id = v.template_id where v.campaign_id = ?`,
      [campaignId],
    ),
    em.execute<{ hour: Date; opens: number; clicks: number }[]>(
      `select date_trunc('hour', at) as hour, count(*) filter (where kind = 'open' and not machine)::int as opens,
              count(*) filter (where ${HUMAN_CLICK})::int as clicks
       from email_events where campaign_id = ? and kind in ('open', 'click') group by 1 order by 1`,
      [campaignId],
    ),
  ]);
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
    },
    links: templateLinks
      .map(({ url }) => ({ url, uniqueClicks: clicked.get(url)?.unique_clicks ?? 0, totalClicks: clicked.get(url)?.total_clicks ?? 0 }))
      .sort((a, b) => b.uniqueClicks - a.uniqueClicks || a.url.localeCompare(b.url)),
    timeline: timeline.map((row) => ({ hour: new Date(row.hour).toISOString(), opens: row.opens, clicks: row.clicks })),
  };
}

export async function emailDashboard(em: EntityManager, db: Queries) {
  const since = new Date(Date.now() - 30 * 86_400_000);
  const [campaigns, [totals], [events], [audience], size, newContacts] = await Promise.all([
    em.execute<
      { id: string; name: string; status: string; ab_phase: string; created_at: Date; sent: number; bounced: number; opens: number; clicks: number; unsubscribes: number }[]
    >(
      `select c.id, c.name, c.status, c.ab_phase, c.created_at,
              coalesce(r.sent, 0)::int as sent, coalesce(r.bounced, 0)::int as bounced,
              coalesce(e.opens, 0)::int as opens, coalesce(e.clicks, 0)::int as clicks, coalesce(e.unsubscribes, 0)::int as unsubscribes
       from (select * from email_campaigns order by created_at desc limit 20) c
       left join lateral (select count(*) filter (where status = 'sent') as sent, count(*) filter (where status = 'bounced') as bounced
                          from email_recipients where campaign_id = c.id) r on true
       left join lateral (select count(distinct recipient_id) filter (where ${HUMAN_OPEN}) as opens,
                                 count(distinct recipient_id) filter (where ${HUMAN_CLICK}) as clicks,
                                 count(distinct recipient_id) filter (where kind = 'unsubscribe') as unsubscribes
                          from email_events where campaign_id = c.id) e on true
       order by c.created_at desc`,
    ),
    em.execute<{ campaigns: number; sent: number }[]>(
      `select (select count(*)::int from email_campaigns where started_at >= ?) as campaigns,
              (select count(*)::int from email_recipients where status = 'sent' and sent_at >= ?) as sent`,
      [since, since],
    ),
    em.execute<{ opens: number; clicks: number; unsubscribes: number; bounces: number }[]>(
      `select count(distinct recipient_id) filter (where ${HUMAN_OPEN})::int as opens,
              count(distinct recipient_id) filter (where ${HUMAN_CLICK})::int as clicks,
              count(distinct recipient_id) filter (where kind = 'unsubscribe')::int as unsubscribes,
              (select count(*)::int from email_suppressions where created_at >= ?) as bounces
       from email_events where at >= ?`,
      [since, since],
    ),
    Promise.all([countOptedOut(db, 'email', since), em.execute<{ suppressed: number }[]>('select count(*)::int as suppressed from email_suppressions')]).then(
      ([unsubscribed, [suppressed]]) => [{ unsubscribed, suppressed: suppressed?.suppressed ?? 0 }],
    ),
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
    audience: { size, newLast30Days: newContacts, unsubscribedLast30Days: audience?.unsubscribed ?? 0, suppressed: audience?.suppressed ?? 0 },
  };
}
