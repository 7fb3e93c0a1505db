import type { WhatsAppConfig } from '../../config';
import type { Queries } from '../../kernel/sql';
import { countersByCampaign } from './whatsapp.campaigns.repository';
import { tierUsed } from './whatsapp.outbound.repository';
import type { Counters } from './whatsapp.schemas';

export const emptyCounters = (): Counters => ({ queued: 0, sending: 0, inDoubt: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, cancelled: 0, replied: 0, simulated: 0 });

/** Each campaign's counters, straight from its message rows; a campaign without messages has zeros. */
export async function campaignCounters(q: Queries, campaignIds: string[]): Promise<Map<string, Counters>> {
  const out = new Map<string, Counters>();
  if (campaignIds.length === 0) return out;
  for (const id of campaignIds) out.set(id, emptyCounters());
  for (const { campaignId, ...counters } of await countersByCampaign(q, campaignIds)) out.set(campaignId, counters);
  return out;
}

export function rates(counters: Counters): { delivery: number; read: number; reply: number } {
  const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);
  return { delivery: ratio(counters.delivered, counters.sent), read: ratio(counters.read, counters.delivered), reply: ratio(counters.replied, counters.delivered) };
}

/** The messaging tier's use: unique contacts reached with templates in the rolling 24 hours, and what is left. */
export async function tierUsage(q: Queries, config: WhatsAppConfig): Promise<{ limit: number | null; usedLast24h: number; remaining: number | null }> {
  const used = await tierUsed(q);
  const limit = config.messagingTier;
  return { limit, usedLast24h: used, remaining: limit === null ? null : Math.max(0, limit - used) };
}
