import type { AbPhase, CampaignStatus } from './email.codes';

/**
 * The room of email campaign screens (managers, viewers). Events are notifications without
 * personal data; totals come from GET …/campaigns/:id/stats.
 */
export const EMAIL_ROOM = 'email';

/** What one sending chunk did: add these up for a live progress bar. */
export interface EmailProgressEvent {
  campaignId: string;
  sent: number;
  bounced: number;
  failed: number;
  retrying: number;
  skipped: number;
}

/** A campaign changed state: sending started, the A/B test is waiting, the winner is out, all sent. */
export interface EmailCampaignEvent {
  campaignId: string;
  status: CampaignStatus;
  abPhase: AbPhase;
  winner: string | null;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'email:progress': EmailProgressEvent;
    'email:campaign': EmailCampaignEvent;
  }
}
