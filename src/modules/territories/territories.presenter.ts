import type { z } from 'zod';
import type { TerritoryRecord } from './territories.repository';
import type { territoryDetailView, territoryView } from './territories.schemas';

export function presentTerritory(territory: TerritoryRecord): z.input<typeof territoryView> {
  const { centroidLat: lat, centroidLng: lng } = territory;
  return {
    id: territory.id,
    name: territory.name,
    type: territory.type,
    code: territory.code,
    parentId: territory.parentId,
    centroid: lat !== null && lng !== null ? { lat, lng } : null,
    population: territory.population,
    registeredVoters: territory.registeredVoters,
    createdAt: territory.createdAt.toISOString(),
  };
}

export function presentTerritoryDetail(territory: TerritoryRecord): z.input<typeof territoryDetailView> {
  return { ...presentTerritory(territory), geometry: territory.geometry ?? null };
}
