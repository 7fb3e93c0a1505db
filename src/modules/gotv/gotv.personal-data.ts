import type { InferKyselyDB } from '@mikro-orm/sql';
import { MergeRefusedError, type PersonalDataHolder } from '../../kernel/module';
import { sql, tables } from '../../kernel/sql';
import { ERASED_NAME } from '../audience';
import type { PollingStationSchema, TurnoutReportSchema, VoterContactSchema, VoterSchema } from './gotv.entities';

type GotvTables = InferKyselyDB<typeof PollingStationSchema | typeof VoterSchema | typeof VoterContactSchema | typeof TurnoutReportSchema>;
const db = tables<GotvTables>();

/**
 * A person as a confirmed voter: where they vote, how they were chased, whether they voted.
 * Erasure keeps the voter's row with its station, table, status and times (the station tallies,
 * the live map, the projection and the dashboard count it) and their reports and contact outcomes,
 * but not their name, cédula or phone, nor the callers' notes about them. The cédula column is
 * unique and required: it gets a stand-in that no real cédula (digits only) can equal.
 *
 * A merge moves the other record's voter row to the survivor. When both records are confirmed
 * voters the merge is refused: each voter row is a cédula with its own station, table and turnout,
 * and a person votes once, so which one is right is for staff to settle in GOTV first (remove the
 * wrong voter, or unlink it from its contact), not for a merge to guess.
 */
export const gotvPersonalData: PersonalDataHolder = {
  async export(q, personId) {
    const voters = await q.rows(
      db
        .selectFrom('gotv_voters as v')
        .innerJoin('gotv_polling_stations as s', 's.id', 'v.polling_station_id')
        .select([
          'v.id',
          'v.name',
          'v.document_id',
          'v.phone',
          'v.polling_station_id',
          's.name as station_name',
          'v.table_number',
          'v.priority',
          'v.status',
          'v.voted_at',
          'v.created_at',
          'v.updated_at',
        ])
        .where('v.contact_id', '=', personId)
        .orderBy('v.created_at'),
    );
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

  async erase(q, personId) {
    const notes = await q.write(
      db
        .updateTable('gotv_voter_contacts')
        .set({ note: null })
        .where('voter_id', 'in', db.selectFrom('gotv_voters').select('id').where('contact_id', '=', personId))
        .where('note', 'is not', null),
    );
    // Neither the station nor the status changes, so the tallies' triggers have nothing to do.
    const voters = await q.write(sql`
      update gotv_voters set name = ${ERASED_NAME}, document_id = '~' || right(replace(id::text, '-', ''), 19), phone = null, updated_at = now()
      where contact_id = ${personId}`);
    return { voters: voters.count, notesRemoved: notes.count };
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
