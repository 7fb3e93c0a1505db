import type { InferKyselyDB } from '@mikro-orm/sql';
import type { ExpressionBuilder, Selectable } from 'kysely';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { arrivingContact, audienceContacts, type CapturedPerson, type ConsentProof } from '../audience';
import { territoryAndDescendants } from '../territories';
import {
  OPEN_STATUSES,
  type PqrsAttachmentSchema,
  type PqrsChannel,
  type PqrsCounterSchema,
  type PqrsHistorySchema,
  type PqrsRequestSchema,
  type PqrsSettingsSchema,
  type PqrsStatus,
  type PqrsType,
} from './pqrs.entities';
import { DUE_STATES, type DueState } from './pqrs.clock';
import type { TerritoryReferenceHolder } from '../../kernel/module';

type PqrsTables = InferKyselyDB<typeof PqrsRequestSchema | typeof PqrsHistorySchema | typeof PqrsAttachmentSchema | typeof PqrsCounterSchema | typeof PqrsSettingsSchema>;
const db = tables<PqrsTables>();

// ───────────── numbering

/**
 * The next sequence number of a year. The counter row stays locked until the filing's transaction
 * ends, so concurrent filings take numbers one after the other and a rolled-back filing gives its
 * number back: no gaps, no duplicates.
 */
export async function nextSequence(tx: Queries, year: number): Promise<number> {
  const row = await tx.first(
    db
      .insertInto('pqrs_counters')
      .values({ year, last: 1 })
      .onConflict((conflict) => conflict.column('year').doUpdateSet((counter) => ({ last: counter('pqrs_counters.last', '+', 1) })))
      .returning('last'),
  );
  return row!.last;
}

// ───────────── requests

type RequestRow = Selectable<PqrsTables['pqrs_requests']>;
export type RequestRecord = CamelCased<RequestRow>;

export async function insertRequest(q: Queries, request: RequestRecord): Promise<void> {
  await q.write(db.insertInto('pqrs_requests').values(snakeRow(request)));
}

/**
 * Records the citizen (audience upserts the contact by phone or email, notes the origin and keeps
 * the consent proof) and the request pointing at them, in one statement.
 */
export async function insertRequestWithCitizen(q: Queries, request: Omit<RequestRecord, 'contactId'>, person: CapturedPerson, proof: ConsentProof): Promise<string> {
  const row = snakeRow({ ...request, contactId: null });
  const columns = Object.keys(row).filter((column) => column !== 'contact_id');
  const values = columns.map((column) => {
    const value = row[column as keyof typeof row];
    return value !== null && typeof value === 'object' && !(value instanceof Date) ? sql`${JSON.stringify(value)}::jsonb` : sql`${value}`;
  });
  const statement = arrivingContact<{ contact_id: string }>(
    { person, origin: { kind: 'pqrs', refId: request.id }, proof },
    {
      ctes: sql`request as (
        insert into pqrs_requests (${sql.raw(columns.map((column) => `"${column}"`).join(', '))}, contact_id)
        values (${sql.join(values, ', ')}, (select id from contact))
        returning contact_id
      )`,
      select: sql`select contact_id from request`,
    },
  );
  const inserted = await q.first(statement);
  return inserted!.contact_id;
}

export async function findRequest(q: Queries, id: string, lock = false): Promise<RequestRecord | undefined> {
  let query = db.selectFrom('pqrs_requests').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await q.first(query);
  return row && camelRow(row);
}

export async function saveRequest(q: Queries, request: RequestRecord): Promise<void> {
  const { id, ...fields } = request;
  await q.write(db.updateTable('pqrs_requests').set(snakeRow(fields)).where('id', '=', id));
}

export interface RequestFilter {
  status?: PqrsStatus | undefined;
  type?: PqrsType | undefined;
  channel?: PqrsChannel | undefined;
  assigneeId?: string | undefined;
  unassigned?: boolean | undefined;
  /** Open and past `dueAt` at this instant (false: not overdue). */
  overdueAt?: { now: Date; overdue: boolean } | undefined;
  /** Open, not overdue at `now`, due on or before `horizon` (false: not so). */
  dueSoon?: { now: Date; horizon: string; dueSoon: boolean } | undefined;
  dueBefore?: string | undefined;
  territoryId?: string | undefined;
  contactId?: string | undefined;
  /** In any of these states at `now` (`horizon`: the last day still due soon). */
  dueStates?: { states: readonly DueState[]; now: Date; horizon: string } | undefined;
  /** In the subject or the number. */
  search?: string | undefined;
}

const openStatuses = sql`(${sql.join(
  OPEN_STATUSES.map((status) => sql`${status}`),
  ', ',
)})`;

/** The SQL of each due state at `now`, as `clockState` decides it for one request. */
function dueStateCondition(state: DueState, now: Date, horizon: string): Sql {
  switch (state) {
    case 'overdue':
      return sql`(r.status in ${openStatuses} and r.due_at < ${now})`;
    case 'due_soon':
      return sql`(r.status in ${openStatuses} and r.due_at >= ${now} and r.due_date <= ${horizon})`;
    case 'on_time':
      return sql`(r.status in ${openStatuses} and r.due_at >= ${now} and r.due_date > ${horizon})`;
    case 'answered':
      return sql`(r.answered_at is not null)`;
    case 'closed':
      return sql`(r.status = 'closed' and r.answered_at is null)`;
  }
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function conditions(filter: RequestFilter): Sql {
  const parts: Sql[] = [sql`true`];
  if (filter.status) parts.push(sql`r.status = ${filter.status}`);
  if (filter.type) parts.push(sql`r.type = ${filter.type}`);
  if (filter.channel) parts.push(sql`r.channel = ${filter.channel}`);
  if (filter.assigneeId) parts.push(sql`r.assignee_id = ${filter.assigneeId}::uuid`);
  if (filter.unassigned !== undefined) parts.push(filter.unassigned ? sql`r.assignee_id is null` : sql`r.assignee_id is not null`);
  if (filter.overdueAt) {
    const overdue = sql`(r.status in ${openStatuses} and r.due_at < ${filter.overdueAt.now})`;
    parts.push(filter.overdueAt.overdue ? overdue : sql`not ${overdue}`);
  }
  if (filter.dueSoon) {
    const soon = sql`(r.status in ${openStatuses} and r.due_at >= ${filter.dueSoon.now} and r.due_date <= ${filter.dueSoon.horizon})`;
    parts.push(filter.dueSoon.dueSoon ? soon : sql`not ${soon}`);
  }
  if (filter.dueBefore) parts.push(sql`r.due_date <= ${filter.dueBefore}`);
  if (filter.territoryId) parts.push(sql`r.territory_id in (${territoryAndDescendants([filter.territoryId])})`);
  if (filter.contactId) parts.push(sql`r.contact_id = ${filter.contactId}::uuid`);
  if (filter.dueStates) {
    const { states, now, horizon } = filter.dueStates;
    parts.push(
      sql`(${sql.join(
        states.map((state) => dueStateCondition(state, now, horizon)),
        ' or ',
      )})`,
    );
  }
  if (filter.search) {
    const like = `%${escapeLike(filter.search)}%`;
    parts.push(sql`(r.subject ilike ${like} or r.number ilike ${like})`);
  }
  return sql.join(parts, ' and ');
}

/** Where a page starts: after this row of the previous one, in the page's order. */
export type PageAfter = { sort: 'received'; at: Date; id: string } | { sort: 'due'; at: Date; id: string };

/**
 * A page of requests, keyset-paged: newest filing first (`received`, on (received_at, id)) or the
 * soonest legal deadline first (`due`, on (due_at, id)); `after` is the last row of the previous page.
 */
export async function requestPage(q: Queries, filter: RequestFilter, sort: 'received' | 'due', limit: number, after: PageAfter | undefined): Promise<RequestRecord[]> {
  const order = sort === 'due' ? sql`order by r.due_at asc, r.id asc` : sql`order by r.received_at desc, r.id desc`;
  let keyset = sql`true`;
  if (after?.sort === 'received') keyset = sql`(r.received_at, r.id) < (${after.at}, ${after.id}::uuid)`;
  if (after?.sort === 'due') keyset = sql`(r.due_at, r.id) > (${after.at}, ${after.id}::uuid)`;
  const rows = await q.rows<RequestRow>(sql`
    select r.* from pqrs_requests r
    where ${conditions(filter)} and ${keyset}
    ${order}
    limit ${limit}`);
  return rows.map((row) => camelRow(row));
}

export type DueStateCounts = Record<DueState, number>;

/** How many requests matching the filter are in each due state at `now` (`horizon`: the last day still due soon). */
export async function countByDueState(q: Queries, filter: RequestFilter, now: Date, horizon: string): Promise<DueStateCounts> {
  const counts = DUE_STATES.map((state) => sql`count(*) filter (where ${dueStateCondition(state, now, horizon)})::int as ${sql.raw(`"${state}"`)}`);
  const row = await q.first<DueStateCounts>(sql`select ${sql.join(counts, ', ')} from pqrs_requests r where ${conditions(filter)}`);
  return row!;
}

export interface Citizen {
  contactId: string;
  name: string;
  phone: string | null;
  email: string | null;
}

/** The people behind these contact ids, as audience shows them (an erased person shows its placeholder name). */
export async function citizensOf(q: Queries, contactIds: readonly string[]): Promise<Map<string, Citizen>> {
  if (!contactIds.length) return new Map();
  const rows = await q.rows<{ id: string; name: string; phone: string | null; email: string | null }>(
    sql`select c.id, c.name, c.phone, c.email from ${audienceContacts()} c where c.id = any(${[...new Set(contactIds)]}::uuid[])`,
  );
  return new Map(rows.map((row) => [row.id, { contactId: row.id, name: row.name, phone: row.phone, email: row.email }]));
}

// ───────────── history

export type HistoryRecord = CamelCased<Selectable<PqrsTables['pqrs_history']>>;

export async function insertHistory(q: Queries, rows: readonly HistoryRecord[]): Promise<void> {
  if (!rows.length) return;
  await q.write(db.insertInto('pqrs_history').values(rows.map((row) => snakeRow(row))));
}

export async function historyOf(q: Queries, requestId: string): Promise<HistoryRecord[]> {
  const rows = await q.rows(db.selectFrom('pqrs_history').selectAll().where('request_id', '=', requestId).orderBy('at').orderBy('id'));
  return rows.map((row) => camelRow(row));
}

// ───────────── attachments

export type AttachmentRecord = CamelCased<Selectable<PqrsTables['pqrs_attachments']>>;

export async function insertAttachment(q: Queries, attachment: AttachmentRecord): Promise<void> {
  await q.write(db.insertInto('pqrs_attachments').values(snakeRow(attachment)));
}

export async function attachmentsOf(q: Queries, requestIds: readonly string[]): Promise<AttachmentRecord[]> {
  if (!requestIds.length) return [];
  const rows = await q.rows(
    db
      .selectFrom('pqrs_attachments')
      .selectAll()
      .where('request_id', 'in', [...requestIds])
      .orderBy('uploaded_at')
      .orderBy('id'),
  );
  return rows.map((row) => camelRow(row));
}

export async function countAttachments(q: Queries, requestId: string): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('pqrs_attachments')
      .select((attachment) => attachment.cast<number>(attachment.fn.countAll(), 'integer').as('count'))
      .where('request_id', '=', requestId),
  );
  return row?.count ?? 0;
}

export async function deleteAttachments(q: Queries, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  return (await q.write(db.deleteFrom('pqrs_attachments').where('id', 'in', [...ids]))).count;
}

// ───────────── settings

const settingsColumns = ['consent_text', 'privacy_policy_url', 'received_template', 'answered_template', 'extended_template', 'template_language', 'updated_at'] as const;
export type SettingsRecord = CamelCased<Pick<Selectable<PqrsTables['pqrs_settings']>, (typeof settingsColumns)[number]>>;

export async function readSettings(q: Queries): Promise<SettingsRecord> {
  const row = await q.first(db.selectFrom('pqrs_settings').select(settingsColumns).where('id', '=', 1));
  if (!row) throw new Error('pqrs_settings has no row: the Pqrs migration inserts it');
  return camelRow(row);
}

export async function saveSettings(q: Queries, settings: Omit<SettingsRecord, 'updatedAt'>, actorId: string, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('pqrs_settings')
      .set({ ...snakeRow(settings), updated_by_id: actorId, updated_at: at })
      .where('id', '=', 1),
  );
}

/** Claims a local day for the due-soon run: true for the one process whose update moved the day forward. */
export async function claimDueSoonRun(q: Queries, day: string): Promise<boolean> {
  const result = await q.write(
    db
      .updateTable('pqrs_settings')
      .set({ due_soon_run_on: day })
      .where('id', '=', 1)
      .where((settings) => settings.or([settings('due_soon_run_on', 'is', null), settings('due_soon_run_on', '<', day)])),
  );
  return result.count > 0;
}

export async function releaseDueSoonRun(q: Queries, day: string, previous: string | null): Promise<void> {
  await q.write(db.updateTable('pqrs_settings').set({ due_soon_run_on: previous }).where('id', '=', 1).where('due_soon_run_on', '=', day));
}

export async function lastDueSoonRun(q: Queries): Promise<string | null> {
  const row = await q.first(db.selectFrom('pqrs_settings').select('due_soon_run_on').where('id', '=', 1));
  return row?.due_soon_run_on ?? null;
}

/** Open requests not overdue at `now` and due on or before `horizon` that were not flagged yet: flagged now, returned. */
export async function flagDueSoon(q: Queries, now: Date, horizon: string): Promise<RequestRecord[]> {
  const rows = await q.rows(
    db
      .updateTable('pqrs_requests')
      .set({ due_soon_at: now, updated_at: now })
      .where('status', 'in', OPEN_STATUSES)
      .where('due_soon_at', 'is', null)
      .where('due_at', '>=', now)
      .where('due_date', '<=', horizon)
      .returningAll(),
  );
  return rows.map((row) => camelRow(row));
}

// ───────────── figures for other modules

export interface PqrsCounts {
  /** Open requests (received, in progress, waiting for the citizen). */
  pending: number;
  /** Open requests past their deadline. */
  overdue: number;
  /** Open requests not overdue, due within three business days (the due day included). */
  dueSoon: number;
}

export async function countRequests(q: Queries, now: Date, horizon: string): Promise<PqrsCounts> {
  const row = await q.first(
    db
      .selectFrom('pqrs_requests')
      .select((request) => [
        request.cast<number>(request.fn.countAll(), 'integer').as('pending'),
        request.cast<number>(request.fn.countAll().filterWhere('due_at', '<', now), 'integer').as('overdue'),
        request.cast<number>(request.fn.countAll().filterWhere('due_at', '>=', now).filterWhere('due_date', '<=', horizon), 'integer').as('dueSoon'),
      ])
      .where('status', 'in', OPEN_STATUSES),
  );
  return row ?? { pending: 0, overdue: 0, dueSoon: 0 };
}

export interface OpenedClosedDay {
  day: string;
  opened: number;
  closed: number;
}

/**
 * Per local day from `from` to `to` (inclusive, 'YYYY-MM-DD' in `timeZone`), zero-filled: requests
 * received, and requests that left the pending set (answered, or closed without an answer).
 */
export async function openedClosedByDay(q: Queries, from: string, to: string, timeZone: string): Promise<OpenedClosedDay[]> {
  return q.rows<OpenedClosedDay>(sql`
    with days as (select to_char(d, 'YYYY-MM-DD') as day from generate_series(${from}::date, ${to}::date, interval '1 day') d),
    opened as (
      select to_char(received_at at time zone ${timeZone}, 'YYYY-MM-DD') as day, count(*)::int as n from pqrs_requests
      where received_at >= (${from}::date::timestamp at time zone ${timeZone}) and received_at < ((${to}::date + 1)::timestamp at time zone ${timeZone})
      group by 1
    ),
    closed as (
      select to_char(coalesce(answered_at, closed_at) at time zone ${timeZone}, 'YYYY-MM-DD') as day, count(*)::int as n from pqrs_requests
      where coalesce(answered_at, closed_at) >= (${from}::date::timestamp at time zone ${timeZone})
        and coalesce(answered_at, closed_at) < ((${to}::date + 1)::timestamp at time zone ${timeZone})
      group by 1
    )
    select days.day, coalesce(opened.n, 0) as opened, coalesce(closed.n, 0) as closed
    from days left join opened using (day) left join closed using (day) order by days.day`);
}

// ───────────── a person's requests

export async function requestsOfContact(q: Queries, contactId: string): Promise<RequestRecord[]> {
  const rows = await q.rows(db.selectFrom('pqrs_requests').selectAll().where('contact_id', '=', contactId).orderBy('received_at').orderBy('id'));
  return rows.map((row) => camelRow(row));
}

export const ERASED_TEXT = '(texto suprimido a solicitud del titular)';

/** Clears the texts a person wrote or was answered, and the upload secret; the rows and their dates stay. */
export async function eraseRequestTexts(q: Queries, contactId: string, at: Date): Promise<number> {
  const erasedIfWritten = (column: 'answer' | 'extension_reason') => (request: ExpressionBuilder<PqrsTables, 'pqrs_requests'>) =>
    request.case().when(column, 'is', null).then(null).else(ERASED_TEXT).end();
  const result = await q.write(
    db
      .updateTable('pqrs_requests')
      .set({
        description: ERASED_TEXT,
        answer: erasedIfWritten('answer'),
        extension_reason: erasedIfWritten('extension_reason'),
        upload_token_hash: null,
        upload_token_expires_at: null,
        citizen_erased_at: at,
        updated_at: at,
      })
      .where('contact_id', '=', contactId),
  );
  return result.count;
}

/** What staff wrote about a person's requests in their history (notes, an extension's reason) becomes the marker; how many notes. */
export async function eraseHistoryNotes(q: Queries, contactId: string): Promise<number> {
  const result = await q.write(
    db
      .updateTable('pqrs_history as h')
      .from('pqrs_requests as r')
      .set({ note: ERASED_TEXT })
      .whereRef('r.id', '=', 'h.request_id')
      .where('r.contact_id', '=', contactId)
      .where('h.note', 'is not', null),
  );
  return result.count;
}

/** Points a person's requests at another contact (a merge of two records of one person); the ids moved. */
export async function moveRequests(q: Queries, fromId: string, intoId: string): Promise<string[]> {
  const result = await q.write(db.updateTable('pqrs_requests').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning('id'));
  return result.rows.map((row) => row.id);
}

/** Undoes `moveRequests` for these requests, where they still point at `intoId`. */
export async function returnRequests(q: Queries, ids: readonly string[], fromId: string, intoId: string): Promise<void> {
  if (ids.length) await q.write(db.updateTable('pqrs_requests').set({ contact_id: fromId }).where('id', 'in', ids).where('contact_id', '=', intoId));
}

/** Which of these attachment ids still have their record. */
export async function existingAttachmentIds(q: Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await q.rows(
    db
      .selectFrom('pqrs_attachments')
      .select('id')
      .where('id', 'in', [...ids]),
  );
  return new Set(rows.map((row) => row.id));
}

/** Requests filed about a territory. */
export const pqrsTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    db
      .selectFrom('pqrs_requests')
      .select((request) => request.cast<number>(request.fn.countAll(), 'integer').as('requests'))
      .where('territory_id', '=', territoryId),
  );
  return [{ count: row?.requests ?? 0, one: 'PQRS', many: 'PQRS' }];
};
