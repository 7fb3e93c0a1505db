import type { AppDeps } from '../../kernel/context';
import type { SharedCache } from '../../kernel/cache';
import { TERRITORY_AND_DESCENDANTS } from '../territories';
import { QrCampaignSchema, QrCodeSchema, type CampaignStatus, type LandingConfig } from './qr.entities';

/** What the hot public paths (scan, capture) need to know about a poster code. */
export interface CodeContext {
  codeId: string;
  code: string;
  campaignId: string;
}

export interface CampaignContext {
  id: string;
  status: CampaignStatus;
  startsAt: Date | null;
  endsAt: Date | null;
  landing: LandingConfig;
  consentTextId: string;
  /** Barrios inside the campaign's territory, offered as choices on the landing page. */
  neighbourhoods: { id: string; name: string }[];
}

/** Codes never move between campaigns, so they are cached long; campaigns are invalidated on change. */
export function codeContexts(deps: AppDeps): SharedCache<CodeContext | null> {
  return deps.caches.named<CodeContext | null>(
    'qr-code',
    async (code) => {
      const row = await deps.orm.em.fork().findOne(QrCodeSchema, { code }, { fields: ['id', 'code', 'campaign'] });
      return row ? { codeId: row.id, code: row.code, campaignId: row.campaign.id } : null;
    },
    5 * 60_000,
  );
}

export function campaignContexts(deps: AppDeps): SharedCache<CampaignContext | null> {
  return deps.caches.named<CampaignContext | null>(
    'qr-campaign',
    async (id) => {
      const em = deps.orm.em.fork();
      const campaign = await em.findOne(QrCampaignSchema, { id });
      if (!campaign) return null;
      const neighbourhoods = campaign.territory
        ? await em.execute<{ id: string; name: string }[]>(
            `select t.id, t.name from territories t
             where t.type = 'neighbourhood' and t.id in (${TERRITORY_AND_DESCENDANTS}) order by t.name limit 500`,
            [[campaign.territory.id]],
          )
        : [];
      return {
        id: campaign.id,
        status: campaign.status,
        startsAt: campaign.startsAt ?? null,
        endsAt: campaign.endsAt ?? null,
        landing: campaign.landing,
        consentTextId: campaign.consentTextId,
        neighbourhoods,
      };
    },
    30_000,
  );
}
