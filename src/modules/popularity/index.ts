import type { ModuleManifest } from '../../kernel/module';
import { startDailyMetrics } from './popularity.daily';
import { popularityEntities } from './popularity.entities';
import { popularityRouter } from './popularity.routes';
import { popularityTerritoryReferences } from './popularity.repository';

export const popularityModule: ModuleManifest = {
  territoryReferences: popularityTerritoryReferences,
  name: 'popularity',
  entities: popularityEntities,
  routers: [popularityRouter],
  onWorkersStarted: async (deps) => startDailyMetrics(deps),
};

export { ownPollAverageAt } from './popularity.figures';
