import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { prepared, sql, tables, type Queries, type Sql } from '../../kernel/sql';
import type { Geometry } from './geometry';
import { TerritorySchema, type TerritoryType } from './territories.entities';

/** The tables this module owns, as the typed query builder sees them. */
type TerritoryTables = InferKyselyDB<typeof TerritorySchema>;
const db = tables<TerritoryTables>();

/** The columns a territory's record carries (its geometry only where asked for). */
const territoryColumns = ['id', 'name', 'type', 'code', 'parent_id', 'centroid_lat', 'centroid_lng', 'population', 'registered_voters', 'created_at'] as const;
type TerritoryRow = Selectable<TerritoryTables['territories']>;

const territoryOf = <Row extends Pick<TerritoryRow, 'centroid_lat' | 'centroid_lng'>>(row: Row) => camelRow(row, ['centroid_lat', 'centroid_lng']);

/** A territory as the module hands it around; `geometry` only when it was asked for. */
export type TerritoryRecord = ReturnType<typeof territoryOf<Pick<TerritoryRow, (typeof territoryColumns)[number]>>> & { geometry?: TerritoryRow['geometry'] };

/** What a new territory is written from: its fields, the centroid as one point, and when. */
export type NewTerritory = Omit<TerritoryRecord, 'centroidLat' | 'centroidLng' | 'createdAt' | 'geometry'> & {
  centroid: { lat: number; lng: number } | null;
  geometry: Geometry | null;
  at: Date;
};

/**
 * One insert, prepared once per connection: bulk set-up of thousands of barrios is quick. A
 * duplicate (type, code) is the database's constraint violation, not a racy read first.
 */
export async function insertTerritory(q: Queries, territory: NewTerritory): Promise<void> {
  // Every column named in one fixed order: a prepared statement's text may not vary.
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
      .select([...territoryColumns, 'geometry'])
      .where('id', '=', id),
  );
  return row && territoryOf(row);
}

export interface TerritoryFilter {
  type?: TerritoryType | undefined;
  parentId?: string | undefined;
  /** A name fragment, `%` and `_` taken literally. */
  q?: string | undefined;
}

/** A page of territories sorted by name, without geometry. */
export async function territoryPage(q: Queries, filter: TerritoryFilter, page: PageRequest): Promise<Page<TerritoryRecord>> {
  let query = db.selectFrom('territories').select(territoryColumns);
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.parentId) query = query.where('parent_id', '=', filter.parentId);
  if (filter.q) query = query.where('name', 'ilike', containsPattern(filter.q));
  const found = await queryPage(q, query, ['name', 'id'], 'asc', page);
  return mapPage(found, territoryOf);
}

/** Which of `ids` are territories. */
export async function existingTerritoryIds(q: Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await q.rows(db.selectFrom('territories').select('id').where('id', 'in', ids));
  return new Set(rows.map((row) => row.id));
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

/** The fields a change sets (undefined: kept). */
export type TerritoryChanges = Partial<Omit<NewTerritory, 'id' | 'at'>>;

/** Writes a change; a (type, code) taken by another territory is the database's unique violation. */
export async function updateTerritory(q: Queries, id: string, changes: TerritoryChanges): Promise<void> {
  const { centroid, ...fields } = changes;
  const point = centroid === undefined ? {} : { centroid_lat: centroid?.lat ?? null, centroid_lng: centroid?.lng ?? null };
  // The builder leaves out the columns whose value is undefined: those fields were not changed.
  await q.write(
    db
      .updateTable('territories')
      .set({ ...snakeRow(fields), ...point, updated_at: new Date() })
      .where('id', '=', id),
  );
}

/** Removes a territory; one that rows still point at is the database's foreign-key violation. */
export async function deleteTerritory(q: Queries, id: string): Promise<boolean> {
  const { count } = await q.write(db.deleteFrom('territories').where('id', '=', id));
  return count > 0;
}

/** Whether `candidate` is `id` or lies inside it (a move under it would make a cycle). */
export async function isWithin(q: Queries, candidate: string, id: string): Promise<boolean> {
  const row = await q.first(sql<{ inside: boolean }>`select exists (select 1 from (${territoryAndDescendants([id])}) d where d.id = ${candidate}) as inside`);
  return row?.inside ?? false;
}

/** The types of a territory's direct children, with how many of each. */
export async function childTypes(q: Queries, id: string): Promise<Map<TerritoryType, number>> {
  const rows = await q.rows(
    db
      .selectFrom('territories')
      .select((territory) => ['type', territory.cast<number>(territory.fn.countAll(), 'integer').as('n')])
      .where('parent_id', '=', id)
      .groupBy('type'),
  );
  return new Map(rows.map((row) => [row.type, row.n]));
}

const placeColumns = ['id', 'type', 'name', 'code', 'parent_id'] as const;

/** A place of the hierarchy as an import matches it: its level, code, name and parent. */
export type Place = CamelCased<Pick<TerritoryRow, (typeof placeColumns)[number]>>;

/** Every department, municipality and commune: what an import of the country's divisions matches rows against. */
export async function administrativePlaces(q: Queries): Promise<Place[]> {
  const rows = await q.rows(db.selectFrom('territories').select(placeColumns).where('type', 'in', ['department', 'municipality', 'commune']));
  return rows.map((row) => camelRow(row));
}

/** New places in one statement (parents before children in the arrays, or in earlier calls). */
export async function insertPlaces(q: Queries, places: readonly Place[], at: Date): Promise<void> {
  if (!places.length) return;
  await q.write(sql`
    insert into territories (id, name, type, code, parent_id, created_at, updated_at)
    select id, name, type, code, parent_id, ${at}, ${at}
    from unnest(${places.map((p) => p.id)}::uuid[], ${places.map((p) => p.name)}::text[], ${places.map((p) => p.type)}::text[],
                ${places.map((p) => p.code)}::text[], ${places.map((p) => p.parentId)}::uuid[]) as t(id, name, type, code, parent_id)`);
}

/** Names and codes of matched places, in one statement. */
export async function renamePlaces(q: Queries, places: readonly Place[]): Promise<void> {
  if (!places.length) return;
  await q.write(sql`
    update territories t set name = u.name, code = u.code, updated_at = now()
    from unnest(${places.map((p) => p.id)}::uuid[], ${places.map((p) => p.name)}::text[], ${places.map((p) => p.code)}::text[]) as u(id, name, code)
    where t.id = u.id`);
}

/** Sub-territories, for the check before a territory is deleted. */
export const territoriesTerritoryReferences = async (q: Queries, territoryId: string) => {
  const row = await q.first(
    db
      .selectFrom('territories')
      .select((territory) => territory.cast<number>(territory.fn.countAll(), 'integer').as('children'))
      .where('parent_id', '=', territoryId),
  );
  return [{ count: row?.children ?? 0, one: 'sub-territorio', many: 'sub-territorios' }];
};
