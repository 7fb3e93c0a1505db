import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { jsonText } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import type { AbDecision, EmailCampaignSchema, EmailEventSchema, EmailRecipientSchema, EmailSuppressionSchema, EmailVariantSchema } from './email.entities';

// Campaign statistics and the dashboard, all aggregate SQL over the send list and the events.

type StatsTables = InferKyselyDB<typeof EmailCampaignSchema | typeof EmailEventSchema | typeof EmailRecipientSchema | typeof EmailSuppressionSchema | typeof EmailVariantSchema>;
const db = tables<StatsTables>();

type EventColumns = ExpressionBuilder<StatsTables, 'email_events'>;

/** A human open: an open, or a click (which proves the message was opened with images blocked); never a machine's. */
const isHumanOpen = (eb: EventColumns) => eb.and([eb('kind', 'in', ['open', 'click']), eb('machine', '=', false)]);
const isHumanClick = (eb: EventColumns) => eb.and([eb('kind', '=', 'click'), eb('machine', '=', false)]);

/** `count(*) filter (where …)` as an integer. */
const countWhere = <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, filter: Expression<SqlBool>) => eb.cast<number>(eb.fn.countAll().filterWhere(filter), 'integer');

/** One campaign's figures, each block one aggregate statement, run side by side. */
export async function campaignStatsRows(q: Queries, campaignId: string) {
  const [delivery, events, variants, variantEvents, links, templateLinks, timeline] = await Promise.all([
    q.first(
      db
        .selectFrom('email_recipients')
        .select((eb) => [
          countWhere(eb, eb('status', '=', 'sent')).as('sent'),
          countWhere(eb, eb('status', '=', 'failed')).as('failed'),
          countWhere(eb, eb('status', '=', 'bounced')).as('bounced'),
          countWhere(eb, eb.or([eb.and([eb('status', '=', 'queued'), eb('attempts', '>', 0)]), eb.and([eb('status', '<>', 'queued'), eb('attempts', '>', 1)])])).as('soft_bounced'),
          countWhere(eb, eb.and([eb('status', '=', 'queued'), eb('attempts', '>', 0)])).as('retrying'),
        ])
        .where('campaign_id', '=', campaignId),
    ),
    q.first(
      db
        .selectFrom('email_events')
        .select((eb) => [
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere(isHumanOpen(eb)), 'integer').as('open_unique'),
          countWhere(eb, eb.and([eb('kind', '=', 'open'), eb('machine', '=', false)])).as('open_total'),
          countWhere(eb, eb.and([eb('kind', '=', 'open'), eb('machine', '=', true)])).as('machine'),
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere(isHumanClick(eb)), 'integer').as('click_unique'),
          countWhere(eb, isHumanClick(eb)).as('click_total'),
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere('kind', '=', 'unsubscribe'), 'integer').as('unsubscribed'),
        ])
        .where('campaign_id', '=', campaignId),
    ),
    q.rows(
      sql<{ id: string; name: string; subject: string; recipients: number; sent: number }>`
        select v.id, v.name, v.subject, count(r.id)::int as recipients, count(r.id) filter (where r.status = 'sent')::int as sent
        from email_variants v left join email_recipients r on r.variant_id = v.id
        where v.campaign_id = ${campaignId}::uuid group by v.id order by v.position`,
    ),
    q.rows(
      db
        .selectFrom('email_events')
        .select((eb) => [
          'variant_id',
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere(isHumanOpen(eb)), 'integer').as('opens'),
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere(isHumanClick(eb)), 'integer').as('clicks'),
        ])
        .where('campaign_id', '=', campaignId)
        .groupBy('variant_id'),
    ),
    q.rows(
      sql<{ url: string; unique_clicks: number; total_clicks: number }>`
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
      db
        .selectFrom('email_events')
        .select((eb) => [
          eb.fn<Date>('date_trunc', [eb.val('hour'), 'at']).as('hour'),
          countWhere(eb, eb.and([eb('kind', '=', 'open'), eb('machine', '=', false)])).as('opens'),
          countWhere(eb, isHumanClick(eb)).as('clicks'),
        ])
        .where('campaign_id', '=', campaignId)
        .where('kind', 'in', ['open', 'click'])
        .groupBy('hour')
        .orderBy('hour'),
    ),
  ]);
  return { delivery, events, variants, variantEvents, links, templateLinks, timeline };
}

/** The 20 latest campaigns with their figures, and the totals since `since`. */
export async function dashboardRows(q: Queries, since: Date) {
  const [campaigns, totals, events, suppressed] = await Promise.all([
    q.rows(
      db
        .selectFrom((eb) => eb.selectFrom('email_campaigns').selectAll().orderBy('created_at', 'desc').limit(20).as('c'))
        .leftJoinLateral(
          (eb) =>
            eb
              .selectFrom('email_recipients')
              .select((inner) => [countWhere(inner, inner('status', '=', 'sent')).as('sent'), countWhere(inner, inner('status', '=', 'bounced')).as('bounced')])
              .whereRef('campaign_id', '=', 'c.id')
              .as('r'),
          (join) => join.onTrue(),
        )
        .leftJoinLateral(
          (eb) =>
            eb
              .selectFrom('email_events')
              .select((inner) => [
                inner.cast<number>(inner.fn.count('recipient_id').distinct().filterWhere(isHumanOpen(inner)), 'integer').as('opens'),
                inner.cast<number>(inner.fn.count('recipient_id').distinct().filterWhere(isHumanClick(inner)), 'integer').as('clicks'),
                inner.cast<number>(inner.fn.count('recipient_id').distinct().filterWhere('kind', '=', 'unsubscribe'), 'integer').as('unsubscribes'),
              ])
              .whereRef('campaign_id', '=', 'c.id')
              .as('e'),
          (join) => join.onTrue(),
        )
        .select((eb) => [
          'c.id',
          'c.name',
          'c.status',
          'c.ab_phase',
          'c.created_at',
          eb.fn.coalesce('r.sent', eb.lit(0)).as('sent'),
          eb.fn.coalesce('r.bounced', eb.lit(0)).as('bounced'),
          eb.fn.coalesce('e.opens', eb.lit(0)).as('opens'),
          eb.fn.coalesce('e.clicks', eb.lit(0)).as('clicks'),
          eb.fn.coalesce('e.unsubscribes', eb.lit(0)).as('unsubscribes'),
        ])
        .orderBy('c.created_at', 'desc'),
    ),
    q.first(
      db.selectNoFrom((eb) => [
        eb
          .selectFrom('email_campaigns')
          .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
          .where('started_at', '>=', since)
          .$asScalar()
          .$notNull()
          .as('campaigns'),
        eb
          .selectFrom('email_recipients')
          .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
          .where('status', '=', 'sent')
          .where('sent_at', '>=', since)
          .$asScalar()
          .$notNull()
          .as('sent'),
      ]),
    ),
    q.first(
      db
        .selectFrom('email_events')
        .select((eb) => [
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere(isHumanOpen(eb)), 'integer').as('opens'),
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere(isHumanClick(eb)), 'integer').as('clicks'),
          eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere('kind', '=', 'unsubscribe'), 'integer').as('unsubscribes'),
          eb
            .selectFrom('email_suppressions')
            .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
            .where('created_at', '>=', since)
            .$asScalar()
            .$notNull()
            .as('bounces'),
        ])
        .where('at', '>=', since),
    ),
    q.first(db.selectFrom('email_suppressions').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('suppressed'))),
  ]);
  return { campaigns, totals, events, suppressed: suppressed?.suppressed ?? 0 };
}

/**
 * Each variant's test-phase results for the A/B decision: delivered, recipients with the metric's
 * event (a click counts for `open` too; machine events never), and unsubscribes.
 */
export function abVariantResults(q: Queries, campaignId: string, metric: 'open' | 'click') {
  return q.rows(
    db
      .selectFrom('email_variants as v')
      .select((eb) => [
        'v.id',
        'v.name',
        eb
          .selectFrom('email_recipients as r')
          .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
          .whereRef('r.variant_id', '=', 'v.id')
          .where('r.phase', '=', 'test')
          .where('r.status', '=', 'sent')
          .$asScalar()
          .$notNull()
          .as('delivered'),
        eb
          .selectFrom('email_events as e')
          .innerJoin('email_recipients as r', 'r.id', 'e.recipient_id')
          .select((inner) => inner.cast<number>(inner.fn.count('e.recipient_id').distinct(), 'integer').as('n'))
          .whereRef('e.variant_id', '=', 'v.id')
          .where('r.phase', '=', 'test')
          .where('e.machine', '=', false)
          .where('e.kind', 'in', metric === 'open' ? ['click', 'open'] : ['click'])
          .$asScalar()
          .$notNull()
          .as('hits'),
        eb
          .selectFrom('email_events as e')
          .innerJoin('email_recipients as r', 'r.id', 'e.recipient_id')
          .select((inner) => inner.cast<number>(inner.fn.count('e.recipient_id').distinct(), 'integer').as('n'))
          .whereRef('e.variant_id', '=', 'v.id')
          .where('r.phase', '=', 'test')
          .where('e.kind', '=', 'unsubscribe')
          .$asScalar()
          .$notNull()
          .as('unsubscribes'),
      ])
      .where('v.campaign_id', '=', campaignId)
      .orderBy('v.position'),
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
export async function recordAbWinner(tx: Queries, campaignId: string, winnerId: string, decision: AbDecision): Promise<void> {
  await tx.write(
    db
      .updateTable('email_campaigns')
      .set((eb) => ({
        ab_phase: 'winner_sent',
        winner_variant_id: winnerId,
        decided_at: eb.fn<Date>('now', []),
        decision: jsonText(decision),
        updated_at: eb.fn<Date>('now', []),
      }))
      .where('id', '=', campaignId)
      .where('ab_phase', '=', 'waiting'),
  );
  await tx.write(db.updateTable('email_recipients').set({ variant_id: winnerId, status: 'queued' }).where('campaign_id', '=', campaignId).where('status', '=', 'held'));
}
