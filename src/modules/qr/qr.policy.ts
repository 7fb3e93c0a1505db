import { definePolicy } from '../../kernel/policy';
import type { CampaignStatus } from './qr.constants';

/**
 * Who may do what with poster campaigns: managers run them; viewers follow their figures; only
 * managers see the people captured (names, phones, emails), and nobody's data reaches the
 * dashboard. Citizens' pages (landing, capture, poster images) are public by nature.
 */
export const qrPolicy = definePolicy({
  /** Creating and changing campaigns, minting codes, placing posters, printing sheets. */
  manage: { roles: ['manager'] },
  /** Campaigns, their poster codes and their analysis. */
  read: { roles: ['manager', 'viewer'] },
  /** The people captured, listed or exported. */
  readLeads: { roles: ['manager'] },
  /** The war-room dashboard room: live leads, without personal data. */
  followDashboard: { roles: ['manager', 'viewer'] },
});

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
