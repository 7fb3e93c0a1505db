import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonalDataHolder } from '../../kernel/module';
import { tables } from '../../kernel/sql';
import { STATUS_RANK, type WaCampaignSchema, type WaConversationSchema, type WaMessageSchema, type WaTemplateSchema } from './whatsapp.entities';

type WhatsAppTables = InferKyselyDB<typeof WaTemplateSchema | typeof WaCampaignSchema | typeof WaConversationSchema | typeof WaMessageSchema>;
const db = tables<WhatsAppTables>();

/**
 * A person's conversation and every message to or from them. Erasure keeps each message's row,
 * direction, kind, status and times (campaign counters, the dashboard and the messaging tier's
 * count of unique contacts read them) and drops what was personal: the phone it went to or came
 * from, the text, the template's values (which hold their name) and the provider's message id
 * (Meta's encodes the phone number). A message still waiting to go is skipped, since there is no
 * longer anyone to send it to.
 */
export const whatsappPersonalData: PersonalDataHolder = {
  async export(q, personId) {
    const conversation = await q.first(
      db.selectFrom('wa_conversations').select(['id', 'status', 'unread_count', 'last_inbound_at', 'last_message_at', 'created_at']).where('contact_id', '=', personId),
    );
    const messages = await q.rows(
      db
        .selectFrom('wa_messages as m')
        .leftJoin('wa_campaigns as k', 'k.id', 'm.campaign_id')
        .leftJoin('wa_templates as t', 't.id', 'm.template_id')
        .select([
          'm.id',
          'm.campaign_id',
          'k.name as campaign_name',
          'm.direction',
          'm.kind',
          'm.phone',
          'm.body',
          't.name as template_name',
          'm.params',
          'm.status',
          'm.created_at',
          'm.accepted_at',
          'm.sent_at',
          'm.delivered_at',
          'm.read_at',
          'm.failed_at',
          'm.replied_at',
          'm.error_code',
          'm.error_title',
        ])
        .where('m.contact_id', '=', personId)
        // Ids are time-ordered by this server's clock; an inbound message's time is the provider's.
        .orderBy('m.id'),
    );
    return {
      conversation: conversation
        ? {
            id: conversation.id,
            status: conversation.status,
            unreadCount: conversation.unread_count,
            lastInboundAt: conversation.last_inbound_at,
            lastMessageAt: conversation.last_message_at,
            createdAt: conversation.created_at,
          }
        : null,
      messages: messages.map((message) => ({
        id: message.id,
        campaignId: message.campaign_id,
        campaignName: message.campaign_name,
        direction: message.direction,
        kind: message.kind,
        phone: message.phone,
        text: message.body,
        templateName: message.template_name,
        templateValues: message.params,
        status: message.status,
        createdAt: message.created_at,
        acceptedAt: message.accepted_at,
        sentAt: message.sent_at,
        deliveredAt: message.delivered_at,
        readAt: message.read_at,
        failedAt: message.failed_at,
        repliedAt: message.replied_at,
        errorCode: message.error_code,
        errorTitle: message.error_title,
      })),
    };
  },

  async erase(q, personId) {
    const unsent = await q.write(
      db.updateTable('wa_messages').set({ status: 'skipped', status_rank: STATUS_RANK.skipped }).where('contact_id', '=', personId).where('status', '=', 'queued'),
    );
    // The column cannot be null: an empty phone is no one's.
    const messages = await q.write(db.updateTable('wa_messages').set({ phone: '', body: null, params: null, wamid: null }).where('contact_id', '=', personId));
    return { messages: messages.count, unsentSkipped: unsent.count };
  },
};
