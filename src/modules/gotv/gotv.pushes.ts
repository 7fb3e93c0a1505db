import type { AppDeps } from '../../kernel/context';
import { ConflictError } from '../../kernel/errors';
import type { BackgroundTask } from '../../kernel/module';
import { GOTV_ROOM, stationRoom, type ProjectionSummary } from './gotv.events';
import { projection, stationEvents } from './gotv.live';
import { phaseAt, type Phase } from './gotv.projection';
import { electionDay } from './gotv.settings';

// What GOTV pushes besides the turnout items themselves (gotv.turnout.service.ts batches those).

/**
 * `gotv:station` for these stations, with the figures `GET /api/gotv/live-map` gives: to each
 * station's room, and to the war room too when `warRoom` (a change of state: opened, closed, an
 * incident). Called after the change is committed; a failed push is logged, never the caller's error.
 */
export async function publishStations(deps: AppDeps, ids: string[], warRoom: boolean): Promise<void> {
  try {
    for (const event of await stationEvents(deps.orm.em.fork(), deps.config.timeZone, ids)) {
      if (warRoom) deps.realtime.publish(GOTV_ROOM, 'gotv:station', event);
      deps.realtime.publish(stationRoom(event.id), 'gotv:station', event);
    }
  } catch (error) {
    deps.logger.warn({ errorName: (error as Error).name, stations: ids.length }, 'gotv:station push failed');
  }
}

/** Stations whose figures changed since this process last pushed them, per app. */
const changedStations = new WeakMap<AppDeps, Set<string>>();

/**
 * After accepted reports: the stations' new figures reach their rooms (brigades following a
 * station, a war-room panel open on it) at most once a second across all processes, one query for
 * every station that changed meanwhile. The war room's map follows `gotv:turnout` instead, which
 * carries every report: one push per station per second would be hundreds of messages a second
 * to every screen.
 */
export function stationFiguresChanged(deps: AppDeps): (stationId: string) => void {
  let pending = changedStations.get(deps);
  if (!pending) changedStations.set(deps, (pending = new Set()));
  const stations = pending;
  const push = deps.realtime.throttled('gotv:station-figures', async () => {
    const ids = [...stations];
    stations.clear();
    await publishStations(deps, ids, false);
  });
  return (stationId) => {
    stations.add(stationId);
    push();
  };
}

/** The projection summary to push, or nothing before the election date is set. */
async function projectionSummary(deps: AppDeps): Promise<ProjectionSummary | undefined> {
  try {
    const { stations: _perStation, ...summary } = await projection(deps.orm.em.fork(), deps.config.timeZone);
    return summary;
  } catch (error) {
    if (error instanceof ConflictError) return undefined;
    throw error;
  }
}

/** Recomputes and pushes `gotv:projection` to the war room, at most once a second across all processes. */
export function projectionChanged(deps: AppDeps): () => void {
  return deps.realtime.coalesced(GOTV_ROOM, 'gotv:projection', () => projectionSummary(deps));
}

/** How often the clock checks the phase, and how often an open day's projection is pushed without reports. */
const CLOCK_TICK_MS = 15_000;
const OPEN_REFRESH_MS = 60_000;

/**
 * The projection moves with the clock too (the share of the day gone by), not only with reports:
 * while the polls are open it is pushed at least once a minute, and once when they open and when
 * they close, so that the last push a screen holds and `GET /api/gotv/projection` agree even in a
 * quiet hour. Every process runs it; the push is still once a second at most across them.
 */
export function projectionClock(deps: AppDeps, tickMs = CLOCK_TICK_MS, refreshMs = OPEN_REFRESH_MS): BackgroundTask {
  const push = projectionChanged(deps);
  let lastPhase: Phase | undefined;
  let lastPush = 0;
  let running: Promise<void> | undefined;
  const tick = async () => {
    let phase: Phase;
    try {
      const { electionDate, curve } = await electionDay(deps.orm.em.fork());
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
  };
  const timer = setInterval(() => {
    running ??= tick()
      .catch((error: unknown) => deps.logger.warn({ task: 'gotv.projection-clock', errorName: (error as Error).name }, 'projection clock failed'))
      .finally(() => (running = undefined));
  }, tickMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
