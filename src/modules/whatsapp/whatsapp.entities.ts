import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { ContactSchema } from '../audience';
import { UserSchema } from '../auth';
import { CAMPAIGN_STATUSES, CONVERSATION_STATUSES, MESSAGE_KINDS, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, type ContactField } from './whatsapp.codes';

export * from './whatsapp.codes';

export interface TemplateButton {
  type: 'QUICK_REPLY' | 'URL' | 'PHONE_NUMBER';
  text: string;
  url?: string | undefined;
  phoneNumber?: string | undefined;
}

/** A message template as registered with the provider; `{{1}}..{{n}}` placeholders in the body. */
export const WaTemplateSchema = defineEntity({
  name: 'WaTemplate',
  tableName: 'wa_templates',
  uniques: [{ properties: ['name', 'language'], name: 'wa_templates_name_language_unique' }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(512),
    language: p.string().length(15),
    category: p.enum([...TEMPLATE_CATEGORIES]),
    body: p.text(),
    header: p.string().length(60).nullable(),
    footer: p.string().length(60).nullable(),
    buttons: p.json<TemplateButton[]>().default([]),
    examples: p.json<string[]>().default([]),
    placeholders: p.integer(),
    status: p.enum([...TEMPLATE_STATUSES]).default('PENDING'),
    providerTemplateId: p.string().length(64).nullable().unique(),
    rejectionReason: p.string().length(200).nullable(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...timestamps,
  }),
});
export type WaTemplate = InferEntity<typeof WaTemplateSchema>;

/** Where a placeholder's value comes from: a contact field or a fixed text. */
export type VariableSource = { field: ContactField } | { literal: string };

export interface StoredSegment {
  interestsAny?: string[] | undefined;
  interestsAll?: string[] | undefined;
  territoryIds?: string[] | undefined;
  qrCampaignIds?: string[] | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
}

/** A mass send of one template to one segment. Progress is counted from its message rows. */
export const WaCampaignSchema = defineEntity({
  name: 'WaCampaign',
  tableName: 'wa_campaigns',
  indexes: [{ properties: ['status', 'scheduledAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    template: () => p.manyToOne(WaTemplateSchema).deleteRule('restrict'),
    variables: p.json<VariableSource[]>(),
    segment: p.json<StoredSegment>(),
    status: p.enum([...CAMPAIGN_STATUSES]).default('draft'),
    scheduledAt: p.datetime().nullable(),
    /** Reachable people when the campaign was created (opted in, not opted out, one per phone). */
    audienceSize: p.integer(),
    /** Rows written by `send`; 0 before. */
    queuedCount: p.integer().default(0),
    /** Why sending is waiting (messaging tier used up), shown to staff; null while it flows. */
    notice: p.string().length(300).nullable(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
  }),
});
export type WaCampaign = InferEntity<typeof WaCampaignSchema>;

/** One thread per contact; counters kept in the same transaction as the messages. */
export const WaConversationSchema = defineEntity({
  name: 'WaConversation',
  tableName: 'wa_conversations',
  indexes: [
    { properties: ['lastMessageAt', 'id'] },
    // The inbox badge (open conversations with unread messages) counts from this alone.
    {
      name: 'wa_conversations_unread',
      expression: `create index "wa_conversations_unread" on "wa_conversations" ("unread_count") where "status" = 'open' and "unread_count" > 0`,
    },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    contact: () => p.manyToOne(ContactSchema).unique().deleteRule('cascade'),
    status: p.enum([...CONVERSATION_STATUSES]).default('open'),
    assignedTo: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    unreadCount: p.integer().default(0),
    /** Opens the 24-hour customer-service window. */
    lastInboundAt: p.datetime().nullable(),
    lastMessageAt: p.datetime(),
    lastMessageId: p.uuid().nullable(),
    ...createdAtStamp,
  }),
});
export type WaConversation = InferEntity<typeof WaConversationSchema>;

/**
 * Every message in or out. Outbound rows are the send list: written `queued`, claimed by the
 * sender, settled by the provider's answer and then by webhooks (matched by our id, echoed as
 * `biz_opaque_callback_data`, or by the provider's `wamid`).
 */
export const WaMessageSchema = defineEntity({
  name: 'WaMessage',
  tableName: 'wa_messages',
  uniques: [{ properties: ['campaign', 'contact'], name: 'wa_messages_campaign_contact_unique' }],
  indexes: [
    { name: 'wa_messages_queue', expression: `create index "wa_messages_queue" on "wa_messages" ("priority", "id") where "status" = 'queued'` },
    { name: 'wa_messages_in_flight', expression: `create index "wa_messages_in_flight" on "wa_messages" ("claimed_at") where "status" = 'sending'` },
    { properties: ['campaign', 'status'] },
    { properties: ['conversation', 'id'] },
    { properties: ['contact', 'acceptedAt'] },
    { properties: ['acceptedAt'] },
    { properties: ['createdAt'] },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    campaign: () => p.manyToOne(WaCampaignSchema).nullable().deleteRule('cascade'),
    conversation: () => p.manyToOne(WaConversationSchema).nullable().deleteRule('cascade'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    phone: p.string().length(20),
    direction: p.enum(['in', 'out'] as const),
    kind: p.enum([...MESSAGE_KINDS]),
    body: p.text().nullable(),
    template: () => p.manyToOne(WaTemplateSchema).nullable().deleteRule('restrict'),
    params: p.json<string[]>().nullable(),
    status: p.string().length(12),
    statusRank: p.smallint(),
    /** 0: replies in a conversation and notices to one person go before 1: campaign messages. */
    priority: p.smallint().default(1),
    wamid: p.string().length(128).nullable().unique(),
    /** The provider that took the message (`cloud`, `simulator`): a simulator's "delivered" never reached WhatsApp. */
    provider: p.string().length(20).nullable(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().onCreate(() => new Date()),
    claimedAt: p.datetime().nullable(),
    acceptedAt: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    readAt: p.datetime().nullable(),
    failedAt: p.datetime().nullable(),
    repliedAt: p.datetime().nullable(),
    errorCode: p.integer().nullable(),
    errorTitle: p.string().length(200).nullable(),
    sentBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
  }),
});
export type WaMessage = InferEntity<typeof WaMessageSchema>;

/**
 * A status whose message could not be found yet: Meta may deliver it before our send's HTTP answer
 * stored the wamid (and without our id when it omits the callback data). Kept a day and applied as
 * soon as the wamid appears.
 */
export const WaPendingStatusSchema = defineEntity({
  name: 'WaPendingStatus',
  tableName: 'wa_pending_statuses',
  indexes: [{ properties: ['receivedAt'] }],
  properties: (p) => ({
    wamid: p.string().length(128).primary(),
    status: p.string().length(20).primary(),
    rank: p.smallint(),
    at: p.datetime(),
    errorCode: p.integer().nullable(),
    errorTitle: p.string().length(200).nullable(),
    receivedAt: p.datetime(),
  }),
});

/**
 * A canned answer the team shares (Chatwoot's canned responses): typed as `/horario` in the inbox,
 * its text put in the reply box with `{{nombre}}`-style variables filled from the person.
 */
export const WaQuickReplySchema = defineEntity({
  name: 'WaQuickReply',
  tableName: 'wa_quick_replies',
  properties: (p) => ({
    ...uuidPrimaryKey,
    /** `/` and lower-case letters, digits, `-` or `_`; unique. */
    shortcut: p.string().length(32).unique(),
    title: p.string().length(80),
    text: p.string().length(1024),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    updatedBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...timestamps,
  }),
});
export type WaQuickReply = InferEntity<typeof WaQuickReplySchema>;

export const whatsappEntities = [WaTemplateSchema, WaCampaignSchema, WaConversationSchema, WaMessageSchema, WaPendingStatusSchema, WaQuickReplySchema];
