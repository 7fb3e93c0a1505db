import type { AppDeps } from '../../kernel/context';
import { newId } from '../../kernel/ids';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { sql, type Queries } from '../../kernel/sql';
import { checkInsSince, type CheckInFact } from '../agenda';
import { brigadeWorkSince, type BrigadeWork } from '../gotv';
import { readWatermark, saveWatermark, upsertDerivedActivities, volunteersOfContacts, volunteersOfUsers, type NewActivity } from './volunteers.repository';

/** Other modules stamp a fact before their transaction commits: re-reading this far back catches one that committed late. */
export const SYNC_OVERLAP_MS = 2 * 60_000;
const PAGE = 1000;

/** A module whose facts become activities: how to read them in recording order, and what each one is. */
interface FactSource<Fact> {
  name: string;
  read(q: Queries, since: Date, limit: number): Promise<Fact[]>;
  recordedAt(fact: Fact): Date;
  activities(q: Queries, facts: Fact[]): Promise<NewActivity[]>;
}

function gotvActivity(work: BrigadeWork, volunteer: { id: string; territoryId: string | null }): NewActivity {
  const report = work.source === 'gotv_report';
  return {
    id: newId(),
    clientId: null,
    source: work.source,
    sourceId: work.id,
    volunteerId: volunteer.id,
    // A report made before election day is brigades rehearsing: training, not turnout work.
    type: work.rehearsal ? 'training' : 'gotv',
    occurredAt: work.occurredAt,
    durationMinutes: null,
    quantity: 1,
    unit: report ? 'turnout_reports' : 'calls',
    territoryId: work.territoryId ?? volunteer.territoryId,
    notes: report ? `Reporte de votación (${work.detail})` : `Llamada de movilización: ${work.detail}`,
    lat: null,
    lng: null,
    eventId: null,
    posterCode: null,
    recordedById: work.userId,
  };
}

/** A brigade member's turnout reports and contact outcomes, for the volunteer linked to that user. */
const gotvWork: FactSource<BrigadeWork> = {
  name: 'gotv',
  read: brigadeWorkSince,
  recordedAt: (work) => work.recordedAt,
  async activities(q, facts) {
    const volunteers = await volunteersOfUsers(
      q,
      facts.map((fact) => fact.userId),
    );
    return facts.flatMap((fact) => {
      const volunteer = volunteers.get(fact.userId);
      return volunteer ? [gotvActivity(fact, volunteer)] : [];
    });
  },
};

/** An event check-in of a person who is a volunteer: a shift of event staff, as long as the shift (or the event). */
const agendaCheckIns: FactSource<CheckInFact> = {
  name: 'agenda',
  read: checkInsSince,
  recordedAt: (fact) => fact.checkedInAt,
  async activities(q, facts) {
    const volunteers = await volunteersOfContacts(
      q,
      facts.map((fact) => fact.contactId),
    );
    return facts.flatMap((fact): NewActivity[] => {
      const volunteer = volunteers.get(fact.contactId);
      if (!volunteer) return [];
      const duration = fact.durationMinutes !== null && fact.durationMinutes > 0 ? Math.min(fact.durationMinutes, 1440) : null;
      return [
        {
          id: newId(),
          clientId: null,
          source: 'agenda_checkin',
          sourceId: fact.id,
          volunteerId: volunteer.id,
          type: 'event_staff',
          occurredAt: fact.checkedInAt,
          durationMinutes: duration,
          quantity: null,
          unit: null,
          territoryId: fact.territoryId ?? volunteer.territoryId,
          notes: `Asistencia registrada en el evento (${fact.eventType})`,
          lat: null,
          lng: null,
          eventId: fact.eventId,
          posterCode: null,
          recordedById: null,
        },
      ];
    });
  },
};

async function copySince<Fact>(q: Queries, source: FactSource<Fact>): Promise<number> {
  const watermark = await readWatermark(q, source.name);
  let since = new Date((watermark?.getTime() ?? 0) - (watermark ? SYNC_OVERLAP_MS : 0));
  let newest = watermark ?? new Date(0);
  let written = 0;
  for (;;) {
    const facts = await source.read(q, since, PAGE);
    if (!facts.length) break;
    written += await upsertDerivedActivities(q, await source.activities(q, facts), new Date());
    const last = source.recordedAt(facts[facts.length - 1]!);
    if (last > newest) newest = last;
    if (facts.length < PAGE) break;
    // A full page all stamped at `since` would read the same page forever: step past that instant.
    since = last.getTime() > since.getTime() ? last : new Date(since.getTime() + 1);
  }
  if (!watermark || newest > watermark) await saveWatermark(q, source.name, newest);
  return written;
}

/**
 * Copies facts other modules recorded since each one's watermark (minus the overlap) into the
 * activities of the volunteers they concern: GOTV brigade work and agenda check-ins. Each fact is
 * one activity under (source, id), so a fact read twice is written once. Returns the activities
 * written, or undefined when another process holds the sync.
 */
export async function syncDerivedActivities(deps: Pick<AppDeps, 'db'>): Promise<number | undefined> {
  return deps.db.session(async (connection) => {
    const lock = sql`hashtext('comando:volunteers:sync')`;
    const taken = await connection.first<{ taken: boolean }>(sql`select pg_try_advisory_lock(${lock}) as taken`);
    if (!taken?.taken) return undefined;
    try {
      return (await copySince(connection, gotvWork)) + (await copySince(connection, agendaCheckIns));
    } finally {
      await connection.write(sql`select pg_advisory_unlock(${lock})`);
    }
  });
}

/** Every process starts the beat; the advisory lock lets one of them copy at a time. */
export function volunteersBackground(deps: AppDeps): BackgroundTask {
  return repeatEvery(deps.logger, 'volunteers.sync', deps.config.volunteers.syncIntervalSeconds * 1000, async () => {
    await syncDerivedActivities(deps);
  });
}
