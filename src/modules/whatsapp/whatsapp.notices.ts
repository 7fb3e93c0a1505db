import type { AppDeps } from '../../kernel/context';
import type { Queries } from '../../kernel/sql';
import { requestDispatch } from './whatsapp.jobs';
import { insertNoticeMessage, messageDeliveries, type MessageDelivery, type NoticeInsert } from './whatsapp.notices.repository';

/** Why a notice could not be queued on WhatsApp. */
export type WhatsAppNoticeRefusal = 'no_consent' | 'no_address' | 'template_missing';

export type WhatsAppNoticeResult = { messageId: string } | { reason: WhatsAppNoticeRefusal };

/**
 * Queues one approved template to one contact in the caller's transaction, ahead of campaign
 * messages; the engine sends it with the same pacing, tier quota and in-doubt rules as any other,
 * and webhooks update it like any other. Business-initiated, so a template: one that is missing,
 * not approved, or has a different number of placeholders than `params` is `template_missing`.
 */
export async function queueWhatsAppNotice(q: Queries, notice: NoticeInsert): Promise<WhatsAppNoticeResult> {
  const row = await insertNoticeMessage(q, notice);
  if (row.id) return { messageId: row.id };
  if (!row.has_phone) return { reason: 'no_address' };
  if (!row.consent) return { reason: 'no_consent' };
  return { reason: 'template_missing' };
}

/** After the transaction that queued notices commits: the sender drains them (a no-op when nothing is due). */
export function dispatchWhatsAppNotices(deps: AppDeps): Promise<void> {
  return requestDispatch(deps, 'notice');
}

/** Delivery status of messages queued by `queueWhatsAppNotice`, by id (unknown ids are left out). */
export async function whatsAppDeliveries(q: Queries, ids: readonly string[]): Promise<Map<string, MessageDelivery>> {
  return new Map((await messageDeliveries(q, ids)).map((row) => [row.id, row]));
}

export type { MessageDelivery } from './whatsapp.notices.repository';
