import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { tables } from '../../kernel/sql';
import type { ContactOutcome, PollingStationSchema, TurnoutReportSchema, VoterContactSchema, VoterSchema } from './gotv.entities';

type GotvTables = InferKyselyDB<typeof PollingStationSchema | typeof VoterSchema | typeof VoterContactSchema | typeof TurnoutReportSchema>;
const db = tables<GotvTables>();

const OUTCOMES: Record<ContactOutcome, string> = {
  reached: 'contestó',
  no_answer: 'no contestó',
  wrong_number: 'número equivocado',
  refused: 'no quiere ir',
  on_the_way: 'va en camino',
};

/**
 * A person as a confirmed voter on their page: their registration (station, table, where their
 * status stands), each attempt to reach them on election day with its outcome, and each report
 * that they voted (a rehearsal's marked as such). Reports are found through the voter's station
 * (its index), so the reports table, written on election day's hot path, keeps no index more.
 */
export const gotvTimeline: PersonTimelineHolder = {
  async items(q, { contactId, before, limit }) {
    const voters = await q.rows(
      db
        .selectFrom('gotv_voters as v')
        .innerJoin('gotv_polling_stations as s', 's.id', 'v.polling_station_id')
        .select(['v.id', 'v.polling_station_id', 's.name as station_name', 'v.table_number', 'v.status', 'v.voted_at', 'v.created_at'])
        .where('v.contact_id', '=', contactId),
    );
    const items: TimelineEntry[] = [];
    for (const voter of voters) {
      const where = { voterId: voter.id, pollingStationId: voter.polling_station_id, pollingStation: voter.station_name, tableNumber: voter.table_number };
      if (!before || voter.created_at < before) {
        const table = voter.table_number === null ? '' : `, mesa ${voter.table_number}`;
        items.push({
          at: voter.created_at,
          kind: 'voter_registered',
          title: `Votante confirmado: vota en ${voter.station_name}${table}`,
          refId: voter.id,
          detail: { ...where, status: voter.status, votedAt: voter.voted_at },
        });
      }
      let calls = db.selectFrom('gotv_voter_contacts').select(['id', 'outcome', 'note', 'created_at']).where('voter_id', '=', voter.id);
      if (before) calls = calls.where('created_at', '<', before);
      for (const call of await q.rows(calls.orderBy('created_at', 'desc').limit(limit))) {
        items.push({
          at: call.created_at,
          kind: 'voter_contacted',
          title: `Llamada de movilización: ${OUTCOMES[call.outcome]}`,
          refId: call.id,
          detail: { ...where, outcome: call.outcome, note: call.note },
        });
      }
      let reports = db
        .selectFrom('gotv_turnout_reports')
        .select(['id', 'reported_at', 'rehearsal'])
        .where('station_id', '=', voter.polling_station_id)
        .where('kind', '=', 'voter')
        .where('voter_id', '=', voter.id);
      if (before) reports = reports.where('reported_at', '<', before);
      for (const report of await q.rows(reports.orderBy('reported_at', 'desc').limit(limit))) {
        items.push({
          at: report.reported_at,
          kind: 'turnout_reported',
          title: report.rehearsal ? 'Reportado como votante (simulacro)' : 'Reportado: ya votó',
          refId: report.id,
          detail: { ...where, rehearsal: report.rehearsal },
        });
      }
    }
    return items.sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, limit);
  },
};
