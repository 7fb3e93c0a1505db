import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Updateable } from 'kysely';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { prepared, sql, tables, type Queries } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import {
  WaConversationSchema,
  WaMessageSchema,
  STATUS_RANK,
  type ConversationStatus,
  type MessageKind,
  type WaConversation,
  type WaMessage,
  type WaTemplateSchema,
} from './whatsapp.entities';

// Conversations and their messages. A conversation is read with its contact, which the audience
// module owns: its view of contacts for one, the ORM's populated relation for a page.

type ConversationTables = InferKyselyDB<typeof WaConversationSchema | typeof WaMessageSchema | typeof WaTemplateSchema>;
const db = tables<ConversationTables>();

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

/** A conversation with what the inbox shows of its contact (the contact is the audience module's). */
export interface ConversationRecord {
  id: string;
  status: ConversationStatus;
  unreadCount: number;
  assignedToId: string | null;
  lastInboundAt: Date | null;
  lastMessageAt: Date;
  lastMessageId: string | null;
  contact: { id: string; name: string; phone: string | null; neighbourhood: string | null; whatsappOptIn: boolean; whatsappOptedOutAt: Date | null };
}

function conversationRecordOf(conversation: WaConversation): ConversationRecord {
  const contact = conversation.contact;
  return {
    id: conversation.id,
    status: conversation.status,
    unreadCount: conversation.unreadCount,
    assignedToId: conversation.assignedTo?.id ?? null,
    lastInboundAt: conversation.lastInboundAt ?? null,
    lastMessageAt: conversation.lastMessageAt,
    lastMessageId: conversation.lastMessageId ?? null,
    contact: {
      id: contact.id,
      name: contact.name,
      phone: contact.phone ?? null,
      neighbourhood: contact.neighbourhood ?? null,
      whatsappOptIn: contact.whatsappOptIn,
      whatsappOptedOutAt: contact.whatsappOptedOutAt ?? null,
    },
  };
}

/** Conversations by their latest message, each with its contact loaded (the search reads the contact's name and phone). */
export function conversationPage(em: EntityManager, filter: ConversationFilter, page: PageRequest): Promise<Page<ConversationRecord>> {
  const where: FilterQuery<WaConversation> = {};
  if (filter.status) where.status = filter.status;
  if (filter.unread !== undefined) where.unreadCount = filter.unread ? { $gt: 0 } : 0;
  if (filter.assignedToId !== undefined) where.assignedTo = filter.assignedToId;
  if (filter.search) {
    const digits = phoneDigits(filter.search);
    const name = { name: { $ilike: `%${escapeLike(filter.search)}%` } };
    where.contact = digits ? { $or: [name, { phone: { $like: `%${digits}%` } }] } : name;
  }
  return findPage(em, WaConversationSchema, where, page, { lastMessageAt: 'desc', id: 'desc' }, conversationRecordOf, { populate: ['contact'] });
}

/** One conversation with its contact, joined through the audience module's view of contacts. */
export async function findConversation(q: Queries, id: string): Promise<ConversationRecord | undefined> {
  const row = await q.first(
    sql<{
      id: string;
      status: ConversationStatus;
      unread_count: number;
      assigned_to_id: string | null;
      last_inbound_at: Date | null;
      last_message_at: Date;
      last_message_id: string | null;
      contact_id: string;
      name: string;
      phone: string | null;
      neighbourhood: string | null;
      whatsapp_opt_in: boolean;
      whatsapp_opted_out_at: Date | null;
    }>`
      select w.id, w.status, w.unread_count, w.assigned_to_id, w.last_inbound_at, w.last_message_at, w.last_message_id,
             c.id as contact_id, c.name, c.phone, c.neighbourhood, c.whatsapp_opt_in, c.whatsapp_opted_out_at
      from wa_conversations w join ${audienceContacts()} c on c.id = w.contact_id
      where w.id = ${id}::uuid`,
  );
  if (!row) return undefined;
  return {
    id: row.id,
    status: row.status,
    unreadCount: row.unread_count,
    assignedToId: row.assigned_to_id,
    lastInboundAt: row.last_inbound_at,
    lastMessageAt: row.last_message_at,
    lastMessageId: row.last_message_id,
    contact: {
      id: row.contact_id,
      name: row.name,
      phone: row.phone,
      neighbourhood: row.neighbourhood,
      whatsappOptIn: row.whatsapp_opt_in,
      whatsappOptedOutAt: row.whatsapp_opted_out_at,
    },
  };
}

/** Unread across open conversations (the inbox badge), from the partial index on them. */
export async function unreadTotals(q: Queries) {
  const totals = db
    .selectFrom('wa_conversations')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll(), 'integer').as('conversations'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('unread_count'), eb.lit(0)), 'integer').as('messages'),
    ])
    .where('status', '=', 'open')
    .where('unread_count', '>', 0);
  return (await q.first(prepared('wa_unread_totals', totals))) ?? { conversations: 0, messages: 0 };
}

/** A message's columns as staff see it. */
const messageColumns = [
  'id',
  'conversation_id as conversationId',
  'campaign_id as campaignId',
  'direction',
  'kind',
  'body',
  'template_id as templateId',
  'params',
  'status',
  'provider',
  'error_code as errorCode',
  'error_title as errorTitle',
  'sent_by_id as sentById',
  'created_at as createdAt',
  'accepted_at as acceptedAt',
  'sent_at as sentAt',
  'delivered_at as deliveredAt',
  'read_at as readAt',
] as const;

export async function messagesById(q: Queries, ids: readonly string[]) {
  return ids.length ? q.rows(db.selectFrom('wa_messages').select(messageColumns).where('id', 'in', ids)) : [];
}

export type MessageRecord = Awaited<ReturnType<typeof messagesById>>[number];

function messageRecordOf(message: WaMessage): MessageRecord {
  return {
    id: message.id,
    conversationId: message.conversation?.id ?? null,
    campaignId: message.campaign?.id ?? null,
    direction: message.direction,
    kind: message.kind,
    body: message.body ?? null,
    templateId: message.template?.id ?? null,
    params: message.params ?? null,
    status: message.status,
    provider: message.provider ?? null,
    errorCode: message.errorCode ?? null,
    errorTitle: message.errorTitle ?? null,
    sentById: message.sentBy?.id ?? null,
    createdAt: message.createdAt,
    acceptedAt: message.acceptedAt ?? null,
    sentAt: message.sentAt ?? null,
    deliveredAt: message.deliveredAt ?? null,
    readAt: message.readAt ?? null,
  };
}

/** Conversation messages of everyone, newest first (`direction` narrows), as the text-free activity list presents them. */
export function activityPage<Out>(em: EntityManager, direction: 'in' | 'out' | undefined, page: PageRequest, present: (message: MessageRecord) => Out): Promise<Page<Out>> {
  return findPage(em, WaMessageSchema, { conversation: { $ne: null }, ...(direction ? { direction } : {}) }, page, { id: 'desc' }, (message) => present(messageRecordOf(message)));
}

/** A contact's whole thread (campaign messages included), newest first. */
export function messagePage(em: EntityManager, contactId: string, page: PageRequest): Promise<Page<MessageRecord>> {
  return findPage(em, WaMessageSchema, { contact: contactId }, page, { id: 'desc' }, messageRecordOf);
}

/** The bodies of these templates, by id. */
export async function templateBodies(q: Queries, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await q.rows(db.selectFrom('wa_templates').select(['id', 'body']).where('id', 'in', ids));
  return new Map(rows.map((row) => [row.id, row.body]));
}

export interface NewReply {
  conversationId: string;
  contactId: string;
  phone: string;
  sentById: string;
  at: Date;
  content: { kind: MessageKind; body: string | null; templateId: string | null; params: string[] | null };
}

/**
 * A staff reply, queued ahead of campaign messages (the workers send it), and the conversation's
 * latest message: the caller's transaction holds both.
 */
export async function queueReply(tx: Queries, reply: NewReply): Promise<MessageRecord> {
  const { at, content } = reply;
  const { rows } = await tx.write(
    db
      .insertInto('wa_messages')
      .values({
        id: newId(),
        conversation_id: reply.conversationId,
        contact_id: reply.contactId,
        phone: reply.phone,
        direction: 'out',
        kind: content.kind,
        body: content.body,
        template_id: content.templateId,
        // Kysely's jsonb columns take the JSON text.
        params: content.params === null ? null : (JSON.stringify(content.params) as unknown as string[]),
        status: 'queued',
        status_rank: STATUS_RANK.queued,
        priority: 0,
        attempts: 0,
        next_attempt_at: at,
        sent_by_id: reply.sentById,
        created_at: at,
      })
      .returning(messageColumns),
  );
  const message = rows[0]!;
  await tx.write(db.updateTable('wa_conversations').set({ last_message_at: at, last_message_id: message.id }).where('id', '=', reply.conversationId));
  return message;
}

export interface ConversationChanges {
  unreadCount?: number;
  /** null: unassigned. */
  assignedToId?: string | null;
  status?: ConversationStatus;
}

export async function saveConversation(q: Queries, id: string, changes: ConversationChanges): Promise<void> {
  const set: Updateable<ConversationTables['wa_conversations']> = {};
  if (changes.unreadCount !== undefined) set.unread_count = changes.unreadCount;
  if (changes.assignedToId !== undefined) set.assigned_to_id = changes.assignedToId;
  if (changes.status) set.status = changes.status;
  if (Object.keys(set).length) await q.write(db.updateTable('wa_conversations').set(set).where('id', '=', id));
}
