import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql, tables, type Queries } from '../../kernel/sql';
import type { WaMessageSchema } from './whatsapp.entities';
import { inboundMessagesBetween } from './whatsapp.repository';

type FigureTables = InferKyselyDB<typeof WaMessageSchema>;
const db = tables<FigureTables>();

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
    q.first(
      db
        .selectFrom('wa_messages')
        .select((eb) => [
          eb
            .cast<number>(
              eb.fn.countAll().filterWhere((w) => w.and([w('sent_at', '>=', since), w('sent_at', '<', until)])),
              'integer',
            )
            .as('sent'),
          eb
            .cast<number>(
              eb.fn.countAll().filterWhere((w) => w.and([w('delivered_at', '>=', since), w('delivered_at', '<', until)])),
              'integer',
            )
            .as('delivered'),
          eb
            .cast<number>(
              eb.fn.countAll().filterWhere((w) => w.and([w('read_at', '>=', since), w('read_at', '<', until)])),
              'integer',
            )
            .as('read'),
        ])
        .where('direction', '=', 'out')
        .where('accepted_at', '>=', new Date(since.getTime() - DELIVERY_HORIZON_DAYS * 24 * 3600_000))
        .where('accepted_at', '<', until),
    ),
    inboundMessagesBetween(q, since, until),
  ]);
  return { sent: outbound?.sent ?? 0, delivered: outbound?.delivered ?? 0, read: outbound?.read ?? 0, replies: inbound };
}
