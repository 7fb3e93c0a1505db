import { sql, type Queries } from '../../kernel/sql';

/** Inbound messages (replies and new conversations) per local day in [since, until). */
export function inboundMessagesByDay(q: Queries, since: Date, until: Date, timeZone: string): Promise<{ day: string; count: number }[]> {
  return q.rows(sql`
    select (created_at at time zone ${timeZone}::text)::date::text as day, count(*)::int as count from wa_messages
    where direction = 'in' and created_at >= ${since}::timestamptz and created_at < ${until}::timestamptz group by 1`);
}

export interface WhatsAppReach {
  /** Outbound messages the provider accepted in the window. */
  sent: number;
  delivered: number;
  read: number;
  /** Inbound messages in the window. */
  replies: number;
}

/** What WhatsApp reached in [since, until): outbound messages sent, delivered and read then, and inbound messages. */
export async function whatsAppReachBetween(q: Queries, since: Date, until: Date): Promise<WhatsAppReach> {
  const row = await q.first<WhatsAppReach>(sql`
    select count(*) filter (where direction = 'out' and sent_at >= ${since}::timestamptz and sent_at < ${until}::timestamptz)::int as sent,
      count(*) filter (where direction = 'out' and delivered_at >= ${since}::timestamptz and delivered_at < ${until}::timestamptz)::int as delivered,
      count(*) filter (where direction = 'out' and read_at >= ${since}::timestamptz and read_at < ${until}::timestamptz)::int as read,
      count(*) filter (where direction = 'in' and created_at >= ${since}::timestamptz and created_at < ${until}::timestamptz)::int as replies
    from wa_messages`);
  return row ?? { sent: 0, delivered: 0, read: 0, replies: 0 };
}
