import { sql, type Queries } from '../../kernel/sql';
import type { Geometry } from './geometry';
import type { TerritoryType } from './territories.entities';

export interface MapTerritory {
  id: string;
  name: string;
  type: TerritoryType;
  code: string | null;
  parentId: string | null;
  centroidLat: number | null;
  centroidLng: number | null;
  population: number | null;
  registeredVoters: number | null;
  geometry: Geometry | null;
}

/**
 * Every territory with its place in the hierarchy, population and, when asked for, geometry: what
 * a map or a per-capita rate needs. The hierarchy lets the reader roll figures up to a level.
 */
export function territoriesForMap(q: Queries, withGeometry: boolean): Promise<MapTerritory[]> {
  return q.rows<MapTerritory>(sql`
    select id, name, type, code, parent_id as "parentId", centroid_lat as "centroidLat", centroid_lng as "centroidLng",
      population, registered_voters as "registeredVoters", ${withGeometry ? sql`geometry` : sql`null::jsonb`} as geometry
    from territories order by name, id`);
}
