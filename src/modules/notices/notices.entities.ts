import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, uuidPrimaryKey } from '../../kernel/entity-properties';
import { ContactSchema } from '../audience';

export const NOTICE_CHANNELS = ['whatsapp', 'email'] as const;
export type NoticeChannel = (typeof NOTICE_CHANNELS)[number];

/** `queued`: handed to a channel, which delivers it; `unreachable`: recorded, nothing sent. */
export const NOTICE_STATUSES = ['queued', 'unreachable'] as const;
export type NoticeStatus = (typeof NOTICE_STATUSES)[number];

export const UNREACHABLE_REASONS = ['no_consent', 'no_address', 'template_missing', 'erased', 'suppressed'] as const;
export type UnreachableReason = (typeof UNREACHABLE_REASONS)[number];

/** A channel the notice did not go out on, and why. */
export interface PassedOver {
  channel: NoticeChannel;
  reason: UnreachableReason;
}

/**
 * One message to one person on behalf of another module (an event reminder, a PQRS answer). The
 * unique key is what makes it happen at most once: whoever inserts the key first sends, across
 * transactions and processes. The channel's own row (a WhatsApp message, an email notice) carries
 * the delivery; `messageRef` points at it.
 */
export const NoticeSchema = defineEntity({
  name: 'Notice',
  tableName: 'notices',
  indexes: [{ properties: ['contact', 'id'] }, { properties: ['purpose', 'id'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    key: p.string().length(300).unique(),
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    purpose: p.string().length(60),
    channel: p.enum([...NOTICE_CHANNELS]).nullable(),
    status: p.enum([...NOTICE_STATUSES]),
    reason: p.enum([...UNREACHABLE_REASONS]).nullable(),
    passedOver: p.json<PassedOver[]>().default([]),
    /** The channel's message id (wa_messages.id, email_notices.id). */
    messageRef: p.string().length(40).nullable(),
    ...createdAtStamp,
  }),
});
export type Notice = InferEntity<typeof NoticeSchema>;

export const noticesEntities = [NoticeSchema];
