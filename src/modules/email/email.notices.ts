import type { AppDeps } from '../../kernel/context';
import type { Queries } from '../../kernel/sql';
import { sendJob } from './email.jobs';
import { insertEmailNotice, noticeDeliveries, type EmailNoticeInsert, type NoticeDelivery } from './email.notices.repository';

/** Why a notice could not be queued by email. */
export type EmailNoticeRefusal = 'no_consent' | 'no_address' | 'suppressed';

export type EmailNoticeResult = { messageId: string } | { reason: EmailNoticeRefusal };

/**
 * Queues one message to one contact's current address in the caller's transaction, ahead of
 * campaign recipients; the sender mails it from EMAIL_FROM through the same SMTP pool, pace,
 * retries and in-doubt rules, re-reading consent and suppression when it claims it.
 */
export async function queueEmailNotice(q: Queries, notice: EmailNoticeInsert): Promise<EmailNoticeResult> {
  const row = await insertEmailNotice(q, notice);
  if (row.id) return { messageId: row.id };
  if (!row.has_email) return { reason: 'no_address' };
  if (row.suppressed) return { reason: 'suppressed' };
  return { reason: 'no_consent' };
}

/** After the transaction that queued notices commits: a sender drains them (a no-op when nothing is due). */
export async function dispatchEmailNotices(deps: AppDeps): Promise<void> {
  await deps.jobs.enqueue(sendJob, {});
}

/** Delivery status of messages queued by `queueEmailNotice`, by id (unknown ids are left out). */
export async function emailNoticeDeliveries(q: Queries, ids: readonly string[]): Promise<Map<string, NoticeDelivery>> {
  return new Map((await noticeDeliveries(q, ids)).map((row) => [row.id, row]));
}
