import type { ModuleManifest } from '../../kernel/module';
import { TerritorySchema } from './territories.entities';
import { TERRITORIES_ROOM } from './territories.events';
import { territoriesPolicy } from './territories.policy';
import { territoriesRouter } from './territories.routes';
import { territoriesTerritoryReferences } from './territories.repository';

export const territoriesModule: ModuleManifest = {
  name: 'territories',
  entities: [TerritorySchema],
  routers: [territoriesRouter],
  territoryReferences: territoriesTerritoryReferences,
  rooms: () => [{ pattern: new RegExp(`^${TERRITORIES_ROOM}$`), roles: territoriesPolicy.roles('follow'), description: 'New territories, for live maps' }],
};

export { TerritorySchema, type Territory } from './territories.entities';
export { assertTerritoriesExist } from './territories.service';
export { existingTerritoryIds, territoryAndDescendants, territoryDirectory, territoryIdsByCode } from './territories.repository';
export { territoriesForMap, type MapTerritory } from './territories.map.repository';
export { TERRITORY_TYPES, type TerritoryType } from './territories.entities';
export { placeFinder } from './territories.import';
export { communeCell, placeKey, placeName } from './territories.places';
