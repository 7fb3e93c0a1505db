import type { ConversationOut, MessageOut } from './whatsapp.presenter';
import type { Counters } from './whatsapp.schemas';

/**
 * Staff following WhatsApp's figures (managers, viewers: the war room): campaigns' progress, a
 * text-free note of each conversation message, the unread badge. No person's words or number.
 */
export const WHATSAPP_ROOM = 'whatsapp';

/**
 * Staff who hold the conversations (the `converse` roles: the REST inbox's): every message with its
 * text, each conversation's changes, the ticks of their replies. Viewers cannot join it, so a
 * role the inbox's REST routes refuse never gets a person's words by socket either.
 */
export const WHATSAPP_INBOX_ROOM = 'whatsapp:inbox';

/**
 * A conversation message was created, in or out (`whatsapp:inbox` only): the message as
 * `GET .../:id/messages` shows it and its conversation as the inbox list shows it (unread count,
 * last message, window, assignee), so an open inbox updates its row and its thread without a reload.
 */
export interface MessageEvent {
  message: MessageOut;
  conversation: ConversationOut;
}

/** The same message for the figures room: that it happened, never what it says or who wrote it. */
export interface MessageActivityEvent {
  id: string;
  direction: 'in' | 'out';
  kind: string;
  createdAt: string;
}

/**
 * Status changes since the last push: per campaign its counters (room `whatsapp`), and single
 * conversation messages, the ticks (room `whatsapp:inbox`). Each room gets only its part.
 */
export interface StatusEvent {
  campaigns: { campaignId: string; status: string; progress: Counters }[];
  messages: { id: string; conversationId: string | null; status: string }[];
}

/** What a change without a new message touched. */
export const CONVERSATION_CHANGES = ['assignee', 'status', 'unreadCount'] as const;
export type ConversationChange = (typeof CONVERSATION_CHANGES)[number];

/** A conversation was assigned, closed or reopened, read or marked unread (`whatsapp:inbox` only). */
export interface ConversationEvent {
  conversation: ConversationOut;
  changes: ConversationChange[];
  /** Who made the change. */
  actorId: string;
}

/** Unread across open conversations (both rooms): the inbox badge. */
export interface UnreadEvent {
  /** Open conversations with at least one unread message. */
  conversations: number;
  /** Unread messages in them. */
  messages: number;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'whatsapp:message': MessageEvent;
    'whatsapp:activity': MessageActivityEvent;
    /** Coalesced: at most one a second, each changed campaign once. */
    'whatsapp:status': StatusEvent;
    'whatsapp:conversation': ConversationEvent;
    /** Coalesced: at most one a second, after anything that may change it. */
    'whatsapp:unread': UnreadEvent;
  }
}
