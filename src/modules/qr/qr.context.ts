import type { AppDeps } from '../../kernel/context';
import type { SharedCache } from '../../kernel/cache';
import type { CampaignStatus, LandingConfig } from './qr.entities';
import { findCampaign, findCodeByPrintedCode, neighbourhoodsInside } from './qr.repository';

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
export function codeContexts(deps: Pick<AppDeps, 'db' | 'caches'>): SharedCache<CodeContext | null> {
  return deps.caches.named<CodeContext | null>(
    'qr-code',
    async (code) => {
      const row = await findCodeByPrintedCode(deps.db, code);
      return row ? { codeId: row.id, code: row.code, campaignId: row.campaignId } : null;
    },
    5 * 60_000,
  );
}

export function campaignContexts(deps: Pick<AppDeps, 'db' | 'caches'>): SharedCache<CampaignContext | null> {
  return deps.caches.named<CampaignContext | null>(
    'qr-campaign',
    async (id) => {
      const campaign = await findCampaign(deps.db, id);
      if (!campaign) return null;
      return {
        id: campaign.id,
        status: campaign.status,
        startsAt: campaign.startsAt,
        endsAt: campaign.endsAt,
        landing: campaign.landing,
        consentTextId: campaign.consentTextId,
        neighbourhoods: campaign.territoryId ? await neighbourhoodsInside(deps.db, campaign.territoryId, 500) : [],
      };
    },
    30_000,
  );
}
