import type { CampaignStatus } from './qr.entities';

/** Status changes a campaign may make; `ended` is final (its posters' data stays for analysis). */
const transitions: Record<CampaignStatus, readonly CampaignStatus[]> = {
  draft: ['active', 'ended'],
  active: ['paused', 'ended'],
  paused: ['active', 'ended'],
  ended: [],
};

export function canMoveTo(from: CampaignStatus, to: CampaignStatus): boolean {
  return from === to || transitions[from].includes(to);
}

/** Whether a campaign takes submissions now: active, and inside its dates when it has them. */
export function isOpen(campaign: { status: CampaignStatus; startsAt: Date | null; endsAt: Date | null }, now = new Date()): boolean {
  if (campaign.status !== 'active') return false;
  if (campaign.startsAt && now < campaign.startsAt) return false;
  if (campaign.endsAt && now >= campaign.endsAt) return false;
  return true;
}
