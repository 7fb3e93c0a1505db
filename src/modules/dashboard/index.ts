import type { ModuleManifest } from '../../kernel/module';
import { watchKpis } from './dashboard.pushes';
import { dashboardRouter } from './dashboard.routes';
import './dashboard.events';

/**
 * The general dashboard: figures read from every module through their public exports, never their
 * tables; no tables of its own (docs/dashboard.md). The room `dashboard` is qr's rule.
 */
export const dashboardModule: ModuleManifest = {
  name: 'dashboard',
  entities: [],
  routers: [dashboardRouter],
  onWorkersStarted: async (deps) => watchKpis(deps),
};
