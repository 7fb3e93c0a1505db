import { sql, type Queries } from '../../kernel/sql';

/** People (recipients) who clicked a link, per local day of their first click that day, in [since, until); machine fetches left out. */
export function emailClicksByDay(q: Queries, since: Date, until: Date, timeZone: string): Promise<{ day: string; count: number }[]> {
  return q.rows(sql`
    select (at at time zone ${timeZone}::text)::date::text as day, count(distinct recipient_id)::int as count from email_events
    where kind = 'click' and not machine and at >= ${since}::timestamptz and at < ${until}::timestamptz group by 1`);
}

export interface EmailReach {
  /** Campaign emails sent in the window. */
  sent: number;
  /** Distinct recipients who opened (people, not privacy proxies) in the window. */
  opened: number;
  /** Distinct recipients who clicked in the window. */
  clicked: number;
}

/** What campaign email reached in [since, until). */
export async function emailReachBetween(q: Queries, since: Date, until: Date): Promise<EmailReach> {
  const row = await q.first<EmailReach>(sql`
    select (select count(*) from email_recipients where sent_at >= ${since}::timestamptz and sent_at < ${until}::timestamptz)::int as sent,
      count(distinct recipient_id) filter (where kind = 'open')::int as opened,
      count(distinct recipient_id) filter (where kind = 'click')::int as clicked
    from email_events where not machine and at >= ${since}::timestamptz and at < ${until}::timestamptz`);
  return row ?? { sent: 0, opened: 0, clicked: 0 };
}
