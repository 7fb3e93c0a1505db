import type { ModuleManifest } from '../../kernel/module';
import { TerritorySchema } from './territories.entities';
import { TERRITORIES_ROOM } from './territories.events';
import { territoriesRouter } from './territories.routes';

export const territoriesModule: ModuleManifest = {
  name: 'territories',
  entities: [TerritorySchema],
  routers: [territoriesRouter],
  rooms: () => [{ pattern: new RegExp(`^${TERRITORIES_ROOM}$`), roles: ['manager', 'viewer', 'brigade', 'volunteer'], description: 'New territories, for live maps' }],
};

export { TerritorySchema, type Territory } from './territories.entities';
export { assertTerritoriesExist, TERRITORY_AND_DESCENDANTS } from './territories.service';
