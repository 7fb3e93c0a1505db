import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import type { ChangedRow } from './whatsapp.outbound.repository';
import type { MessageKind, VariableSource, WaCampaignSchema, WaConversationSchema, WaMessageSchema, WaPendingStatusSchema, WaTemplateSchema } from './whatsapp.entities';

type WhatsAppTables = InferKyselyDB<typeof WaCampaignSchema | typeof WaConversationSchema | typeof WaMessageSchema | typeof WaPendingStatusSchema | typeof WaTemplateSchema>;
const db = tables<WhatsAppTables>();

export interface StatusUpdate {
  /** Our message id, when the provider echoed it back. */
  id: string | null;
  wamid: string;
  status: string;
  rank: number;
  at: Date;
  errorCode: number | null;
  errorTitle: string | null;
}

/** A message a status changed, with the provider id of the status that changed it. */
export type AppliedStatus = ChangedRow & { applied_wamid: string };

/**
 * One statement for a batch of webhook deliveries: each status finds its message by our id (the opaque
 * callback data) or by wamid; statuses that reach one message by either key are resolved to the
 * furthest before anything is written; the furthest replaces the current status only when it ranks
 * higher. A status whose message cannot be found yet (Meta answered the webhook before our send's
 * HTTP answer stored the wamid) is parked in `wa_pending_statuses` for `applyPendingStatuses`.
 * Applying the same webhook twice changes nothing. Planned with its values each time.
 */
export function applyStatuses(db: Queries, list: StatusUpdate[]): Promise<AppliedStatus[]> {
  return db.rows(sql<AppliedStatus>`
    with v as (
      select * from unnest(${list.map((item) => item.id)}::uuid[], ${list.map((item) => item.wamid)}::text[], ${list.map((item) => item.status)}::text[],
                           ${list.map((item) => item.rank)}::smallint[], ${list.map((item) => item.at)}::timestamptz[],
                           ${list.map((item) => item.errorCode)}::int[], ${list.map((item) => item.errorTitle)}::text[])
        as v(id, wamid, status, rank, at, error_code, error_title)
    ), found as (
      select coalesce((select w.id from wa_messages w where w.id = v.id), (select w.id from wa_messages w where w.wamid = v.wamid)) as target, v.* from v
    ), parked as (
      insert into wa_pending_statuses (wamid, status, rank, at, error_code, error_title, received_at)
      select wamid, status, rank, at, error_code, error_title, now() from found where target is null
      on conflict (wamid, status) do nothing
    ), t as (
      -- The furthest status of each message, with the time each stage was first reached among its
      -- statuses here (a sent and a delivered of one message arriving together each keep their time).
      select distinct on (target) *,
        min(at) over stages as first_at,
        min(at) filter (where status <> 'failed') over stages as sent_first_at,
        min(at) filter (where rank >= 5) over stages as delivered_first_at
      from found where target is not null
      window stages as (partition by target)
      order by target, rank desc, at desc
    )
    update wa_messages m set
      status = t.status,
      status_rank = t.rank,
      -- An erased message (its phone emptied) keeps no provider id: Meta's encodes the number.
      wamid = case when m.phone = '' then null else coalesce(m.wamid, t.wamid) end,
      accepted_at = coalesce(m.accepted_at, t.first_at),
      sent_at = case when t.status <> 'failed' then coalesce(m.sent_at, t.sent_first_at) else m.sent_at end,
      delivered_at = case when t.rank >= 5 then coalesce(m.delivered_at, t.delivered_first_at) else m.delivered_at end,
      read_at = case when t.rank = 6 then coalesce(m.read_at, t.at) else m.read_at end,
      failed_at = case when t.status = 'failed' then t.at else m.failed_at end,
      error_code = case when t.status = 'failed' then t.error_code else m.error_code end,
      error_title = case when t.status = 'failed' then t.error_title else m.error_title end
    from t
    where m.id = t.target and m.direction = 'out' and m.status_rank < t.rank and (m.wamid is null or m.wamid = t.wamid)
    returning m.id, m.campaign_id, m.conversation_id, m.status, t.wamid as applied_wamid`);
}

/** How long a status waits for its message to appear before it is dropped. */
const PENDING_STATUS_HOURS = 24;

/**
 * Statuses parked before their message's wamid was stored, for the messages that have it now;
 * taken out of the park, and those older than a day dropped. The caller applies them in the same
 * transaction: taken rows stay locked until it commits, and a rollback puts them back.
 */
export async function takePendingStatuses(q: Queries): Promise<StatusUpdate[]> {
  await q.write(db.deleteFrom('wa_pending_statuses').where('received_at', '<', new Date(Date.now() - PENDING_STATUS_HOURS * 3600_000)));
  const rows = await q.rows(
    db
      .deleteFrom('wa_pending_statuses as p')
      .using('wa_messages as m')
      .whereRef('m.wamid', '=', 'p.wamid')
      .returning(['p.wamid', 'p.status', 'p.rank', 'p.at', 'p.error_code', 'p.error_title']),
  );
  return rows.map((row) => ({ id: null, wamid: row.wamid, status: row.status, rank: row.rank, at: row.at, errorCode: row.error_code, errorTitle: row.error_title }));
}

/** The contact's one conversation, opened when they first write. */
export async function ensureConversation(q: Queries, contactId: string, at: Date): Promise<string> {
  const row = await q.first(
    db
      .insertInto('wa_conversations')
      .values((eb) => ({ id: newId(), contact_id: contactId, status: 'open', unread_count: 0, last_message_at: at, created_at: eb.fn<Date>('now', []) }))
      // A no-op update, so that the existing row's id comes back.
      .onConflict((conflict) => conflict.column('contact_id').doUpdateSet((eb) => ({ contact_id: eb.ref('excluded.contact_id') })))
      .returning('id'),
  );
  return row!.id;
}

export interface InboundMessage {
  id: string;
  conversationId: string;
  contactId: string;
  phone: string;
  kind: MessageKind;
  text: string | null;
  wamid: string;
  at: Date;
}

/** Stores an inbound message once per wamid: false when a repeated webhook brought it again. */
export async function insertInboundMessage(q: Queries, message: InboundMessage): Promise<boolean> {
  const { count } = await q.write(
    db
      .insertInto('wa_messages')
      .values({
        id: message.id,
        conversation_id: message.conversationId,
        contact_id: message.contactId,
        phone: message.phone,
        direction: 'in',
        kind: message.kind,
        body: message.text,
        status: 'received',
        status_rank: 9,
        priority: 0,
        wamid: message.wamid,
        attempts: 0,
        next_attempt_at: message.at,
        accepted_at: message.at,
        created_at: message.at,
      })
      .onConflict((conflict) => conflict.column('wamid').doNothing()),
  );
  return count > 0;
}

/** A new inbound message reopens the conversation and counts as unread; the latest message by time stays the last. */
export async function noteInbound(q: Queries, conversationId: string, messageId: string, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('wa_conversations')
      .set((eb) => ({
        unread_count: eb('unread_count', '+', 1),
        status: 'open',
        last_inbound_at: eb.fn<Date>('greatest', [eb.fn.coalesce('last_inbound_at', eb.val(at)), eb.val(at)]),
        last_message_at: eb.fn<Date>('greatest', ['last_message_at', eb.val(at)]),
        last_message_id: eb
          .case()
          .when('last_message_at', '<=', at)
          .then(eb.cast<string>(eb.val(messageId), 'uuid'))
          .else(eb.ref('last_message_id'))
          .end(),
      }))
      .where('id', '=', conversationId),
  );
}

/** How long after a campaign message an inbound message still counts as its reply. */
const REPLY_WINDOW_HOURS = 72;

/**
 * Marks the campaign message an inbound message answers: the one it quotes, else the contact's
 * latest campaign message within three days. Returns that message's campaign.
 */
export async function markReplied(q: Queries, contactId: string, quotedWamid: string | undefined, at: Date): Promise<string | null> {
  const row = await q.first(
    db
      .updateTable('wa_messages')
      .set({ replied_at: at })
      .where((eb) =>
        eb(
          'id',
          '=',
          eb
            .selectFrom('wa_messages')
            .select('id')
            .where('contact_id', '=', contactId)
            .where('direction', '=', 'out')
            .where('campaign_id', 'is not', null)
            .where('replied_at', 'is', null)
            .where('accepted_at', '>', new Date(at.getTime() - REPLY_WINDOW_HOURS * 3600_000))
            .orderBy(
              (order) => order('wamid', '=', quotedWamid ?? ''),
              (direction) => direction.desc().nullsLast(),
            )
            .orderBy('id', 'desc')
            .limit(1),
        ),
      )
      .returning('campaign_id'),
  );
  return row?.campaign_id ?? null;
}

/** A draft or scheduled campaign turns `sending`; nothing comes back for any other status. */
export function startCampaign(q: Queries, id: string) {
  return q.first(
    db
      .updateTable('wa_campaigns')
      .set((eb) => ({ status: 'sending', started_at: eb.fn<Date>('now', []), notice: null }))
      .where('id', '=', id)
      .where('status', 'in', ['draft', 'scheduled'])
      .returning(['id', 'template_id', 'variables', 'segment']),
  );
}

export type StartedCampaign = NonNullable<Awaited<ReturnType<typeof startCampaign>>>;

export function campaignStatus(q: Queries, id: string) {
  return q.first(db.selectFrom('wa_campaigns').select('status').where('id', '=', id));
}

export function templateStatus(q: Queries, id: string) {
  return q.first(db.selectFrom('wa_templates').select('status').where('id', '=', id));
}

/** The SQL value of a template variable for the recipient `c` (with territory `t`). */
function variableValue(source: VariableSource): Sql<never> {
  if ('literal' in source) return sql`${source.literal}::text`;
  switch (source.field) {
    case 'firstName':
      return sql`split_part(c.name, ' ', 1)`;
    case 'name':
      return sql`c.name`;
    case 'neighbourhood':
      return sql`coalesce(c.neighbourhood, '')`;
    case 'territory':
      return sql`coalesce(t.name, '')`;
  }
}

/**
 * Writes one `queued` template message per member, with the template's variables filled in from
 * each contact, in a single INSERT ... SELECT; returns how many were queued.
 */
export async function queueCampaignMessages(q: Queries, campaign: StartedCampaign, members: Sql<unknown>): Promise<number> {
  const values = campaign.variables.map(variableValue);
  const params = values.length ? sql`jsonb_build_array(${sql.join(values)})` : sql`'[]'::jsonb`;
  const row = await q.first(sql<{ n: number }>`
    with rows as (
      insert into wa_messages (id, campaign_id, contact_id, phone, direction, kind, template_id, params, status, status_rank, priority, attempts, next_attempt_at, created_at)
      select ${UUID_V7}, ${campaign.id}, c.id, c.phone, 'out', 'template', ${campaign.template_id}, ${params}, 'queued', 0, 1, 0, now(), now()
      from (${members}) m join ${audienceContacts()} c on c.id = m.id left join territories t on t.id = c.territory_id
      order by c.id
      on conflict do nothing
      returning 1
    ) select count(*)::int as n from rows`);
  const queued = row?.n ?? 0;
  await q.write(db.updateTable('wa_campaigns').set({ queued_count: queued }).where('id', '=', campaign.id));
  return queued;
}

/** UUIDv7 in SQL (PostgreSQL 15 has no uuidv7()): 48-bit millisecond time over a random v4, version bits set to 7. */
const UUID_V7 = sql.raw(
  `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`,
);

/** Messages people sent the campaign in [since, until), for other modules' daily figures (popularity's `whatsapp_replies`). */
export async function inboundMessagesBetween(q: Queries, since: Date, until: Date): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('wa_messages')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .where('direction', '=', 'in')
      .where('created_at', '>=', since)
      .where('created_at', '<', until),
  );
  return row?.count ?? 0;
}
