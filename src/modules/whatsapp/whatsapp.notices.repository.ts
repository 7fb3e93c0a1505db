import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { sql, tables, type Queries } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import { STATUS_RANK, type WaMessageSchema } from './whatsapp.entities';

type NoticeTables = InferKyselyDB<typeof WaMessageSchema>;
const db = tables<NoticeTables>();

export interface NoticeInsert {
  contactId: string;
  template: string;
  language: string;
  params: readonly string[];
}

export interface NoticeInsertResult {
  /** The queued message's id; null when nothing was written. */
  id: string | null;
  /** An approved template with this name and language and as many placeholders as params. */
  template_ok: boolean;
  has_phone: boolean;
  consent: boolean;
}

/**
 * One template message to one contact, queued ahead of campaign traffic (priority 0, as staff
 * replies), with no campaign; written only when an approved template with that name, language and
 * number of placeholders exists and the contact is reachable on WhatsApp now, and says which of
 * those failed otherwise. The sender re-reads consent when it claims the row.
 */
export async function insertNoticeMessage(q: Queries, notice: NoticeInsert): Promise<NoticeInsertResult> {
  const row = await q.first(sql<NoticeInsertResult>`
    with t as (
      select id from wa_templates where name = ${notice.template} and language = ${notice.language} and status = 'APPROVED' and placeholders = ${notice.params.length}::int
    ), c as (
      select id, phone, whatsapp_opt_in and whatsapp_opted_out_at is null as consent, whatsapp_reachable from ${audienceContacts()} c where c.id = ${notice.contactId}::uuid
    ), written as (
      insert into wa_messages (id, contact_id, phone, direction, kind, template_id, params, status, status_rank, priority, attempts, next_attempt_at, created_at)
      select ${newId()}::uuid, c.id, c.phone, 'out', 'template', t.id, ${JSON.stringify(notice.params)}::jsonb, 'queued', ${STATUS_RANK.queued}, 0, 0, now(), now()
      from c cross join t where c.whatsapp_reachable
      returning id
    )
    select (select id from written) as id, exists (select 1 from t) as template_ok,
           coalesce((select phone is not null from c), false) as has_phone, coalesce((select consent from c), false) as consent`);
  return row!;
}

/** Where a message stands now, for a view of messages sent on behalf of another module. */
export interface MessageDelivery {
  id: string;
  status: string;
  at: Date | null;
  error: string | null;
}

/** The delivery status of these messages, with the time of the latest step and the provider's error. */
export function messageDeliveries(q: Queries, ids: readonly string[]): Promise<MessageDelivery[]> {
  if (!ids.length) return Promise.resolve([]);
  return q.rows(
    db
      .selectFrom('wa_messages')
      .select((eb) => [
        'id',
        'status',
        eb.fn.coalesce('read_at', 'delivered_at', 'failed_at', 'sent_at', eb.fn.coalesce('accepted_at', 'claimed_at')).as('at'),
        'error_title as error',
      ])
      .where('id', 'in', ids),
  );
}
