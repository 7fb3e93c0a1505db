import { sql, type Queries } from '../../kernel/sql';
import { inboundMessagesBetween } from './whatsapp.repository';

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

/** A message is delivered or read at most this long after the provider accepted it (WhatsApp keeps trying for 30 days). */
const DELIVERY_HORIZON_DAYS = 30;

/** What WhatsApp reached in [since, until): outbound messages sent, delivered and read then, and inbound messages. */
export async function whatsAppReachBetween(q: Queries, since: Date, until: Date): Promise<WhatsAppReach> {
  // Outbound rows are found through the accepted_at index, bounded by how late a delivery can come.
  const [outbound, inbound] = await Promise.all([
    q.first<Omit<WhatsAppReach, 'replies'>>(sql`
      select count(*) filter (where sent_at >= ${since}::timestamptz and sent_at < ${until}::timestamptz)::int as sent,
        count(*) filter (where delivered_at >= ${since}::timestamptz and delivered_at < ${until}::timestamptz)::int as delivered,
        count(*) filter (where read_at >= ${since}::timestamptz and read_at < ${until}::timestamptz)::int as read
      from wa_messages where direction = 'out' and accepted_at >= ${since}::timestamptz - make_interval(days => ${DELIVERY_HORIZON_DAYS}::int)
        and accepted_at < ${until}::timestamptz`),
    inboundMessagesBetween(q, since, until),
  ]);
  return { sent: outbound?.sent ?? 0, delivered: outbound?.delivered ?? 0, read: outbound?.read ?? 0, replies: inbound };
}
