import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, invalidField, NotFoundError } from '../../kernel/errors';
import type { PageRequest } from '../../kernel/pagination';
import { findUser } from '../auth';
import * as repository from './whatsapp.conversations.repository';
import { findTemplate } from './whatsapp.templates.repository';
import type { ConversationStatus, WaConversation, WaMessage } from './whatsapp.entities';
import { mayBeAssignedConversations } from './whatsapp.policy';
import { WHATSAPP_ROOM, type ConversationEvent } from './whatsapp.events';
import { requestDispatch } from './whatsapp.jobs';
import { presentMessage, type ConversationOut } from './whatsapp.presenter';
import type { ReplyInput } from './whatsapp.schemas';

const WINDOW_MS = 24 * 3600 * 1000;

interface ListQuery extends PageRequest {
  status?: ConversationStatus | undefined;
  unread?: boolean | undefined;
  assignedToId?: string | undefined;
  q?: string | undefined;
}

function templateBodies(em: EntityManager, messages: WaMessage[]): Promise<Map<string, string>> {
  const ids = [...new Set(messages.map((message) => (message.template ? message.template.id : null)).filter((id): id is string => Boolean(id)))];
  return repository.templateBodies(em, ids);
}

async function presentConversations(em: EntityManager, conversations: WaConversation[]): Promise<ConversationOut[]> {
  const lastIds = conversations.map((conversation) => conversation.lastMessageId).filter((id): id is string => Boolean(id));
  const messages = await repository.messagesById(em, lastIds);
  const bodies = await templateBodies(em, messages);
  const byId = new Map(messages.map((message) => [message.id, message]));
  const now = Date.now();
  return conversations.map((conversation) => {
    const last = conversation.lastMessageId ? byId.get(conversation.lastMessageId) : undefined;
    const expires = conversation.lastInboundAt ? new Date(conversation.lastInboundAt).getTime() + WINDOW_MS : null;
    const contact = conversation.contact;
    return {
      id: conversation.id,
      contact: { id: contact.id, name: contact.name, phone: contact.phone ?? null, optedOut: Boolean(contact.whatsappOptedOutAt) },
      status: conversation.status,
      assignedToId: conversation.assignedTo?.id ?? null,
      unreadCount: conversation.unreadCount,
      lastMessage: last ? presentMessage(last, last.template ? bodies.get(last.template.id) : undefined) : null,
      lastMessageAt: new Date(conversation.lastMessageAt).toISOString(),
      windowOpen: expires !== null && expires > now,
      windowExpiresAt: expires !== null ? new Date(expires).toISOString() : null,
    };
  });
}

export async function listConversations(em: EntityManager, query: ListQuery) {
  const { cursor, limit, status, unread, assignedToId, q } = query;
  const page = await repository.conversationPage(em, { status, unread, assignedToId, search: q }, { cursor, limit });
  return { data: await presentConversations(em, page.data), nextCursor: page.nextCursor };
}

async function findConversation(em: EntityManager, id: string): Promise<WaConversation> {
  const conversation = await repository.findConversation(em, id);
  if (!conversation) throw new NotFoundError('No conversation has this id.');
  return conversation;
}

export async function getConversation(em: EntityManager, id: string): Promise<ConversationOut> {
  return (await presentConversations(em, [await findConversation(em, id)]))[0]!;
}

/** The contact's whole thread (campaign messages included), newest first. */
export async function listMessages(em: EntityManager, id: string, page: PageRequest) {
  const conversation = await findConversation(em, id);
  const result = await repository.messagePage(em, conversation.contact.id, page);
  const bodies = await templateBodies(em, result.data);
  return { data: result.data.map((message) => presentMessage(message, message.template ? bodies.get(message.template.id) : undefined)), nextCursor: result.nextCursor };
}

function conversationEvent(conversation: WaConversation): ConversationEvent {
  return {
    id: conversation.id,
    contactId: conversation.contact.id,
    unreadCount: conversation.unreadCount,
    assignedToId: conversation.assignedTo?.id ?? null,
    status: conversation.status,
    lastMessageAt: new Date(conversation.lastMessageAt).toISOString(),
  };
}

/**
 * A staff reply. Free text only inside the 24-hour window opened by the contact's last message;
 * outside it an approved template. Nothing to a contact who opted out. The message is queued
 * ahead of campaign messages and sent by the workers.
 */
export async function reply(em: EntityManager, deps: AppDeps, actor: Actor, id: string, input: ReplyInput) {
  const conversation = await findConversation(em, id);
  const contact = conversation.contact;
  if (contact.whatsappOptedOutAt) throw new ConflictError('This contact opted out of WhatsApp messages.', 'opted_out');
  if (!contact.phone) throw new ConflictError('This contact has no phone number.', 'no_phone');
  const windowOpen = conversation.lastInboundAt !== null && conversation.lastInboundAt !== undefined && new Date(conversation.lastInboundAt).getTime() + WINDOW_MS > Date.now();
  const now = new Date();
  let content: repository.NewReply['content'];
  if ('text' in input) {
    if (!windowOpen) throw new ConflictError('The 24-hour window is closed: the contact has not written in the last 24 hours. Send an approved template instead.', 'window_closed');
    content = { kind: 'text', body: input.text, template: null, params: null };
  } else {
    const template = await findTemplate(em, input.templateId);
    if (!template) throw invalidField('body.templateId', 'No template has this id.', 'unknown_template');
    if (template.status !== 'APPROVED') throw new ConflictError(`The template is ${template.status}; only approved templates can be sent.`, 'template_not_approved');
    if (input.variables.length !== template.placeholders)
      throw invalidField('body.variables', `The template has ${template.placeholders} placeholder(s); give exactly one variable for each.`);
    if (!contact.whatsappOptIn && !windowOpen) throw new ConflictError('This contact has not opted in to WhatsApp messages.', 'no_consent');
    content = { kind: 'template', body: null, template, params: input.variables };
  }
  const message = await repository.queueReply(em, { conversation, sentById: actor.id, at: now, content });
  await requestDispatch(deps, 'reply');
  const view = presentMessage(message, message.template ? (await templateBodies(em, [message])).get(message.template.id) : undefined);
  deps.realtime.publish(WHATSAPP_ROOM, 'whatsapp:message', {
    id: message.id,
    conversationId: conversation.id,
    contactId: contact.id,
    direction: 'out',
    kind: message.kind,
    status: message.status,
    text: view.text,
    createdAt: view.createdAt,
  });
  return view;
}

export async function markRead(em: EntityManager, deps: AppDeps, id: string) {
  const conversation = await findConversation(em, id);
  await repository.saveConversation(em, conversation, { unreadCount: 0 });
  deps.realtime.publish(WHATSAPP_ROOM, 'whatsapp:conversation', conversationEvent(conversation));
  return getConversation(em, id);
}

/** Assign to a staff member (manager or admin), or unassign with null; open or close. */
export async function updateConversation(
  em: EntityManager,
  deps: AppDeps,
  id: string,
  input: { assignedToId?: string | null | undefined; status?: ConversationStatus | undefined },
) {
  const conversation = await findConversation(em, id);
  if (input.assignedToId) {
    const user = await findUser(deps.db, input.assignedToId);
    if (!user || !user.active || !mayBeAssignedConversations(user.role)) throw invalidField('body.assignedToId', 'Assign to an active manager or admin.');
  }
  await repository.saveConversation(em, conversation, {
    ...(input.assignedToId !== undefined ? { assignedToId: input.assignedToId } : {}),
    ...(input.status ? { status: input.status } : {}),
  });
  deps.realtime.publish(WHATSAPP_ROOM, 'whatsapp:conversation', conversationEvent(conversation));
  return getConversation(em, id);
}
