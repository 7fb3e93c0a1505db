import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { territoryAndDescendants, territoryDirectory } from '../territories';
import type { AudienceAuditSchema, AuditAction, ConsentSchema, ContactOriginSchema, ContactSchema } from './audience.entities';
import type { ContactNoteSchema } from './audience.people.entities';
import type { ConsentState } from './audience.people.schemas';

/** The tables the people screens read and write: the audience's own. */
type PeopleTables = InferKyselyDB<typeof ContactSchema | typeof ContactOriginSchema | typeof ConsentSchema | typeof ContactNoteSchema | typeof AudienceAuditSchema>;
const db = tables<PeopleTables>();

type ContactRow = Selectable<PeopleTables['contacts']>;

/**
 * What a search looks for, decided from what staff typed (`audience.people.ts`):
 * - `name`: words of a name, folded (accents and case) by `people_fold` in the database and
 *   matched in `name_folded`. Words of 3 characters or more go through the trigram index; shorter
 *   ones only filter what those found.
 * - `digits`: a phone (exact, in E.164, when the digits make one), the end of a phone, or a cédula
 *   (whole or its beginning).
 * - `email`: a whole address, or the beginning of one.
 */
export type PeopleSearch =
  { kind: 'name'; indexed: string[]; short: string[] } | { kind: 'digits'; digits: string; phone: string | undefined } | { kind: 'email'; address: string; whole: boolean };

export interface PeopleFilter {
  search?: PeopleSearch | undefined;
  territoryId?: string | undefined;
  origin?: { kind: string; refId?: string | undefined } | undefined;
  whatsapp?: ConsentState | undefined;
  email?: ConsentState | undefined;
  tag?: string | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
}

export interface PeopleOrder {
  key: 'createdAt' | 'name';
  descending: boolean;
}

/**
 * Where the previous page ended: the sort key as PostgreSQL wrote it (a timestamp's text keeps its
 * microseconds, which a JavaScript Date would drop) and the id.
 */
export interface PeopleAfter {
  key: string;
  id: string;
}

/** An origin as a statement gives it in JSON: named by its module, its time as text. */
export type OriginJson = CamelCased<Pick<Selectable<PeopleTables['contact_origins']>, 'kind' | 'ref_id'>> & { name: string | null; firstSeenAt: string };

/** A person as the list reads them: the contact's columns with its territory's name, the sort key's text (the next page's cursor) and the first origins, oldest first. */
type PersonRow = Pick<
  ContactRow,
  | 'id'
  | 'name'
  | 'phone'
  | 'email'
  | 'document_id'
  | 'territory_id'
  | 'tags'
  | 'whatsapp_opt_in'
  | 'whatsapp_opted_out_at'
  | 'email_opt_in'
  | 'email_opted_out_at'
  | 'created_at'
  | 'updated_at'
> & { territory_name: string | null; sort_key: string; origins: OriginJson[]; origin_count: number };

export type PersonRecord = CamelCased<PersonRow>;

/** What an origin is called: `(kind, refId) → text`, made of the owning modules' fragments (`audience.people.ts`). */
export type OriginNamer = (kind: Sql<never>, refId: Sql<never>) => Sql<never>;

/** The first `limit` origins of the contact `k`, oldest first, named, as a JSON array; and how many there are. */
function originsColumns(originName: OriginNamer, limit: number | null): Sql<never> {
  const first = limit === null ? sql`` : sql`limit ${limit}`;
  return sql`(select coalesce(json_agg(json_build_object('kind', o.kind, 'refId', o.ref_id, 'name', ${originName(sql`o.kind`, sql`o.ref_id`)}, 'firstSeenAt', o.first_seen_at)
        order by o.first_seen_at, o.kind, o.ref_id), '[]')
      from (select * from contact_origins o where o.contact_id = k.id order by o.first_seen_at, o.kind, o.ref_id ${first}) o) as origins,
    (select count(*)::int from contact_origins o where o.contact_id = k.id) as origin_count`;
}

/**
 * `expr` starts with `prefix`, as two comparisons a `text_pattern_ops` index serves whatever the
 * statement's plan (a LIKE pattern is only turned into a range when planned with its value).
 * `prefix` is digits or a lower-cased address: the next character after its last is a bound.
 */
function startsWith(expr: Sql<never>, prefix: string): Sql<never> {
  const upper = prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);
  return sql`(${expr} ~>=~ ${prefix} and ${expr} ~<~ ${upper})`;
}

/** `%`, `_` and `\` typed by staff are taken literally in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function searchClause(search: PeopleSearch): Sql<never> {
  if (search.kind === 'name') {
    const clauses = [
      ...search.indexed.map((word) => sql`c.name_folded like '%' || people_fold(${likeLiteral(word)}) || '%'`),
      // Under 3 characters a word has no trigram: it only narrows what the others found.
      ...search.short.map((word) => sql`strpos(c.name_folded, people_fold(${word})) > 0`),
    ];
    return sql.join(clauses, ' and ');
  }
  if (search.kind === 'digits') {
    const reversed = [...search.digits].reverse().join('');
    const alternatives = [startsWith(sql`reverse(c.phone)`, reversed), startsWith(sql`c.document_id`, search.digits)];
    if (search.phone) alternatives.unshift(sql`c.phone = ${search.phone}`);
    return sql`(${sql.join(alternatives, ' or ')})`;
  }
  return search.whole ? sql`lower(c.email) = ${search.address}` : startsWith(sql`lower(c.email)`, search.address);
}

/** Each channel's state as the list shows and filters it. */
const REACHABLE = {
  whatsapp: sql<never>`(c.phone is not null and c.whatsapp_opt_in and c.whatsapp_opted_out_at is null)`,
  email: sql<never>`(c.email is not null and c.email_opt_in and c.email_opted_out_at is null)`,
};
const OPTED_OUT = { whatsapp: sql<never>`c.whatsapp_opted_out_at is not null`, email: sql<never>`c.email_opted_out_at is not null` };

function consentClause(channel: 'whatsapp' | 'email', state: ConsentState): Sql<never> {
  if (state === 'reachable') return REACHABLE[channel];
  if (state === 'opted_out') return OPTED_OUT[channel];
  return sql`(not ${OPTED_OUT[channel]} and not ${REACHABLE[channel]})`;
}

function peopleWhere(filter: PeopleFilter): Sql<never> {
  // Neither erased nor merged into another record: only people who are someone.
  const clauses: Sql<never>[] = [sql`c.erased_at is null`, sql`c.merged_into_id is null`];
  if (filter.search) clauses.push(searchClause(filter.search));
  if (filter.territoryId) clauses.push(sql`c.territory_id in (${territoryAndDescendants([filter.territoryId])})`);
  if (filter.origin) {
    const ref = filter.origin.refId ? sql`and o.ref_id = ${filter.origin.refId}::uuid` : sql``;
    clauses.push(sql`exists (select 1 from contact_origins o where o.contact_id = c.id and o.kind = ${filter.origin.kind} ${ref})`);
  }
  if (filter.whatsapp) clauses.push(consentClause('whatsapp', filter.whatsapp));
  if (filter.email) clauses.push(consentClause('email', filter.email));
  if (filter.tag) clauses.push(sql`c.tags @> array[${filter.tag}]::text[]`);
  if (filter.createdFrom) clauses.push(sql`c.created_at >= ${filter.createdFrom}`);
  if (filter.createdTo) clauses.push(sql`c.created_at <= ${filter.createdTo}`);
  return sql.join(clauses, ' and ');
}

/**
 * A page of people: keyset paging on (sort key, id), never OFFSET, so page 100 costs what page 1
 * does. The inner statement finds the page's ids and sort keys only: for a name search, a
 * territory, or neither, that is all the order's index holds (`contacts_created_order`,
 * `contacts_name_order`), and a page is an index-only walk; or, for a rare name, the trigram index
 * and a sort of its few matches. The planner picks. The outer statement reads those rows, their
 * territory's name and their first origins, named: one round trip for the page. One more row than
 * asked says whether a next page exists.
 */
export async function peoplePage(
  q: Queries,
  filter: PeopleFilter,
  order: PeopleOrder,
  page: { after: PeopleAfter | undefined; limit: number; originName: OriginNamer; originsPerRow: number },
): Promise<PersonRecord[]> {
  const { after, limit } = page;
  const key = order.key === 'name' ? sql`c.name_folded` : sql`c.created_at`;
  const keyValue = order.key === 'name' ? sql`${after?.key ?? ''}::text` : sql`${after?.key ?? ''}::timestamptz`;
  const direction = sql.raw(order.descending ? 'desc' : 'asc');
  const where = after ? sql`${peopleWhere(filter)} and (${key}, c.id) ${sql.raw(order.descending ? '<' : '>')} (${keyValue}, ${after.id}::uuid)` : peopleWhere(filter);
  const statement = sql<PersonRow>`
    select k.id, k.name, k.phone, k.email, k.document_id, k.territory_id, t.name as territory_name, k.tags,
      k.whatsapp_opt_in, k.whatsapp_opted_out_at, k.email_opt_in, k.email_opted_out_at, k.created_at, k.updated_at, p.sort_key,
      ${originsColumns(page.originName, page.originsPerRow)}
    from (
      select c.id, ${key} as sort_value, (${key})::text as sort_key
      from contacts c
      where ${where}
      order by ${key} ${direction}, c.id ${direction}
      limit ${limit}
    ) p
    join contacts k on k.id = p.id
    left join ${territoryDirectory()} t on t.id = k.territory_id
    order by p.sort_value ${direction}, p.id ${direction}`;
  const rows = await q.rows(plansAlikeForAnyValues(filter) ? statement.preparedByShape('people_page') : statement);
  return rows.map((row) => camelRow(row));
}

/**
 * The whole list, or a phone, cédula or email search (index look-ups): one plan serves any value,
 * so the statement is prepared. A name, a tag, a territory, an origin, a consent state or dates
 * may match a handful of people or most of them, and the best plan (walk the order's index, or
 * find the few and sort them) follows the value: planned each time.
 */
function plansAlikeForAnyValues(filter: PeopleFilter): boolean {
  const { search, ...filters } = filter;
  return (!search || search.kind !== 'name') && Object.values(filters).every((value) => value === undefined);
}

/** Where a contact came from, as kind and ref id. */
export async function originRefsOf(q: Queries, contactId: string) {
  const rows = await q.rows(db.selectFrom('contact_origins').select(['kind', 'ref_id']).where('contact_id', '=', contactId));
  return rows.map((row) => camelRow(row));
}

/** One held contact as the person page shows it: the row with its territory's name and every origin, named. */
export async function personRow(q: Queries, id: string, originName: OriginNamer) {
  const row = await q.first(sql<PersonRow & Pick<ContactRow, 'neighbourhood' | 'interests'>>`
    select k.id, k.name, k.phone, k.email, k.document_id, k.territory_id, t.name as territory_name, k.tags, k.neighbourhood, k.interests,
      k.whatsapp_opt_in, k.whatsapp_opted_out_at, k.email_opt_in, k.email_opted_out_at, k.created_at, k.updated_at, k.id::text as sort_key,
      ${originsColumns(originName, null)}
    from contacts k left join ${territoryDirectory()} t on t.id = k.territory_id
    where k.id = ${id}::uuid and k.erased_at is null and k.merged_into_id is null`);
  return row && camelRow(row);
}

/** A held contact's correctable fields, locked until the transaction ends; undefined when there is none. */
export async function lockPersonForCorrection(q: Queries, id: string) {
  const row = await q.first(
    db
      .selectFrom('contacts')
      .select(['id', 'name', 'phone', 'email', 'document_id', 'tags'])
      .where('id', '=', id)
      .where('erased_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .forUpdate(),
  );
  return row && camelRow(row);
}

/**
 * Another held contact with this phone or this email (compared lower-cased), if any: whom a correction would collide with.
 * A phone holder comes first (`phone` orders by the output column, true before false).
 */
export async function holderOf(q: Queries, exceptId: string, keys: { phone?: string | undefined; email?: string | undefined }) {
  const { phone, email } = keys;
  if (!phone && !email) return undefined;
  return q.first(
    db
      .selectFrom('contacts')
      .select((row) => ['id', (phone ? row('phone', '=', phone) : row.lit(false)).as('phone')])
      .where('id', '<>', exceptId)
      .where('erased_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .where((row) => row.or([...(phone ? [row('phone', '=', phone)] : []), ...(email ? [row(row.fn('lower', ['email']), '=', email.toLowerCase())] : [])]))
      .orderBy('phone', 'desc')
      .orderBy('created_at')
      .limit(1),
  );
}

/** The contact holding an identity key, if any. */
export async function contactWithIdentity(q: Queries, identityKey: string): Promise<string | undefined> {
  return (await q.first(db.selectFrom('contacts').select('id').where('identity_key', '=', identityKey)))?.id;
}

/** A correction's new values: the contact's correctable fields, its identity key and the time of the change. */
export type PersonCorrection = Pick<CamelCased<ContactRow>, 'name' | 'phone' | 'email' | 'documentId' | 'tags' | 'identityKey' | 'updatedAt'>;

export async function applyCorrection(q: Queries, id: string, correction: PersonCorrection): Promise<void> {
  await q.write(db.updateTable('contacts').set(snakeRow(correction)).where('id', '=', id));
}

export type NoteRecord = CamelCased<Selectable<PeopleTables['contact_notes']>>;

export async function insertNote(q: Queries, note: Pick<NoteRecord, 'contactId' | 'authorId' | 'text'>): Promise<NoteRecord> {
  const record: NoteRecord = { id: newId(), ...note, createdAt: new Date() };
  await q.write(db.insertInto('contact_notes').values(snakeRow(record)));
  return record;
}

/** A person's notes, newest first: at most `limit`, and only those before `before` when given. */
export async function notesOf(q: Queries, contactId: string, limit: number, before?: Date | null): Promise<NoteRecord[]> {
  let query = db.selectFrom('contact_notes').selectAll().where('contact_id', '=', contactId);
  if (before) query = query.where('created_at', '<', before);
  const rows = await q.rows(query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit));
  return rows.map((row) => camelRow(row));
}

export async function findNote(q: Queries, contactId: string, noteId: string): Promise<NoteRecord | undefined> {
  const row = await q.first(db.selectFrom('contact_notes').selectAll().where('id', '=', noteId).where('contact_id', '=', contactId));
  return row && camelRow(row);
}

export async function deleteNote(q: Queries, noteId: string): Promise<number> {
  return (await q.write(db.deleteFrom('contact_notes').where('id', '=', noteId))).count;
}

/** Every note about a person, oldest first, for their export. */
export async function allNotesOf(q: Queries, contactId: string): Promise<NoteRecord[]> {
  const rows = await q.rows(db.selectFrom('contact_notes').selectAll().where('contact_id', '=', contactId).orderBy('created_at').orderBy('id'));
  return rows.map((row) => camelRow(row));
}

/** A merge: the other record's notes become the survivor's; their ids, to give them back on undo. */
export async function moveNotes(q: Queries, fromId: string, intoId: string): Promise<string[]> {
  const rows = await q.rows(db.updateTable('contact_notes').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning('id'));
  return rows.map((row) => row.id);
}

/** Undoing a merge: exactly the notes it moved point at their own record again. */
export async function returnNotes(q: Queries, ids: readonly string[], fromId: string, intoId: string): Promise<void> {
  if (!ids.length) return;
  await q.write(
    db
      .updateTable('contact_notes')
      .set({ contact_id: fromId })
      .where('id', 'in', [...ids])
      .where('contact_id', '=', intoId),
  );
}

export async function deleteNotesOf(q: Queries, contactId: string): Promise<number> {
  return (await q.write(db.deleteFrom('contact_notes').where('contact_id', '=', contactId))).count;
}

/** Audit entries about a person of these actions, newest first, before `before` when given. */
export async function auditOf(q: Queries, contactId: string, actions: readonly AuditAction[], limit: number, before: Date | null) {
  let query = db
    .selectFrom('audience_audit')
    .select(['id', 'at', 'actor_id', 'action', 'detail', 'counts'])
    .where('contact_id', '=', contactId)
    .where('action', 'in', [...actions]);
  if (before) query = query.where('at', '<', before);
  const rows = await q.rows(query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit));
  return rows.map((row) => camelRow(row));
}

/** A person's consent and withdrawal records, newest first, before `before` when given. */
export async function consentRecordsOf(q: Queries, contactId: string, limit: number, before: Date | null) {
  let query = db.selectFrom('consents').select(['id', 'action', 'source', 'whatsapp_opt_in', 'email_opt_in', 'given_at']).where('contact_id', '=', contactId);
  if (before) query = query.where('given_at', '<', before);
  const rows = await q.rows(query.orderBy('given_at', 'desc').orderBy('id', 'desc').limit(limit));
  return rows.map((row) => camelRow(row));
}

/** When a held contact was created; undefined for an unknown or erased one. */
export async function contactCreatedAt(q: Queries, contactId: string): Promise<Date | undefined> {
  return (await q.first(db.selectFrom('contacts').select('created_at').where('id', '=', contactId).where('erased_at', 'is', null).where('merged_into_id', 'is', null)))?.created_at;
}

/** How deep a chain of merges is followed (A into B, B into C): far beyond any campaign's. */
const MERGE_CHAIN_LIMIT = 20;

/** The person a merged-away record now lives in, following later merges; undefined for any other id, or when they were erased. */
export async function mergedInto(q: Queries, id: string): Promise<string | undefined> {
  let current = id;
  for (let step = 0; step < MERGE_CHAIN_LIMIT; step++) {
    const row = await q.first(db.selectFrom('contacts').select(['merged_into_id', 'erased_at']).where('id', '=', current));
    if (!row || row.erased_at) return undefined;
    if (!row.merged_into_id) return current === id ? undefined : current;
    current = row.merged_into_id;
  }
  return undefined;
}
