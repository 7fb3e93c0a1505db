import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { sql, type Queries } from '../../kernel/sql';
import { UserSchema } from '../auth';
import { WaConversationSchema, WaMessageSchema, WaTemplateSchema, STATUS_RANK, type ConversationStatus, type WaConversation, type WaMessage } from './whatsapp.entities';

// Conversations and their messages, as entities of the request's unit of work: a reply is a new
// message and a conversation change in one flush.

export interface ConversationFilter {
  status?: ConversationStatus | undefined;
  unread?: boolean | undefined;
  /** A user id, or null for unassigned conversations. */
  assignedToId?: string | null | undefined;
  /** In the contact's name or phone. */
  search?: string | undefined;
}

/** Fewer digits than this in a search are not looked for in phones (`57` would match everyone). */
const PHONE_SEARCH_MIN_DIGITS = 3;

/**
 * The digits of a phone typed in any format (`300 123 4567`, `+57 (300) 123-4567`, `0057…`), to
 * find inside the stored E.164 number; undefined when too few to mean a phone.
 */
export function phoneDigits(search: string): string | undefined {
  const digits = search.replace(/\D/g, '').replace(/^00/, '');
  return digits.length >= PHONE_SEARCH_MIN_DIGITS ? digits : undefined;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The contact and the staff member holding the conversation, loaded with it. */
const POPULATE = ['contact', 'assignedTo'] as const;

/** Conversations by their latest message, each with its contact and assignee loaded. */
export function conversationPage(em: EntityManager, filter: ConversationFilter, page: PageRequest): Promise<Page<WaConversation>> {
  const where: FilterQuery<WaConversation> = {};
  if (filter.status) where.status = filter.status;
  if (filter.unread !== undefined) where.unreadCount = filter.unread ? { $gt: 0 } : 0;
  if (filter.assignedToId !== undefined) where.assignedTo = filter.assignedToId;
  if (filter.search) {
    const digits = phoneDigits(filter.search);
    const name = { name: { $ilike: `%${escapeLike(filter.search)}%` } };
    where.contact = digits ? { $or: [name, { phone: { $like: `%${digits}%` } }] } : name;
  }
  return findPage(em, WaConversationSchema, where, page, { lastMessageAt: 'desc', id: 'desc' }, (row: WaConversation) => row, { populate: POPULATE });
}

export function findConversation(em: EntityManager, id: string): Promise<WaConversation | null> {
  return em.findOne(WaConversationSchema, { id }, { populate: POPULATE, refresh: true });
}

export interface UnreadTotals {
  conversations: number;
  messages: number;
}

/** Unread across open conversations (the inbox badge), from the partial index on them. */
export async function unreadTotals(q: Queries): Promise<UnreadTotals> {
  const row = await q.first(
    sql<UnreadTotals>`select count(*)::int as conversations, coalesce(sum(unread_count), 0)::int as messages
      from wa_conversations where status = 'open' and unread_count > 0`.prepared('wa_unread_totals'),
  );
  return row ?? { conversations: 0, messages: 0 };
}

/** Conversation messages of everyone, newest first (`direction` narrows), as the text-free activity list presents them. */
export function activityPage<Out>(em: EntityManager, direction: 'in' | 'out' | undefined, page: PageRequest, present: (message: WaMessage) => Out): Promise<Page<Out>> {
  return findPage(em, WaMessageSchema, { conversation: { $ne: null }, ...(direction ? { direction } : {}) }, page, { id: 'desc' }, present);
}

/** A contact's whole thread (campaign messages included), newest first. */
export function messagePage(em: EntityManager, contactId: string, page: PageRequest): Promise<Page<WaMessage>> {
  return findPage(em, WaMessageSchema, { contact: contactId }, page, { id: 'desc' }, (row: WaMessage) => row);
}

export async function messagesById(em: EntityManager, ids: readonly string[]): Promise<WaMessage[]> {
  return ids.length ? em.find(WaMessageSchema, { id: { $in: [...ids] } }) : [];
}

/** The bodies of these templates, by id. */
export async function templateBodies(em: EntityManager, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await em.find(WaTemplateSchema, { id: { $in: [...ids] } }, { fields: ['id', 'body'] });
  return new Map(rows.map((row) => [row.id, row.body]));
}

export interface NewReply {
  conversation: WaConversation;
  sentById: string;
  at: Date;
  content: Pick<WaMessage, 'kind' | 'body' | 'template' | 'params'>;
}

/**
 * A staff reply, queued ahead of campaign messages (the workers send it), and the conversation's
 * latest message, in one flush.
 */
export async function queueReply(em: EntityManager, reply: NewReply): Promise<WaMessage> {
  const { conversation, at } = reply;
  const message = em.create(WaMessageSchema, {
    ...reply.content,
    conversation,
    contact: conversation.contact,
    phone: conversation.contact.phone!,
    direction: 'out' as const,
    status: 'queued',
    statusRank: STATUS_RANK.queued,
    priority: 0,
    attempts: 0,
    nextAttemptAt: at,
    sentBy: em.getReference(UserSchema, reply.sentById),
    createdAt: at,
  });
  conversation.lastMessageAt = at;
  conversation.lastMessageId = message.id;
  await em.flush();
  return message;
}

export interface ConversationChanges {
  unreadCount?: number;
  /** null: unassigned. */
  assignedToId?: string | null;
  status?: ConversationStatus;
}

/** Applies changes to a loaded conversation and writes them. */
export async function saveConversation(em: EntityManager, conversation: WaConversation, changes: ConversationChanges): Promise<void> {
  if (changes.unreadCount !== undefined) conversation.unreadCount = changes.unreadCount;
  if (changes.assignedToId !== undefined) conversation.assignedTo = changes.assignedToId === null ? null : em.getReference(UserSchema, changes.assignedToId);
  if (changes.status) conversation.status = changes.status;
  await em.flush();
}
