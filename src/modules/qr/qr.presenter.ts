import type { z } from 'zod';
import type { QrCampaign, QrCode } from './qr.entities';
import { landingUrl } from './qr.codes';
import type { campaignView, codeView } from './qr.schemas';

const iso = (value: Date | null | undefined) => (value ? value.toISOString() : null);

export function presentCampaign(campaign: QrCampaign): z.input<typeof campaignView> {
  return {
    id: campaign.id,
    name: campaign.name,
    description: campaign.description ?? null,
    status: campaign.status,
    startsAt: iso(campaign.startsAt),
    endsAt: iso(campaign.endsAt),
    territoryId: campaign.territory ? campaign.territory.id : null,
    landing: campaign.landing,
    consentTextId: campaign.consentTextId,
    createdAt: campaign.createdAt.toISOString(),
    updatedAt: campaign.updatedAt.toISOString(),
  };
}

export function presentCode(code: QrCode, publicBaseUrl: string): z.input<typeof codeView> {
  return {
    id: code.id,
    code: code.code,
    url: landingUrl(publicBaseUrl, code.code),
    label: code.label,
    address: code.address ?? null,
    lat: code.lat === null || code.lat === undefined ? null : Number(code.lat),
    lng: code.lng === null || code.lng === undefined ? null : Number(code.lng),
    territoryId: code.territory ? code.territory.id : null,
    placedAt: iso(code.placedAt),
    authorisedSite: code.authorisedSite,
    removalDeadline: iso(code.removalDeadline),
    removedAt: iso(code.removedAt),
    createdAt: code.createdAt.toISOString(),
  };
}
