/*
 * The words of email marketing's API on their own, without the ORM, so that its schemas (and the
 * console that validates forms with them) need nothing but zod.
 */

export const TEMPLATE_SOURCES = ['mjml', 'html'] as const;
/** `paused`: the sender stopped it after consecutive provider errors; staff resume it. */
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'sent'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const AB_PHASES = ['none', 'testing', 'waiting', 'winner_sent'] as const;
export type AbPhase = (typeof AB_PHASES)[number];
export const AB_METRICS = ['open', 'click'] as const;
export type AbMetric = (typeof AB_METRICS)[number];
