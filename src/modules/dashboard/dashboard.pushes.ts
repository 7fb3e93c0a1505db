import { createHash } from 'node:crypto';
import type { AppDeps } from '../../kernel/context';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { DASHBOARD_ROOM } from './dashboard.events';
import { computeOverview, dropOverview } from './dashboard.overview';
import type { OverviewView } from './dashboard.schemas';

/** How often a change in the figures is looked for; the push itself is coalesced to at most one a second. */
export const WATCH_INTERVAL_MS = 5_000;

/** The figures only: windows, links and the time move on every computation without any KPI changing. */
export function fingerprint(overview: OverviewView): string {
  const figures = JSON.stringify(overview, (key, value: unknown) => (key === 'asOf' || key === 'window' || key === 'href' || key === 'cachedFor' ? undefined : value));
  return createHash('sha256').update(figures).digest('base64url');
}

/**
 * Watches the overview's figures: when one changed since the last push (whichever process made
 * it: the fingerprint is kept in Redis when there is one), drops the cached overview in every
 * process and pushes `dashboard:kpi` to the room. The computation is gated across processes by
 * `realtime.coalesced`, so a cluster recounts at most once a second, not once per process.
 */
export function watchKpis(deps: AppDeps): BackgroundTask {
  let lastLocal: string | undefined;
  const lastKey = deps.redis ? `${deps.config.redisKeyPrefix}:dashboard:kpi:fingerprint` : undefined;
  const swapLast = async (next: string): Promise<string | undefined> => {
    if (deps.redis && lastKey) {
      const previous = await deps.redis.set(lastKey, next, 'EX', 24 * 3600, 'GET').catch(() => undefined);
      if (previous !== undefined) return previous ?? undefined;
    }
    const previous = lastLocal;
    lastLocal = next;
    return previous;
  };
  const push = deps.realtime.coalesced(DASHBOARD_ROOM, 'dashboard:kpi', async () => {
    const overview = await computeOverview(deps);
    const next = fingerprint(overview);
    const previous = await swapLast(next);
    if (previous === next) return undefined;
    // A first look (no fingerprint anywhere yet) pushes too: screens connected then get current figures.
    await dropOverview(deps);
    return overview;
  });
  push();
  return repeatEvery(deps.logger, 'dashboard-kpi-watch', WATCH_INTERVAL_MS, async () => push());
}
