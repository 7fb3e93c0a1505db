import { sql, type Queries } from '../../kernel/sql';

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
