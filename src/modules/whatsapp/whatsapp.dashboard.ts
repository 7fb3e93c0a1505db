import type { EntityManager } from '@mikro-orm/postgresql';
import type { WhatsAppConfig } from '../../config';
import type { Queries } from '../../kernel/sql';
import { countOptedOut } from '../audience';
import type { WaCampaignStatus } from './whatsapp.entities';
import type { Counters } from './whatsapp.schemas';
import { COUNTER_COLUMNS, rates, tierUsage } from './whatsapp.stats';

/** Totals and rates over every outbound message, per campaign, conversations, opt-outs, last 24 h. */
export async function dashboard(em: EntityManager, db: Queries, config: WhatsAppConfig) {
  const [totalsRow] = await em.execute<(Counters & { total: number })[]>(`select count(*)::int as total, ${COUNTER_COLUMNS} from wa_messages m where m.direction = 'out'`);
  const perCampaign = await em.execute<(Counters & { id: string; name: string; status: WaCampaignStatus; audienceSize: number })[]>(
    `select k.id, k.name, k.status, k.audience_size as "audienceSize", ${COUNTER_COLUMNS}
     from wa_campaigns k left join wa_messages m on m.campaign_id = k.id
     group by k.id order by k.created_at desc limit 50`,
  );
  const [conversations] = await em.execute<{ open: number; unread: number; unreadMessages: number; windowOpen: number }[]>(
    `select count(*) filter (where status = 'open')::int as open,
            count(*) filter (where unread_count > 0)::int as unread,
            coalesce(sum(unread_count), 0)::int as "unreadMessages",
            count(*) filter (where last_inbound_at > now() - interval '24 hours')::int as "windowOpen"
     from wa_conversations`,
  );
  const optOuts = await countOptedOut(db, 'whatsapp');
  const [last24h] = await em.execute<{ inbound: number; outbound: number }[]>(
    `select count(*) filter (where direction = 'in')::int as inbound,
            count(*) filter (where direction = 'out' and accepted_at is not null)::int as outbound
     from wa_messages where created_at > now() - interval '24 hours' or accepted_at > now() - interval '24 hours'`,
  );
  const { total, ...totals } = totalsRow!;
  return {
    totals: { total, ...totals },
    rates: rates(totals),
    campaigns: perCampaign.map(({ id, name, status, audienceSize, ...progress }) => ({ id, name, status, audienceSize, progress, rates: rates(progress) })),
    conversations: conversations!,
    optOuts,
    last24h: last24h!,
    tier: await tierUsage(em, config),
  };
}
