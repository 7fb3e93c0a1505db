import type { InferKyselyDB } from '@mikro-orm/sql';
import { prepared, sql, tables, type Queries, type Sql } from '../../kernel/sql';
import type { Geometry } from './geometry';
import type { TerritorySchema, TerritoryType } from './territories.entities';

/** The tables this module owns, as the typed query builder sees them. */
type TerritoryTables = InferKyselyDB<typeof TerritorySchema>;
const db = tables<TerritoryTables>();

export interface NewTerritory {
  id: string;
  name: string;
  type: TerritoryType;
  code: string | null;
  parentId: string | null;
  centroid: { lat: number; lng: number } | null;
  geometry: Geometry | null;
  population: number | null;
  registeredVoters: number | null;
  at: Date;
}

/**
 * One insert, prepared once per connection: bulk set-up of thousands of barrios is quick. A
 * duplicate (type, code) is the database's constraint violation, not a racy read first.
 */
export async function insertTerritory(q: Queries, territory: NewTerritory): Promise<void> {
  const insert = db.insertInto('territories').values({
    id: territory.id,
    name: territory.name,
    type: territory.type,
    code: territory.code,
    parent_id: territory.parentId,
    centroid_lat: territory.centroid?.lat ?? null,
    centroid_lng: territory.centroid?.lng ?? null,
    geometry: territory.geometry,
    population: territory.population,
    registered_voters: territory.registeredVoters,
    created_at: territory.at,
    updated_at: territory.at,
  });
  await q.write(prepared('territories_insert', insert));
}

/** The type of each territory found among `ids`. */
export async function typesOf(q: Queries, ids: readonly string[]): Promise<Map<string, TerritoryType>> {
  if (!ids.length) return new Map();
  const rows = await q.rows(db.selectFrom('territories').select(['id', 'type']).where('id', 'in', ids));
  return new Map(rows.map((row) => [row.id, row.type]));
}

/**
 * "These territories and everything inside them" (a comuna with its barrios), as a subquery
 * for other modules' statements: `x.territory_id in (${territoryAndDescendants(ids)})`.
 */
export function territoryAndDescendants(ids: readonly string[]): Sql<{ id: string }> {
  return sql<{ id: string }>`with recursive inside(id) as (
      select id from territories where id = any(${ids}::uuid[])
      union select t.id from territories t join inside on t.parent_id = inside.id
    ) select id from inside`;
}
