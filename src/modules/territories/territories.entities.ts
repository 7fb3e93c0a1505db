import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { newId } from '../../kernel/ids';
import type { Geometry } from './geometry';
import { TERRITORY_TYPES } from './territories.constants';

export { TERRITORY_TYPES, type TerritoryType } from './territories.constants';

export const TerritorySchema = defineEntity({
  name: 'Territory',
  tableName: 'territories',
  uniques: [{ properties: ['type', 'code'], name: 'territories_type_code_unique' }],
  indexes: [{ properties: ['parent', 'name'] }, { properties: ['type', 'name'] }],
  properties: (t) => ({
    id: t
      .uuid()
      .primary()
      .onCreate(() => newId()),
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
    createdAt: t.datetime().onCreate(() => new Date()),
    updatedAt: t
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  }),
});

export type Territory = InferEntity<typeof TerritorySchema>;
