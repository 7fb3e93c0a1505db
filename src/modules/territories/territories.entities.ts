import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import type { Geometry } from './geometry';
import { TERRITORY_TYPES } from './territories.constants';

export { TERRITORY_TYPES, type TerritoryType } from './territories.constants';

export const TerritorySchema = defineEntity({
  name: 'Territory',
  tableName: 'territories',
  uniques: [{ properties: ['type', 'code'], name: 'territories_type_code_unique' }],
  indexes: [{ properties: ['parent', 'name'] }, { properties: ['type', 'name'] }],
  properties: (t) => ({
    ...uuidPrimaryKey,
    name: t.string().length(160),
    type: t.enum([...TERRITORY_TYPES]),
    /** An official code (DANE) or the campaign's own; unique per type when present. */
    code: t.string().length(40).nullable(),
    parent: () => t.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    centroidLat: t.double().nullable(),
    centroidLng: t.double().nullable(),
    geometry: t.json<Geometry>().nullable().lazy(),
    population: t.integer().nullable(),
    registeredVoters: t.integer().nullable(),
    ...timestamps,
  }),
});

export type Territory = InferEntity<typeof TerritorySchema>;
