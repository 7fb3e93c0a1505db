/*
 * The module's code lists, apart from its entities so that the schemas, which the console bundles
 * to validate its forms, need nothing but zod (the entities bring the ORM). The entities re-export them.
 */

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

/** Meta's template lifecycle; only APPROVED templates can be sent. */
export const TEMPLATE_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled'] as const;
export type WaCampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CONTACT_FIELDS = ['firstName', 'name', 'neighbourhood', 'territory'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

export const CONVERSATION_STATUSES = ['open', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/**
 * Statuses and their rank: a status only replaces one of lower rank, so webhooks arriving out
 * of order or twice never move a message backwards. `failed` ranks below `delivered` because a
 * late `failed` after a delivery is noise, while `delivered` after `failed` is proof. Messages
 * never sent (skipped at send time, cancelled) are frozen above everything.
 */
export const STATUS_RANK = {
  queued: 0,
  sending: 1,
  in_doubt: 1,
  accepted: 2,
  sent: 3,
  failed: 4,
  delivered: 5,
  read: 6,
  skipped: 9,
  cancelled: 9,
  received: 9,
} as const;
export type MessageStatus = keyof typeof STATUS_RANK;
export const MESSAGE_STATUSES = Object.keys(STATUS_RANK) as MessageStatus[];

export const MESSAGE_KINDS = ['template', 'text', 'button', 'interactive', 'media', 'other'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
