import type { ModuleManifest } from '../../kernel/module';
import { startDailyMetrics } from './popularity.daily';
import { popularityEntities } from './popularity.entities';
import { popularityRouter } from './popularity.routes';

export const popularityModule: ModuleManifest = {
  name: 'popularity',
  entities: popularityEntities,
  routers: [popularityRouter],
  onWorkersStarted: async (deps) => startDailyMetrics(deps),
};

export { ownPollAverageAt } from './popularity.figures';
