import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import type { WaQuickReplySchema } from './whatsapp.entities';

// The team's quick replies.

type QuickReplyTables = InferKyselyDB<typeof WaQuickReplySchema>;
const db = tables<QuickReplyTables>();

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

const quickReplyOf = (row: Selectable<QuickReplyTables['wa_quick_replies']>) => camelRow(row);
export type QuickReplyRecord = ReturnType<typeof quickReplyOf>;

export async function findQuickReply(q: Queries, id: string): Promise<QuickReplyRecord | undefined> {
  const row = await q.first(db.selectFrom('wa_quick_replies').selectAll().where('id', '=', id));
  return row && quickReplyOf(row);
}

/** By shortcut; `search` is the start of a shortcut (with or without its slash) or words in the title. */
export async function quickReplyPage(q: Queries, search: string | undefined, page: PageRequest): Promise<Page<QuickReplyRecord>> {
  let query = db.selectFrom('wa_quick_replies').selectAll();
  if (search) {
    const term = escapeLike(search.replace(/^\//, '').toLowerCase());
    query = query.where((eb) => eb.or([eb('shortcut', 'like', `/${term}%`), eb('title', 'ilike', `%${escapeLike(search)}%`)]));
  }
  const found = await queryPage(q, query, ['shortcut', 'id'], 'asc', page);
  return mapPage(found, quickReplyOf);
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
        .returningAll(),
    )
  ).rows;
  return quickReplyOf(reply!);
}

/** The changed quick reply, or undefined when none has this id; a shortcut taken is the database's unique violation. */
export async function updateQuickReply(q: Queries, id: string, changes: Partial<QuickReplyFields>, actorId: string): Promise<QuickReplyRecord | undefined> {
  const { rows } = await q.write(
    db
      .updateTable('wa_quick_replies')
      .set({ ...changes, updated_by_id: actorId, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll(),
  );
  return rows[0] && quickReplyOf(rows[0]);
}

/** Whether one was removed. */
export async function removeQuickReply(q: Queries, id: string): Promise<boolean> {
  const { count } = await q.write(db.deleteFrom('wa_quick_replies').where('id', '=', id));
  return count > 0;
}
