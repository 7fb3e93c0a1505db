import type { AppDeps } from '../../kernel/context';
import { ConflictError } from '../../kernel/errors';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { GOTV_ROOM, stationRoom, type ProjectionSummary } from './gotv.events';
import { projection, projector, stationEvents } from './gotv.live';
import { stationsReportedSince } from './gotv.live.repository';
import { phaseAt, type Phase, type Projection } from './projection/projection';
import { electionDateOf, electionDay } from './gotv.settings';

// What GOTV pushes besides the turnout items themselves (gotv.turnout.service.ts batches those).

/**
 * `gotv:station` for these stations, with the figures `GET /api/gotv/live-map` gives: to each
 * station's room, and to the war room too when `warRoom` (a change of state: opened, closed, an
 * incident). Called after the change is committed; a failed push is logged, never the caller's error.
 */
export async function publishStations(deps: AppDeps, ids: string[], warRoom: boolean): Promise<void> {
  try {
    for (const event of await stationEvents(deps.db, deps.config.timeZone, await electionDateOf(deps), ids)) {
      if (warRoom) deps.realtime.publish(GOTV_ROOM, 'gotv:station', event);
      deps.realtime.publish(stationRoom(event.id), 'gotv:station', event);
    }
  } catch (error) {
    deps.logger.warn({ errorName: (error as Error).name, stations: ids.length }, 'gotv:station push failed');
  }
}

/** How often each process looks for new figures of the stations its sockets follow. */
const WATCH_TICK_MS = 1000;
/** A report's `received_at` is its transaction's start: look back a little for late commits. */
const COMMIT_LAG_MS = 2000;

/**
 * Reports change a station's figures: each process pushes them to its own sockets following the
 * station (`gotv:station:<id>`: a brigade phone, a war-room panel open on one station), at most
 * once a second, and only figures that changed since its last push. The process asks which of
 * the stations its sockets follow got reports since it last looked (one indexed query), and
 * computes those stations' figures, and a newly followed station's, in one query; a process
 * nobody follows a station on does nothing. The war room's map follows `gotv:turnout` instead,
 * which carries every report: a push per station per second would be hundreds of messages a
 * second to every screen.
 */
function stationWatch(deps: AppDeps, tickMs: number): BackgroundTask {
  const prefix = stationRoom('');
  const lastPushed = new Map<string, string>();
  let lookedAt = new Date(0);
  const tick = async () => {
    const watched = new Set(deps.realtime.localRooms(prefix).map((room) => room.slice(prefix.length)));
    for (const id of lastPushed.keys()) if (!watched.has(id)) lastPushed.delete(id);
    if (!watched.size) return;
    const started = new Date();
    const reported = await stationsReportedSince(deps.db, [...watched], new Date(lookedAt.getTime() - COMMIT_LAG_MS));
    lookedAt = started;
    // Stations just followed get their figures once, reports or not.
    const ids = new Set(reported);
    for (const id of watched) if (!lastPushed.has(id)) ids.add(id);
    if (!ids.size) return;
    for (const event of await stationEvents(deps.db, deps.config.timeZone, await electionDateOf(deps), [...ids])) {
      const figures = JSON.stringify(event);
      if (lastPushed.get(event.id) === figures) continue;
      lastPushed.set(event.id, figures);
      deps.realtime.publishLocal(stationRoom(event.id), 'gotv:station', event);
    }
  };
  return repeatEvery(deps.logger, 'gotv.station-watch', tickMs, tick);
}

/** What `gotv:projection` carries of a projection (see `ProjectionSummary`). */
export function projectionSummary(full: Projection): ProjectionSummary {
  const { byTerritory: _perTerritory, ...summary } = full;
  return summary;
}

/** The live projection's summary, or nothing before the election date is set. */
async function liveProjectionSummary(deps: AppDeps): Promise<ProjectionSummary | undefined> {
  try {
    return projectionSummary(await projection(deps.db, deps.config.timeZone, {}, { projector: projector(deps) }));
  } catch (error) {
    if (error instanceof ConflictError) return undefined;
    throw error;
  }
}

/**
 * Recomputes and pushes `gotv:projection` to the war room, at most once per GOTV_PROJECTION_PUSH
 * (5 s) across all processes. A projection of the day's final figures moves slowly, while every
 * screen parses every push: at once a second it was a fifth of what 2,000 screens received on a
 * busy election day and more than the turnout items cost the screens' hardware to read.
 */
export function projectionChanged(deps: AppDeps): () => void {
  return deps.realtime.coalesced(GOTV_ROOM, 'gotv:projection', () => liveProjectionSummary(deps), deps.config.gotvProjectionPushSeconds * 1000);
}

/** How often the clock checks the phase, and how often an open day's projection is pushed without reports. */
const CLOCK_TICK_MS = 15_000;
const OPEN_REFRESH_MS = 60_000;

/**
 * The projection moves with the clock too (the share of the day gone by), not only with reports:
 * while the polls are open it is pushed at least once a minute, and once when they open and when
 * they close, so that the last push a screen holds and `GET /api/gotv/projection` agree even in a
 * quiet hour. Every process runs it; the pushes stay GOTV_PROJECTION_PUSH apart across them.
 */
export function projectionClock(deps: AppDeps, tickMs = CLOCK_TICK_MS, refreshMs = OPEN_REFRESH_MS): BackgroundTask {
  const push = projectionChanged(deps);
  let lastPhase: Phase | undefined;
  let lastPush = 0;
  return repeatEvery(deps.logger, 'gotv.projection-clock', tickMs, async () => {
    let phase: Phase;
    try {
      const { electionDate, curve } = await electionDay(deps.db);
      phase = phaseAt(new Date(), deps.config.timeZone, electionDate, curve);
    } catch (error) {
      if (error instanceof ConflictError) return; // no election date yet
      throw error;
    }
    const changed = lastPhase !== undefined && phase !== lastPhase;
    lastPhase = phase;
    if (changed || (phase === 'open' && Date.now() - lastPush >= refreshMs)) {
      lastPush = Date.now();
      push();
    }
  });
}

/** What every process runs beside its requests: the projection's clock and the station watch. */
export function gotvBackground(deps: AppDeps, options: { clockTickMs?: number; openRefreshMs?: number; watchTickMs?: number } = {}): BackgroundTask {
  const tasks = [projectionClock(deps, options.clockTickMs, options.openRefreshMs), stationWatch(deps, options.watchTickMs ?? WATCH_TICK_MS)];
  return { stop: async () => void (await Promise.all(tasks.map((task) => task.stop()))) };
}
