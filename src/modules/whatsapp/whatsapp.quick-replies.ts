import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, invalidField, NotFoundError } from '../../kernel/errors';
import type { PageRequest } from '../../kernel/pagination';
import { contactReach } from '../audience';
import { findUser } from '../auth';
import { findConversation, type ConversationRecord } from './whatsapp.conversations.repository';
import { presentQuickReply } from './whatsapp.presenter';
import type { QuickReplyValues } from './whatsapp.quick-replies.render';
import * as repository from './whatsapp.quick-replies.repository';
import type { CreateQuickReplyInput, UpdateQuickReplyInput } from './whatsapp.schemas';
import { UNNAMED_CONTACT } from './whatsapp.webhook';
import { mapPage } from '../../kernel/pagination';

/** What fills a quick reply's variables in this conversation, answered by this staff member. */
async function valuesFor(deps: Pick<AppDeps, 'db'>, actor: Actor, conversation: ConversationRecord): Promise<QuickReplyValues> {
  const contact = conversation.contact;
  const erased = (await contactReach(deps.db, contact.id))?.erased ?? false;
  // Someone who wrote without a profile name is stored under a placeholder, not a name to greet.
  const name = erased || contact.name === UNNAMED_CONTACT ? null : contact.name.trim();
  return {
    nombre: name,
    primer_nombre: name ? (name.split(/\s+/)[0] ?? null) : null,
    barrio: erased ? null : (contact.neighbourhood ?? null),
    agente: (await findUser(deps.db, actor.id))?.name ?? null,
  };
}

/** By shortcut; with `conversationId`, each rendered for that conversation's contact. */
export async function listQuickReplies(deps: Pick<AppDeps, 'db'>, actor: Actor, query: PageRequest & { q?: string | undefined; conversationId?: string | undefined }) {
  let values: QuickReplyValues | undefined;
  if (query.conversationId) {
    const conversation = await findConversation(deps.db, query.conversationId);
    if (!conversation) throw invalidField('query.conversationId', 'No conversation has this id.', 'unknown_conversation');
    values = await valuesFor(deps, actor, conversation);
  }
  const page = await repository.quickReplyPage(deps.db, query.q, { cursor: query.cursor, limit: query.limit });
  return mapPage(page, (reply) => presentQuickReply(reply, values));
}

const notFound = () => new NotFoundError('No quick reply has this id.');

function shortcutTaken(error: unknown, shortcut: string | undefined): never {
  if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`Another quick reply uses the shortcut ${shortcut ?? ''}.`, 'shortcut_taken');
  throw error;
}

export async function createQuickReply(deps: Pick<AppDeps, 'db'>, actor: Actor, input: CreateQuickReplyInput) {
  try {
    return presentQuickReply(await repository.insertQuickReply(deps.db, input, actor.id));
  } catch (error) {
    shortcutTaken(error, input.shortcut);
  }
}

export async function updateQuickReply(deps: Pick<AppDeps, 'db'>, actor: Actor, id: string, input: UpdateQuickReplyInput) {
  let reply: repository.QuickReplyRecord | undefined;
  try {
    reply = await repository.updateQuickReply(deps.db, id, input, actor.id);
  } catch (error) {
    shortcutTaken(error, input.shortcut);
  }
  if (!reply) throw notFound();
  return presentQuickReply(reply);
}

export async function deleteQuickReply(deps: Pick<AppDeps, 'db'>, id: string): Promise<void> {
  if (!(await repository.removeQuickReply(deps.db, id))) throw notFound();
}
