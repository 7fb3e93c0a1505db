import { newId } from '../../kernel/ids';
import { sql, type Database, type Queries, type Sql } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import type { MessageKind, StoredSegment, VariableSource } from './whatsapp.entities';

export interface ClaimedRow {
  id: string;
  campaign_id: string | null;
  conversation_id: string | null;
  phone: string;
  kind: MessageKind;
  body: string | null;
  params: string[] | null;
  template_id: string | null;
  status: 'sending' | 'skipped';
  attempts: number;
}

/** A message whose status changed, for the war room and the campaign's counters. */
export interface ChangedRow {
  id: string;
  campaign_id: string | null;
  conversation_id: string | null;
  status: string;
}

/**
 * Claims the next messages to send, at most `limit`, and marks them `sending` in the same
 * statement, so that at any moment only the messages actually in flight are `sending` (after a
 * crash, exactly those are in doubt). Consent is read here, at send time: a contact who opted out
 * since the campaign was written is `skipped`. A contact messaged within the pair interval waits.
 */
export function claimMessages(db: Queries, options: { templatesAllowed: boolean; pairIntervalSeconds: number; limit: number }) {
  return db.rows(
    sql<ClaimedRow>`
      with picked as (
        select m.id from wa_messages m
        where m.status = 'queued' and m.next_attempt_at <= now()
          and (${options.templatesAllowed}::boolean or m.kind <> 'template')
          and (m.campaign_id is null or exists (select 1 from wa_campaigns k where k.id = m.campaign_id and k.status = 'sending'))
          and not exists (select 1 from wa_messages o where o.contact_id = m.contact_id and o.direction = 'out'
                          and o.accepted_at > now() - ${options.pairIntervalSeconds}::int * interval '1 second')
        order by m.priority, m.id
        limit ${options.limit}
        for update of m skip locked
      ), decided as (
        select m.id, (c.whatsapp_opted_out_at is not null or (m.kind = 'template' and not c.whatsapp_opt_in)) as refused
        from picked join wa_messages m on m.id = picked.id join ${audienceContacts()} c on c.id = m.contact_id
      )
      update wa_messages m set
        status = case when d.refused then 'skipped' else 'sending' end,
        status_rank = case when d.refused then 9 else 1 end,
        error_title = case when d.refused then 'no WhatsApp consent at send time' else m.error_title end,
        claimed_at = now(),
        attempts = m.attempts + case when d.refused then 0 else 1 end
      from decided d where m.id = d.id
      returning m.id, m.campaign_id, m.conversation_id, m.phone, m.kind, m.body, m.params, m.template_id, m.status, m.attempts`.prepared('wa_claim'),
  );
}

export interface Settlement {
  id: string;
  status: string;
  rank: number;
  wamid: string | null;
  code: number | null;
  title: string | null;
  next: Date | null;
}

/**
 * Settles a round in one statement. `accepted` only fills in what a faster webhook may not have
 * (the wamid, the acceptance time) and never lowers a status; the other outcomes apply only to a
 * message still `sending`. Planned with its values each time: a generic plan over the arrays may
 * pick a sequential scan where a handful of ids wants the primary key.
 */
export function settleMessages(db: Queries, settle: Settlement[]): Promise<ChangedRow[]> {
  if (!settle.length) return Promise.resolve([]);
  return db.rows(sql<ChangedRow>`
    update wa_messages m set
      status = case when v.status = 'accepted' then (case when m.status_rank < 2 then 'accepted' else m.status end) else v.status end,
      status_rank = case when v.status = 'accepted' then greatest(m.status_rank, 2) else v.rank end,
      wamid = coalesce(m.wamid, v.wamid),
      accepted_at = case when v.status = 'accepted' then coalesce(m.accepted_at, now()) else m.accepted_at end,
      failed_at = case when v.status = 'failed' then now() else m.failed_at end,
      error_code = case when v.status = 'accepted' then m.error_code else v.error_code end,
      error_title = case when v.status = 'accepted' then m.error_title else v.error_title end,
      next_attempt_at = coalesce(v.next_at, m.next_attempt_at)
    from unnest(${settle.map((item) => item.id)}::uuid[], ${settle.map((item) => item.status)}::text[], ${settle.map((item) => item.rank)}::smallint[],
                ${settle.map((item) => item.wamid)}::text[], ${settle.map((item) => item.code)}::int[], ${settle.map((item) => item.title)}::text[],
                ${settle.map((item) => item.next)}::timestamptz[])
      as v(id, status, rank, wamid, error_code, error_title, next_at)
    where m.id = v.id and (m.status = 'sending' or (v.status = 'accepted' and m.status_rank >= 1 and m.status_rank < 9))
    returning m.id, m.campaign_id, m.conversation_id, m.status`);
}

/** A process that held the send lock and died left these `sending`: nobody can know whether they went out. */
export async function markOrphansInDoubt(db: Queries): Promise<number> {
  return (await db.write(sql`update wa_messages set status = 'in_doubt' where status = 'sending'`.prepared('wa_orphans'))).count;
}

/** Campaigns with nothing left queued or in flight are completed; returns their ids. */
export async function finishCampaigns(db: Queries): Promise<string[]> {
  const rows = await db.rows(
    sql<{ id: string }>`
      update wa_campaigns k set status = 'completed', completed_at = now(), notice = null
      where k.status = 'sending' and not exists (select 1 from wa_messages m where m.campaign_id = k.id and m.status in ('queued', 'sending'))
      returning k.id`.prepared('wa_finish'),
  );
  return rows.map((row) => row.id);
}

/** Whether any message is due now (of a sending campaign, or a conversation's reply). */
export async function hasDueMessages(db: Queries): Promise<boolean> {
  const row = await db.first(
    sql<{ due: boolean }>`
      select exists (
        select 1 from wa_messages m where m.status = 'queued' and m.next_attempt_at <= now()
          and (m.campaign_id is null or exists (select 1 from wa_campaigns k where k.id = m.campaign_id and k.status = 'sending'))
      ) as due`.prepared('wa_due'),
  );
  return Boolean(row?.due);
}

/** Only one process sends at a time (the rate limit is per phone number); the lock dies with its session. */
const SEND_LOCK_KEY = 0x5741_5345; // "WASE"

/** Runs `work` while holding the send lock on one connection; false (and no work) when another process holds it. */
export function withSendLock(db: Database, work: () => Promise<void>): Promise<boolean> {
  return db.session(async (connection) => {
    const row = await connection.first(sql<{ locked: boolean }>`select pg_try_advisory_lock(${SEND_LOCK_KEY}) as locked`);
    if (!row?.locked) return false;
    try {
      await work();
    } finally {
      await connection.write(sql`select pg_advisory_unlock(${SEND_LOCK_KEY})`);
    }
    return true;
  });
}

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

/**
 * One statement for a whole webhook delivery: each status finds its message by our id (the opaque
 * callback data) or by wamid, and replaces the current status only when it ranks higher. Applying
 * the same webhook twice therefore changes nothing. Planned with its values each time.
 */
export function applyStatuses(db: Queries, list: StatusUpdate[]): Promise<ChangedRow[]> {
  return db.rows(sql<ChangedRow>`
    with v as (
      select * from unnest(${list.map((item) => item.id)}::uuid[], ${list.map((item) => item.wamid)}::text[], ${list.map((item) => item.status)}::text[],
                           ${list.map((item) => item.rank)}::smallint[], ${list.map((item) => item.at)}::timestamptz[],
                           ${list.map((item) => item.errorCode)}::int[], ${list.map((item) => item.errorTitle)}::text[])
        as v(id, wamid, status, rank, at, error_code, error_title)
    ), t as (
      select coalesce(v.id, (select w.id from wa_messages w where w.wamid = v.wamid)) as target, v.* from v
    )
    update wa_messages m set
      status = t.status,
      status_rank = t.rank,
      wamid = coalesce(m.wamid, t.wamid),
      accepted_at = coalesce(m.accepted_at, t.at),
      sent_at = case when t.status <> 'failed' then coalesce(m.sent_at, t.at) else m.sent_at end,
      delivered_at = case when t.rank >= 5 then coalesce(m.delivered_at, t.at) else m.delivered_at end,
      read_at = case when t.rank = 6 then coalesce(m.read_at, t.at) else m.read_at end,
      failed_at = case when t.status = 'failed' then t.at else m.failed_at end,
      error_code = case when t.status = 'failed' then t.error_code else m.error_code end,
      error_title = case when t.status = 'failed' then t.error_title else m.error_title end
    from t
    where m.id = t.target and m.direction = 'out' and m.status_rank < t.rank and (m.wamid is null or m.wamid = t.wamid)
    returning m.id, m.campaign_id, m.conversation_id, m.status`);
}

/** The contact's one conversation, opened when they first write. */
export async function ensureConversation(q: Queries, contactId: string, at: Date): Promise<string> {
  const row = await q.first(sql<{ id: string }>`
    insert into wa_conversations (id, contact_id, status, unread_count, last_message_at, created_at) values (${newId()}, ${contactId}, 'open', 0, ${at}, now())
    on conflict (contact_id) do update set contact_id = excluded.contact_id returning id`);
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
  const { count } = await q.write(sql`
    insert into wa_messages (id, conversation_id, contact_id, phone, direction, kind, body, status, status_rank, priority, wamid, attempts, next_attempt_at, accepted_at, created_at)
    values (${message.id}, ${message.conversationId}, ${message.contactId}, ${message.phone}, 'in', ${message.kind}, ${message.text}, 'received', 9, 0,
      ${message.wamid}, 0, ${message.at}, ${message.at}, ${message.at})
    on conflict (wamid) do nothing`);
  return count > 0;
}

export interface ConversationRow {
  id: string;
  unread_count: number;
  assigned_to_id: string | null;
  status: string;
  last_message_at: Date;
}

/** A new inbound message reopens the conversation and counts as unread; the latest message by time stays the last. */
export async function noteInbound(q: Queries, conversationId: string, messageId: string, at: Date): Promise<ConversationRow> {
  const row = await q.first(sql<ConversationRow>`
    update wa_conversations set unread_count = unread_count + 1, status = 'open',
      last_inbound_at = greatest(coalesce(last_inbound_at, ${at}), ${at}),
      last_message_at = greatest(last_message_at, ${at}),
      last_message_id = case when last_message_at <= ${at} then ${messageId}::uuid else last_message_id end
    where id = ${conversationId} returning id, unread_count, assigned_to_id, status, last_message_at`);
  return row!;
}

/**
 * Marks the campaign message an inbound message answers: the one it quotes, else the contact's
 * latest campaign message within three days. Returns that message's campaign.
 */
export async function markReplied(q: Queries, contactId: string, quotedWamid: string | undefined, at: Date): Promise<string | null> {
  const row = await q.first(sql<{ campaign_id: string }>`
    update wa_messages set replied_at = ${at} where id = (
      select id from wa_messages where contact_id = ${contactId} and direction = 'out' and campaign_id is not null and replied_at is null
        and accepted_at > ${at}::timestamptz - interval '72 hours'
      order by (wamid = ${quotedWamid ?? ''}) desc nulls last, id desc limit 1
    ) returning campaign_id`);
  return row?.campaign_id ?? null;
}

export interface StartedCampaign {
  id: string;
  template_id: string;
  variables: VariableSource[];
  segment: StoredSegment;
}

/** A draft or scheduled campaign turns `sending`; nothing comes back for any other status. */
export function startCampaign(q: Queries, id: string): Promise<StartedCampaign | undefined> {
  return q.first(sql<StartedCampaign>`
    update wa_campaigns set status = 'sending', started_at = now(), notice = null where id = ${id} and status in ('draft', 'scheduled')
    returning id, template_id, variables, segment`);
}

export function campaignStatus(q: Queries, id: string): Promise<{ status: string } | undefined> {
  return q.first(sql<{ status: string }>`select status from wa_campaigns where id = ${id}`);
}

export function templateStatus(q: Queries, id: string): Promise<{ status: string } | undefined> {
  return q.first(sql<{ status: string }>`select status from wa_templates where id = ${id}`);
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
  await q.write(sql`update wa_campaigns set queued_count = ${queued} where id = ${campaign.id}`);
  return queued;
}

/** UUIDv7 in SQL (PostgreSQL 15 has no uuidv7()): 48-bit millisecond time over a random v4, version bits set to 7. */
const UUID_V7 = sql.raw(
  `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`,
);
