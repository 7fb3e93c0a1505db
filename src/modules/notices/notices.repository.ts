import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { NoticeSchema, type NoticeChannel, type NoticeStatus, type PassedOver, type UnreachableReason } from './notices.entities';

type NoticeTables = InferKyselyDB<typeof NoticeSchema>;
const db = tables<NoticeTables>();

/**
 * Takes the key for a new notice: the row's id, or undefined when the key is already taken. A
 * second transaction inserting the same key waits on the unique index until the first ends, and
 * then finds it taken (committed) or free (rolled back): a key is sent at most once.
 */
export async function claimKey(q: Queries, notice: { key: string; contactId: string; purpose: string }): Promise<string | undefined> {
  const row = await q.first(
    db
      .insertInto('notices')
      .values({
        id: newId(),
        key: notice.key,
        contact_id: notice.contactId,
        purpose: notice.purpose,
        status: 'queued',
        passed_over: '[]' as unknown as PassedOver[],
        created_at: new Date(),
      })
      .onConflict((conflict) => conflict.column('key').doNothing())
      .returning('id'),
  );
  return row?.id;
}

export async function noticeIdByKey(q: Queries, key: string): Promise<string | undefined> {
  return (await q.first(db.selectFrom('notices').select('id').where('key', '=', key)))?.id;
}

export interface NoticeOutcome {
  status: NoticeStatus;
  channel: NoticeChannel | null;
  reason: UnreachableReason | null;
  messageRef: string | null;
  passedOver: PassedOver[];
}

export async function recordOutcome(q: Queries, id: string, outcome: NoticeOutcome): Promise<void> {
  await q.write(
    db
      .updateTable('notices')
      .set({
        status: outcome.status,
        channel: outcome.channel,
        reason: outcome.reason,
        message_ref: outcome.messageRef,
        passed_over: JSON.stringify(outcome.passedOver) as unknown as PassedOver[],
      })
      .where('id', '=', id),
  );
}

export interface NoticeFilter {
  purpose?: string | undefined;
  contactId?: string | undefined;
  channel?: NoticeChannel | undefined;
  status?: NoticeStatus | undefined;
}

const noticeOf = (row: Selectable<NoticeTables['notices']>) => camelRow(row);

export type NoticeRecord = ReturnType<typeof noticeOf>;

/** Newest first (ids are UUID v7). */
export async function noticePage(q: Queries, filter: NoticeFilter, page: PageRequest): Promise<Page<NoticeRecord>> {
  let query = db.selectFrom('notices').selectAll();
  if (filter.purpose) query = query.where('purpose', '=', filter.purpose);
  if (filter.contactId) query = query.where('contact_id', '=', filter.contactId);
  if (filter.channel) query = query.where('channel', '=', filter.channel);
  if (filter.status) query = query.where('status', '=', filter.status);
  const found = await queryPage(q, query, ['id'], 'desc', page);
  return mapPage(found, noticeOf);
}

/** A person's notices, oldest first. */
export function noticesOf(q: Queries, contactId: string) {
  return q.rows(
    db.selectFrom('notices').select(['id', 'purpose', 'channel', 'status', 'reason', 'passed_over', 'message_ref', 'created_at']).where('contact_id', '=', contactId).orderBy('id'),
  );
}

/** An erased person's notices keep their purpose, channel and outcome (for counts) but not the key, which callers build from ids that name them. */
export async function forgetKeys(q: Queries, contactId: string): Promise<number> {
  const result = await q.write(sql`update notices set key = 'erased:' || id where contact_id = ${contactId}::uuid and key not like 'erased:%'`);
  return result.count;
}
