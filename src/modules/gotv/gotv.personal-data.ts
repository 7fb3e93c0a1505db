import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { MergeRefusedError, type PersonalDataHolder, type PersonKeys } from '../../kernel/module';
import { sql, tables, type Sql } from '../../kernel/sql';
import { ERASED_NAME } from '../audience';
import type { PollingStationSchema, TurnoutReportSchema, VoterContactSchema, VoterSchema } from './gotv.entities';

type GotvTables = InferKyselyDB<typeof PollingStationSchema | typeof VoterSchema | typeof VoterContactSchema | typeof TurnoutReportSchema>;
const db = tables<GotvTables>();

/** A voter's row as the export reads it, with its station's name. */
type VoterRow = Pick<
  Selectable<GotvTables['gotv_voters']>,
  'id' | 'name' | 'document_id' | 'phone' | 'polling_station_id' | 'table_number' | 'priority' | 'status' | 'voted_at' | 'created_at' | 'updated_at'
> & { station_name: Selectable<GotvTables['gotv_polling_stations']>['name'] };

/**
 * The ids of the person's voter rows: linked to their contact, or linked to no contact and carrying
 * their cédula (a list imported without linking; a cédula is one citizen's). A voter linked to
 * another contact is that record's, whatever it carries. Each branch is an index scan.
 */
function personsVoterIds(personId: string, keys: PersonKeys): Sql<never> {
  return sql`(select id from gotv_voters where contact_id = ${personId}::uuid
    union all select id from gotv_voters where contact_id is null and document_id = any(${keys.documentIds}::text[]))`;
}

/**
 * A person as a confirmed voter: where they vote, how they were chased, whether they voted. Their
 * voter rows are those linked to their contact and those imported without a link that carry their
 * cédula (`personsVoterIds`). Erasure keeps the voter's row with its station, table, status and
 * times (the station tallies, the live map, the projection and the dashboard count it) and their
 * reports and contact outcomes, but not their name, cédula or phone, nor the callers' notes about
 * them. The cédula column is unique and required: it gets a stand-in that no real cédula (digits
 * only) can equal. Their phone is also removed from any other voter carrying it. A list imported
 * after the erasure cannot add them again (`importVoters` refuses their cédula, drops their phone).
 *
 * A merge moves the other record's voter row to the survivor. When both records are confirmed
 * voters the merge is refused: each voter row is a cédula with its own station, table and turnout,
 * and a person votes once, so which one is right is for staff to settle in GOTV first (remove the
 * wrong voter, or unlink it from its contact), not for a merge to guess.
 */
export const gotvPersonalData: PersonalDataHolder = {
  freeText: [
    { table: 'gotv_incidents', column: 'description', kind: 'incidentDescriptions' },
    { table: 'gotv_voter_contacts', column: 'note', kind: 'callerNotes', record: 'voter_id' },
  ],
  /** A linked voter's cédula and phone: a voter imported again for the person, unlinked, carries them. */
  async keys(q, personId) {
    const voters = await q.rows(db.selectFrom('gotv_voters').select(['document_id', 'phone']).where('contact_id', '=', personId));
    return {
      // An erased voter's stand-in cédula starts with `~`: it is nobody's.
      documentIds: voters.flatMap((voter) => (/^\d+$/.test(voter.document_id) ? [voter.document_id] : [])),
      phones: voters.flatMap((voter) => (voter.phone ? [voter.phone] : [])),
    };
  },

  async export(q, personId, keys) {
    const voters = await q.rows(sql<VoterRow>`
      select v.id, v.name, v.document_id, v.phone, v.polling_station_id, s.name as station_name, v.table_number, v.priority, v.status,
        v.voted_at, v.created_at, v.updated_at
      from gotv_voters v join gotv_polling_stations s on s.id = v.polling_station_id
      where v.id in ${personsVoterIds(personId, keys)} order by v.created_at, v.id`);
    const ids = voters.map((voter) => voter.id);
    const calls = ids.length
      ? await q.rows(db.selectFrom('gotv_voter_contacts').select(['voter_id', 'outcome', 'note', 'created_at']).where('voter_id', 'in', ids).orderBy('created_at'))
      : [];
    const reports = ids.length
      ? await q.rows(db.selectFrom('gotv_turnout_reports').select(['voter_id', 'station_id', 'reported_at', 'rehearsal']).where('voter_id', 'in', ids).orderBy('reported_at'))
      : [];
    return {
      voters: voters.map((voter) => ({
        id: voter.id,
        name: voter.name,
        documentId: voter.document_id,
        phone: voter.phone,
        pollingStationId: voter.polling_station_id,
        pollingStationName: voter.station_name,
        tableNumber: voter.table_number,
        priority: voter.priority,
        status: voter.status,
        votedAt: voter.voted_at,
        createdAt: voter.created_at,
        updatedAt: voter.updated_at,
      })),
      contactAttempts: calls.map((call) => ({ voterId: call.voter_id, outcome: call.outcome, note: call.note, at: call.created_at })),
      turnoutReports: reports.map((report) => ({ voterId: report.voter_id, pollingStationId: report.station_id, reportedAt: report.reported_at, rehearsal: report.rehearsal })),
    };
  },

  async erase(q, personId, { keys }) {
    const notes = await q.write(sql`update gotv_voter_contacts set note = null where note is not null and voter_id in ${personsVoterIds(personId, keys)}`);
    // Neither the station nor the status changes, so the tallies' triggers have nothing to do.
    const voters = await q.write(sql`
      update gotv_voters v set name = ${ERASED_NAME}, document_id = '~' || right(replace(v.id::text, '-', ''), 19), phone = null, updated_at = now()
      where v.id in ${personsVoterIds(personId, keys)}`);
    // Another cédula's voter with the person's phone (a family's shared phone, or a mistyped cédula) loses the phone, not its name.
    // No index on the phone: one scan of the voters, about 0.1 s for 200,000 (an erasure is rare; imports stay as fast).
    const phones = keys.phones.length ? await q.write(sql`update gotv_voters set phone = null, updated_at = now() where phone = any(${keys.phones}::text[])`) : { count: 0 };
    return { voters: voters.count, notesRemoved: notes.count, phonesRemoved: phones.count };
  },

  async merge(q, fromId, intoId) {
    const voters = await q.rows(db.selectFrom('gotv_voters').select(['id', 'contact_id']).where('contact_id', 'in', [fromId, intoId]).orderBy('id').forUpdate());
    const theirs = voters.filter((voter) => voter.contact_id === fromId);
    if (theirs.length && voters.length > theirs.length) {
      throw new MergeRefusedError(
        'gotv',
        'Both contacts are confirmed GOTV voters, each with its own cédula, polling station and turnout: a person votes once. ' +
          'Remove the wrong voter (DELETE /api/gotv/voters/{id}) or unlink it from its contact (PATCH with contactId null), then merge.',
      );
    }
    // The voter's station and status stay as they are, so the tallies' triggers have nothing to do.
    const moved = theirs.length ? await q.write(db.updateTable('gotv_voters').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning('id')) : { rows: [] };
    return { moved: { gotv_voters: moved.rows.map((row) => row.id) } };
  },

  async unmerge(q, moves, fromId, intoId) {
    const ids = moves.moved.gotv_voters ?? [];
    if (ids.length) await q.write(db.updateTable('gotv_voters').set({ contact_id: fromId }).where('id', 'in', ids).where('contact_id', '=', intoId));
  },
};
