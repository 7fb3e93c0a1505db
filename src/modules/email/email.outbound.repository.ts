import type { InferKyselyDB } from '@mikro-orm/sql';
import type { ExpressionBuilder } from 'kysely';
import { prepared, sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import { suppressed } from './email.personal-data';
import type { EmailCampaignSchema, EmailNoticeSchema, EmailRecipientSchema, EmailTemplateSchema, EmailVariantSchema } from './email.entities';

/** The tables the sender reads and writes, as the typed query builder sees them. */
type SenderTables = InferKyselyDB<typeof EmailCampaignSchema | typeof EmailNoticeSchema | typeof EmailRecipientSchema | typeof EmailVariantSchema | typeof EmailTemplateSchema>;
const db = tables<SenderTables>();

/** Where a claimed row lives: a campaign's send list, or the notices to one person. */
export type EmailSource = 'campaign' | 'notice';

export interface ClaimedRow {
  id: string;
  source: EmailSource;
  /** Null for a notice. */
  campaign_id: string | null;
  email: string;
  /** Null for a notice. */
  variant_id: string | null;
  attempts: number;
  name: string;
  status: 'sending' | 'skipped';
}

// The claim and the settle are CTE fragments: run alone, or both in one statement when a slot's
// outcome is written and its next message claimed in the same round trip (`settleAndClaim`).

/**
 * Claims up to `limit` due messages and marks them `sending` (rows another process holds are
 * skipped, not waited for), so only messages in flight are ever `sending`: notices to one person
 * first, then recipients of sending campaigns for the slots left. Consent is read here, at send
 * time: a person who unsubscribed, or whose address bounced, since the row was written is
 * `skipped` without an attempt. Defines the CTE `claimed` (both kinds).
 */
function claimCte(limit: number): Sql<never> {
  return sql`
    notice_picked as (
      select n.id from email_notices n
      where n.status = 'queued' and (n.next_attempt_at is null or n.next_attempt_at <= now())
      order by n.id
      limit ${limit}
      for update of n skip locked
    ), notice_decided as (
      select n.id, k.name, (not k.email_reachable or ${suppressed(sql`n.email`)}) as blocked
      from notice_picked p join email_notices n on n.id = p.id join ${audienceContacts()} k on k.id = n.contact_id
    ), notice_claimed as (
      update email_notices n set
        status = case when d.blocked then 'skipped' else 'sending' end,
        claimed_at = now(),
        attempts = n.attempts + case when d.blocked then 0 else 1 end,
        last_error = case when d.blocked then 'no email consent at send time, or the address is suppressed' else n.last_error end
      from notice_decided d where n.id = d.id
      returning n.id::text as id, 'notice'::text as source, null::uuid as campaign_id, n.email, null::uuid as variant_id, n.attempts, d.name, n.status
    ), picked as (
      select r.id from email_recipients r
      where r.status = 'queued' and (r.next_attempt_at is null or r.next_attempt_at <= now())
        and exists (select 1 from email_campaigns c where c.id = r.campaign_id and c.status = 'sending')
      order by r.id
      limit greatest(0, ${limit}::int - (select count(*) from notice_picked))
      for update of r skip locked
    ), decided as (
      select r.id, k.name,
             (r.variant_id is null or k.email_opted_out_at is not null or ${suppressed(sql`r.email`)}) as blocked
      from picked p join email_recipients r on r.id = p.id join ${audienceContacts()} k on k.id = r.contact_id
    ), recipient_claimed as (
      update email_recipients r set
        status = case when d.blocked then 'skipped' else 'sending' end,
        claimed_at = now(),
        attempts = r.attempts + case when d.blocked then 0 else 1 end
      from decided d where r.id = d.id
      returning r.id::text as id, 'campaign'::text as source, r.campaign_id, r.email, r.variant_id, r.attempts, d.name, r.status
    ), claimed as (
      select * from notice_claimed union all select * from recipient_claimed
    )`;
}

export function claimRecipients(q: Queries, limit: number): Promise<ClaimedRow[]> {
  return q.rows(sql<ClaimedRow>`with ${claimCte(limit)} select * from claimed`.prepared('email_outbound_claim'));
}

export interface RecipientSettlement {
  id: string;
  source: EmailSource;
  status: 'sent' | 'bounced' | 'failed' | 'queued' | 'in_doubt';
  messageId: string | null;
  error: string | null;
  nextAt: Date | null;
  /** Claimed but never handed to the SMTP server: the claim's attempt does not count. */
  released: boolean;
}

/** How many recipients of a campaign a settle moved to a status. */
export interface SettledCount {
  campaign_id: string;
  status: string;
  released: boolean;
  n: number;
}

/**
 * Writes the outcomes answered since the last settle, of recipients and notices; addresses that
 * bounced go into the suppressions in the same statement, so nothing mails them again. Only rows
 * still in flight change, or rows in doubt that a late definite answer resolves. Defines the CTE
 * `settled` (campaign recipients only: what the progress counts).
 */
function settleCte(items: readonly RecipientSettlement[]): Sql<never> {
  const recipients = items.filter((item) => item.source === 'campaign');
  const notices = items.filter((item) => item.source === 'notice');
  const values = (list: readonly RecipientSettlement[]) => sql`
    unnest(${list.map((item) => item.id)}::bigint[], ${list.map((item) => item.status)}::text[],
           ${list.map((item) => item.messageId)}::text[], ${list.map((item) => item.error)}::text[],
           ${list.map((item) => item.nextAt)}::timestamptz[], ${list.map((item) => item.released)}::boolean[])
      as v(id, status, message_id, error, next_at, released)`;
  return sql`
    v as (
      select * from ${values(recipients)}
    ), u as (
      update email_recipients r set
        status = v.status,
        sent_at = case when v.status = 'sent' then now() else r.sent_at end,
        message_id = coalesce(v.message_id, r.message_id),
        last_error = case when v.released then r.last_error else v.error end,
        next_attempt_at = case when v.released then r.next_attempt_at else v.next_at end,
        claimed_at = case when v.status = 'in_doubt' then r.claimed_at else null end,
        attempts = r.attempts - case when v.released then 1 else 0 end
      from v
      where r.id = v.id and (r.status = 'sending' or (r.status = 'in_doubt' and v.status in ('sent', 'bounced', 'failed')))
      returning r.campaign_id, r.email, r.status, r.last_error, v.released
    ), nv as (
      select * from ${values(notices)}
    ), nu as (
      update email_notices n set
        status = nv.status,
        sent_at = case when nv.status = 'sent' then now() else n.sent_at end,
        message_id = coalesce(nv.message_id, n.message_id),
        last_error = case when nv.released then n.last_error else nv.error end,
        next_attempt_at = case when nv.released then n.next_attempt_at else nv.next_at end,
        claimed_at = case when nv.status = 'in_doubt' then n.claimed_at else null end,
        attempts = n.attempts - case when nv.released then 1 else 0 end
      from nv
      where n.id = nv.id and (n.status = 'sending' or (n.status = 'in_doubt' and nv.status in ('sent', 'bounced', 'failed')))
      returning n.email, n.status, n.last_error
    ), suppressed as (
      insert into email_suppressions (email, reason, campaign_id, detail, created_at)
      select lower(b.email), 'bounce', b.campaign_id, b.last_error, now()
      from (select campaign_id, email, last_error from u where status = 'bounced'
            union all select null::uuid, email, last_error from nu where status = 'bounced') b
      on conflict (email) do nothing
    ), settled as (
      select campaign_id, status, released, count(*)::int as n from u group by campaign_id, status, released
    )`;
}

/** Planned with its values each time: a generic plan over the arrays may scan the table. */
export function settleRecipients(q: Queries, items: RecipientSettlement[]): Promise<SettledCount[]> {
  if (!items.length) return Promise.resolve([]);
  return q.rows(sql<SettledCount>`with ${settleCte(items)} select * from settled`);
}

/** Both in one statement: the outcomes written and the rows claimed for the slots they free. */
export async function settleAndClaimRecipients(q: Queries, items: RecipientSettlement[], limit: number): Promise<{ settled: SettledCount[]; claimed: ClaimedRow[] }> {
  const row = await q.first(
    sql<{ settled: SettledCount[]; claimed: ClaimedRow[] }>`
      with ${settleCte(items)}, ${claimCte(limit)}
      select (select coalesce(json_agg(s), '[]') from settled s) as settled, (select coalesce(json_agg(c), '[]') from claimed c) as claimed`,
  );
  return row ?? { settled: [], claimed: [] };
}

/** Recipients in flight for longer than the claim timeout were left by a process that died: in doubt, never resent. */
export async function releaseStaleClaims(q: Queries, claimTimeoutSeconds: number): Promise<number> {
  const row = await q.first(
    sql<{ n: number }>`
      with recipients as (
        update email_recipients set status = 'in_doubt', last_error = 'the sender stopped before recording the SMTP answer'
        where status = 'sending' and claimed_at < now() - make_interval(secs => ${claimTimeoutSeconds}) returning 1
      ), notices as (
        update email_notices set status = 'in_doubt', last_error = 'the sender stopped before recording the SMTP answer'
        where status = 'sending' and claimed_at < now() - make_interval(secs => ${claimTimeoutSeconds}) returning 1
      )
      select (select count(*) from recipients)::int + (select count(*) from notices)::int as n`.prepared('email_outbound_stale'),
  );
  return row?.n ?? 0;
}

/** Whether any notice, or recipient of a sending campaign, is due now. */
export async function hasDueRecipients(q: Queries): Promise<boolean> {
  const row = await q.first(
    sql<{ due: boolean }>`
      select exists (
        select 1 from email_recipients r where r.status = 'queued' and (r.next_attempt_at is null or r.next_attempt_at <= now())
          and exists (select 1 from email_campaigns c where c.id = r.campaign_id and c.status = 'sending')
      ) or exists (
        select 1 from email_notices n where n.status = 'queued' and (n.next_attempt_at is null or n.next_attempt_at <= now())
      ) as due`.prepared('email_outbound_due'),
  );
  return Boolean(row?.due);
}

/** What the campaigns' messages are made of: sender, and each variant's subject and template. */
export async function campaignPlans(q: Queries, campaignIds: readonly string[]) {
  if (!campaignIds.length) return [];
  return q.rows(
    db
      .selectFrom('email_campaigns as c')
      .innerJoin('email_variants as v', 'v.campaign_id', 'c.id')
      .innerJoin('email_templates as t', 't.id', 'v.template_id')
      .select(['c.id', 'c.name', 'c.from_name', 'c.from_email', 'c.reply_to', 'v.id as variant_id', 'v.subject', 't.send_html', 't.send_text', 't.links'])
      .where('c.id', 'in', campaignIds),
  );
}

/** One campaign's variant with the sender and content its messages are made of. */
export type PlanRow = Awaited<ReturnType<typeof campaignPlans>>[number];

/** What a changed campaign `c` answers: its A/B phase and the winning variant's name, once there is one. */
const campaignStateColumns = (eb: ExpressionBuilder<SenderTables & { c: SenderTables['email_campaigns'] }, 'c'>) =>
  ['c.ab_phase', eb.selectFrom('email_variants as v').select('v.name').whereRef('v.id', '=', 'c.winner_variant_id').$asScalar().as('winner')] as const;

/** A sending campaign is paused with a notice saying why; nothing comes back when it was not sending. */
export function pauseCampaign(q: Queries, campaignId: string, notice: string) {
  return q.first(
    db
      .updateTable('email_campaigns as c')
      .set((eb) => ({ status: 'paused', notice, updated_at: eb.fn<Date>('now', []) }))
      .where('c.id', '=', campaignId)
      .where('c.status', '=', 'sending')
      .returning(campaignStateColumns),
  );
}

/** A paused campaign sends again and its notice goes; nothing comes back when it was not paused. */
export function resumeCampaign(q: Queries, campaignId: string) {
  return q.first(
    db
      .updateTable('email_campaigns as c')
      .set((eb) => ({ status: 'sending', notice: null, updated_at: eb.fn<Date>('now', []) }))
      .where('c.id', '=', campaignId)
      .where('c.status', '=', 'paused')
      .returning(campaignStateColumns),
  );
}

export function campaignStatus(q: Queries, campaignId: string): Promise<{ status: string; scheduled_at: Date | string | null } | undefined> {
  return q.first(db.selectFrom('email_campaigns').select(['status', 'scheduled_at']).where('id', '=', campaignId));
}

export interface SendingCampaign {
  id: string;
  /** The earliest retry not due yet. */
  next_retry: Date | null;
  /** Recipients queued or in flight. */
  open: number;
  /** The oldest claim still in flight (here or in another process). */
  oldest_claim: Date | null;
}

/** Every sending campaign with what it still has to send. */
export function sendingCampaigns(q: Queries): Promise<SendingCampaign[]> {
  return q.rows(
    sql<SendingCampaign>`
      select c.id,
             min(r.next_attempt_at) filter (where r.status = 'queued' and r.next_attempt_at > now()) as next_retry,
             count(r.id)::int as open,
             min(r.claimed_at) filter (where r.status = 'sending') as oldest_claim
      from email_campaigns c left join email_recipients r on r.campaign_id = c.id and r.status in ('queued', 'sending')
      where c.status = 'sending'
      group by c.id`.prepared('email_outbound_sending'),
  );
}

/** The A/B test phase ends once nothing of it is queued or in flight: the decision is due after waitMinutes. */
export function endTestPhase(q: Queries, campaignId: string): Promise<{ ab_decide_at: Date } | undefined> {
  return q.first(sql<{ ab_decide_at: Date }>`
    update email_campaigns set ab_phase = 'waiting', updated_at = now(),
      ab_decide_at = now() + make_interval(mins => (ab_test->>'waitMinutes')::int)
    where id = ${campaignId} and status = 'sending' and ab_phase = 'testing'
      and not exists (select 1 from email_recipients where campaign_id = ${campaignId} and status in ('queued', 'sending'))
    returning ab_decide_at`);
}

/** The campaign is sent once nothing is queued, in flight or held for a winner. */
export function finishCampaign(q: Queries, campaignId: string) {
  return q.first(
    db
      .updateTable('email_campaigns as c')
      .set((eb) => ({ status: 'sent', finished_at: eb.fn<Date>('now', []), updated_at: eb.fn<Date>('now', []) }))
      .where('c.id', '=', campaignId)
      .where('c.status', '=', 'sending')
      .where('c.ab_phase', 'in', ['none', 'winner_sent'])
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('email_recipients').select(eb.lit(1).as('one')).where('campaign_id', '=', campaignId).where('status', 'in', ['queued', 'sending', 'held']))),
      )
      .returning(campaignStateColumns),
  );
}

/** Campaigns whose work a job should be doing: started and not sent, or scheduled. */
export function unfinishedCampaigns(q: Queries) {
  return q.rows(
    db
      .selectFrom('email_campaigns')
      .select(['id', 'status', 'ab_phase', 'ab_decide_at', 'scheduled_at'])
      .where('status', 'in', ['sending', 'scheduled'])
      .$narrowType<{ status: 'sending' | 'scheduled' }>(),
  );
}

/**
 * What the notices still have to send, for the wake-ups of a drain's end, a process's start and
 * the ticker: the earliest retry not due yet, the oldest claim still in flight (here or in another
 * process), and whether any notice waits to go now. Each part reads one partial index.
 */
export async function noticeQueue(q: Queries) {
  const queue = db.selectNoFrom((eb) => [
    eb
      .selectFrom('email_notices')
      .select((inner) => inner.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'queued')
      .where((inner) => inner('next_attempt_at', '>', inner.fn<Date>('now', [])))
      .$asScalar()
      .as('next_retry'),
    eb
      .selectFrom('email_notices')
      .select((inner) => inner.fn.min('claimed_at').as('at'))
      .where('status', '=', 'sending')
      .$asScalar()
      .as('oldest_claim'),
    eb
      .exists(
        eb
          .selectFrom('email_notices')
          .select(eb.lit(1).as('one'))
          .where('status', '=', 'queued')
          .where((inner) => inner.or([inner('next_attempt_at', 'is', null), inner('next_attempt_at', '<=', inner.fn<Date>('now', []))])),
      )
      .as('due'),
  ]);
  return (await q.first(prepared('email_outbound_notice_queue', queue))) ?? { next_retry: null, oldest_claim: null, due: false };
}
