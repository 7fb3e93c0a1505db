import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import type { JsonValue } from '../../kernel/module';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import type { ConsentSchema, ContactOriginSchema, ContactSchema } from './audience.entities';
import type { ContactMergeSchema, SnapshotClearedReason } from './audience.merge.entities';
import type { ContactRow } from './audience.repository';

/** The tables merges read and write: audience's own. */
type PeopleTables = InferKyselyDB<typeof ContactSchema | typeof ContactOriginSchema | typeof ConsentSchema | typeof ContactMergeSchema>;
const db = tables<PeopleTables>();

/** What a merged-away record's name reads as wherever it might still be shown. */
export const MERGED_NAME = '(fusionado con otro contacto)';

/** A contact's own fields: what a merge combines and restores, and what an import compares a row with. */
export const CONTACT_FIELDS = [
  'identity_key',
  'name',
  'phone',
  'email',
  'document_id',
  'territory_id',
  'neighbourhood',
  'interests',
  'tags',
  'whatsapp_opt_in',
  'whatsapp_opted_out_at',
  'email_opt_in',
  'email_opted_out_at',
  'updated_at',
] as const satisfies readonly (keyof ContactRow)[];

/** The columns of a contact that a merge combines and its undo restores. */
export type ContactFields = Pick<ContactRow, (typeof CONTACT_FIELDS)[number]>;

/** A contact's columns as `to_jsonb` gives them: times keep their microseconds, so a record can be put back exactly. */
export type ContactJson = { [column: string]: JsonValue };

/** A contact as a merge locks and reads it: its combinable columns and marks, and the whole row as JSON. */
export type LockedContact = Pick<ContactRow, 'id' | 'erased_at' | 'merged_into_id' | (typeof CONTACT_FIELDS)[number]> & { json: ContactJson };

/** Both contacts, locked in id order (two merges of the same pair queue instead of deadlocking); a missing id is missing from the answer. */
export function lockContacts(q: Queries, ids: readonly string[]): Promise<LockedContact[]> {
  return q.rows(sql<LockedContact>`
    select id, ${sql.raw(CONTACT_FIELDS.join(', '))}, erased_at, merged_into_id, to_jsonb(c) as json
    from contacts c where id = any(${ids}::uuid[]) order by id for update`);
}

/** A contact's columns as JSON (see `ContactJson`). */
export async function contactJson(q: Queries, id: string): Promise<ContactJson> {
  return (await q.first(sql<{ json: ContactJson }>`select to_jsonb(c) as json from contacts c where id = ${id}::uuid`))!.json;
}

/** Writes a contact's combinable columns from JSON (`ContactJson`, as a snapshot keeps them); `held` also clears the merge mark. */
export async function writeContactJson(q: Queries, id: string, json: ContactJson, options: { held?: boolean } = {}): Promise<void> {
  const columns = sql.raw(CONTACT_FIELDS.map((field) => `${field} = r.${field}`).join(', '));
  const held = options.held ? sql`, merged_into_id = null, merged_at = null` : sql``;
  await q.write(sql`update contacts c set ${columns} ${held} from jsonb_populate_record(null::contacts, ${JSON.stringify(json)}::jsonb) r where c.id = ${id}::uuid`);
}

/** When each contact last gave consent that opened WhatsApp and email (a `given` record with that channel). */
export async function latestConsentGiven(q: Queries, ids: readonly string[]): Promise<Map<string, { whatsapp: Date | null; email: Date | null }>> {
  const rows = await q.rows(
    db
      .selectFrom('consents')
      .select((consent) => [
        'contact_id',
        consent.fn.max<Date | null>('given_at').filterWhere('whatsapp_opt_in', '=', true).as('whatsapp'),
        consent.fn.max<Date | null>('given_at').filterWhere('email_opt_in', '=', true).as('email'),
      ])
      .where('contact_id', '=', (consent) => consent.fn.any(consent.val([...ids])))
      .where('action', '=', 'given')
      .groupBy('contact_id'),
  );
  return new Map(rows.map((row) => [row.contact_id, { whatsapp: row.whatsapp, email: row.email }]));
}

/** Every consent and withdrawal record of `fromId` now belongs to `intoId`, unchanged otherwise; their ids. */
export async function moveConsents(q: Queries, fromId: string, intoId: string): Promise<string[]> {
  const result = await q.write(db.updateTable('consents').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning('id'));
  return result.rows.map((row) => row.id);
}

export async function returnConsents(q: Queries, ids: readonly string[], fromId: string, intoId: string): Promise<void> {
  if (ids.length)
    await q.write(
      db
        .updateTable('consents')
        .set({ contact_id: fromId })
        .where('id', 'in', [...ids])
        .where('contact_id', '=', intoId),
    );
}

/** An origin a merge dropped (the survivor had the same one), as its undo writes it again. */
export type OriginRow = Pick<Selectable<PeopleTables['contact_origins']>, 'kind' | 'ref_id' | 'first_seen_at'>;

/**
 * `fromId`'s origins become `intoId`'s. One both have stays the survivor's (the key is contact,
 * kind and source); the other record's row goes, returned so the undo can put it back.
 */
export async function moveOrigins(q: Queries, fromId: string, intoId: string): Promise<{ moved: string[]; dropped: OriginRow[] }> {
  const dropped = await q.write(
    db
      .deleteFrom('contact_origins as f')
      .where('f.contact_id', '=', fromId)
      .where((f) =>
        f.exists(f.selectFrom('contact_origins as s').select('s.kind').where('s.contact_id', '=', intoId).whereRef('s.kind', '=', 'f.kind').whereRef('s.ref_id', '=', 'f.ref_id')),
      )
      .returning(['f.kind', 'f.ref_id', 'f.first_seen_at']),
  );
  const moved = await q.write(db.updateTable('contact_origins').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning(['kind', 'ref_id']));
  return { moved: moved.rows.map((row) => `${row.kind}:${row.ref_id}`), dropped: dropped.rows };
}

/** Undoes `moveOrigins`: the moved origins (`kind:refId`) return, the dropped ones are written again. */
export async function returnOrigins(q: Queries, moved: readonly string[], dropped: readonly OriginRow[], fromId: string, intoId: string): Promise<void> {
  const keys = moved.map((key) => ({ kind: key.slice(0, key.lastIndexOf(':')), ref: key.slice(key.lastIndexOf(':') + 1) }));
  if (keys.length) {
    await q.write(sql`
      update contact_origins o set contact_id = ${fromId}::uuid from unnest(${keys.map((key) => key.kind)}::text[], ${keys.map((key) => key.ref)}::uuid[]) as k(kind, ref_id)
      where o.contact_id = ${intoId}::uuid and o.kind = k.kind and o.ref_id = k.ref_id`);
  }
  if (dropped.length) {
    await q.write(sql`
      insert into contact_origins (contact_id, kind, ref_id, first_seen_at)
      select ${fromId}::uuid, k.kind, k.ref_id, k.first_seen_at
      from unnest(${dropped.map((row) => row.kind)}::text[], ${dropped.map((row) => row.ref_id)}::uuid[], ${dropped.map((row) => row.first_seen_at)}::timestamptz[]) as k(kind, ref_id, first_seen_at)
      on conflict do nothing`);
  }
}

/**
 * Leaves `fromId` as a tombstone: emptied of everything that identified the person (kept in the
 * merge's snapshot for the undo window), its identity freed for the survivor, pointing at it.
 */
export async function tombstone(q: Queries, fromId: string, intoId: string, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('contacts')
      .set({
        identity_key: `merged:${fromId}`,
        name: MERGED_NAME,
        phone: null,
        email: null,
        document_id: null,
        territory_id: null,
        neighbourhood: null,
        interests: [],
        tags: [],
        merged_into_id: intoId,
        merged_at: at,
        updated_at: at,
      })
      .where('id', '=', fromId),
  );
}

/** Writes a survivor's combined columns. */
export async function writeContactFields(q: Queries, id: string, fields: ContactFields): Promise<void> {
  await q.write(db.updateTable('contacts').set(fields).where('id', '=', id));
}

type MergeRow = Selectable<PeopleTables['contact_merges']>;

/** A merge as kept. */
export type MergeRecord = CamelCased<MergeRow>;

/** What a new merge is written with: the undo and erasure marks start empty. */
export type NewMerge = Pick<MergeRecord, 'id' | 'intoContactId' | 'fromContactId' | 'mergedBy' | 'mergedAt' | 'undoUntil' | 'moved' | 'counts' | 'snapshot'>;

export async function insertMerge(q: Queries, merge: NewMerge): Promise<void> {
  // Objects, not arrays: pg sends them as their JSON text.
  await q.write(db.insertInto('contact_merges').values(snakeRow(merge)));
}

/**
 * Merges with the survivor's name now (a look-up by its key, not a join, so that the keyset's
 * columns name the merge's own).
 */
function mergeSelect() {
  return (
    db
      .selectFrom('contact_merges as m')
      .selectAll('m')
      .select((m) => m.selectFrom('contacts as c').select('c.name').whereRef('c.id', '=', 'm.into_contact_id').$asScalar().as('into_name'))
      // The other record's name when it is a person of its own again (the merge undone); null while merged or once erased.
      .select((m) =>
        m
          .selectFrom('contacts as f')
          .select('f.name')
          .whereRef('f.id', '=', 'm.from_contact_id')
          .where('f.merged_into_id', 'is', null)
          .where('f.erased_at', 'is', null)
          .$asScalar()
          .as('from_name_now'),
      )
  );
}

const mergeOf = (row: MergeRow & { into_name: string; from_name_now: string | null }) => camelRow(row);

/** A merge as it is shown: with the survivor's name now, and the other record's once it stands alone again. */
export type MergeView = ReturnType<typeof mergeOf>;

/** A merge; locked when asked. */
export async function findMerge(q: Queries, id: string, lock = false): Promise<MergeView | undefined> {
  const query = mergeSelect().where('m.id', '=', id);
  const row = await q.first(lock ? query.forUpdate() : query);
  return row && mergeOf(row);
}

/** Recent merges, newest first, a page at a time; one contact's (as survivor or merged-away record) when asked. */
export async function mergesPage(q: Queries, filter: { contactId?: string | undefined }, page: PageRequest): Promise<Page<MergeView>> {
  let query = mergeSelect();
  const contactId = filter.contactId;
  if (contactId) query = query.where((m) => m.or([m('m.into_contact_id', '=', contactId), m('m.from_contact_id', '=', contactId)]));
  const found = await queryPage(q, query, ['merged_at', 'id'], 'desc', page);
  return mapPage(found, mergeOf);
}

export async function markUndone(q: Queries, id: string, actorId: string, at: Date): Promise<void> {
  await q.write(
    db.updateTable('contact_merges').set({ undone_at: at, undone_by: actorId, snapshot: null, snapshot_cleared_at: at, snapshot_cleared_reason: 'undone' }).where('id', '=', id),
  );
}

/**
 * The merges that made a person what they are: those into this contact and, since a record merged
 * away may itself have had others merged into it before, those into each of them, not undone.
 */
export async function mergeChain(q: Queries, contactId: string): Promise<Pick<MergeRecord, 'id' | 'fromContactId' | 'mergedAt' | 'snapshot'>[]> {
  const rows = await q.rows(sql<Pick<MergeRow, 'id' | 'from_contact_id' | 'merged_at' | 'snapshot'>>`
    with recursive chain as (
      select id, from_contact_id, merged_at, snapshot from contact_merges where into_contact_id = ${contactId}::uuid and undone_at is null
      union
      select m.id, m.from_contact_id, m.merged_at, m.snapshot from contact_merges m join chain c on m.into_contact_id = c.from_contact_id where m.undone_at is null
    )
    select * from chain order by merged_at, id`);
  return rows.map((row) => camelRow(row));
}

/** Drops what these merges kept about the people (their records before, rows removed), for a reason; how many had something. */
export async function clearSnapshots(q: Queries, ids: readonly string[], reason: SnapshotClearedReason, at: Date): Promise<number> {
  if (!ids.length) return 0;
  const result = await q.write(
    db
      .updateTable('contact_merges')
      .set({ snapshot: null, snapshot_cleared_at: at, snapshot_cleared_reason: reason })
      .where('id', 'in', [...ids])
      .where('snapshot', 'is not', null),
  );
  return result.count;
}

/** Clears the snapshots of merges whose undo window has ended, a batch at a time; how many. */
export async function clearExpiredSnapshots(q: Queries, now: Date, batch = 500): Promise<number> {
  const result = await q.write(
    db
      .updateTable('contact_merges')
      .set({ snapshot: null, snapshot_cleared_at: now, snapshot_cleared_reason: 'expired' })
      .where('id', 'in', (merge) =>
        merge.selectFrom('contact_merges').select('id').where('snapshot', 'is not', null).where('undo_until', '<=', now).orderBy('undo_until').limit(batch),
      ),
  );
  return result.count;
}
