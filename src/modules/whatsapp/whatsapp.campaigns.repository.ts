import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { sql, type Queries, type Sql } from '../../kernel/sql';
import { UserSchema } from '../auth';
import { WaCampaignSchema, type WaCampaign, type WaTemplate } from './whatsapp.entities';
import type { WaCampaignStatus } from './whatsapp.entities';
import type { Counters } from './whatsapp.schemas';

// Campaigns' state and figures. Counters are counted from the message rows each time (never a
// drifting copy).

/**
 * "sent" counts every message the provider took (accepted or later, failures after acceptance
 * included); "delivered" includes read ones, since a read receipt may come without a delivery
 * receipt. "simulated" counts those the built-in simulator took: nothing of theirs reached
 * WhatsApp, whatever their status says. Over messages aliased `m`.
 */
const counterColumns: Sql<never> = sql`
  count(*) filter (where m.status = 'queued')::int as queued,
  count(*) filter (where m.status = 'sending')::int as sending,
  count(*) filter (where m.status = 'in_doubt')::int as "inDoubt",
  count(*) filter (where m.status_rank between 2 and 6 and m.accepted_at is not null)::int as sent,
  count(*) filter (where m.status in ('delivered', 'read'))::int as delivered,
  count(*) filter (where m.status = 'read')::int as read,
  count(*) filter (where m.status = 'failed')::int as failed,
  count(*) filter (where m.status = 'skipped')::int as skipped,
  count(*) filter (where m.status = 'cancelled')::int as cancelled,
  count(*) filter (where m.replied_at is not null)::int as replied,
  count(*) filter (where m.provider = 'simulator')::int as simulated`;

export function countersByCampaign(q: Queries, campaignIds: readonly string[]): Promise<(Counters & { campaignId: string })[]> {
  return q.rows(
    sql<Counters & { campaignId: string }>`
      select m.campaign_id as "campaignId", ${counterColumns} from wa_messages m where m.campaign_id = any(${campaignIds}::uuid[]) group by m.campaign_id`,
  );
}

/**
 * Unique contacts reached with business-initiated (template) messages in the rolling 24 hours;
 * messages in doubt count, since they may have gone out.
 */
export async function contactsReachedLast24h(q: Queries): Promise<number> {
  const row = await q.first(
    sql<{ n: number }>`
      select count(distinct contact_id)::int as n from wa_messages
      where direction = 'out' and kind = 'template'
        and ((accepted_at > now() - interval '24 hours') or (status in ('in_doubt', 'sending') and claimed_at > now() - interval '24 hours'))`,
  );
  return row?.n ?? 0;
}

export interface DashboardRows {
  totals: Counters & { total: number };
  campaigns: (Counters & { id: string; name: string; status: WaCampaignStatus; audienceSize: number })[];
  conversations: { open: number; unread: number; unreadMessages: number; windowOpen: number };
  last24h: { inbound: number; outbound: number };
}

/** Totals over every outbound message, the 50 latest campaigns' counters, conversations, the last 24 hours. */
export async function dashboardRows(q: Queries): Promise<DashboardRows> {
  const [totals, campaigns, conversations, last24h] = await Promise.all([
    q.first(sql<DashboardRows['totals']>`select count(*)::int as total, ${counterColumns} from wa_messages m where m.direction = 'out'`),
    q.rows(
      sql<DashboardRows['campaigns'][number]>`
        select k.id, k.name, k.status, k.audience_size as "audienceSize", ${counterColumns}
        from wa_campaigns k left join wa_messages m on m.campaign_id = k.id
        group by k.id order by k.created_at desc limit 50`,
    ),
    q.first(
      sql<DashboardRows['conversations']>`
        select count(*) filter (where status = 'open')::int as open,
               count(*) filter (where unread_count > 0)::int as unread,
               coalesce(sum(unread_count), 0)::int as "unreadMessages",
               count(*) filter (where last_inbound_at > now() - interval '24 hours')::int as "windowOpen"
        from wa_conversations`,
    ),
    q.first(
      sql<DashboardRows['last24h']>`
        select count(*) filter (where direction = 'in')::int as inbound,
               count(*) filter (where direction = 'out' and accepted_at is not null)::int as outbound
        from wa_messages where created_at > now() - interval '24 hours' or accepted_at > now() - interval '24 hours'`,
    ),
  ]);
  return { totals: totals!, campaigns, conversations: conversations!, last24h: last24h! };
}

export async function setCampaignNotice(q: Queries, id: string, notice: string | null): Promise<void> {
  await q.write(sql`update wa_campaigns set notice = ${notice} where id = ${id}::uuid`);
}

/** Moves the campaign to `to` if it is in one of `from`; false when it was not (or does not exist). */
export async function moveCampaign(q: Queries, id: string, from: readonly WaCampaignStatus[], to: WaCampaignStatus): Promise<boolean> {
  const { count } = await q.write(sql`update wa_campaigns set status = ${to} where id = ${id}::uuid and status = any(${from}::text[])`);
  return count > 0;
}

export function campaignState(q: Queries, id: string): Promise<{ status: WaCampaignStatus; started_at: Date | null } | undefined> {
  return q.first(sql<{ status: WaCampaignStatus; started_at: Date | null }>`select status, started_at from wa_campaigns where id = ${id}::uuid`);
}

/** Queued messages will never go out; the campaign is complete and its notice moot. Inside the cancelling transaction. */
export async function cancelQueuedMessages(tx: Queries, campaignId: string): Promise<void> {
  await tx.write(sql`update wa_messages set status = 'cancelled', status_rank = 9 where campaign_id = ${campaignId}::uuid and status = 'queued'`);
  await tx.write(sql`update wa_campaigns set completed_at = now(), notice = null where id = ${campaignId}::uuid`);
}

/** Scheduled campaigns whose time has come, oldest first. */
export async function dueScheduledCampaigns(q: Queries, limit: number): Promise<string[]> {
  const rows = await q.rows(sql<{ id: string }>`select id from wa_campaigns where status = 'scheduled' and scheduled_at <= now() order by scheduled_at limit ${limit}`);
  return rows.map((row) => row.id);
}

/** A scheduled campaign that cannot start is paused with a notice, for staff to see. */
export async function pauseScheduled(q: Queries, id: string, notice: string): Promise<void> {
  await q.write(sql`update wa_campaigns set status = 'paused', notice = ${notice} where id = ${id}::uuid and status = 'scheduled'`);
}

export type NewCampaign = Pick<WaCampaign, 'name' | 'variables' | 'segment' | 'status' | 'scheduledAt' | 'audienceSize'> & { template: WaTemplate; createdById: string };

/** A new campaign through the unit of work. */
export async function insertCampaign(em: EntityManager, campaign: NewCampaign): Promise<WaCampaign> {
  const { createdById, ...fields } = campaign;
  const entity = em.create(WaCampaignSchema, { ...fields, queuedCount: 0, notice: null, createdBy: em.getReference(UserSchema, createdById) });
  await em.flush();
  return entity;
}

export function findCampaign(em: EntityManager, id: string): Promise<WaCampaign | null> {
  return em.findOne(WaCampaignSchema, { id });
}

export function campaignPage(em: EntityManager, status: WaCampaignStatus | undefined, page: PageRequest): Promise<Page<WaCampaign>> {
  return findPage(em, WaCampaignSchema, status ? { status } : {}, page, { createdAt: 'desc', id: 'desc' }, (row: WaCampaign) => row);
}
