import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql, tables, type Queries } from '../../kernel/sql';
import type { EmailEventSchema, EmailRecipientSchema } from './email.entities';

type FigureTables = InferKyselyDB<typeof EmailEventSchema | typeof EmailRecipientSchema>;
const db = tables<FigureTables>();

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
  const row = await q.first(
    db
      .selectFrom('email_events')
      .select((eb) => [
        eb
          .selectFrom('email_recipients')
          .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
          .where('sent_at', '>=', since)
          .where('sent_at', '<', until)
          .$asScalar()
          .$notNull()
          .as('sent'),
        eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere('kind', '=', 'open'), 'integer').as('opened'),
        eb.cast<number>(eb.fn.count('recipient_id').distinct().filterWhere('kind', '=', 'click'), 'integer').as('clicked'),
      ])
      .where('machine', '=', false)
      .where('at', '>=', since)
      .where('at', '<', until),
  );
  return row ?? { sent: 0, opened: 0, clicked: 0 };
}
