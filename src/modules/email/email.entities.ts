import { defineEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { ContactSchema, type Segment } from '../audience';
import { AB_METRICS, AB_PHASES, CAMPAIGN_STATUSES, TEMPLATE_SOURCES, type AbMetric } from './email.codes';

export { AB_METRICS, AB_PHASES, CAMPAIGN_STATUSES, TEMPLATE_SOURCES };
export type { AbMetric, AbPhase, CampaignStatus } from './email.codes';

/**
 * Where a recipient stands. `held`: the A/B remainder, waiting for the winner. `sending`: in
 * flight. `in_doubt`: in flight in a process that died before recording the SMTP answer; it may
 * or may not have gone out, so it is never sent again (no duplicates).
 */
export const RECIPIENT_STATUSES = ['held', 'queued', 'sending', 'sent', 'bounced', 'failed', 'in_doubt', 'skipped'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export const RECIPIENT_PHASES = ['main', 'test', 'rest'] as const;
export const EVENT_KINDS = ['open', 'click', 'unsubscribe'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface AbTestSettings {
  testPercent: number;
  metric: AbMetric;
  waitMinutes: number;
}

/** Why the A/B winner is who it is (kept for the record and shown in stats). */
export interface AbDecision {
  reason: 'significant' | 'not_significant' | 'too_small' | 'tie' | 'guardrail';
  zScore: number | null;
  excluded: string[];
  rates: { variant: string; delivered: number; hits: number; rate: number; unsubscribeRate: number }[];
}

/**
 * A template keeps its source, the compiled HTML and a generated text version as the manager
 * sees them, plus the forms used to send: the same with each tracked link replaced by a
 * `{{{tracking.linkN}}}` slot. `links[N]` is the original URL; click tokens carry only N.
 */
export const EmailTemplateSchema = defineEntity({
  name: 'EmailTemplate',
  tableName: 'email_templates',
  indexes: [{ properties: ['createdAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    subject: p.string().length(300),
    sourceKind: p.enum([...TEMPLATE_SOURCES]),
    source: p.text(),
    html: p.text(),
    text: p.text(),
    sendHtml: p.text(),
    sendText: p.text(),
    variables: p.array().default([]),
    links: p.json<string[]>(),
    ...createdAtStamp,
  }),
});

export const EmailCampaignSchema = defineEntity({
  name: 'EmailCampaign',
  tableName: 'email_campaigns',
  indexes: [{ properties: ['createdAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    fromName: p.string().length(120),
    fromEmail: p.string().length(254),
    replyTo: p.string().length(254).nullable(),
    segment: p.json<Segment>(),
    status: p.enum([...CAMPAIGN_STATUSES]).default('draft'),
    /** Reachable people when created; replaced by the send list's size when sending starts. */
    audienceSize: p.integer(),
    abTest: p.json<AbTestSettings>().nullable(),
    abPhase: p.enum([...AB_PHASES]).default('none'),
    abDecideAt: p.datetime().nullable(),
    winnerVariantId: p.uuid().nullable(),
    decidedAt: p.datetime().nullable(),
    decision: p.json<AbDecision>().nullable(),
    scheduledAt: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    /** Why sending stopped (paused after provider errors), shown to staff; null while it flows. */
    notice: p.string().length(300).nullable(),
    ...timestamps,
  }),
});

export const EmailVariantSchema = defineEntity({
  name: 'EmailVariant',
  tableName: 'email_variants',
  uniques: [{ properties: ['campaign', 'position'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    campaign: () => p.manyToOne(EmailCampaignSchema).deleteRule('cascade'),
    position: p.smallint(),
    name: p.string().length(40),
    subject: p.string().length(300),
    template: () => p.manyToOne(EmailTemplateSchema),
  }),
});

/**
 * The send list: one row per recipient, written set-based when sending starts. A bigint key
 * keeps tracking tokens compact; the address is copied so a later edit of the contact cannot
 * change where a recorded message went.
 */
export const EmailRecipientSchema = defineEntity({
  name: 'EmailRecipient',
  tableName: 'email_recipients',
  uniques: [{ properties: ['campaign', 'email'], name: 'email_recipients_campaign_email_unique' }],
  indexes: [
    { properties: ['campaign', 'status', 'nextAttemptAt'] },
    { properties: ['contact'] },
    // The sender's claim walks the queued rows in order, past those already sent.
    { name: 'email_recipients_queue', expression: `create index "email_recipients_queue" on "email_recipients" ("id") where "status" = 'queued'` },
    // Rows left in flight by a process that died are found by their claim time.
    { name: 'email_recipients_in_flight', expression: `create index "email_recipients_in_flight" on "email_recipients" ("claimed_at") where "status" = 'sending'` },
    // The dashboard's weekly reach counts messages sent in a window.
    { name: 'email_recipients_sent_at', expression: `create index "email_recipients_sent_at" on "email_recipients" ("sent_at") where "sent_at" is not null` },
  ],
  properties: (p) => ({
    id: p.bigint().primary().autoincrement(),
    campaign: () => p.manyToOne(EmailCampaignSchema).deleteRule('cascade'),
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    email: p.string().length(254),
    variant: () => p.manyToOne(EmailVariantSchema).nullable(),
    phase: p.enum([...RECIPIENT_PHASES]),
    status: p.enum([...RECIPIENT_STATUSES]),
    attempts: p.smallint().default(0),
    nextAttemptAt: p.datetime().nullable(),
    claimedAt: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    messageId: p.string().length(200).nullable(),
    lastError: p.string().length(200).nullable(),
  }),
});

export const NOTICE_MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'bounced', 'failed', 'in_doubt', 'skipped'] as const;
export type NoticeMessageStatus = (typeof NOTICE_MESSAGE_STATUSES)[number];

/**
 * Messages to one person outside any campaign (a reminder, a PQRS answer), queued by the notices
 * module and sent by the same engine, SMTP pool and pace as campaign recipients, ahead of them.
 * The content is kept (it is what the person was told) until the person's data is erased. A
 * bigint key, as recipients', so the unsubscribe link's token stays compact.
 */
export const EmailNoticeSchema = defineEntity({
  name: 'EmailNotice',
  tableName: 'email_notices',
  indexes: [
    { properties: ['contact'] },
    { name: 'email_notices_queue', expression: `create index "email_notices_queue" on "email_notices" ("id") where "status" = 'queued'` },
    { name: 'email_notices_in_flight', expression: `create index "email_notices_in_flight" on "email_notices" ("claimed_at") where "status" = 'sending'` },
  ],
  properties: (p) => ({
    id: p.bigint().primary().autoincrement(),
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    email: p.string().length(254),
    subject: p.string().length(300),
    text: p.text(),
    html: p.text().nullable(),
    status: p.enum([...NOTICE_MESSAGE_STATUSES]),
    attempts: p.smallint().default(0),
    nextAttemptAt: p.datetime().nullable(),
    claimedAt: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    messageId: p.string().length(200).nullable(),
    lastError: p.string().length(200).nullable(),
    ...createdAtStamp,
  }),
});

/**
 * Opens, clicks and unsubscribes: one row each (totals); unique = distinct recipients. The hot
 * table of the pixel route: no foreign-key constraints (each would cost a lookup per row). Rows
 * are only ever written by a statement that joins the recipient, which supplies the campaign and
 * variant, so the references hold by construction; campaigns are never deleted.
 */
export const EmailEventSchema = defineEntity({
  name: 'EmailEvent',
  tableName: 'email_events',
  indexes: [{ properties: ['campaign', 'kind', 'at'] }, { properties: ['recipient', 'kind'] }, { properties: ['at'] }],
  properties: (p) => ({
    id: p.bigint().primary().autoincrement(),
    campaign: () => p.manyToOne(EmailCampaignSchema).createForeignKeyConstraint(false),
    variant: () => p.manyToOne(EmailVariantSchema).nullable().createForeignKeyConstraint(false),
    recipient: () => p.manyToOne(EmailRecipientSchema).createForeignKeyConstraint(false),
    kind: p.enum([...EVENT_KINDS]),
    linkIndex: p.smallint().nullable(),
    /** A privacy proxy or scanner fetching the pixel, not a person reading. */
    machine: p.boolean().default(false),
    at: p.datetime(),
  }),
});

/** Addresses never to mail again (hard bounces), whatever campaign or contact holds them. */
export const EmailSuppressionSchema = defineEntity({
  name: 'EmailSuppression',
  tableName: 'email_suppressions',
  indexes: [{ properties: ['createdAt'] }],
  properties: (p) => ({
    email: p.string().length(254).primary(),
    reason: p.string().length(20),
    campaignId: p.uuid().nullable(),
    detail: p.string().length(200).nullable(),
    ...createdAtStamp,
  }),
});
