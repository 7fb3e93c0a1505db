import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { WaCampaignSchema, type StoredSegment, type VariableSource, type WaCampaign, type WaMessageSchema } from './whatsapp.entities';
import type { WaCampaignStatus } from './whatsapp.entities';
import type { Counters } from './whatsapp.schemas';

type CampaignTables = InferKyselyDB<typeof WaCampaignSchema | typeof WaMessageSchema>;
const db = tables<CampaignTables>();

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
  await q.write(db.updateTable('wa_campaigns').set({ notice }).where('id', '=', id));
}

/** Moves the campaign to `to` if it is in one of `from`; false when it was not (or does not exist). */
export async function moveCampaign(q: Queries, id: string, from: readonly WaCampaignStatus[], to: WaCampaignStatus): Promise<boolean> {
  const { count } = await q.write(db.updateTable('wa_campaigns').set({ status: to }).where('id', '=', id).where('status', 'in', from));
  return count > 0;
}

export function campaignState(q: Queries, id: string) {
  return q.first(db.selectFrom('wa_campaigns').select(['status', 'started_at']).where('id', '=', id));
}

/** Queued messages will never go out; the campaign is complete and its notice moot. Inside the cancelling transaction. */
export async function cancelQueuedMessages(tx: Queries, campaignId: string): Promise<void> {
  await tx.write(db.updateTable('wa_messages').set({ status: 'cancelled', status_rank: 9 }).where('campaign_id', '=', campaignId).where('status', '=', 'queued'));
  await tx.write(
    db
      .updateTable('wa_campaigns')
      .set((eb) => ({ completed_at: eb.fn<Date>('now', []), notice: null }))
      .where('id', '=', campaignId),
  );
}

/** Scheduled campaigns whose time has come, oldest first. */
export async function dueScheduledCampaigns(q: Queries, limit: number): Promise<string[]> {
  const rows = await q.rows(
    db
      .selectFrom('wa_campaigns')
      .select('id')
      .where('status', '=', 'scheduled')
      .where((eb) => eb('scheduled_at', '<=', eb.fn<Date>('now', [])))
      .orderBy('scheduled_at')
      .limit(limit),
  );
  return rows.map((row) => row.id);
}

/** A scheduled campaign that cannot start is paused with a notice, for staff to see. */
export async function pauseScheduled(q: Queries, id: string, notice: string): Promise<void> {
  await q.write(db.updateTable('wa_campaigns').set({ status: 'paused', notice }).where('id', '=', id).where('status', '=', 'scheduled'));
}

export interface NewCampaign {
  name: string;
  templateId: string;
  variables: VariableSource[];
  segment: StoredSegment;
  status: WaCampaignStatus;
  scheduledAt: Date | null;
  audienceSize: number;
  createdById: string;
}

/** A campaign's columns as the module presents it. */
const campaignColumns = [
  'id',
  'name',
  'template_id as templateId',
  'variables',
  'segment',
  'status',
  'scheduled_at as scheduledAt',
  'audience_size as audienceSize',
  'queued_count as queuedCount',
  'notice',
  'created_at as createdAt',
  'started_at as startedAt',
  'completed_at as completedAt',
] as const;

export function findCampaign(q: Queries, id: string) {
  return q.first(db.selectFrom('wa_campaigns').select(campaignColumns).where('id', '=', id));
}

export type CampaignRecord = NonNullable<Awaited<ReturnType<typeof findCampaign>>>;

/** A new campaign; its id. */
export async function insertCampaign(q: Queries, campaign: NewCampaign): Promise<string> {
  const id = newId();
  await q.write(
    db.insertInto('wa_campaigns').values({
      id,
      name: campaign.name,
      template_id: campaign.templateId,
      // Kysely's jsonb columns take the JSON text.
      variables: JSON.stringify(campaign.variables) as unknown as VariableSource[],
      segment: JSON.stringify(campaign.segment) as unknown as StoredSegment,
      status: campaign.status,
      scheduled_at: campaign.scheduledAt,
      audience_size: campaign.audienceSize,
      queued_count: 0,
      notice: null,
      created_by_id: campaign.createdById,
      created_at: new Date(),
    }),
  );
  return id;
}

function campaignRecordOf(campaign: WaCampaign): CampaignRecord {
  return {
    id: campaign.id,
    name: campaign.name,
    templateId: campaign.template.id,
    variables: campaign.variables,
    segment: campaign.segment,
    status: campaign.status,
    scheduledAt: campaign.scheduledAt ?? null,
    audienceSize: campaign.audienceSize,
    queuedCount: campaign.queuedCount,
    notice: campaign.notice ?? null,
    createdAt: campaign.createdAt,
    startedAt: campaign.startedAt ?? null,
    completedAt: campaign.completedAt ?? null,
  };
}

/** Newest first (keyset pagination through the ORM's cursors). */
export function campaignPage(em: EntityManager, status: WaCampaignStatus | undefined, page: PageRequest): Promise<Page<CampaignRecord>> {
  return findPage(em, WaCampaignSchema, status ? { status } : {}, page, { createdAt: 'desc', id: 'desc' }, campaignRecordOf);
}
