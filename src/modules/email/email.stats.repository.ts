import { sql, type Queries, type Sql } from '../../kernel/sql';

// Campaign statistics and the dashboard, all aggregate SQL over the send list and the events.

/** A human open: an open, or a click (which proves the message was opened with images blocked); never a machine's. */
const humanOpen: Sql<never> = sql`((kind = 'open' or kind = 'click') and not machine)`;
const humanClick: Sql<never> = sql`(kind = 'click' and not machine)`;

export interface CampaignStatsRows {
  delivery: { sent: number; failed: number; bounced: number; soft_bounced: number; retrying: number } | undefined;
  events: { open_unique: number; open_total: number; machine: number; click_unique: number; click_total: number; unsubscribed: number } | undefined;
  variants: { id: string; name: string; subject: string; recipients: number; sent: number }[];
  variantEvents: { variant_id: string; opens: number; clicks: number }[];
  links: { url: string; unique_clicks: number; total_clicks: number }[];
  templateLinks: { url: string }[];
  timeline: { hour: Date; opens: number; clicks: number }[];
}

/** One campaign's figures, each block one aggregate statement, run side by side. */
export async function campaignStatsRows(q: Queries, campaignId: string): Promise<CampaignStatsRows> {
  const [delivery, events, variants, variantEvents, links, templateLinks, timeline] = await Promise.all([
    q.first(
      sql<NonNullable<CampaignStatsRows['delivery']>>`
        select count(*) filter (where status = 'sent')::int as sent, count(*) filter (where status = 'failed')::int as failed,
               count(*) filter (where status = 'bounced')::int as bounced,
               count(*) filter (where (status = 'queued' and attempts > 0) or (status <> 'queued' and attempts > 1))::int as soft_bounced,
               count(*) filter (where status = 'queued' and attempts > 0)::int as retrying
        from email_recipients where campaign_id = ${campaignId}::uuid`,
    ),
    q.first(
      sql<NonNullable<CampaignStatsRows['events']>>`
        select count(distinct recipient_id) filter (where ${humanOpen})::int as open_unique,
               count(*) filter (where kind = 'open' and not machine)::int as open_total,
               count(*) filter (where kind = 'open' and machine)::int as machine,
               count(distinct recipient_id) filter (where ${humanClick})::int as click_unique,
               count(*) filter (where ${humanClick})::int as click_total,
               count(distinct recipient_id) filter (where kind = 'unsubscribe')::int as unsubscribed
        from email_events where campaign_id = ${campaignId}::uuid`,
    ),
    q.rows(
      sql<CampaignStatsRows['variants'][number]>`
        select v.id, v.name, v.subject, count(r.id)::int as recipients, count(r.id) filter (where r.status = 'sent')::int as sent
        from email_variants v left join email_recipients r on r.variant_id = v.id
        where v.campaign_id = ${campaignId}::uuid group by v.id order by v.position`,
    ),
    q.rows(
      sql<CampaignStatsRows['variantEvents'][number]>`
        select variant_id, count(distinct recipient_id) filter (where ${humanOpen})::int as opens,
               count(distinct recipient_id) filter (where ${humanClick})::int as clicks
        from email_events where campaign_id = ${campaignId}::uuid group by variant_id`,
    ),
    q.rows(
      sql<CampaignStatsRows['links'][number]>`
        select t.links->>e.link_index as url, count(distinct e.recipient_id)::int as unique_clicks, count(*)::int as total_clicks
        from email_events e join email_variants v on v.id = e.variant_id join email_templates t on t.id = v.template_id
        where e.campaign_id = ${campaignId}::uuid and e.kind = 'click' and not e.machine group by 1`,
    ),
    q.rows(
      sql<{ url: string }>`
        select distinct jsonb_array_elements_text(t.links) as url
        from email_variants v join email_templates t on t.id = v.template_id where v.campaign_id = ${campaignId}::uuid`,
    ),
    q.rows(
      sql<CampaignStatsRows['timeline'][number]>`
        select date_trunc('hour', at) as hour, count(*) filter (where kind = 'open' and not machine)::int as opens,
               count(*) filter (where ${humanClick})::int as clicks
        from email_events where campaign_id = ${campaignId}::uuid and kind in ('open', 'click') group by 1 order by 1`,
    ),
  ]);
  return { delivery, events, variants, variantEvents, links, templateLinks, timeline };
}

export interface DashboardRows {
  campaigns: { id: string; name: string; status: string; ab_phase: string; created_at: Date; sent: number; bounced: number; opens: number; clicks: number; unsubscribes: number }[];
  totals: { campaigns: number; sent: number } | undefined;
  events: { opens: number; clicks: number; unsubscribes: number; bounces: number } | undefined;
  suppressed: number;
}

/** The 20 latest campaigns with their figures, and the totals since `since`. */
export async function dashboardRows(q: Queries, since: Date): Promise<DashboardRows> {
  const [campaigns, totals, events, suppressed] = await Promise.all([
    q.rows(
      sql<DashboardRows['campaigns'][number]>`
        select c.id, c.name, c.status, c.ab_phase, c.created_at,
               coalesce(r.sent, 0)::int as sent, coalesce(r.bounced, 0)::int as bounced,
               coalesce(e.opens, 0)::int as opens, coalesce(e.clicks, 0)::int as clicks, coalesce(e.unsubscribes, 0)::int as unsubscribes
        from (select * from email_campaigns order by created_at desc limit 20) c
        left join lateral (select count(*) filter (where status = 'sent') as sent, count(*) filter (where status = 'bounced') as bounced
                           from email_recipients where campaign_id = c.id) r on true
        left join lateral (select count(distinct recipient_id) filter (where ${humanOpen}) as opens,
                                  count(distinct recipient_id) filter (where ${humanClick}) as clicks,
                                  count(distinct recipient_id) filter (where kind = 'unsubscribe') as unsubscribes
                           from email_events where campaign_id = c.id) e on true
        order by c.created_at desc`,
    ),
    q.first(
      sql<NonNullable<DashboardRows['totals']>>`
        select (select count(*)::int from email_campaigns where started_at >= ${since}::timestamptz) as campaigns,
               (select count(*)::int from email_recipients where status = 'sent' and sent_at >= ${since}::timestamptz) as sent`,
    ),
    q.first(
      sql<NonNullable<DashboardRows['events']>>`
        select count(distinct recipient_id) filter (where ${humanOpen})::int as opens,
               count(distinct recipient_id) filter (where ${humanClick})::int as clicks,
               count(distinct recipient_id) filter (where kind = 'unsubscribe')::int as unsubscribes,
               (select count(*)::int from email_suppressions where created_at >= ${since}::timestamptz) as bounces
        from email_events where at >= ${since}::timestamptz`,
    ),
    q.first(sql<{ suppressed: number }>`select count(*)::int as suppressed from email_suppressions`),
  ]);
  return { campaigns, totals, events, suppressed: suppressed?.suppressed ?? 0 };
}

/**
 * Each variant's test-phase results for the A/B decision: delivered, recipients with the metric's
 * event (a click counts for `open` too; machine events never), and unsubscribes.
 */
export function abVariantResults(
  q: Queries,
  campaignId: string,
  metric: 'open' | 'click',
): Promise<{ id: string; name: string; delivered: number; hits: number; unsubscribes: number }[]> {
  return q.rows(
    sql<{ id: string; name: string; delivered: number; hits: number; unsubscribes: number }>`
      select v.id, v.name,
        (select count(*)::int from email_recipients r where r.variant_id = v.id and r.phase = 'test' and r.status = 'sent') as delivered,
        (select count(distinct e.recipient_id)::int from email_events e join email_recipients r on r.id = e.recipient_id
           where e.variant_id = v.id and r.phase = 'test' and not e.machine
             and (e.kind = 'click' or (${metric}::text = 'open' and e.kind = 'open'))) as hits,
        (select count(distinct e.recipient_id)::int from email_events e join email_recipients r on r.id = e.recipient_id
           where e.variant_id = v.id and r.phase = 'test' and e.kind = 'unsubscribe') as unsubscribes
      from email_variants v where v.campaign_id = ${campaignId}::uuid order by v.position`,
  );
}

/** Locks the campaign for the A/B decision: its phase, when the decision is due, and the metric. */
export function lockAbCampaign(tx: Queries, campaignId: string): Promise<{ ab_phase: string; ab_decide_at: Date | null; metric: 'open' | 'click' } | undefined> {
  return tx.first(
    sql<{ ab_phase: string; ab_decide_at: Date | null; metric: 'open' | 'click' }>`
      select ab_phase, ab_decide_at, coalesce(ab_test->>'metric', 'click') as metric from email_campaigns where id = ${campaignId}::uuid for update`,
  );
}

/** The winner is recorded and the held remainder queued with it. Inside the deciding transaction. */
export async function recordAbWinner(tx: Queries, campaignId: string, winnerId: string, decision: unknown): Promise<void> {
  await tx.write(
    sql`update email_campaigns set ab_phase = 'winner_sent', winner_variant_id = ${winnerId}::uuid, decided_at = now(), decision = ${JSON.stringify(decision)}::jsonb, updated_at = now()
        where id = ${campaignId}::uuid and ab_phase = 'waiting'`,
  );
  await tx.write(sql`update email_recipients r set variant_id = ${winnerId}::uuid, status = 'queued' where r.campaign_id = ${campaignId}::uuid and r.status = 'held'`);
}
