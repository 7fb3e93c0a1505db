import type { ModuleManifest } from '../../kernel/module';
import { socialEntities } from './social.entities';
import { SOCIAL_ROOM } from './social.events';
import { socialPolicy } from './social.policy';
import { fetchProfileJob, startPolling } from './social.poller';
import { socialRouter } from './social.routes';

export const socialModule: ModuleManifest = {
  name: 'social',
  entities: socialEntities,
  routers: [socialRouter],
  jobs: [fetchProfileJob],
  rooms: () => [
    { pattern: new RegExp(`^${SOCIAL_ROOM}$`), roles: socialPolicy.roles('follow'), description: 'Social monitoring: alerts the moment they are raised, new posts in batches' },
  ],
  onWorkersStarted: async (deps) => startPolling(deps),
};
