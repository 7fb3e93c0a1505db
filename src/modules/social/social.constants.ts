/**
 * The social module's fixed lists, with nothing but TypeScript: the entities, the schemas and the
 * staff console (which bundles the schemas) use them.
 */
export { PLATFORMS, type Platform } from './connectors/connector';

export const PROFILE_SOURCES = ['api', 'import'] as const;
export type ProfileSource = (typeof PROFILE_SOURCES)[number];

export const SENTIMENT_LABELS = ['positive', 'neutral', 'negative'] as const;
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

export const ALERT_KINDS = ['new_post', 'keyword', 'engagement_spike', 'follower_change', 'negative_sentiment'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ALERT_STATES = ['new', 'seen', 'dismissed'] as const;
export type AlertState = (typeof ALERT_STATES)[number];
