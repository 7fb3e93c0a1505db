import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, invalidField, NotFoundError } from '../../kernel/errors';
import { safeErrorFields } from '../../kernel/http/problem';
import type { PageRequest } from '../../kernel/pagination';
import { ROLES } from '../../kernel/auth/roles';
import { findUser, userNames, userPage } from '../auth';
import * as repository from './whatsapp.conversations.repository';
import { findTemplate } from './whatsapp.templates.repository';
import type { ConversationStatus } from './whatsapp.entities';
import { mayBeAssignedConversations } from './whatsapp.policy';
import { whatsapp } from './whatsapp.context';
import { WHATSAPP_INBOX_ROOM, WHATSAPP_ROOM, type ConversationChange, type MessageEvent } from './whatsapp.events';
import { requestDispatch } from './whatsapp.jobs';
import { presentMessage, type ConversationOut, type MessageOut } from './whatsapp.presenter';
import type { ReplyInput } from './whatsapp.schemas';
import type { Queries } from '../../kernel/sql';
import { mapPage } from '../../kernel/pagination';

const WINDOW_MS = 24 * 3600 * 1000;

interface ListQuery extends PageRequest {
  status?: ConversationStatus | undefined;
  unread?: boolean | undefined;
  /** `me`, `none` or a user id. */
  assignee?: string | undefined;
  q?: string | undefined;
}

function templateBodies(q: Queries, messages: repository.MessageRecord[]): Promise<Map<string, string>> {
  const ids = [...new Set(messages.map((message) => message.templateId).filter((id): id is string => Boolean(id)))];
  return repository.templateBodies(q, ids);
}

/** A message as staff see it, its template's text looked up. */
async function presentOne(q: Queries, message: repository.MessageRecord): Promise<MessageOut> {
  return presentMessage(message, message.templateId ? (await templateBodies(q, [message])).get(message.templateId) : undefined);
}

async function presentConversations(q: Queries, conversations: repository.ConversationRecord[]): Promise<ConversationOut[]> {
  const lastIds = conversations.map((conversation) => conversation.lastMessageId).filter((id): id is string => Boolean(id));
  const assigneeIds = conversations.map((conversation) => conversation.assignedToId).filter((id): id is string => Boolean(id));
  const [messages, names] = await Promise.all([repository.messagesById(q, lastIds), userNames(q, assigneeIds)]);
  const bodies = await templateBodies(q, messages);
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
      assignedToId: conversation.assignedToId,
      assignee: conversation.assignedToId ? { id: conversation.assignedToId, name: names.get(conversation.assignedToId) ?? '' } : null,
      unreadCount: conversation.unreadCount,
      lastMessage: last ? presentMessage(last, last.templateId ? bodies.get(last.templateId) : undefined) : null,
      lastMessageAt: new Date(conversation.lastMessageAt).toISOString(),
      windowOpen: expires !== null && expires > now,
      windowExpiresAt: expires !== null ? new Date(expires).toISOString() : null,
    };
  });
}

/** `assignee`: `me` is the caller, `none` the unassigned conversations, else a user id. */
export async function listConversations(deps: Pick<AppDeps, 'db'>, actor: Actor, query: ListQuery) {
  const { cursor, limit, status, unread, assignee, q } = query;
  const assignedToId = assignee === undefined ? undefined : assignee === 'me' ? actor.id : assignee === 'none' ? null : assignee;
  const page = await repository.conversationPage(deps.db, { status, unread, assignedToId, search: q }, { cursor, limit });
  return { data: await presentConversations(deps.db, page.data), nextCursor: page.nextCursor };
}

/** Who a conversation may be handed to: active staff whose role may converse, by name. */
export async function listAssignees(q: Queries, query: PageRequest & { q?: string | undefined }) {
  const page = await userPage(q, { roles: ROLES.filter(mayBeAssignedConversations), active: true, q: query.q }, query);
  return mapPage(page, (user) => ({ id: user.id, name: user.name, role: user.role }));
}

/** Unread across open conversations: the inbox badge (`whatsapp:unread` pushes the same). */
export function unreadTotals(deps: Pick<AppDeps, 'db'>) {
  return repository.unreadTotals(deps.db);
}

async function findConversation(q: Queries, id: string): Promise<repository.ConversationRecord> {
  const conversation = await repository.findConversation(q, id);
  if (!conversation) throw new NotFoundError('No conversation has this id.');
  return conversation;
}

export async function getConversation(deps: Pick<AppDeps, 'db'>, id: string): Promise<ConversationOut> {
  return (await presentConversations(deps.db, [await findConversation(deps.db, id)]))[0]!;
}

/** The contact's whole thread (campaign messages included), newest first. */
export async function listMessages(deps: Pick<AppDeps, 'db'>, id: string, page: PageRequest) {
  const conversation = await findConversation(deps.db, id);
  const result = await repository.messagePage(deps.db, conversation.contact.id, page);
  const bodies = await templateBodies(deps.db, result.data);
  return mapPage(result, (message) => presentMessage(message, message.templateId ? bodies.get(message.templateId) : undefined));
}

/** Recent conversation messages without a word of them: what the war room shows of WhatsApp on opening, before `whatsapp:activity` keeps it live. */
export function listActivity(deps: Pick<AppDeps, 'db'>, query: PageRequest & { direction?: 'in' | 'out' | undefined }) {
  return repository.activityPage(deps.db, query.direction, { cursor: query.cursor, limit: query.limit }, (message) => ({
    id: message.id,
    direction: message.direction,
    kind: message.kind,
    createdAt: message.createdAt.toISOString(),
  }));
}

/**
 * A new conversation message, told live: in full (text, conversation row) to the inbox room, and
 * as a text-free note to the figures room. `view` is the message as the caller answers it (a
 * reply as queued); without it the committed message is read.
 */
export async function publishNewMessage(deps: AppDeps, conversationId: string, messageId: string, view?: MessageOut): Promise<void> {
  let message = view;
  if (!message) {
    const [stored] = await repository.messagesById(deps.db, [messageId]);
    if (!stored) return;
    message = await presentOne(deps.db, stored);
  }
  const conversation = await repository.findConversation(deps.db, conversationId);
  if (!conversation) return;
  const event: MessageEvent = { message, conversation: (await presentConversations(deps.db, [conversation]))[0]! };
  deps.realtime.publish(WHATSAPP_INBOX_ROOM, 'whatsapp:message', event);
  deps.realtime.publish(WHATSAPP_ROOM, 'whatsapp:activity', { id: message.id, direction: message.direction, kind: message.kind, createdAt: message.createdAt });
}

/** A conversation changed without a new message: its row as the list shows it, to the inbox room. */
async function publishChange(deps: AppDeps, actor: Actor, id: string, changes: ConversationChange[]): Promise<ConversationOut> {
  const conversation = await getConversation(deps, id);
  if (changes.length) {
    deps.realtime.publish(WHATSAPP_INBOX_ROOM, 'whatsapp:conversation', { conversation, changes, actorId: actor.id });
    if (changes.includes('unreadCount') || changes.includes('status')) whatsapp(deps).unreadChanged();
  }
  return conversation;
}

/**
 * A staff reply. Free text only inside the 24-hour window opened by the contact's last message;
 * outside it an approved template. Nothing to a contact who opted out. The message is queued
 * ahead of campaign messages and sent by the workers.
 */
export async function reply(deps: AppDeps, actor: Actor, id: string, input: ReplyInput) {
  const conversation = await findConversation(deps.db, id);
  const contact = conversation.contact;
  if (contact.whatsappOptedOutAt) throw new ConflictError('This contact opted out of WhatsApp messages.', 'opted_out');
  if (!contact.phone) throw new ConflictError('This contact has no phone number.', 'no_phone');
  const windowOpen = conversation.lastInboundAt !== null && conversation.lastInboundAt.getTime() + WINDOW_MS > Date.now();
  const now = new Date();
  let content: repository.NewReply['content'];
  if ('text' in input) {
    if (!windowOpen) throw new ConflictError('The 24-hour window is closed: the contact has not written in the last 24 hours. Send an approved template instead.', 'window_closed');
    content = { kind: 'text', body: input.text, templateId: null, params: null };
  } else {
    const template = await findTemplate(deps.db, input.templateId);
    if (!template) throw invalidField('body.templateId', 'No template has this id.', 'unknown_template');
    if (template.status !== 'APPROVED') throw new ConflictError(`The template is ${template.status}; only approved templates can be sent.`, 'template_not_approved');
    if (input.variables.length !== template.placeholders)
      throw invalidField('body.variables', `The template has ${template.placeholders} placeholder(s); give exactly one variable for each.`);
    if (!contact.whatsappOptIn && !windowOpen) throw new ConflictError('This contact has not opted in to WhatsApp messages.', 'no_consent');
    content = { kind: 'template', body: null, templateId: template.id, params: input.variables };
  }
  const phone = contact.phone;
  const message = await deps.db.transaction((tx) =>
    repository.queueReply(tx, { conversationId: conversation.id, contactId: contact.id, phone, sentById: actor.id, at: now, content }),
  );
  await requestDispatch(deps, 'reply');
  const view = await presentOne(deps.db, message);
  // Queued already: a failure to tell the inbox must not turn the answer into an error (and a resend).
  await publishNewMessage(deps, conversation.id, message.id, view).catch((error: unknown) =>
    deps.logger.warn({ messageId: message.id, ...safeErrorFields(error) }, 'whatsapp reply queued but not pushed'),
  );
  return view;
}

/** Read: the unread count goes to 0 (what Chatwoot does when an agent opens the conversation). */
export async function markRead(deps: AppDeps, actor: Actor, id: string) {
  const conversation = await findConversation(deps.db, id);
  const changed = conversation.unreadCount !== 0;
  await repository.saveConversation(deps.db, id, { unreadCount: 0 });
  return publishChange(deps, actor, id, changed ? ['unreadCount'] : []);
}

/**
 * Marked unread again (Chatwoot's "mark as unread"): the conversation counts its last message
 * from the person as unread, so it shows in `unread=true` and in the badge until read.
 */
export async function markUnread(deps: AppDeps, actor: Actor, id: string) {
  const conversation = await findConversation(deps.db, id);
  if (conversation.unreadCount > 0) return publishChange(deps, actor, id, []);
  if (!conversation.lastInboundAt) throw new ConflictError('The contact has not written in this conversation: there is nothing to mark unread.', 'nothing_inbound');
  await repository.saveConversation(deps.db, id, { unreadCount: 1 });
  return publishChange(deps, actor, id, ['unreadCount']);
}

/**
 * Assign to someone who may hold conversations (the `converse` roles), or unassign with null;
 * open or close (a new message from the person opens it again).
 */
export async function updateConversation(deps: AppDeps, actor: Actor, id: string, input: { assignedToId?: string | null | undefined; status?: ConversationStatus | undefined }) {
  const conversation = await findConversation(deps.db, id);
  if (input.assignedToId) {
    const user = await findUser(deps.db, input.assignedToId);
    if (!user) throw invalidField('body.assignedToId', 'No user has this id.', 'unknown_user');
    if (!user.active || !mayBeAssignedConversations(user.role))
      throw invalidField('body.assignedToId', 'Assign to an active user who may hold conversations (a manager or an admin).', 'assignee_cannot_converse');
  }
  const changes: ConversationChange[] = [];
  if (input.assignedToId !== undefined && input.assignedToId !== conversation.assignedToId) changes.push('assignee');
  if (input.status !== undefined && input.status !== conversation.status) changes.push('status');
  await repository.saveConversation(deps.db, id, {
    ...(input.assignedToId !== undefined ? { assignedToId: input.assignedToId } : {}),
    ...(input.status ? { status: input.status } : {}),
  });
  return publishChange(deps, actor, id, changes);
}
