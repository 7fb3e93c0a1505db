import type { Counters } from './whatsapp.schemas';

/** Staff working WhatsApp: campaigns' progress, every conversation. */
export const WHATSAPP_ROOM = 'whatsapp';

/** A message was created, in or out. No text for campaign messages (they are thousands). */
export interface MessageEvent {
  id: string;
  conversationId: string | null;
  contactId: string;
  direction: 'in' | 'out';
  kind: string;
  status: string;
  text: string | null;
  createdAt: string;
}

/** Status changes since the last push: per campaign its counters, and single conversation messages. */
export interface StatusEvent {
  campaigns: { campaignId: string; status: string; progress: Counters }[];
  messages: { id: string; conversationId: string | null; status: string }[];
}

export interface ConversationEvent {
  id: string;
  contactId: string;
  unreadCount: number;
  assignedToId: string | null;
  status: string;
  lastMessageAt: string;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'whatsapp:message': MessageEvent;
    /** Coalesced: at most one a second, each changed campaign once. */
    'whatsapp:status': StatusEvent;
    'whatsapp:conversation': ConversationEvent;
  }
}
