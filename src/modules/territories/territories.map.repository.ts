import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql as builderSql, type Selectable } from 'kysely';
import { camelRow, type CamelCased, type WithNumbers } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import type { TerritorySchema } from './territories.entities';

type TerritoryTables = InferKyselyDB<typeof TerritorySchema>;
const db = tables<TerritoryTables>();

const mapColumns = ['id', 'name', 'type', 'code', 'parent_id', 'centroid_lat', 'centroid_lng', 'population', 'registered_voters'] as const;
type TerritoryRow = Selectable<TerritoryTables['territories']>;

export type MapTerritory = CamelCased<WithNumbers<Pick<TerritoryRow, (typeof mapColumns)[number] | 'geometry'>, 'centroid_lat' | 'centroid_lng'>>;

/**
 * Every territory with its place in the hierarchy, population and, when asked for, geometry: what
 * a map or a per-capita rate needs. The hierarchy lets the reader roll figures up to a level.
 */
export async function territoriesForMap(q: Queries, withGeometry: boolean): Promise<MapTerritory[]> {
  const rows = await q.rows(
    db
      .selectFrom('territories')
      .select([...mapColumns, withGeometry ? 'geometry' : builderSql<TerritoryRow['geometry']>`null::jsonb`.as('geometry')])
      .orderBy('name')
      .orderBy('id'),
  );
  return rows.map((row) => camelRow(row, ['centroid_lat', 'centroid_lng']));
}
