import type { AppDeps } from '../../kernel/context';
import { newId } from '../../kernel/ids';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { dueSoonHorizon, localDateOf } from './pqrs.clock';
import { presentEvent } from './pqrs.presenter';
import { PQRS_ROOM } from './pqrs.policy';
import { claimDueSoonRun, existingAttachmentIds, flagDueSoon, insertHistory, lastDueSoonRun, releaseDueSoonRun } from './pqrs.repository';
import { attachmentArea, clockOf } from './pqrs.service';

/** How often each worker checks whether today's due-soon run happened, and sweeps attachments. */
const CHECK_INTERVAL_MS = 5 * 60_000;
/** A file younger than this may belong to an upload whose transaction has not committed yet. */
const SWEEP_GRACE_MS = 15 * 60_000;

/**
 * Flags the open requests due within three business days, once per local day whichever process gets
 * there first (the day is claimed in the settings row before anything is flagged, and given back
 * if the run fails): each gets `dueSoonAt`, a history line and a `pqrs:request` event. True when
 * this call did the day's run.
 */
export async function runDueSoon(deps: Pick<AppDeps, 'db' | 'config' | 'realtime'>, now = new Date()): Promise<boolean> {
  const clock = clockOf(deps);
  const today = localDateOf(now, clock.timeZone);
  const previous = await lastDueSoonRun(deps.db);
  if (!(await claimDueSoonRun(deps.db, today))) return false;
  try {
    const flagged = await deps.db.transaction(async (tx) => {
      const requests = await flagDueSoon(tx, now, dueSoonHorizon(today, clock));
      await insertHistory(
        tx,
        requests.map((request) => ({
          id: newId(),
          requestId: request.id,
          at: now,
          actorId: null,
          action: 'due_soon' as const,
          changes: { dueSoonAt: { before: null, after: now.toISOString() } },
          note: null,
        })),
      );
      return requests;
    });
    for (const request of flagged) deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('due_soon', request, clock, now));
    return true;
  } catch (error) {
    await releaseDueSoonRun(deps.db, today, previous);
    throw error;
  }
}

/** Removes attachment files whose record is gone (erased with their owner's data) or never committed. */
export async function sweepAttachments(deps: Pick<AppDeps, 'db' | 'files'>, now = new Date()): Promise<number> {
  const area = attachmentArea(deps);
  const candidates = (await area.list()).filter((entry) => now.getTime() - entry.modifiedAt.getTime() > SWEEP_GRACE_MS).map((entry) => entry.name);
  const kept = await existingAttachmentIds(
    deps.db,
    candidates.filter((name) => /^[0-9a-f-]{36}$/.test(name)),
  );
  let removed = 0;
  for (const name of candidates) {
    if (kept.has(name)) continue;
    await area.remove(name);
    removed += 1;
  }
  return removed;
}

export function startPqrsBackground(deps: AppDeps): BackgroundTask {
  const check = async () => {
    await runDueSoon(deps);
    await sweepAttachments(deps);
  };
  void check().catch((error: unknown) => deps.logger.warn({ task: 'pqrs.background', errorName: (error as Error).name }, 'pqrs background run failed'));
  return repeatEvery(deps.logger, 'pqrs.background', CHECK_INTERVAL_MS, check);
}
