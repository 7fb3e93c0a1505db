import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import type { VoterSchema } from './gotv.entities';

const db = tables<InferKyselyDB<typeof VoterSchema>>();

// Read-only views of GOTV facts for other modules (volunteers): who worked on election day, and
// which confirmed voters exist and whether they voted. Nothing here writes.

/** One piece of brigade work: a turnout report or a contact attempt, by the user who made it. */
export interface BrigadeWork {
  source: 'gotv_report' | 'gotv_contact';
  id: string;
  userId: string;
  /** When it happened (a report's stated time; a contact attempt's recording). */
  occurredAt: Date;
  /** When GOTV recorded it: the order the work is read in. */
  recordedAt: Date;
  territoryId: string | null;
  /** A report's kind (`voter`, `count`) or a contact's outcome (`reached`, `no_answer`…). */
  detail: string;
  rehearsal: boolean;
}

/**
 * Turnout reports and contact attempts recorded at or after `since`, oldest recorded first, at
 * most `limit`. Both tables are read by their time indexes; a caller pages by the last `recordedAt`.
 */
export function brigadeWorkSince(q: Queries, since: Date, limit: number): Promise<BrigadeWork[]> {
  return q.rows(sql<BrigadeWork>`
    select * from (
      (select 'gotv_report' as source, r.id, r.reported_by_id as "userId", r.reported_at as "occurredAt", r.received_at as "recordedAt",
              s.territory_id as "territoryId", r.kind as detail, r.rehearsal
       from gotv_turnout_reports r join gotv_polling_stations s on s.id = r.station_id
       where r.received_at >= ${since}::timestamptz order by r.received_at limit ${limit})
      union all
      (select 'gotv_contact', c.id, c.user_id, c.created_at, c.created_at, s.territory_id, c.outcome, false
       from gotv_voter_contacts c join gotv_voters v on v.id = c.voter_id join gotv_polling_stations s on s.id = v.polling_station_id
       where c.created_at >= ${since}::timestamptz order by c.created_at limit ${limit})
    ) w order by "recordedAt", id limit ${limit}`);
}

/**
 * Confirmed voters as other modules may read them inside their statements: id, status and when
 * they voted, nothing that names them. Use as `join ${gotvVoterStatuses()} gv on gv.id = x.voter_id`.
 */
export function gotvVoterStatuses(): Sql<never> {
  return sql`(select id, status, voted_at from gotv_voters)`;
}

/** The confirmed voters with these ids or cédulas: each given key → the voter's id (unknown keys are absent). */
export async function findVoterIds(
  q: Queries,
  keys: { ids?: readonly string[]; documentIds?: readonly string[] },
): Promise<{ byId: Set<string>; byDocument: Map<string, string> }> {
  const ids = [...new Set(keys.ids ?? [])];
  const documents = [...new Set(keys.documentIds ?? [])];
  const rows = await q.rows(
    db
      .selectFrom('gotv_voters')
      .select(['id', 'document_id'])
      .where((voter) => voter.or([voter('id', '=', voter.fn.any(voter.val(ids))), voter('document_id', '=', voter.fn.any(voter.val(documents)))])),
  );
  const wanted = new Set(ids);
  const wantedDocuments = new Set(documents);
  return {
    byId: new Set(rows.filter((row) => wanted.has(row.id)).map((row) => row.id)),
    byDocument: new Map(rows.filter((row) => wantedDocuments.has(row.document_id)).map((row) => [row.document_id, row.id])),
  };
}
