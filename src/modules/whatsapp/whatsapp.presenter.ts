import type { z } from 'zod';
import type { campaignView } from './whatsapp.campaigns.schemas';
import type { Counters, conversationView, messageView, quickReplyView, templateView } from './whatsapp.schemas';
import type { CampaignRecord } from './whatsapp.campaigns.repository';
import type { QuickReplyRecord } from './whatsapp.quick-replies.repository';
import type { MessageRecord } from './whatsapp.conversations.repository';
import type { VariableSource } from './whatsapp.entities';
import type { TemplateRecord } from './whatsapp.templates.repository';
import { renderQuickReply, variablesOf, type QuickReplyValues } from './whatsapp.quick-replies.render';
import { renderTemplate } from './providers/provider';

const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : null);

export function presentTemplate(template: TemplateRecord): z.input<typeof templateView> {
  return {
    id: template.id,
    name: template.name,
    language: template.language,
    category: template.category,
    body: template.body,
    header: template.header ?? null,
    footer: template.footer ?? null,
    buttons: template.buttons.map((button) => ({
      type: button.type,
      text: button.text,
      ...(button.url ? { url: button.url } : {}),
      ...(button.phoneNumber ? { phoneNumber: button.phoneNumber } : {}),
    })),
    examples: template.examples,
    placeholders: template.placeholders,
    status: template.status,
    rejectionReason: template.rejectionReason ?? null,
    createdAt: iso(template.createdAt)!,
    updatedAt: iso(template.updatedAt)!,
  };
}

export function presentVariable(source: VariableSource): string | { literal: string } {
  return 'field' in source ? `contact.${source.field}` : { literal: source.literal };
}

export function presentCampaign(campaign: CampaignRecord, progress: Counters): z.input<typeof campaignView> {
  return {
    id: campaign.id,
    name: campaign.name,
    templateId: campaign.templateId,
    variables: campaign.variables.map(presentVariable),
    segment: campaign.segment as Record<string, unknown>,
    status: campaign.status,
    scheduledAt: iso(campaign.scheduledAt),
    audienceSize: campaign.audienceSize,
    queued: campaign.queuedCount,
    notice: campaign.notice ?? null,
    progress,
    createdAt: iso(campaign.createdAt)!,
    startedAt: iso(campaign.startedAt),
    completedAt: iso(campaign.completedAt),
  };
}

/** Failed, skipped and in-doubt messages say why; so does a message still being retried. */
function hasError(message: MessageRecord): boolean {
  return (message.errorCode !== null && message.errorCode !== undefined) || ['failed', 'skipped', 'in_doubt'].includes(message.status);
}

/** A message as staff see it; template messages show their rendered text. */
export function presentMessage(message: MessageRecord, templateBody?: string): MessageOut {
  const text = message.body ?? (templateBody !== undefined ? renderTemplate(templateBody, message.params ?? []) : null);
  return {
    id: message.id,
    conversationId: message.conversationId,
    campaignId: message.campaignId,
    direction: message.direction,
    kind: message.kind,
    text,
    templateId: message.templateId,
    status: message.status,
    simulated: message.provider === 'simulator',
    error: hasError(message) ? { code: message.errorCode ?? null, title: message.errorTitle ?? null } : null,
    sentById: message.sentById,
    createdAt: iso(message.createdAt)!,
    sentAt: iso(message.sentAt ?? message.acceptedAt),
    deliveredAt: iso(message.deliveredAt),
    readAt: iso(message.readAt),
  };
}

export type MessageOut = z.input<typeof messageView>;
export type ConversationOut = z.input<typeof conversationView>;

/** A quick reply; with values (a conversation's), also its text as that person would get it. */
export function presentQuickReply(reply: QuickReplyRecord, values?: QuickReplyValues): z.input<typeof quickReplyView> {
  return {
    id: reply.id,
    shortcut: reply.shortcut,
    title: reply.title,
    text: reply.text,
    variables: variablesOf(reply.text),
    rendered: values ? renderQuickReply(reply.text, values) : null,
    createdById: reply.createdById,
    updatedById: reply.updatedById,
    createdAt: iso(reply.createdAt)!,
    updatedAt: iso(reply.updatedAt)!,
  };
}
