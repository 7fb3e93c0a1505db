import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { sql, type Queries } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import type { EmailNoticeSchema } from './email.entities';
import { suppressed } from './email.personal-data';

type NoticeRow = Selectable<InferKyselyDB<typeof EmailNoticeSchema>['email_notices']>;

export interface EmailNoticeInsert {
  contactId: string;
  subject: string;
  text: string;
  html?: string | undefined;
}

export interface EmailNoticeInsertResult {
  /** The queued row's id; null when nothing was written. */
  id: string | null;
  has_email: boolean;
  consent: boolean;
  suppressed: boolean;
}

/**
 * One message to one contact's current address, queued for the sender, only when the contact
 * is reachable by email now and the address is not suppressed; otherwise says which of those failed.
 */
export async function insertEmailNotice(q: Queries, notice: EmailNoticeInsert): Promise<EmailNoticeInsertResult> {
  const row = await q.first(sql<EmailNoticeInsertResult>`
    with c as (
      select c.id, c.email, c.email_reachable, c.email is not null and ${suppressed(sql`c.email`)} as suppressed from ${audienceContacts()} c where c.id = ${notice.contactId}::uuid
    ), written as (
      insert into email_notices (contact_id, email, subject, text, html, status, attempts, created_at)
      select c.id, c.email, ${notice.subject}, ${notice.text}, ${notice.html ?? null}, 'queued', 0, now()
      from c where c.email_reachable and not c.suppressed
      returning id::text
    )
    select (select id from written) as id, coalesce((select email is not null from c), false) as has_email,
           coalesce((select email_reachable from c), false) as consent, coalesce((select suppressed from c), false) as suppressed`);
  return row!;
}

/** What a notice says; its bigint key as pg gives it (text), which the builder's types would call a number. */
export type NoticeContent = Pick<NoticeRow, 'subject' | 'text' | 'html'> & { id: string };

/** What claimed notices say, for their sends. */
export function noticeContents(q: Queries, ids: readonly string[]): Promise<NoticeContent[]> {
  if (!ids.length) return Promise.resolve([]);
  return q.rows(sql<NoticeContent>`select id::text, subject, text, html from email_notices where id = any(${ids}::bigint[])`);
}

export interface NoticeDelivery {
  id: string;
  status: string;
  at: Date | null;
  error: string | null;
}

export function noticeDeliveries(q: Queries, ids: readonly string[]): Promise<NoticeDelivery[]> {
  const numeric = ids.filter((id) => /^\d{1,18}$/.test(id));
  if (!numeric.length) return Promise.resolve([]);
  return q.rows(sql<NoticeDelivery>`
    select id::text, status, coalesce(sent_at, claimed_at) as at, last_error as error from email_notices where id = any(${numeric}::bigint[])`);
}

/** A notice's address, locked while its unsubscribe is recorded; undefined for an unknown id. */
export function lockNoticeAddress(q: Queries, id: string): Promise<{ email: string } | undefined> {
  return q.first(sql<{ email: string }>`select email from email_notices where id = ${id}::bigint for update`);
}
