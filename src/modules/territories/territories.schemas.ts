import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { geometrySchema, latLngSchema } from './geometry';
import { TERRITORY_TYPES } from './territories.entities';

export const territoryType = z.enum(TERRITORY_TYPES);

const count = z.number().int().min(0).max(100_000_000);

export const createTerritoryBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    type: territoryType,
    code: z.string().trim().min(1).max(40).optional(),
    parentId: z.uuid().optional(),
    centroid: latLngSchema.optional(),
    geometry: geometrySchema.optional(),
    population: count.optional(),
    registeredVoters: count.optional(),
  })
  .meta({
    examples: [{ name: 'Comuna 10 - La Candelaria', type: 'commune', code: '05001-10', centroid: { lat: 6.2476, lng: -75.5658 }, population: 84000 }],
  });

export const listTerritoriesQuery = z.object({
  ...pageQueryShape,
  type: territoryType.optional(),
  parentId: z.uuid().optional(),
  q: z.string().trim().min(1).max(100).optional(),
});

export const territoryIdParams = z.object({ id: z.uuid() });

export const territoryView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    type: territoryType,
    code: z.string().nullable(),
    parentId: z.uuid().nullable(),
    centroid: latLngSchema.nullable(),
    population: z.number().int().nullable(),
    registeredVoters: z.number().int().nullable(),
    createdAt: instant,
  })
  .meta({ id: 'Territory' });

export const territoryDetailView = territoryView.extend({ geometry: geometrySchema.nullable() }).meta({ id: 'TerritoryDetail' });

export type CreateTerritoryInput = z.infer<typeof createTerritoryBody>;
export type ListTerritoriesInput = z.infer<typeof listTerritoriesQuery>;
