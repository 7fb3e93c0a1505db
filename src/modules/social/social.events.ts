import type { AlertKind, AlertState, Platform, SentimentLabel, Severity } from './social.entities';

/** The war room's social screen. */
export const SOCIAL_ROOM = 'social';
/** The general war-room dashboard (its room rule is the QR module's): alerts go there too. */
export const DASHBOARD_ROOM = 'dashboard';

/** An alert the moment it is created: what a screen needs to show it without asking again. */
export interface SocialAlertEvent {
  id: string;
  kind: AlertKind;
  severity: Severity;
  title: string;
  /** Why it fired, by kind (the post's excerpt and URL, the matched keywords, the spike's figures…): docs/social-monitoring.md. */
  details: Record<string, unknown>;
  competitorId: string | null;
  profileId: string | null;
  postId: string | null;
  state: AlertState;
  createdAt: string;
}

/** A newly collected post of a tracked competitor, in batches (`{ items }`). */
export interface SocialPostItem {
  id: string;
  competitorId: string;
  platform: Platform;
  publishedAt: string;
  url: string | null;
  sentiment: SentimentLabel;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'social:alert': SocialAlertEvent;
    'social:post': { items: SocialPostItem[] };
  }
}
