import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow, type CamelCased } from '../../kernel/rows';
import { builderFragment, prepared, tables, type Queries } from '../../kernel/sql';
import { audienceContacts, type ContactSchema } from '../audience';
import { STATUS_RANK, type ConversationStatus, type MessageKind, type WaConversationSchema, type WaMessageSchema, type WaTemplateSchema } from './whatsapp.entities';

// Conversations and their messages. A conversation is read with its contact, which the audience
// module owns: joined through its view of contacts.

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

/** A conversation's columns as the inbox reads them. */
const conversationColumns = ['id', 'status', 'unread_count', 'assigned_to_id', 'last_inbound_at', 'last_message_at', 'last_message_id'] as const;
type ConversationRow = Pick<Selectable<ConversationTables['wa_conversations']>, (typeof conversationColumns)[number]>;

/** What the inbox shows of a contact (the audience module's), read through its view of contacts. */
type ContactRow = Pick<Selectable<InferKyselyDB<typeof ContactSchema>['contacts']>, 'id' | 'name' | 'phone' | 'neighbourhood' | 'whatsapp_opt_in' | 'whatsapp_opted_out_at'>;

/** A conversation with what the inbox shows of its contact. */
export type ConversationRecord = CamelCased<ConversationRow> & { contact: CamelCased<ContactRow> };

/** Conversations joined with their contacts (a conversation goes with its contact: cascade). */
function conversationsWithContacts() {
  return db
    .selectFrom('wa_conversations as w')
    .innerJoin(builderFragment<ContactRow>(audienceContacts()).as('c'), 'c.id', 'w.contact_id')
    .select([
      ...conversationColumns.map((column) => `w.${column}` as const),
      'c.id as contact_id',
      'c.name',
      'c.phone',
      'c.neighbourhood',
      'c.whatsapp_opt_in',
      'c.whatsapp_opted_out_at',
    ]);
}

function conversationOf(row: ConversationRow & Omit<ContactRow, 'id'> & { contact_id: string }): ConversationRecord {
  const { contact_id: id, name, phone, neighbourhood, whatsapp_opt_in, whatsapp_opted_out_at, ...conversation } = row;
  return { ...camelRow(conversation), contact: camelRow({ id, name, phone, neighbourhood, whatsapp_opt_in, whatsapp_opted_out_at }) };
}

/** Conversations by their latest message, each with its contact (the search reads the contact's name and phone). */
export async function conversationPage(q: Queries, filter: ConversationFilter, page: PageRequest): Promise<Page<ConversationRecord>> {
  let query = conversationsWithContacts();
  if (filter.status) query = query.where('w.status', '=', filter.status);
  if (filter.unread !== undefined) query = query.where('w.unread_count', filter.unread ? '>' : '=', 0);
  if (filter.assignedToId !== undefined) query = query.where('w.assigned_to_id', filter.assignedToId === null ? 'is' : '=', filter.assignedToId);
  if (filter.search) {
    const digits = phoneDigits(filter.search);
    const name = `%${escapeLike(filter.search)}%`;
    query = query.where((eb) => (digits ? eb.or([eb('c.name', 'ilike', name), eb('c.phone', 'like', `%${digits}%`)]) : eb('c.name', 'ilike', name)));
  }
  const found = await queryPage(q, query, ['w.last_message_at', 'w.id'], 'desc', page);
  return mapPage(found, conversationOf);
}

/** One conversation with its contact. */
export async function findConversation(q: Queries, id: string): Promise<ConversationRecord | undefined> {
  const row = await q.first(conversationsWithContacts().where('w.id', '=', id));
  return row && conversationOf(row);
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
  'conversation_id',
  'campaign_id',
  'direction',
  'kind',
  'body',
  'template_id',
  'params',
  'status',
  'provider',
  'error_code',
  'error_title',
  'sent_by_id',
  'created_at',
  'accepted_at',
  'sent_at',
  'delivered_at',
  'read_at',
] as const;

const messageOf = (row: Pick<Selectable<ConversationTables['wa_messages']>, (typeof messageColumns)[number]>) => camelRow(row);
export type MessageRecord = ReturnType<typeof messageOf>;

export async function messagesById(q: Queries, ids: readonly string[]): Promise<MessageRecord[]> {
  return ids.length ? (await q.rows(db.selectFrom('wa_messages').select(messageColumns).where('id', 'in', ids))).map(messageOf) : [];
}

/** Conversation messages of everyone, newest first (`direction` narrows), as the text-free activity list presents them. */
export async function activityPage<Out>(q: Queries, direction: 'in' | 'out' | undefined, page: PageRequest, present: (message: MessageRecord) => Out): Promise<Page<Out>> {
  let query = db.selectFrom('wa_messages').select(messageColumns).where('conversation_id', 'is not', null);
  if (direction) query = query.where('direction', '=', direction);
  const found = await queryPage(q, query, ['id'], 'desc', page);
  return mapPage(found, (row) => present(messageOf(row)));
}

/** A contact's whole thread (campaign messages included), newest first. */
export async function messagePage(q: Queries, contactId: string, page: PageRequest): Promise<Page<MessageRecord>> {
  const found = await queryPage(q, db.selectFrom('wa_messages').select(messageColumns).where('contact_id', '=', contactId), ['id'], 'desc', page);
  return mapPage(found, messageOf);
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
        params: content.params === null ? null : jsonText(content.params),
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
  const message = messageOf(rows[0]!);
  await tx.write(db.updateTable('wa_conversations').set({ last_message_at: at, last_message_id: message.id }).where('id', '=', reply.conversationId));
  return message;
}

/** The fields a change may set (those left undefined stay as they are); `assignedToId` null unassigns. */
export type ConversationChanges = Partial<Pick<ConversationRecord, 'unreadCount' | 'assignedToId' | 'status'>>;

export async function saveConversation(q: Queries, id: string, changes: ConversationChanges): Promise<void> {
  const set = snakeRow(changes);
  // The builder leaves out the columns whose value is undefined; with none left there is nothing to write.
  if (Object.values(set).some((value) => value !== undefined)) await q.write(db.updateTable('wa_conversations').set(set).where('id', '=', id));
}
