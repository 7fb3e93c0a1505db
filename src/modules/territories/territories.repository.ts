import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { numberOrNull, prepared, sql, tables, type Queries, type Sql } from '../../kernel/sql';
import type { Geometry } from './geometry';
import { TerritorySchema, type Territory, type TerritoryType } from './territories.entities';

/** The tables this module owns, as the typed query builder sees them. */
type TerritoryTables = InferKyselyDB<typeof TerritorySchema>;
const db = tables<TerritoryTables>();

/** A territory as the module hands it around; `geometry` only when it was asked for. */
export interface TerritoryRecord {
  id: string;
  name: string;
  type: TerritoryType;
  code: string | null;
  parentId: string | null;
  centroidLat: number | null;
  centroidLng: number | null;
  population: number | null;
  registeredVoters: number | null;
  createdAt: Date;
  geometry?: Geometry | null;
}

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

/** One territory with its geometry, or undefined. */
export async function findTerritory(q: Queries, id: string): Promise<TerritoryRecord | undefined> {
  const row = await q.first(
    db
      .selectFrom('territories')
      .select(['id', 'name', 'type', 'code', 'parent_id', 'centroid_lat', 'centroid_lng', 'population', 'registered_voters', 'created_at', 'geometry'])
      .where('id', '=', id),
  );
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    code: row.code,
    parentId: row.parent_id,
    centroidLat: numberOrNull(row.centroid_lat),
    centroidLng: numberOrNull(row.centroid_lng),
    population: row.population,
    registeredVoters: row.registered_voters,
    createdAt: row.created_at,
    geometry: row.geometry,
  };
}

function recordOf(territory: Territory): TerritoryRecord {
  return {
    id: territory.id,
    name: territory.name,
    type: territory.type,
    code: territory.code ?? null,
    parentId: territory.parent ? territory.parent.id : null,
    centroidLat: numberOrNull(territory.centroidLat),
    centroidLng: numberOrNull(territory.centroidLng),
    population: territory.population ?? null,
    registeredVoters: territory.registeredVoters ?? null,
    createdAt: territory.createdAt,
  };
}

export interface TerritoryFilter {
  type?: TerritoryType | undefined;
  parentId?: string | undefined;
  /** A name fragment, `%` and `_` taken literally. */
  q?: string | undefined;
}

/** A page of territories sorted by name, without geometry (keyset pagination through the ORM's cursors). */
export function territoryPage(em: EntityManager, filter: TerritoryFilter, page: PageRequest): Promise<Page<TerritoryRecord>> {
  const where: Record<string, unknown> = {};
  if (filter.type) where.type = filter.type;
  if (filter.parentId) where.parent = filter.parentId;
  if (filter.q) where.name = { $ilike: containsPattern(filter.q) };
  return findPage(em, TerritorySchema, where, page, { name: 'asc', id: 'asc' }, recordOf);
}

/** Which of `ids` are territories: with the request's EntityManager or any `Queries`. */
export async function existingTerritoryIds(source: EntityManager | Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  if ('rows' in source) {
    const rows = await source.rows(db.selectFrom('territories').select('id').where('id', 'in', ids));
    return new Set(rows.map((row) => row.id));
  }
  const found = await source.find(TerritorySchema, { id: { $in: [...ids] } }, { fields: ['id'] });
  return new Set(found.map((territory) => territory.id));
}

/** The territories carrying each of `codes` (a code is unique per type, so one code may name a department and a commune). */
export async function territoryIdsByCode(q: Queries, codes: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (!codes.length) return found;
  for (const row of await q.rows(db.selectFrom('territories').select(['id', 'code']).where('code', 'in', codes))) {
    if (row.code !== null) found.set(row.code, [...(found.get(row.code) ?? []), row.id]);
  }
  return found;
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

/**
 * Territories as other modules may read them inside their own statements: names and places in
 * the hierarchy, never geometry. Use as `join ${territoryDirectory()} t on t.id = x.territory_id`;
 * PostgreSQL inlines it.
 */
export function territoryDirectory(): Sql<never> {
  return sql`(select id, name, type, code, parent_id from territories)`;
}
