import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql, tables, type Queries } from '../../kernel/sql';
import type { ContactSchema } from './audience.entities';
import type { DuplicateDismissalSchema } from './audience.merge.entities';

/** The tables the duplicate finder reads and writes: audience's own. */
const db = tables<InferKyselyDB<typeof ContactSchema | typeof DuplicateDismissalSchema>>();

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
  return (await q.first(
    db
      .selectFrom('contact_duplicate_dismissals')
      .select(['contact_a_id', 'contact_b_id', 'dismissed_by', 'dismissed_at'])
      .where('contact_a_id', '=', a)
      .where('contact_b_id', '=', b),
  ))!;
}

/** Why two contacts may be one person: the duplicate finder's reasons, strongest first. */
export const DUPLICATE_REASONS = ['same_document', 'same_phone_digits', 'same_email', 'same_name_territory', 'similar_name'] as const;
export type DuplicateReason = (typeof DUPLICATE_REASONS)[number];

/** How similar two names must be (pg_trgm's similarity of their `contact_name_key`) to count as `similar_name`. */
export const SIMILAR_NAME = 0.6;

export interface DuplicatePairRow {
  a_id: string;
  b_id: string;
  score: string;
  similarity: number;
  reasons: DuplicateReason[];
  a_name: string;
  a_phone: string | null;
  a_email: string | null;
  a_territory_id: string | null;
  a_created_at: Date;
  b_name: string;
  b_phone: string | null;
  b_email: string | null;
  b_territory_id: string | null;
  b_created_at: Date;
}

/**
 * Pairs of held contacts (not erased, not merged away) that may be one person, not dismissed,
 * each once (smaller id first), best first: score, then ids. A pair is found by a shared
 * identifier (the same cédula, the same email, the same phone digits: the last ten, whatever the
 * format) or by the same name (lower case, no accents or punctuation) in the same territory. Then
 * every reason that holds is listed, `similar_name` when the names are alike (pg_trgm similarity
 * at least `SIMILAR_NAME`) but not already the same in one territory, and scored:
 * 1 − ∏(1 − wᵢ) over same_document .9, same_phone_digits .8, same_name_territory .7,
 * same_email .6 and similar_name .5 × similarity. Every candidate comes from an equality join
 * (hash or merge), so the cost grows with the contacts and the pairs found, never with the square
 * of a group; names are compared only within the pairs found.
 */
export function duplicatePairs(
  q: Queries,
  filter: { contactId?: string | undefined },
  limit: number,
  after?: { score: string; a: string; b: string },
): Promise<DuplicatePairRow[]> {
  // One contact's pairs: each join starts from that contact.
  const one = filter.contactId ? sql`and (a.id = ${filter.contactId}::uuid or b.id = ${filter.contactId}::uuid)` : sql``;
  const page = after ? sql`and (p.score < ${after.score}::numeric or (p.score = ${after.score}::numeric and (p.a_id, p.b_id) > (${after.a}::uuid, ${after.b}::uuid)))` : sql``;
  return q.rows(sql<DuplicatePairRow>`
    with held as materialized (
      select id, name, phone, email, document_id, territory_id, created_at, contact_name_key(name) as name_key,
        nullif(right(regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g'), 10), '') as phone_digits,
        lower(email) as email_key
      from contacts where erased_at is null and merged_into_id is null
    ),
    candidates as (
      select a.id as a_id, b.id as b_id from held a join held b on b.document_id = a.document_id and a.id < b.id ${one}
      union select a.id, b.id from held a join held b on b.email_key = a.email_key and a.id < b.id ${one}
      union select a.id, b.id from held a join held b on b.phone_digits = a.phone_digits and a.id < b.id ${one}
      union select a.id, b.id from held a join held b on b.territory_id = a.territory_id and b.name_key = a.name_key and a.id < b.id ${one}
    ),
    judged as (
      select c.a_id, c.b_id, a.name as a_name, a.phone as a_phone, a.email as a_email, a.territory_id as a_territory_id, a.created_at as a_created_at,
        b.name as b_name, b.phone as b_phone, b.email as b_email, b.territory_id as b_territory_id, b.created_at as b_created_at,
        similarity(a.name_key, b.name_key) as similarity,
        coalesce(a.document_id = b.document_id, false) as same_document,
        coalesce(a.phone_digits = b.phone_digits, false) as same_phone_digits,
        coalesce(a.email_key = b.email_key, false) as same_email,
        coalesce(a.territory_id = b.territory_id and a.name_key = b.name_key, false) as same_name_territory
      from candidates c join held a on a.id = c.a_id join held b on b.id = c.b_id
      where not exists (select 1 from contact_duplicate_dismissals d where d.contact_a_id = c.a_id and d.contact_b_id = c.b_id)
    ),
    scored as (
      select j.*, j.similarity >= ${SIMILAR_NAME}::real and not j.same_name_territory as similar_name from judged j
    ),
    pairs as (
      select s.*,
        round((1 - (1 - 0.9 * s.same_document::int) * (1 - 0.8 * s.same_phone_digits::int) * (1 - 0.6 * s.same_email::int)
          * (1 - 0.7 * s.same_name_territory::int) * (1 - 0.5 * s.similarity * s.similar_name::int))::numeric, 3) as score,
        array_remove(array[case when s.same_document then 'same_document' end, case when s.same_phone_digits then 'same_phone_digits' end,
          case when s.same_email then 'same_email' end, case when s.same_name_territory then 'same_name_territory' end,
          case when s.similar_name then 'similar_name' end], null) as reasons
      from scored s
    )
    select p.* from pairs p where true ${page}
    order by p.score desc, p.a_id, p.b_id limit ${limit}::int`);
}
