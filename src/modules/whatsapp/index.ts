import type { ModuleManifest } from '../../kernel/module';
import { whatsappBackground } from './whatsapp.background';
import { whatsappEntities } from './whatsapp.entities';
import { WHATSAPP_INBOX_ROOM, WHATSAPP_ROOM } from './whatsapp.events';
import { whatsappPolicy } from './whatsapp.policy';
import { dispatchJob } from './whatsapp.jobs';
import { whatsappRouter } from './whatsapp.routes';
import { whatsappPersonalData } from './whatsapp.personal-data';
import { whatsappTimeline } from './whatsapp.timeline';

/**
 * WhatsApp: templates, segmented campaigns sent at the provider's pace, delivery and read
 * tracking from webhooks, and two-way conversations. See docs/whatsapp.md.
 */
export const whatsappModule: ModuleManifest = {
  name: 'whatsapp',
  entities: whatsappEntities,
  routers: [whatsappRouter],
  personalData: whatsappPersonalData,
  personTimeline: whatsappTimeline,
  jobs: [dispatchJob],
  rooms: () => [
    {
      pattern: new RegExp(`^${WHATSAPP_ROOM}$`),
      roles: whatsappPolicy.roles('follow'),
      description: 'WhatsApp figures: campaigns progress, text-free message activity, unread badge',
    },
    {
      pattern: new RegExp(`^${WHATSAPP_INBOX_ROOM}$`),
      roles: whatsappPolicy.roles('converse'),
      description: 'The WhatsApp inbox: messages with their texts, conversation changes, ticks',
    },
  ],
  onWorkersStarted: async (deps) => whatsappBackground(deps),
};

export { handleWebhookPayload, signatureValid } from './whatsapp.webhook';
export { inboundMessagesBetween } from './whatsapp.repository';
export { conversationForExport, type ConversationForExport } from './whatsapp.conversation-export';
export { queueWhatsAppNotice, dispatchWhatsAppNotices, whatsAppDeliveries, type WhatsAppNoticeResult, type WhatsAppNoticeRefusal, type MessageDelivery } from './whatsapp.notices';
export { inboundMessagesByDay, whatsAppReachBetween, type WhatsAppReach } from './whatsapp.figures.repository';
