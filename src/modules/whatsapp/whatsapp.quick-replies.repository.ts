import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { UserSchema } from '../auth';
import { WaQuickReplySchema, type WaQuickReply } from './whatsapp.entities';

// The team's quick replies, as entities of the request's unit of work.

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** By shortcut; `search` is the start of a shortcut (with or without its slash) or words in the title. */
export function quickReplyPage(em: EntityManager, search: string | undefined, page: PageRequest): Promise<Page<WaQuickReply>> {
  let where: FilterQuery<WaQuickReply> = {};
  if (search) {
    const term = escapeLike(search.replace(/^\//, '').toLowerCase());
    where = { $or: [{ shortcut: { $like: `/${term}%` } }, { title: { $ilike: `%${escapeLike(search)}%` } }] };
  }
  return findPage(em, WaQuickReplySchema, where, page, { shortcut: 'asc', id: 'asc' }, (row: WaQuickReply) => row);
}

export function findQuickReply(em: EntityManager, id: string): Promise<WaQuickReply | null> {
  return em.findOne(WaQuickReplySchema, { id });
}

/** A new quick reply; a shortcut taken meanwhile is the database's unique violation. */
export async function insertQuickReply(em: EntityManager, fields: Pick<WaQuickReply, 'shortcut' | 'title' | 'text'>, actorId: string): Promise<WaQuickReply> {
  const author = em.getReference(UserSchema, actorId);
  const reply = em.create(WaQuickReplySchema, { ...fields, createdBy: author, updatedBy: author });
  await em.flush();
  return reply;
}

export async function updateQuickReply(
  em: EntityManager,
  reply: WaQuickReply,
  changes: Partial<Pick<WaQuickReply, 'shortcut' | 'title' | 'text'>>,
  actorId: string,
): Promise<void> {
  Object.assign(reply, changes, { updatedBy: em.getReference(UserSchema, actorId) });
  await em.flush();
}

export async function removeQuickReply(em: EntityManager, reply: WaQuickReply): Promise<void> {
  em.remove(reply);
  await em.flush();
}
