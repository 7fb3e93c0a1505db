import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { contactReach, type ContactReach } from '../audience';
import { dispatchEmailNotices, queueEmailNotice } from '../email';
import { dispatchWhatsAppNotices, queueWhatsAppNotice } from '../whatsapp';
import { NOTICE_CHANNELS, type NoticeChannel, type PassedOver, type UnreachableReason } from './notices.entities';
import { presentNotices } from './notices.presenter';
import { claimKey, noticeIdByKey, noticePage, recordOutcome, type NoticeFilter } from './notices.repository';

export type { NoticeChannel } from './notices.entities';

export interface NoticeRequest {
  /** Unique per intended message, e.g. `agenda:reminder-24h:<eventId>:<contactId>`; a key is sent at most once, across processes. */
  key: string;
  contactId: string;
  /** e.g. 'agenda.reminder', 'agenda.cancelled', 'pqrs.received', 'pqrs.answer'. */
  purpose: string;
  /** Preference order: the first one the contact has consented to and has an address for is used. */
  channels: readonly NoticeChannel[];
  /**
   * An approved template by name and language (business-initiated messages must be templates).
   * Without one, a WhatsApp channel is passed over as `template_missing`: the record says the
   * person chose WhatsApp and why nothing went there.
   */
  whatsapp?: { template: string; language: string; params: string[] };
  email?: { subject: string; text: string; html?: string };
}

export type NoticeResult =
  | { status: 'queued'; channel: NoticeChannel; noticeId: string }
  | { status: 'duplicate'; noticeId: string }
  | { status: 'unreachable'; noticeId: string; reason: UnreachableReason };

/** A request other code builds: malformed is a bug in the caller, so it throws rather than recording anything. */
const requestSchema = z
  .object({
    key: z.string().min(1).max(300),
    contactId: z.uuid(),
    purpose: z
      .string()
      .min(1)
      .max(60)
      .regex(/^[a-z0-9_.-]+$/, 'lower-case words joined by dots, e.g. agenda.reminder'),
    channels: z.array(z.enum(NOTICE_CHANNELS)).min(1),
    whatsapp: z.object({ template: z.string().min(1).max(512), language: z.string().min(2).max(15), params: z.array(z.string().max(1024)) }).optional(),
    email: z.object({ subject: z.string().min(1).max(300), text: z.string().min(1), html: z.string().min(1).optional() }).optional(),
  })
  .refine((request) => !request.channels.includes('email') || request.email, { message: 'the email channel needs `email` content', path: ['email'] });

/**
 * When every channel was passed over, the reason of the one that came nearest to sending: it had
 * an address and consent but no template or a suppressed address, else an address without
 * consent, else no address at all.
 */
const NEARNESS: Record<UnreachableReason, number> = { template_missing: 4, suppressed: 3, no_consent: 2, no_address: 1, erased: 0 };

type ChannelAttempt = { messageId: string } | { reason: UnreachableReason };

async function tryChannel(q: Queries, request: NoticeRequest, reach: ContactReach, channel: NoticeChannel): Promise<ChannelAttempt> {
  switch (channel) {
    case 'whatsapp': {
      if (!reach.phone) return { reason: 'no_address' };
      if (!reach.whatsappConsent) return { reason: 'no_consent' };
      // The person may be written to on WhatsApp, but the sender has no approved template for it.
      const content = request.whatsapp;
      if (!content) return { reason: 'template_missing' };
      return queueWhatsAppNotice(q, { contactId: request.contactId, template: content.template, language: content.language, params: content.params });
    }
    case 'email': {
      if (!reach.email) return { reason: 'no_address' };
      if (!reach.emailConsent) return { reason: 'no_consent' };
      const content = request.email!;
      return queueEmailNotice(q, { contactId: request.contactId, subject: content.subject, text: content.text, html: content.html });
    }
  }
}

/**
 * The new notice's id, or the duplicate answer. A key taken and then gone before it could be read
 * (its notice's person erased in between, which renames the key) is free again: try once more.
 */
async function takeKey(q: Queries, request: NoticeRequest): Promise<string | { status: 'duplicate'; noticeId: string }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const noticeId = await claimKey(q, request);
    if (noticeId) return noticeId;
    const existing = await noticeIdByKey(q, request.key);
    if (existing) return { status: 'duplicate', noticeId: existing };
  }
  throw new Error('queueNotice: the key keeps being taken and released');
}

/**
 * Runs in the caller's transaction: takes the key (a second caller with the same key, in any
 * process, gets `duplicate`), then queues the message on the first channel in the caller's order
 * that can carry it, or records why none could. Nothing goes out before the transaction commits;
 * call `dispatchNotices` after it does.
 */
export async function queueNotice(q: Queries, request: NoticeRequest): Promise<NoticeResult> {
  const parsed = requestSchema.safeParse(request);
  if (!parsed.success) throw new Error(`queueNotice: invalid request (${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')})`);
  const noticeId = await takeKey(q, request);
  if (typeof noticeId !== 'string') return noticeId;
  const reach = await contactReach(q, request.contactId);
  if (!reach || reach.erased) {
    await recordOutcome(q, noticeId, { status: 'unreachable', channel: null, reason: 'erased', messageRef: null, passedOver: [] });
    return { status: 'unreachable', noticeId, reason: 'erased' };
  }
  const passedOver: PassedOver[] = [];
  for (const channel of new Set(request.channels)) {
    const attempt = await tryChannel(q, request, reach, channel);
    if ('messageId' in attempt) {
      await recordOutcome(q, noticeId, { status: 'queued', channel, reason: null, messageRef: attempt.messageId, passedOver });
      return { status: 'queued', channel, noticeId };
    }
    passedOver.push({ channel, reason: attempt.reason });
  }
  const reason = passedOver.reduce((best, item) => (NEARNESS[item.reason] > NEARNESS[best] ? item.reason : best), passedOver[0]!.reason);
  await recordOutcome(q, noticeId, { status: 'unreachable', channel: null, reason, messageRef: null, passedOver });
  return { status: 'unreachable', noticeId, reason };
}

/** Call after the caller's transaction commits: wakes the channel senders (safe to call when nothing was queued). */
export async function dispatchNotices(deps: AppDeps): Promise<void> {
  await Promise.all([dispatchWhatsAppNotices(deps), dispatchEmailNotices(deps)]);
}

export async function listNotices(q: Queries, query: PageRequest & NoticeFilter) {
  const { cursor, limit, ...filter } = query;
  const page = await noticePage(q, filter, { cursor, limit });
  return { data: await presentNotices(q, page.data), nextCursor: page.nextCursor };
}
