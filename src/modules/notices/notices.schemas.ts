import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape, pageSchema } from '../../kernel/page-schemas';
import { NOTICE_CHANNELS, NOTICE_STATUSES, UNREACHABLE_REASONS } from './notices.entities';

/** Where a queued notice's message stands, in one vocabulary for every channel. */
export const DELIVERY_STATUSES = ['queued', 'sending', 'in_doubt', 'sent', 'delivered', 'read', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const listNoticesQuery = z.object({
  ...pageQueryShape,
  purpose: z
    .string()
    .max(60)
    .regex(/^[a-z0-9_.-]+$/, 'expected a purpose such as agenda.reminder')
    .optional(),
  contactId: z.uuid().optional(),
  channel: z.enum(NOTICE_CHANNELS).optional(),
  status: z.enum(NOTICE_STATUSES).optional(),
});

export const noticeView = z.object({
  id: z.uuid(),
  key: z.string(),
  contactId: z.uuid(),
  purpose: z.string(),
  status: z.enum(NOTICE_STATUSES),
  channel: z.enum(NOTICE_CHANNELS).nullable().describe('The channel it was queued on; null when unreachable'),
  reason: z.enum(UNREACHABLE_REASONS).nullable().describe('Why it could not be sent; null when queued'),
  passedOver: z
    .array(z.object({ channel: z.enum(NOTICE_CHANNELS), reason: z.enum(UNREACHABLE_REASONS) }))
    .describe('Channels preferred over the one used (or every channel), and why each was not'),
  messageId: z.string().nullable().describe("The channel's message id"),
  delivery: z
    .object({
      status: z.enum(DELIVERY_STATUSES),
      channelStatus: z.string().describe("The channel's own word (WhatsApp's `accepted`, email's `bounced`…)"),
      at: instant.nullable().describe('When it reached that status'),
      error: z.string().nullable(),
    })
    .nullable()
    .describe('Read from the channel; null when nothing was queued'),
  createdAt: instant,
});
export type NoticeView = z.input<typeof noticeView>;

export const noticePageView = pageSchema(noticeView);
