import type { InferKyselyDB } from '@mikro-orm/sql';
import type { JsonValue, PersonalDataHolder } from '../../kernel/module';
import { newId } from '../../kernel/ids';
import { sql, tables, type Queries } from '../../kernel/sql';
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
 *
 * A merge gives the survivor the other record's conversation and messages. When both wrote to the
 * campaign (one conversation per contact), the two threads become the survivor's one: the other's
 * messages join it, unread counts add up, it is open when either was, and the other conversation
 * row goes (a PQRS request converted from it keeps that id as where it came from). A campaign
 * message both records were sent stays on the merged-away record: a campaign sends one message
 * per contact (its send list's key), and its figures count both sends; that message is erased
 * with the survivor.
 */
export const whatsappPersonalData: PersonalDataHolder = {
  // Messages with other people that write the person's number (a neighbour's message, a staff
  // reply, a PQRS answer sent as a template's value); the person's own are cleared by `erase`.
  freeText: [
    { table: 'wa_messages', column: 'body', kind: 'messageTexts', record: 'contact_id' },
    // A campaign's values are each recipient's own fields: only messages to one person (notices) are read.
    { table: 'wa_messages', column: 'params', kind: 'templateValues', record: 'contact_id', list: true, where: 'campaign_id is null' },
  ],
  /** Every number the person wrote from or was sent to: an older one (before a correction) is theirs too. */
  async keys(q, personId) {
    const rows = await q.rows(db.selectFrom('wa_messages').select('phone').distinct().where('contact_id', '=', personId).where('phone', 'is not', null));
    return { phones: rows.flatMap((row) => (row.phone ? [row.phone] : [])) };
  },

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

  async merge(q, fromId, intoId) {
    const from = await q.first(sql<{ id: string; row: { [column: string]: JsonValue } }>`
      select id, to_jsonb(c) as row from wa_conversations c where contact_id = ${fromId}::uuid for update`);
    const into = await q.first(sql<{ id: string; row: { [column: string]: JsonValue } }>`
      select id, to_jsonb(c) as row from wa_conversations c where contact_id = ${intoId}::uuid for update`);
    const undo: { [key: string]: JsonValue } = {};
    let conversations: string[] = [];
    if (from && into) {
      const rethreaded = await q.write(sql<{ id: string }>`update wa_messages set conversation_id = ${into.id}::uuid where conversation_id = ${from.id}::uuid returning id`);
      await q.write(sql`
        update wa_conversations s set unread_count = s.unread_count + f.unread_count,
          status = case when 'open' in (s.status, f.status) then 'open' else s.status end,
          assigned_to_id = coalesce(s.assigned_to_id, f.assigned_to_id),
          last_inbound_at = greatest(s.last_inbound_at, f.last_inbound_at),
          last_message_id = case when f.last_message_at > s.last_message_at then f.last_message_id else s.last_message_id end,
          last_message_at = greatest(s.last_message_at, f.last_message_at)
        from wa_conversations f where s.id = ${into.id}::uuid and f.id = ${from.id}::uuid`);
      await q.write(sql`delete from wa_conversations where id = ${from.id}::uuid`);
      const after = await q.first(sql<{ row: { [column: string]: JsonValue } }>`select to_jsonb(c) as row from wa_conversations c where id = ${into.id}::uuid`);
      undo.droppedConversation = from.row;
      undo.keptConversation = { before: into.row, after: after!.row };
      undo.rethreaded = rethreaded.rows.map((row) => row.id);
    } else if (from) {
      await q.write(sql`update wa_conversations set contact_id = ${intoId}::uuid where id = ${from.id}::uuid`);
      conversations = [from.id];
    }
    // One message per campaign and contact: a campaign that wrote to both keeps its message to the other record there.
    const moved = await q.write(sql<{ id: string }>`
      update wa_messages m set contact_id = ${intoId}::uuid where m.contact_id = ${fromId}::uuid
        and (m.campaign_id is null or not exists (select 1 from wa_messages s where s.campaign_id = m.campaign_id and s.contact_id = ${intoId}::uuid))
      returning m.id`);
    const left = await q.first(sql<{ n: number }>`select count(*)::int as n from wa_messages where contact_id = ${fromId}::uuid`);
    return {
      moved: { wa_conversations: conversations, wa_messages: moved.rows.map((row) => row.id) },
      combined: { conversationsCombined: from && into ? 1 : 0, campaignMessagesLeft: left?.n ?? 0 },
      undo,
    };
  },

  async unmerge(q, moves, fromId, intoId) {
    const messages = moves.moved.wa_messages ?? [];
    if (messages.length) await q.write(sql`update wa_messages set contact_id = ${fromId}::uuid where id = any(${messages}::uuid[]) and contact_id = ${intoId}::uuid`);
    const dropped = moves.undo?.droppedConversation as { id: string; unread_count: number } | undefined;
    if (dropped) {
      await q.write(sql`insert into wa_conversations select * from jsonb_populate_record(null::wa_conversations, ${JSON.stringify(dropped)}::jsonb)`);
      const rethreaded = (moves.undo?.rethreaded ?? []) as string[];
      await q.write(sql`update wa_messages set conversation_id = ${dropped.id}::uuid where id = any(${rethreaded}::uuid[])`);
      const kept = moves.undo?.keptConversation as { before: { id: string }; after: { [column: string]: JsonValue } } | undefined;
      if (kept) {
        // Untouched since the merge: back exactly as it was; else its times read again from its messages.
        const restored = await q.write(sql`
          update wa_conversations c set unread_count = b.unread_count, status = b.status, assigned_to_id = b.assigned_to_id,
            last_inbound_at = b.last_inbound_at, last_message_id = b.last_message_id, last_message_at = b.last_message_at
          from jsonb_populate_record(null::wa_conversations, ${JSON.stringify(kept.before)}::jsonb) b,
            jsonb_populate_record(null::wa_conversations, ${JSON.stringify(kept.after)}::jsonb) a
          where c.id = b.id and (c.unread_count, c.status, c.assigned_to_id, c.last_inbound_at, c.last_message_id, c.last_message_at)
            is not distinct from (a.unread_count, a.status, a.assigned_to_id, a.last_inbound_at, a.last_message_id, a.last_message_at)`);
        if (!restored.count) await settleConversation(q, kept.before.id, dropped.unread_count);
      }
    }
    const conversations = moves.moved.wa_conversations ?? [];
    if (conversations.length) {
      await q.write(sql`update wa_conversations set contact_id = ${fromId}::uuid where id = any(${conversations}::uuid[])`);
      // Messages the survivor exchanged in that thread since the merge are theirs: they get a conversation of their own.
      const since = await q.rows(sql<{ id: string }>`select id from wa_messages where conversation_id = any(${conversations}::uuid[]) and contact_id = ${intoId}::uuid`);
      if (since.length) {
        const own = await q.first(sql<{ id: string }>`
          insert into wa_conversations (id, contact_id, status, unread_count, last_message_at, created_at) values (${newId()}, ${intoId}::uuid, 'open', 0, now(), now())
          on conflict (contact_id) do update set contact_id = excluded.contact_id returning id`);
        await q.write(sql`update wa_messages set conversation_id = ${own!.id}::uuid where id = any(${since.map((row) => row.id)}::uuid[])`);
        await settleConversation(q, own!.id, 0);
        for (const id of conversations) await settleConversation(q, id, 0);
      }
    }
  },
};

/** A conversation's last message and inbound times read again from the messages it holds, after a split; `unread` fewer unread. */
async function settleConversation(q: Queries, conversationId: string, unread: number): Promise<void> {
  await q.write(sql`
    update wa_conversations c set unread_count = greatest(0, c.unread_count - ${unread}::int),
      last_message_id = coalesce(m.last_id, c.last_message_id), last_message_at = coalesce(m.last_at, c.last_message_at), last_inbound_at = m.last_inbound
    from (select (array_agg(id order by created_at desc, id desc))[1] as last_id, max(created_at) as last_at, max(created_at) filter (where direction = 'in') as last_inbound
          from wa_messages where conversation_id = ${conversationId}::uuid) m
    where c.id = ${conversationId}::uuid`);
}
