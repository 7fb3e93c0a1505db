import type { EntityManager } from '@mikro-orm/postgresql';
import type { WhatsAppConfig } from '../../config';
import type { Counters } from './whatsapp.schemas';

/**
 * Counters straight from the message rows (never a drifting copy). "sent" counts every message
 * the provider took (accepted or later, failures after acceptance included); "delivered" includes
 * read ones, since a read receipt may come without a delivery receipt.
 */
export const COUNTER_COLUMNS = `
  count(*) filter (where m.status = 'queued')::int as queued,
  count(*) filter (where m.status = 'sending')::int as sending,
  count(*) filter (where m.status = 'in_doubt')::int as "inDoubt",
  count(*) filter (where m.status_rank between 2 and 6 and m.accepted_at is not null)::int as sent,
  count(*) filter (where m.status in ('delivered', 'read'))::int as delivered,
  count(*) filter (where m.status = 'read')::int as read,
  count(*) filter (where m.status = 'failed')::int as failed,
  count(*) filter (where m.status = 'skipped')::int as skipped,
  count(*) filter (where m.status = 'cancelled')::int as cancelled,
  count(*) filter (where m.replied_at is not null)::int as replied`;

export const emptyCounters = (): Counters => ({ queued: 0, sending: 0, inDoubt: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, cancelled: 0, replied: 0 });

export async function campaignCounters(em: EntityManager, campaignIds: string[]): Promise<Map<string, Counters>> {
  const out = new Map<string, Counters>();
  if (campaignIds.length === 0) return out;
  const rows = await em.execute<(Counters & { campaignId: string })[]>(
    `select m.campaign_id as "campaignId", ${COUNTER_COLUMNS} from wa_messages m where m.campaign_id in (?) group by m.campaign_id`,
    [campaignIds],
  );
  for (const id of campaignIds) out.set(id, emptyCounters());
  for (const { campaignId, ...counters } of rows) out.set(campaignId, counters);
  return out;
}

export function rates(counters: Counters): { delivery: number; read: number; reply: number } {
  const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);
  return { delivery: ratio(counters.delivered, counters.sent), read: ratio(counters.read, counters.delivered), reply: ratio(counters.replied, counters.delivered) };
}

/**
 * Unique contacts reached with business-initiated (template) messages in the rolling 24 hours;
 * messages in doubt count, since they may have gone out.
 */
export async function tierUsage(em: EntityManager, config: WhatsAppConfig): Promise<{ limit: number | null; usedLast24h: number; remaining: number | null }> {
  const rows = await em.execute<{ n: number }[]>(
    `select count(distinct contact_id)::int as n from wa_messages
     where direction = 'out' and kind = 'template'
       and ((accepted_at > now() - interval '24 hours') or (status in ('in_doubt', 'sending') and claimed_at > now() - interval '24 hours'))`,
  );
  const used = rows[0]?.n ?? 0;
  const limit = config.messagingTier;
  return { limit, usedLast24h: used, remaining: limit === null ? null : Math.max(0, limit - used) };
}
