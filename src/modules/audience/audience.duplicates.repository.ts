import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow } from '../../kernel/rows';
import { sql, tables, type Database, type Queries, type Sql } from '../../kernel/sql';
import type { ContactSchema } from './audience.entities';
import type { DuplicateCandidateSchema, DuplicateDismissalSchema, DuplicateRecheckSchema } from './audience.merge.entities';

/** The tables the duplicate finder reads and writes: audience's own. */
type DuplicateTables = InferKyselyDB<typeof ContactSchema | typeof DuplicateDismissalSchema | typeof DuplicateCandidateSchema | typeof DuplicateRecheckSchema>;
const db = tables<DuplicateTables>();

/** Held contacts (not erased, not merged away) among these ids. */
export async function heldContactIds(q: Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await q.rows(
    db
      .selectFrom('contacts')
      .select('id')
      .where('id', 'in', [...ids])
      .where('erased_at', 'is', null)
      .where('merged_into_id', 'is', null),
  );
  return new Set(rows.map((row) => row.id));
}

/** Records that two contacts are not one person (the smaller id first); the record, new or as it was. */
export async function insertDismissal(q: Queries, a: string, b: string, actorId: string, at: Date) {
  await q.write(
    db
      .insertInto('contact_duplicate_dismissals')
      .values({ contact_a_id: a, contact_b_id: b, dismissed_by: actorId, dismissed_at: at })
      .onConflict((conflict) => conflict.columns(['contact_a_id', 'contact_b_id']).doNothing()),
  );
  const row = await q.first(db.selectFrom('contact_duplicate_dismissals').selectAll().where('contact_a_id', '=', a).where('contact_b_id', '=', b));
  // Only the removal of a contact takes its dismissals away, and the caller found both held.
  if (!row) throw new Error('The dismissal just written is gone: a contact of the pair was removed meanwhile.');
  return camelRow(row);
}

/** Why two contacts may be one person: the duplicate finder's reasons, strongest first. */
export const DUPLICATE_REASONS = ['same_document', 'same_phone_digits', 'same_email', 'same_name_territory', 'similar_name'] as const;
export type DuplicateReason = (typeof DUPLICATE_REASONS)[number];

/** How similar two names must be (pg_trgm's similarity of their `contact_name_key`) to count as `similar_name`. */
export const SIMILAR_NAME = 0.6;

/**
 * When more contacts than this changed since the last catch-up, every pair is computed again in
 * one pass over the contacts instead of looking each changed one up. Measured at 1,000,000
 * contacts (docs/benchmarks.md, "Duplicate finder"): the look-ups cost about 0.05 ms a contact
 * (10,000 in 0.6 s, 50,000 in 2.1 s), the pass about 15 s; here the pass is still dearer, and the
 * ids still a small message.
 */
export const RECOMPUTE_ALL_ABOVE = 100_000;

/** One catch-up at a time, in every process: each sees the pairs the one before it wrote. */
const CATCH_UP_LOCK = sql`hashtext('comando:audience:duplicates')`;

/**
 * Scores candidate pairs (`a_id < b_id`, from `candidates`): every reason that holds, read from both
 * contacts, and 1 − ∏(1 − wᵢ) over same_document .9, same_phone_digits .8, same_email .6,
 * same_name_territory .7 and similar_name .5 × similarity. Pairs with a contact no longer held, and
 * dismissed pairs, are dropped. Phones are E.164 (every writer stores them so: `normalisePhone`),
 * so "the same phone digits" is the same last ten characters. Each contact is read by its key (a
 * lateral look-up the planner cannot turn into a scan of the table, whatever it guesses of the
 * candidates' number).
 */
function judged(candidates: Sql<never>): Sql<{ a_id: string; b_id: string; score: string; similarity: number; reasons: DuplicateReason[] }> {
  return sql`
    with candidates as (${candidates}),
    judged as (
      select c.a_id, c.b_id, f.*, f.similarity >= ${SIMILAR_NAME}::real and not f.same_name_territory as similar_name
      from candidates c
      cross join lateral (select name, phone, email, document_id, territory_id from contacts where id = c.a_id and erased_at is null and merged_into_id is null offset 0) a
      cross join lateral (select name, phone, email, document_id, territory_id from contacts where id = c.b_id and erased_at is null and merged_into_id is null offset 0) b
      cross join lateral (select contact_name_key(a.name) as a_key, contact_name_key(b.name) as b_key) k
      cross join lateral (
        select similarity(k.a_key, k.b_key) as similarity,
          coalesce(a.document_id = b.document_id, false) as same_document,
          coalesce(right(a.phone, 10) = right(b.phone, 10), false) as same_phone_digits,
          coalesce(lower(a.email) = lower(b.email), false) as same_email,
          coalesce(a.territory_id = b.territory_id and k.a_key = k.b_key, false) as same_name_territory
      ) f
      where not exists (select 1 from contact_duplicate_dismissals d where d.contact_a_id = c.a_id and d.contact_b_id = c.b_id)
    )
    select s.a_id, s.b_id,
      round((1 - (1 - 0.9 * s.same_document::int) * (1 - 0.8 * s.same_phone_digits::int) * (1 - 0.6 * s.same_email::int)
        * (1 - 0.7 * s.same_name_territory::int) * (1 - 0.5 * s.similarity * s.similar_name::int))::numeric, 3) as score,
      s.similarity,
      array_remove(array[case when s.same_document then 'same_document' end, case when s.same_phone_digits then 'same_phone_digits' end,
        case when s.same_email then 'same_email' end, case when s.same_name_territory then 'same_name_territory' end,
        case when s.similar_name then 'similar_name' end], null) as reasons
    from judged s`;
}

/**
 * Every candidate pair of held contacts, from equality joins over their keys computed once each
 * (hash or merge joins: the cost grows with the contacts and the pairs found, never with the
 * square of a group). For a recount of everything.
 */
function allCandidates(): Sql<never> {
  return sql`
    with held as materialized (
      select id, document_id, territory_id, contact_name_key(name) as name_key, right(phone, 10) as phone_key, lower(email) as email_key
      from contacts where erased_at is null and merged_into_id is null
    )
    select a.id as a_id, b.id as b_id from held a join held b on b.document_id = a.document_id and a.id < b.id
    union select a.id, b.id from held a join held b on b.email_key = a.email_key and a.id < b.id
    union select a.id, b.id from held a join held b on b.phone_key = a.phone_key and a.id < b.id
    union select a.id, b.id from held a join held b on b.territory_id = a.territory_id and b.name_key = a.name_key and a.id < b.id`;
}

/**
 * The candidate pairs of these contacts (those still held), each found through an index of
 * `contacts` from the contact's own keys: the cédula (`contacts_document_id`), the email
 * (`contacts_email_lower`), the last ten digits of the phone as the beginning of the reversed phone
 * (`contacts_phone_suffix`, the people search's), the name in its territory (`contacts_territory_name_key`).
 */
function candidatesOf(ids: readonly string[]): Sql<never> {
  const other = sql`o.id <> c.id and o.erased_at is null and o.merged_into_id is null`;
  return sql`
    with changed as (
      select id, document_id, lower(email) as email_key, reverse(right(phone, 10)) as phone_reversed, territory_id, contact_name_key(name) as name_key
      from contacts where id = any(${ids}::uuid[]) and erased_at is null and merged_into_id is null
    ),
    found as (
      select c.id as x, o.id as y from changed c join contacts o on o.document_id = c.document_id where ${other}
      union all select c.id, o.id from changed c join contacts o on lower(o.email) = c.email_key where ${other}
      union all select c.id, o.id from changed c join contacts o
        on reverse(o.phone) ~>=~ c.phone_reversed and reverse(o.phone) ~<~ (c.phone_reversed || '~') where ${other}
      union all select c.id, o.id from changed c join contacts o on o.territory_id = c.territory_id and contact_name_key(o.name) = c.name_key where ${other}
    )
    select distinct least(x, y) as a_id, greatest(x, y) as b_id from found`;
}

export interface CatchUp {
  /** Contacts whose pairs were computed again (0 when everything was). */
  contacts: number;
  /** Every pair was computed again. */
  everything: boolean;
  /** Pairs written. */
  pairs: number;
}

/**
 * Brings the kept pairs up to date with the contacts queued since the last catch-up (by the
 * triggers of migration DuplicatePairsKept, in the writers' transactions): their pairs are
 * removed and found again from what is committed now, or, past `RECOMPUTE_ALL_ABOVE` contacts or
 * when the queue asks for everything, every pair is. One catch-up at a time (an advisory lock):
 * with `wait`, this one waits for a running one and then takes what is left; without, it gives up
 * (undefined). Nothing queued: nothing done, without a transaction. Changes committed while it
 * runs stay queued for the next.
 */
export async function catchUpDuplicates(database: Database, options: { wait: boolean }): Promise<CatchUp | undefined> {
  const queued = await database.first(sql<{ queued: boolean }>`select exists (select 1 from contact_duplicate_queue) as queued`);
  if (!queued?.queued) return { contacts: 0, everything: false, pairs: 0 };
  return database.transaction(async (tx) => {
    if (options.wait) await tx.first(sql`select pg_advisory_xact_lock(${CATCH_UP_LOCK})`);
    else if (!(await tx.first(sql<{ taken: boolean }>`select pg_try_advisory_xact_lock(${CATCH_UP_LOCK}) as taken`))?.taken) return undefined;
    // Compiling these statements would take longer than running them.
    await tx.write(sql`set local jit = off`);
    const taken = (await tx.first(sql<{ everything: boolean | null; contacts: number; ids: string[] | null }>`
      with taken as (delete from contact_duplicate_queue returning contact_id)
      select bool_or(contact_id is null) as everything, count(distinct contact_id)::int as contacts,
        case when count(distinct contact_id) <= ${RECOMPUTE_ALL_ABOVE}::int then array_agg(distinct contact_id) filter (where contact_id is not null) end as ids
      from taken`))!;
    if (taken.everything || !taken.ids) {
      if (!taken.everything && !taken.contacts) return { contacts: 0, everything: false, pairs: 0 };
      await tx.write(db.deleteFrom('contact_duplicate_pairs'));
      const written = await tx.write(sql`
        insert into contact_duplicate_pairs (contact_a_id, contact_b_id, score, name_similarity, reasons)
        select a_id, b_id, score, similarity, reasons from (${judged(allCandidates())}) p`);
      // The planner's picture of the table, which changed wholesale (one contact's pairs by its ids, not by walking the order).
      await tx.write(sql`analyze contact_duplicate_pairs`);
      return { contacts: 0, everything: true, pairs: written.count };
    }
    await tx.write(sql`delete from contact_duplicate_pairs where contact_a_id = any(${taken.ids}::uuid[]) or contact_b_id = any(${taken.ids}::uuid[])`);
    const written = await tx.write(sql`
      insert into contact_duplicate_pairs (contact_a_id, contact_b_id, score, name_similarity, reasons)
      select a_id, b_id, score, similarity, reasons from (${judged(candidatesOf(taken.ids))}) p`);
    return { contacts: taken.contacts, everything: false, pairs: written.count };
  });
}

/** The contact columns a pair shows of each side, under the side's prefix: `a_name`, `b_name`… */
type PairSide<Side extends 'a' | 'b'> = {
  [Column in 'name' | 'phone' | 'email' | 'territory_id' | 'created_at' as `${Side}_${Column}`]: Selectable<DuplicateTables['contacts']>[Column];
};

/** A kept pair with both contacts; its reasons are those the finder writes (`judged`). */
export type DuplicatePairRow = Omit<Selectable<DuplicateTables['contact_duplicate_pairs']>, 'reasons'> & { reasons: DuplicateReason[] } & PairSide<'a'> & PairSide<'b'>;

/**
 * A page of the kept pairs (see `catchUpDuplicates`), best first: score, then ids, each pair once
 * (smaller id first), with both contacts. Keyset paging on (−score, a, b), which
 * `contact_duplicate_pairs_rank` holds in order, so a later page costs what the first does; one
 * contact's pairs through the two id indexes. Contacts not held and dismissed pairs are left out
 * here too, though the catch-up already removed them.
 */
export function duplicatePairs(
  q: Queries,
  filter: { contactId?: string | undefined },
  limit: number,
  after?: { score: string; a: string; b: string },
): Promise<DuplicatePairRow[]> {
  const clauses: Sql<never>[] = [];
  if (filter.contactId) clauses.push(sql`(p.contact_a_id = ${filter.contactId}::uuid or p.contact_b_id = ${filter.contactId}::uuid)`);
  if (after) clauses.push(sql`(-p.score, p.contact_a_id, p.contact_b_id) > (-${after.score}::numeric, ${after.a}::uuid, ${after.b}::uuid)`);
  return q.rows(sql<DuplicatePairRow>`
    select p.contact_a_id, p.contact_b_id, p.score, p.name_similarity, p.reasons,
      a.name as a_name, a.phone as a_phone, a.email as a_email, a.territory_id as a_territory_id, a.created_at as a_created_at,
      b.name as b_name, b.phone as b_phone, b.email as b_email, b.territory_id as b_territory_id, b.created_at as b_created_at
    from contact_duplicate_pairs p
    join contacts a on a.id = p.contact_a_id and a.erased_at is null and a.merged_into_id is null
    join contacts b on b.id = p.contact_b_id and b.erased_at is null and b.merged_into_id is null
    where not exists (select 1 from contact_duplicate_dismissals d where d.contact_a_id = p.contact_a_id and d.contact_b_id = p.contact_b_id)
      ${clauses.length ? sql`and ${sql.join(clauses, ' and ')}` : sql``}
    order by -p.score, p.contact_a_id, p.contact_b_id limit ${limit}::int`);
}
