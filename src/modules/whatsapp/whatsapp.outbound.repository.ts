import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { prepared, sql, tables, type Database, type Queries } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import type { WaCampaignSchema, WaMessageSchema, WaTemplateSchema } from './whatsapp.entities';

/** The tables the sender reads and writes, as the typed query builder sees them. */
type SenderTables = InferKyselyDB<typeof WaCampaignSchema | typeof WaMessageSchema | typeof WaTemplateSchema>;
const db = tables<SenderTables>();

type MessageRow = Selectable<SenderTables['wa_messages']>;

/** A message claimed for sending: `skipped` when its contact withdrew consent since it was written. */
export type ClaimedRow = Pick<MessageRow, 'id' | 'campaign_id' | 'conversation_id' | 'phone' | 'kind' | 'body' | 'params' | 'template_id' | 'attempts'> & {
  status: 'sending' | 'skipped';
};

/** A message whose status changed, for the war room and the campaign's counters. */
export type ChangedRow = Pick<MessageRow, 'id' | 'campaign_id' | 'conversation_id' | 'status'>;

/**
 * Claims the next messages to send, at most `limit`, and marks them `sending` in the same
 * statement, so that at any moment only the messages actually in flight are `sending` (after a
 * crash, exactly those are in doubt). Consent is read here, at send time: a contact who opted out
 * since the campaign was written is `skipped`. A contact messaged within the pair interval waits.
 */
export function claimMessages(q: Queries, options: { templatesAllowed: boolean; pairIntervalSeconds: number; limit: number }): Promise<ClaimedRow[]> {
  return q.rows(
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
      returning m.id, m.campaign_id, m.conversation_id, m.phone, m.kind, m.body, m.params, m.template_id, m.status, m.attempts`.prepared('wa_outbound_claim'),
  );
}

export interface Settlement {
  id: string;
  status: 'accepted' | 'failed' | 'in_doubt' | 'queued';
  rank: number;
  wamid: string | null;
  code: number | null;
  title: string | null;
  next: Date | null;
  /** Claimed but never handed to the provider: the claim's attempt does not count. */
  released: boolean;
}

/**
 * Settles the outcomes answered since the last settle, in one statement. `accepted` only fills in
 * what a faster webhook may not have (the wamid, the acceptance time) and never lowers a status;
 * the other outcomes apply only to a message still `sending`. Planned with its values each time:
 * a generic plan over the arrays may pick a sequential scan where a handful of ids wants the
 * primary key.
 */
export function settleMessages(q: Queries, settle: Settlement[], provider: string): Promise<ChangedRow[]> {
  if (!settle.length) return Promise.resolve([]);
  return q.rows(sql<ChangedRow>`
    update wa_messages m set
      status = case when v.status = 'accepted' then (case when m.status_rank < 2 then 'accepted' else m.status end) else v.status end,
      status_rank = case when v.status = 'accepted' then greatest(m.status_rank, 2) else v.rank end,
      wamid = coalesce(m.wamid, v.wamid),
      provider = case when v.status = 'accepted' then ${provider} else m.provider end,
      accepted_at = case when v.status = 'accepted' then coalesce(m.accepted_at, now()) else m.accepted_at end,
      failed_at = case when v.status = 'failed' then now() else m.failed_at end,
      error_code = case when v.status = 'accepted' or v.released then m.error_code else v.error_code end,
      error_title = case when v.status = 'accepted' or v.released then m.error_title else v.error_title end,
      next_attempt_at = coalesce(v.next_at, m.next_attempt_at),
      attempts = m.attempts - case when v.released then 1 else 0 end
    from unnest(${settle.map((item) => item.id)}::uuid[], ${settle.map((item) => item.status)}::text[], ${settle.map((item) => item.rank)}::smallint[],
                ${settle.map((item) => item.wamid)}::text[], ${settle.map((item) => item.code)}::int[], ${settle.map((item) => item.title)}::text[],
                ${settle.map((item) => item.next)}::timestamptz[], ${settle.map((item) => item.released)}::boolean[])
      as v(id, status, rank, wamid, error_code, error_title, next_at, released)
    where m.id = v.id and (m.status = 'sending' or (v.status = 'accepted' and m.status_rank >= 1 and m.status_rank < 9))
    returning m.id, m.campaign_id, m.conversation_id, m.status`);
}

/** The sender took the lock, so nobody else is sending: every `sending` row was left by a process that died. */
export async function markOrphansInDoubt(q: Queries): Promise<number> {
  return (await q.write(prepared('wa_outbound_orphans', db.updateTable('wa_messages').set({ status: 'in_doubt' }).where('status', '=', 'sending')))).count;
}

/** Campaigns with nothing left queued or in flight are completed; returns their ids. */
export async function finishCampaigns(q: Queries): Promise<string[]> {
  const finish = db
    .updateTable('wa_campaigns as k')
    .set((eb) => ({ status: 'completed', completed_at: eb.fn<Date>('now', []), notice: null }))
    .where('k.status', '=', 'sending')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('wa_messages as m').select(eb.lit(1).as('one')).whereRef('m.campaign_id', '=', 'k.id').where('m.status', 'in', ['queued', 'sending']))),
    )
    .returning('k.id');
  const rows = await q.rows(prepared('wa_outbound_finish', finish));
  return rows.map((row) => row.id);
}

/** Notices starting with this say why a campaign was paused; once staff resume it, they no longer hold. */
export const PAUSE_NOTICE_PREFIX = 'Paused:';

/** Resumed campaigns drop the notice that said why they were paused. */
export async function clearPauseNotices(q: Queries): Promise<void> {
  await q.write(db.updateTable('wa_campaigns').set({ notice: null }).where('status', 'in', ['sending', 'scheduled']).where('notice', 'like', `${PAUSE_NOTICE_PREFIX}%`));
}

/** A sending campaign is paused with a notice saying why; false when it was not sending. */
export async function pauseCampaign(q: Queries, campaignId: string, notice: string): Promise<boolean> {
  const { count } = await q.write(db.updateTable('wa_campaigns').set({ status: 'paused', notice }).where('id', '=', campaignId).where('status', '=', 'sending'));
  return count > 0;
}

/** Whether any message is due now (of a sending campaign, or a conversation's reply). */
export async function hasDueMessages(q: Queries): Promise<boolean> {
  const due = db
    .selectFrom('wa_messages as m')
    .select('m.id')
    .where('m.status', '=', 'queued')
    .where((eb) => eb('m.next_attempt_at', '<=', eb.fn<Date>('now', [])))
    .where((eb) =>
      eb.or([
        eb('m.campaign_id', 'is', null),
        eb.exists(eb.selectFrom('wa_campaigns as k').select(eb.lit(1).as('one')).whereRef('k.id', '=', 'm.campaign_id').where('k.status', '=', 'sending')),
      ]),
    )
    .limit(1);
  return (await q.first(prepared('wa_outbound_due', due))) !== undefined;
}

/** Only one process sends at a time (the rate limit is per phone number); the lock dies with its session. */
const SEND_LOCK_KEY = 0x5741_5345; // "WASE"

/** Runs `work` while holding the send lock on one connection; false (and no work) when another process holds it. */
export function withSendLock(database: Database, work: () => Promise<void>): Promise<boolean> {
  return database.session(async (connection) => {
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

/**
 * Unique contacts reached with business-initiated (template) messages in the rolling 24 hours;
 * messages in flight or in doubt count, since they may have gone out.
 */
export async function tierUsed(q: Queries): Promise<number> {
  const dayAgo = new Date(Date.now() - 24 * 3600_000);
  const used = db
    .selectFrom('wa_messages')
    .select((eb) => eb.cast<number>(eb.fn.count('contact_id').distinct(), 'integer').as('n'))
    .where('direction', '=', 'out')
    .where('kind', '=', 'template')
    .where((eb) => eb.or([eb('accepted_at', '>', dayAgo), eb.and([eb('status', 'in', ['in_doubt', 'sending']), eb('claimed_at', '>', dayAgo)])]));
  return (await q.first(prepared('wa_outbound_tier', used)))?.n ?? 0;
}

/** Sending campaigns with templates still queued say that they wait for the tier. */
export async function noteTierWait(q: Queries, notice: string): Promise<void> {
  await q.write(sql`
    update wa_campaigns k set notice = ${notice} where k.status = 'sending' and k.notice is distinct from ${notice}
      and exists (select 1 from wa_messages m where m.campaign_id = k.id and m.status = 'queued')`);
}

/** In-doubt messages claimed longer ago than the expiry are closed as failed; never resent. */
export async function expireInDoubt(q: Queries, expirySeconds: number): Promise<number> {
  const { count } = await q.write(sql`
    update wa_messages set status = 'failed', status_rank = 4, failed_at = now(),
      error_title = 'unconfirmed: no status from the provider; not resent (the recipient may have it)'
    where status = 'in_doubt' and claimed_at < now() - ${expirySeconds}::int * interval '1 second'`);
  return count;
}

export function campaignStatuses(q: Queries, ids: readonly string[]): Promise<{ id: string; status: string }[]> {
  if (!ids.length) return Promise.resolve([]);
  return q.rows(db.selectFrom('wa_campaigns').select(['id', 'status']).where('id', 'in', ids));
}

export function templatesByIds(q: Queries, ids: readonly string[]): Promise<{ id: string; name: string; language: string }[]> {
  if (!ids.length) return Promise.resolve([]);
  return q.rows(db.selectFrom('wa_templates').select(['id', 'name', 'language']).where('id', 'in', ids));
}
