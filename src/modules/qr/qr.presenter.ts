import type { z } from 'zod';
import { landingUrl } from './qr.codes';
import type { LandingConfig } from './qr.entities';
import type { CampaignRecord, CodeRecord } from './qr.repository';
import type { campaignView, codeView } from './qr.schemas';

/** Whether the landing page offers the volunteer box (campaigns saved before the option do). */
export const offersVolunteerSignup = (landing: Pick<LandingConfig, 'volunteerSignup'>): boolean => landing.volunteerSignup !== false;

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function presentCampaign(campaign: CampaignRecord): z.input<typeof campaignView> {
  return {
    id: campaign.id,
    name: campaign.name,
    description: campaign.description,
    status: campaign.status,
    startsAt: iso(campaign.startsAt),
    endsAt: iso(campaign.endsAt),
    territoryId: campaign.territoryId,
    landing: { ...campaign.landing, volunteerSignup: offersVolunteerSignup(campaign.landing) },
    consentTextId: campaign.consentTextId,
    createdAt: campaign.createdAt.toISOString(),
    updatedAt: campaign.updatedAt.toISOString(),
  };
}

export function presentCode(code: CodeRecord, publicBaseUrl: string): z.input<typeof codeView> {
  return {
    id: code.id,
    code: code.code,
    url: landingUrl(publicBaseUrl, code.code),
    label: code.label,
    address: code.address,
    lat: code.lat,
    lng: code.lng,
    territoryId: code.territoryId,
    placedAt: iso(code.placedAt),
    authorisedSite: code.authorisedSite,
    removalDeadline: iso(code.removalDeadline),
    removedAt: iso(code.removedAt),
    createdAt: code.createdAt.toISOString(),
  };
}
