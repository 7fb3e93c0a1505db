import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import type { WaCampaignSchema, WaConversationSchema, WaMessageSchema } from './whatsapp.entities';
import type { WaCampaignStatus } from './whatsapp.entities';

type CampaignTables = InferKyselyDB<typeof WaCampaignSchema | typeof WaConversationSchema | typeof WaMessageSchema>;
const db = tables<CampaignTables>();

// Campaigns' state and figures. Counters are counted from the message rows each time (never a
// drifting copy).

type Messages = CampaignTables['wa_messages'];

/**
 * "sent" counts every message the provider took (accepted or later, failures after acceptance
 * included); "delivered" includes read ones, since a read receipt may come without a delivery
 * receipt. "simulated" counts those the built-in simulator took: nothing of theirs reached
 * WhatsApp, whatever their status says. Over messages aliased `m`.
 */
function counterColumns(eb: ExpressionBuilder<CampaignTables & { m: Messages }, 'm'>) {
  const counted = (filter: Expression<SqlBool>) => eb.cast<number>(eb.fn.countAll().filterWhere(filter), 'integer');
  return [
    counted(eb('m.status', '=', 'queued')).as('queued'),
    counted(eb('m.status', '=', 'sending')).as('sending'),
    counted(eb('m.status', '=', 'in_doubt')).as('inDoubt'),
    counted(eb.and([eb.between('m.status_rank', 2, 6), eb('m.accepted_at', 'is not', null)])).as('sent'),
    counted(eb('m.status', 'in', ['delivered', 'read'])).as('delivered'),
    counted(eb('m.status', '=', 'read')).as('read'),
    counted(eb('m.status', '=', 'failed')).as('failed'),
    counted(eb('m.status', '=', 'skipped')).as('skipped'),
    counted(eb('m.status', '=', 'cancelled')).as('cancelled'),
    counted(eb('m.replied_at', 'is not', null)).as('replied'),
    counted(eb('m.provider', '=', 'simulator')).as('simulated'),
  ] as const;
}

export function countersByCampaign(q: Queries, campaignIds: readonly string[]) {
  return q.rows(
    db
      .selectFrom('wa_messages as m')
      .select((eb) => ['m.campaign_id as campaignId', ...counterColumns(eb)])
      .where('m.campaign_id', 'in', campaignIds)
      .groupBy('m.campaign_id')
      .$narrowType<{ campaignId: string }>(),
  );
}

const DAY_MS = 24 * 3600_000;

/** Totals over every outbound message, the 50 latest campaigns (their counters are the caller's), conversations, the last 24 hours. */
export async function dashboardRows(q: Queries) {
  const dayAgo = new Date(Date.now() - DAY_MS);
  const [totals, campaigns, conversations, last24h] = await Promise.all([
    q.first(
      db
        .selectFrom('wa_messages as m')
        .select((eb) => [eb.cast<number>(eb.fn.countAll(), 'integer').as('total'), ...counterColumns(eb)])
        .where('m.direction', '=', 'out'),
    ),
    q.rows(db.selectFrom('wa_campaigns').select(['id', 'name', 'status', 'audience_size as audienceSize']).orderBy('created_at', 'desc').limit(50)),
    q.first(
      db
        .selectFrom('wa_conversations')
        .select((eb) => [
          eb.cast<number>(eb.fn.countAll().filterWhere('status', '=', 'open'), 'integer').as('open'),
          eb.cast<number>(eb.fn.countAll().filterWhere('unread_count', '>', 0), 'integer').as('unread'),
          eb.cast<number>(eb.fn.coalesce(eb.fn.sum('unread_count'), eb.lit(0)), 'integer').as('unreadMessages'),
          eb.cast<number>(eb.fn.countAll().filterWhere('last_inbound_at', '>', dayAgo), 'integer').as('windowOpen'),
        ]),
    ),
    q.first(
      db
        .selectFrom('wa_messages')
        .select((eb) => [
          eb.cast<number>(eb.fn.countAll().filterWhere('direction', '=', 'in'), 'integer').as('inbound'),
          eb
            .cast<number>(
              eb.fn.countAll().filterWhere((filter) => filter.and([filter('direction', '=', 'out'), filter('accepted_at', 'is not', null)])),
              'integer',
            )
            .as('outbound'),
        ])
        .where((eb) => eb.or([eb('created_at', '>', dayAgo), eb('accepted_at', '>', dayAgo)])),
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

/** A campaign's columns as the module presents it. */
const campaignColumns = [
  'id',
  'name',
  'template_id',
  'variables',
  'segment',
  'status',
  'scheduled_at',
  'audience_size',
  'queued_count',
  'notice',
  'created_at',
  'started_at',
  'completed_at',
] as const;

const campaignOf = (row: Pick<Selectable<CampaignTables['wa_campaigns']>, (typeof campaignColumns)[number]>) => camelRow(row);
export type CampaignRecord = ReturnType<typeof campaignOf>;

export async function findCampaign(q: Queries, id: string): Promise<CampaignRecord | undefined> {
  const row = await q.first(db.selectFrom('wa_campaigns').select(campaignColumns).where('id', '=', id));
  return row && campaignOf(row);
}

/** What a new campaign is written from: the record's fields that are not yet counted or stamped, and who made it. */
export type NewCampaign = Pick<CampaignRecord, 'name' | 'templateId' | 'variables' | 'segment' | 'status' | 'scheduledAt' | 'audienceSize'> & { createdById: string };

/** A new campaign; its id. */
export async function insertCampaign(q: Queries, campaign: NewCampaign): Promise<string> {
  const id = newId();
  await q.write(
    db.insertInto('wa_campaigns').values({
      ...snakeRow(campaign),
      id,
      variables: jsonText(campaign.variables),
      segment: jsonText(campaign.segment),
      queued_count: 0,
      notice: null,
      created_at: new Date(),
    }),
  );
  return id;
}

/** Newest first. */
export async function campaignPage(q: Queries, status: WaCampaignStatus | undefined, page: PageRequest): Promise<Page<CampaignRecord>> {
  let query = db.selectFrom('wa_campaigns').select(campaignColumns);
  if (status) query = query.where('status', '=', status);
  const found = await queryPage(q, query, ['created_at', 'id'], 'desc', page);
  return mapPage(found, campaignOf);
}
