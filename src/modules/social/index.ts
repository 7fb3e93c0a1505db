import type { ModuleManifest } from '../../kernel/module';
import { socialEntities } from './social.entities';
import { SOCIAL_ROOM } from './social.events';
import { socialPolicy } from './social.policy';
import { fetchProfileJob, startPolling } from './social.poller';
import { socialRouter } from './social.routes';
import { ensureRollupZone } from './social.stats.repository';
import { socialTerritoryReferences } from './social.repository';

export const socialModule: ModuleManifest = {
  territoryReferences: socialTerritoryReferences,
  name: 'social',
  entities: socialEntities,
  routers: [socialRouter],
  jobs: [fetchProfileJob],
  rooms: () => [
    { pattern: new RegExp(`^${SOCIAL_ROOM}$`), roles: socialPolicy.roles('follow'), description: 'Social monitoring: alerts the moment they are raised, new posts in batches' },
  ],
  onWorkersStarted: async (deps) => {
    await ensureRollupZone(deps.db, deps.config.timeZone);
    return startPolling(deps);
  },
};

// What other modules may use: the competitors (ours included) and the figures popularity records.
export { CompetitorSchema, type Competitor } from './social.entities';
export { allCompetitors, existingCompetitorIds, type CompetitorRecord } from './social.repository';
export { alertCountsSince, socialFiguresBetween, type DailySocialFigures } from './social.stats.repository';
export { latestAlerts, type LatestAlert } from './social.figures.repository';
