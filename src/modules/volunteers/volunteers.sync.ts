import type { AppDeps } from '../../kernel/context';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { sql, type Queries } from '../../kernel/sql';
import { brigadeWorkSince, type BrigadeWork } from '../gotv';
import { readWatermark, saveWatermark, upsertDerivedActivities, volunteersOfUsers, type NewActivity } from './volunteers.repository';
import { newId } from '../../kernel/ids';

/** GOTV stamps a fact before its transaction commits: re-reading this far back catches one that committed late. */
export const SYNC_OVERLAP_MS = 2 * 60_000;
const PAGE = 1000;
const GOTV_SOURCE = 'gotv';

function activityOf(work: BrigadeWork, volunteer: { id: string; territoryId: string | null }): NewActivity {
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

/**
 * Copies brigade work recorded by GOTV since the watermark (minus the overlap) into the activities
 * of the volunteers linked to those users; each fact is one activity under (source, id), so a
 * fact read twice is written once. Work of users without a volunteer is passed over. Returns the
 * activities written, or undefined when another process holds the sync.
 */
export async function syncBrigadeWork(deps: Pick<AppDeps, 'db'>): Promise<number | undefined> {
  return deps.db.session(async (connection) => {
    const lock = sql`hashtext('comando:volunteers:gotv-sync')`;
    const taken = await connection.first<{ taken: boolean }>(sql`select pg_try_advisory_lock(${lock}) as taken`);
    if (!taken?.taken) return undefined;
    try {
      return await copySince(connection);
    } finally {
      await connection.write(sql`select pg_advisory_unlock(${lock})`);
    }
  });
}

async function copySince(q: Queries): Promise<number> {
  const watermark = await readWatermark(q, GOTV_SOURCE);
  let since = new Date((watermark?.getTime() ?? 0) - (watermark ? SYNC_OVERLAP_MS : 0));
  let newest = watermark ?? new Date(0);
  let written = 0;
  for (;;) {
    const work = await brigadeWorkSince(q, since, PAGE);
    if (!work.length) break;
    const volunteers = await volunteersOfUsers(
      q,
      work.map((item) => item.userId),
    );
    const activities = work.flatMap((item) => {
      const volunteer = volunteers.get(item.userId);
      return volunteer ? [activityOf(item, volunteer)] : [];
    });
    written += await upsertDerivedActivities(q, activities, new Date());
    const last = work[work.length - 1]!.recordedAt;
    if (last > newest) newest = last;
    // A full page all stamped at `since` would read the same page forever: step past that instant.
    if (work.length < PAGE) break;
    since = last.getTime() > since.getTime() ? last : new Date(since.getTime() + 1);
  }
  if (!watermark || newest > watermark) await saveWatermark(q, GOTV_SOURCE, newest);
  return written;
}

/** Every process starts the beat; the advisory lock lets one of them copy at a time. */
export function volunteersBackground(deps: AppDeps): BackgroundTask {
  return repeatEvery(deps.logger, 'volunteers.gotv-sync', deps.config.volunteers.syncIntervalSeconds * 1000, async () => {
    await syncBrigadeWork(deps);
  });
}
