import { sql, type Queries } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import type { EmailCampaign } from './email.entities';

/** What became of one recipient's message. */
export interface SendOutcome {
  id: string;
  status: string;
  messageId: string | null;
  error: string | null;
  /** ISO time of the next attempt, for a retry. */
  nextAt: string | null;
}

/** Records a round's outcomes in one statement; only recipients still in flight (or unknown) change. */
export async function recordSendOutcomes(db: Queries, results: SendOutcome[]): Promise<void> {
  await db.write(
    sql`update email_recipients r set
          status = u.status,
          sent_at = case when u.status = 'sent' then now() else r.sent_at end,
          message_id = coalesce(u.message_id, r.message_id),
          last_error = u.error,
          next_attempt_at = u.next_at,
          claimed_at = null
        from unnest(${results.map((result) => result.id)}::bigint[], ${results.map((result) => result.status)}::text[],
                    ${results.map((result) => result.messageId)}::text[], ${results.map((result) => result.error)}::text[],
                    ${results.map((result) => result.nextAt)}::timestamptz[]) as u(id, status, message_id, error, next_at)
        where r.id = u.id and r.status in ('sending', 'unknown')`.prepared('email_record_results'),
  );
}

/** Addresses that bounced hard are never mailed again, by any campaign. */
export async function suppressBounced(db: Queries, recipientIds: string[]): Promise<void> {
  await db.write(
    sql`insert into email_suppressions (email, reason, campaign_id, detail, created_at)
        select r.email, 'bounce', r.campaign_id, r.last_error, now() from email_recipients r where r.id = any(${recipientIds}::bigint[])
        on conflict (email) do nothing`.prepared('email_suppress_bounced'),
  );
}

export interface TrackingEvent {
  recipientId: string;
  kind: string;
  linkIndex: number | null;
  machine: boolean;
}

/**
 * One multi-row insert for a batch of opens and clicks, stamped with the insert's time. An open
 * within `machineOpenSeconds` of the send is a mail scanner's, not a person's.
 */
export async function insertTrackingEvents(db: Queries, events: TrackingEvent[], machineOpenSeconds: number): Promise<void> {
  await db.write(
    sql`insert into email_events (campaign_id, variant_id, recipient_id, kind, link_index, machine, at)
        select r.campaign_id, r.variant_id, r.id, e.kind, e.link_index,
               e.machine or (e.kind = 'open' and r.sent_at is not null and now() < r.sent_at + make_interval(secs => ${machineOpenSeconds})),
               now()
        from unnest(${events.map((event) => event.recipientId)}::bigint[], ${events.map((event) => event.kind)}::text[],
                    ${events.map((event) => event.linkIndex)}::int[], ${events.map((event) => event.machine)}::bool[])
          as e(recipient_id, kind, link_index, machine)
        join email_recipients r on r.id = e.recipient_id`.prepared('email_insert_events'),
  );
}

/** The URL at that position of the message the recipient was sent, if any. */
export async function clickTarget(db: Queries, recipientId: string, linkIndex: number): Promise<string | undefined> {
  const row = await db.first(
    sql<{ url: string | null }>`
      select t.links->>(${linkIndex}::int) as url from email_recipients r
      join email_variants v on v.id = r.variant_id join email_templates t on t.id = v.template_id
      where r.id = ${recipientId}`.prepared('email_click_target'),
  );
  return row?.url ?? undefined;
}

export interface RecipientRow {
  id: string;
  campaign_id: string;
  variant_id: string | null;
  email: string;
}

/** The recipient, locked for the rest of the transaction. */
export function lockRecipient(q: Queries, recipientId: string): Promise<RecipientRow | undefined> {
  return q.first(sql<RecipientRow>`select id, campaign_id, variant_id, email from email_recipients where id = ${recipientId} for update`);
}

/** A recipient's unsubscribe counts once in the campaign's statistics, however often the link is used. */
export async function recordUnsubscribeEvent(q: Queries, recipient: RecipientRow): Promise<void> {
  await q.write(sql`
    insert into email_events (campaign_id, variant_id, recipient_id, kind, machine, at)
    select ${recipient.campaign_id}, ${recipient.variant_id}, ${recipient.id}, 'unsubscribe', false, now()
    where not exists (select 1 from email_events where recipient_id = ${recipient.id} and kind = 'unsubscribe')`);
}

export interface StartedCampaign {
  segment: EmailCampaign['segment'];
  ab_test: EmailCampaign['abTest'];
  variants: number;
}

/** The campaign turns `sending` from one of `from`; nothing comes back otherwise. */
export function markSending(q: Queries, campaignId: string, from: readonly string[]): Promise<StartedCampaign | undefined> {
  return q.first(sql<StartedCampaign>`
    update email_campaigns c set status = 'sending', started_at = now(), updated_at = now(),
      ab_phase = case when c.ab_test is null then 'none' else 'testing' end
    where c.id = ${campaignId} and c.status = any(${[...from]}::text[])
    returning c.segment, c.ab_test, (select count(*)::int from email_variants v where v.campaign_id = c.id) as variants`);
}

export async function campaignExists(q: Queries, campaignId: string): Promise<boolean> {
  return (await q.first(sql`select 1 from email_campaigns where id = ${campaignId}`)) !== undefined;
}

export async function setAudienceSize(q: Queries, campaignId: string, size: number): Promise<void> {
  await q.write(sql`update email_campaigns set audience_size = ${size} where id = ${campaignId}`);
}

export interface ClaimedRow {
  id: string;
  email: string;
  variant_id: string;
  attempts: number;
  name: string;
  /** Unsubscribed since the list was written, or the address bounced: skipped, not sent. */
  blocked: boolean;
}

/** Claims up to `size` due recipients of a campaign (queued → sending), skipping rows another worker holds. */
export function claimRecipients(q: Queries, campaignId: string, size: number): Promise<ClaimedRow[]> {
  return q.rows(sql<ClaimedRow>`
    with claimed as (
      update email_recipients r set status = 'sending', claimed_at = now(), attempts = r.attempts + 1
      where r.id in (
        select id from email_recipients
        where campaign_id = ${campaignId} and status = 'queued' and (next_attempt_at is null or next_attempt_at <= now())
        order by id limit ${size} for update skip locked)
      returning r.id, r.contact_id, r.email, r.variant_id, r.attempts
    )
    select c.id::text as id, c.email, c.variant_id, c.attempts, k.name,
           (k.email_opted_out_at is not null or exists (select 1 from email_suppressions s where s.email = c.email)) as blocked
    from claimed c join ${audienceContacts()} k on k.id = c.contact_id order by c.id`);
}
