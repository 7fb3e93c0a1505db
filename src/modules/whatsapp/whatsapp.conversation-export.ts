import type { InferKyselyDB } from '@mikro-orm/sql';
import { tables, type Queries } from '../../kernel/sql';
import type { WaConversationSchema, WaMessageSchema } from './whatsapp.entities';

type ConversationTables = InferKyselyDB<typeof WaConversationSchema | typeof WaMessageSchema>;
const db = tables<ConversationTables>();

export interface ConversationForExport {
  id: string;
  contactId: string;
  /** The latest inbound text messages, oldest first. */
  inboundTexts: { id: string; body: string; at: Date }[];
}

/**
 * A conversation's contact and its most recent inbound texts (at most `limit`), for another module
 * that turns the conversation into a record of its own (a PQRS request); undefined when no
 * conversation has this id. Read-only.
 */
export async function conversationForExport(q: Queries, conversationId: string, limit = 20): Promise<ConversationForExport | undefined> {
  const conversation = await q.first(db.selectFrom('wa_conversations').select(['id', 'contact_id']).where('id', '=', conversationId));
  if (!conversation) return undefined;
  const messages = await q.rows(
    db
      .selectFrom('wa_messages')
      .select(['id', 'body', 'created_at'])
      .where('conversation_id', '=', conversationId)
      .where('direction', '=', 'in')
      .where('kind', '=', 'text')
      .where('body', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit),
  );
  return {
    id: conversation.id,
    contactId: conversation.contact_id,
    inboundTexts: messages.reverse().map((message) => ({ id: message.id, body: message.body ?? '', at: message.created_at })),
  };
}
