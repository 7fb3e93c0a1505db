import type { QueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { StatusEvent } from '../../../src/modules/whatsapp/whatsapp.events';
import { STATUS_RANK, type MessageStatus } from '../../../src/modules/whatsapp/whatsapp.codes';
import type { assigneeView, conversationView, dashboardView, messageView, quickReplyView, templateView, unreadView } from '../../../src/modules/whatsapp/whatsapp.schemas';
import { ApiError } from '../app/api';
import { mapRows, type CursorPages } from '../app/paging';
import { problemMessage } from '../app/problems';

export type Conversation = z.output<typeof conversationView>;
export type Message = z.output<typeof messageView>;
export type QuickReply = z.output<typeof quickReplyView>;
export type Template = z.output<typeof templateView>;
export type Unread = z.output<typeof unreadView>;
export type Assignee = z.output<typeof assigneeView>;
export type WhatsAppDashboard = z.output<typeof dashboardView>;

/** The list's filters, as the URL keeps them and the API takes them. */
export interface ListFilters {
  status: 'open' | 'closed';
  assignee: 'all' | 'me' | 'none';
  unread: boolean;
  q: string;
}

export const keys = {
  lists: ['whatsapp', 'conversations'] as const,
  list: (filters: ListFilters) => ['whatsapp', 'conversations', filters] as const,
  conversation: (id: string) => ['whatsapp', 'conversation', id] as const,
  messages: (id: string) => ['whatsapp', 'messages', id] as const,
  unread: ['whatsapp', 'unread'] as const,
  quickReplies: ['whatsapp', 'quick-replies'] as const,
  quickRepliesFor: (id: string) => ['whatsapp', 'quick-replies', id] as const,
  templates: ['whatsapp', 'templates', 'approved'] as const,
  assignees: ['whatsapp', 'assignees'] as const,
  dashboard: ['whatsapp', 'dashboard'] as const,
  person: (id: string) => ['audience', 'person', id] as const,
  pqrsOf: (contactId: string) => ['pqrs', 'contact', contactId] as const,
};

export function listPath(filters: ListFilters): string {
  const query = new URLSearchParams({ status: filters.status });
  if (filters.assignee !== 'all') query.set('assignee', filters.assignee);
  if (filters.unread) query.set('unread', 'true');
  if (filters.q.trim()) query.set('q', filters.q.trim());
  return `/api/whatsapp/conversations?${query}`;
}

/** Whether a list with these filters holds the row; undefined when only the server can say (a search). */
function belongs(conversation: Conversation, filters: ListFilters, meId: string): boolean | undefined {
  if (filters.q.trim()) return undefined;
  if (conversation.status !== filters.status) return false;
  if (filters.unread && conversation.unreadCount === 0) return false;
  if (filters.assignee === 'me' && conversation.assignedToId !== meId) return false;
  if (filters.assignee === 'none' && conversation.assignedToId !== null) return false;
  return true;
}

/** The list's order: newest activity first, then id (the API's keyset). */
const before = (a: Conversation, b: Conversation) => a.lastMessageAt > b.lastMessageAt || (a.lastMessageAt === b.lastMessageAt && a.id > b.id);

/** The row put where the list's order wants it among the loaded rows; left out when it belongs on a page not loaded yet. */
function placed(data: CursorPages<Conversation>, conversation: Conversation): CursorPages<Conversation> {
  const pages = data.pages.map((page) => ({ ...page, data: page.data.filter((row) => row.id !== conversation.id) }));
  for (const page of pages) {
    const index = page.data.findIndex((row) => before(conversation, row));
    if (index >= 0) {
      page.data.splice(index, 0, conversation);
      return { ...data, pages };
    }
  }
  const last = pages[pages.length - 1];
  if (last && !last.nextCursor) last.data.push(conversation);
  return { ...data, pages };
}

/**
 * A conversation as an event or an answer gives it: the open thread's row, and every loaded list
 * (moved to its place by its last activity, or out of a list whose filters it left). A searched
 * list is asked again instead: only the server matches names and phones.
 */
export function upsertConversation(queryClient: QueryClient, conversation: Conversation, meId: string): void {
  queryClient.setQueryData<Conversation>(keys.conversation(conversation.id), conversation);
  for (const query of queryClient.getQueryCache().findAll({ queryKey: keys.lists })) {
    const filters = query.queryKey[2] as ListFilters | undefined;
    if (!filters) continue;
    const fits = belongs(conversation, filters, meId);
    if (fits === undefined) {
      void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true });
      continue;
    }
    queryClient.setQueryData<CursorPages<Conversation>>(query.queryKey, (data) => {
      if (!data) return data;
      if (!fits) return mapRows(data, (row) => (row.id === conversation.id ? null : row));
      return placed(data, conversation);
    });
  }
}

const rank = (status: string) => STATUS_RANK[status as MessageStatus] ?? 0;

/** The later of two views of one message: a status only moves forward (the API's rule), whichever answer or event came first. */
function newer(current: Message, incoming: Message): Message {
  return rank(incoming.status) >= rank(current.status)
    ? incoming
    : { ...incoming, status: current.status, sentAt: current.sentAt, deliveredAt: current.deliveredAt, readAt: current.readAt };
}

/** A message into its open thread's first page (the newest), or in place of the one it updates. */
export function addMessage(queryClient: QueryClient, message: Message): void {
  if (!message.conversationId) return;
  queryClient.setQueryData<CursorPages<Message>>(keys.messages(message.conversationId), (data) => {
    if (!data) return data;
    let found = false;
    const updated = mapRows(data, (row) => {
      if (row.id !== message.id) return row;
      found = true;
      return newer(row, message);
    });
    if (found || !updated) return updated;
    const [first, ...rest] = updated.pages;
    return first ? { ...updated, pages: [{ ...first, data: [message, ...first.data] }, ...rest] } : updated;
  });
}

/** The ticks: each message's new status in its thread and, when it is a row's last message, in the lists. */
export function applyStatuses(queryClient: QueryClient, changes: StatusEvent['messages']): void {
  const byId = new Map(changes.map((change) => [change.id, change.status]));
  const patch = (message: Message): Message => {
    const status = byId.get(message.id);
    return status && rank(status) > rank(message.status) ? { ...message, status } : message;
  };
  for (const conversationId of new Set(changes.map((change) => change.conversationId))) {
    if (!conversationId) continue;
    queryClient.setQueryData<CursorPages<Message>>(keys.messages(conversationId), (data) => mapRows(data, patch));
    queryClient.setQueryData<Conversation>(keys.conversation(conversationId), (row) => (row?.lastMessage ? { ...row, lastMessage: patch(row.lastMessage) } : row));
  }
  queryClient.setQueriesData<CursorPages<Conversation>>({ queryKey: keys.lists }, (data) =>
    mapRows(data, (row) => {
      if (!row.lastMessage || !byId.has(row.lastMessage.id)) return row;
      const lastMessage = patch(row.lastMessage);
      return lastMessage === row.lastMessage ? row : { ...row, lastMessage };
    }),
  );
}

/** Whether the 24-hour window is open at `now` (it closes while the screen is open). */
export const windowOpenAt = (conversation: Conversation, now: number): boolean => conversation.windowExpiresAt !== null && Date.parse(conversation.windowExpiresAt) > now;

/** A refusal of a reply or a change, in Spanish: the API's problem codes the inbox expects, else the general wording. */
export function replyRefusal(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.problem?.code) {
      case 'window_closed':
        return 'La ventana de 24 horas está cerrada: la persona no ha escrito en las últimas 24 horas. Solo se puede enviar una plantilla aprobada.';
      case 'opted_out':
        return 'Esta persona pidió no recibir mensajes de WhatsApp: no se le puede escribir.';
      case 'no_consent':
        return 'Esta persona no ha autorizado mensajes de WhatsApp: fuera de la ventana no se le puede escribir.';
      case 'no_phone':
        return 'Esta persona no tiene un número de teléfono registrado.';
      case 'template_not_approved':
        return 'La plantilla ya no está aprobada. Elija otra.';
      case 'assignee_cannot_converse':
        return 'Esa persona no puede atender conversaciones (su rol no lo permite o su cuenta está inactiva).';
      case 'nothing_inbound':
        return 'La persona no ha escrito en esta conversación: no hay nada que marcar como no leído.';
      case 'shortcut_taken':
        return 'Ya hay una respuesta rápida con ese atajo.';
    }
  }
  return problemMessage(error);
}
