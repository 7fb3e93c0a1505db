import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { tables, type Queries } from '../../kernel/sql';
import { WaQuickReplySchema, type WaQuickReply } from './whatsapp.entities';

// The team's quick replies.

type QuickReplyTables = InferKyselyDB<typeof WaQuickReplySchema>;
const db = tables<QuickReplyTables>();

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

const quickReplyColumns = [
  'id',
  'shortcut',
  'title',
  'text',
  'created_by_id as createdById',
  'updated_by_id as updatedById',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

export function findQuickReply(q: Queries, id: string) {
  return q.first(db.selectFrom('wa_quick_replies').select(quickReplyColumns).where('id', '=', id));
}

export type QuickReplyRecord = NonNullable<Awaited<ReturnType<typeof findQuickReply>>>;

function quickReplyRecordOf(reply: WaQuickReply): QuickReplyRecord {
  return {
    id: reply.id,
    shortcut: reply.shortcut,
    title: reply.title,
    text: reply.text,
    createdById: reply.createdBy?.id ?? null,
    updatedById: reply.updatedBy?.id ?? null,
    createdAt: reply.createdAt,
    updatedAt: reply.updatedAt,
  };
}

/** By shortcut; `search` is the start of a shortcut (with or without its slash) or words in the title. */
export function quickReplyPage(em: EntityManager, search: string | undefined, page: PageRequest): Promise<Page<QuickReplyRecord>> {
  let where: FilterQuery<WaQuickReply> = {};
  if (search) {
    const term = escapeLike(search.replace(/^\//, '').toLowerCase());
    where = { $or: [{ shortcut: { $like: `/${term}%` } }, { title: { $ilike: `%${escapeLike(search)}%` } }] };
  }
  return findPage(em, WaQuickReplySchema, where, page, { shortcut: 'asc', id: 'asc' }, quickReplyRecordOf);
}

export type QuickReplyFields = Pick<QuickReplyRecord, 'shortcut' | 'title' | 'text'>;

/** A new quick reply; a shortcut taken meanwhile is the database's unique violation. */
export async function insertQuickReply(q: Queries, fields: QuickReplyFields, actorId: string): Promise<QuickReplyRecord> {
  const at = new Date();
  const [reply] = (
    await q.write(
      db
        .insertInto('wa_quick_replies')
        .values({ id: newId(), ...fields, created_by_id: actorId, updated_by_id: actorId, created_at: at, updated_at: at })
        .returning(quickReplyColumns),
    )
  ).rows;
  return reply!;
}

/** The changed quick reply, or undefined when none has this id; a shortcut taken is the database's unique violation. */
export async function updateQuickReply(q: Queries, id: string, changes: Partial<QuickReplyFields>, actorId: string): Promise<QuickReplyRecord | undefined> {
  const { rows } = await q.write(
    db
      .updateTable('wa_quick_replies')
      .set({ ...changes, updated_by_id: actorId, updated_at: new Date() })
      .where('id', '=', id)
      .returning(quickReplyColumns),
  );
  return rows[0];
}

/** Whether one was removed. */
export async function removeQuickReply(q: Queries, id: string): Promise<boolean> {
  const { count } = await q.write(db.deleteFrom('wa_quick_replies').where('id', '=', id));
  return count > 0;
}
