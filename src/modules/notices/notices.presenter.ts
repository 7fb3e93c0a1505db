import type { Queries } from '../../kernel/sql';
import { emailNoticeDeliveries } from '../email';
import { whatsAppDeliveries, type MessageDelivery } from '../whatsapp';
import type { NoticeChannel } from './notices.entities';
import type { NoticeRecord } from './notices.repository';
import type { DeliveryStatus, NoticeView } from './notices.schemas';

/** Each channel's statuses in the view's vocabulary. */
const DELIVERY_OF: Record<string, DeliveryStatus> = {
  queued: 'queued',
  sending: 'sending',
  in_doubt: 'in_doubt',
  accepted: 'sent',
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
  bounced: 'failed',
  skipped: 'skipped',
  cancelled: 'skipped',
};

/** The channel messages behind these notices, each read through its channel's module. */
export async function deliveriesOf(q: Queries, notices: readonly Pick<NoticeRecord, 'channel' | 'messageRef'>[]): Promise<Map<NoticeChannel, Map<string, MessageDelivery>>> {
  const refs = (channel: NoticeChannel) => notices.filter((notice) => notice.channel === channel && notice.messageRef).map((notice) => notice.messageRef!);
  return new Map<NoticeChannel, Map<string, MessageDelivery>>([
    ['whatsapp', await whatsAppDeliveries(q, refs('whatsapp'))],
    ['email', await emailNoticeDeliveries(q, refs('email'))],
  ]);
}

export function presentDelivery(delivery: MessageDelivery | undefined): NoticeView['delivery'] {
  if (!delivery) return null;
  return { status: DELIVERY_OF[delivery.status] ?? 'queued', channelStatus: delivery.status, at: delivery.at ? new Date(delivery.at).toISOString() : null, error: delivery.error };
}

export async function presentNotices(q: Queries, notices: readonly NoticeRecord[]): Promise<NoticeView[]> {
  const deliveries = await deliveriesOf(q, notices);
  return notices.map((notice) => ({
    id: notice.id,
    key: notice.key,
    contactId: notice.contactId,
    purpose: notice.purpose,
    status: notice.status,
    channel: notice.channel ?? null,
    reason: notice.reason ?? null,
    passedOver: notice.passedOver,
    messageId: notice.messageRef ?? null,
    delivery: notice.channel && notice.messageRef ? presentDelivery(deliveries.get(notice.channel)?.get(notice.messageRef)) : null,
    createdAt: new Date(notice.createdAt).toISOString(),
  }));
}
