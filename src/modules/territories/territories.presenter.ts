import type { z } from 'zod';
import type { Territory } from './territories.entities';
import type { territoryDetailView, territoryView } from './territories.schemas';

export function presentTerritory(territory: Territory): z.input<typeof territoryView> {
  const hasCentroid = territory.centroidLat !== null && territory.centroidLat !== undefined && territory.centroidLng !== null && territory.centroidLng !== undefined;
  return {
    id: territory.id,
    name: territory.name,
    type: territory.type,
    code: territory.code ?? null,
    parentId: territory.parent ? territory.parent.id : null,
    centroid: hasCentroid ? { lat: Number(territory.centroidLat), lng: Number(territory.centroidLng) } : null,
    population: territory.population ?? null,
    registeredVoters: territory.registeredVoters ?? null,
    createdAt: territory.createdAt.toISOString(),
  };
}

export function presentTerritoryDetail(territory: Territory): z.input<typeof territoryDetailView> {
  return { ...presentTerritory(territory), geometry: territory.geometry ?? null };
}
