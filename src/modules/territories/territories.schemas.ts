import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { geometrySchema, latLngSchema } from './geometry';
import { TERRITORY_TYPES, type TerritoryType } from './territories.constants';

/** The levels as answers name them. */
export const territoryType = z.enum(TERRITORY_TYPES);

/**
 * The Spanish names of the levels, as Colombian files and people call them: a localidad (Bogotá,
 * Cartagena) and a corregimiento (rural) sit where a comuna does, a vereda where a barrio does.
 */
export const TERRITORY_TYPES_ES = {
  departamento: 'department',
  municipio: 'municipality',
  distrito: 'municipality',
  comuna: 'commune',
  localidad: 'commune',
  corregimiento: 'commune',
  barrio: 'neighbourhood',
  vereda: 'neighbourhood',
  zona: 'zone',
} as const satisfies Record<string, TerritoryType>;

/** A level in English or Spanish, on input; answers carry the English name. */
export const territoryTypeInput = z
  .enum([...TERRITORY_TYPES, ...(Object.keys(TERRITORY_TYPES_ES) as (keyof typeof TERRITORY_TYPES_ES)[])])
  .transform((type): TerritoryType => (type in TERRITORY_TYPES_ES ? TERRITORY_TYPES_ES[type as keyof typeof TERRITORY_TYPES_ES] : (type as TerritoryType)))
  .describe('department, municipality, commune, neighbourhood, zone, or in Spanish departamento, municipio, distrito, comuna, localidad, corregimiento, barrio, vereda, zona');

const count = z.number().int().min(0).max(100_000_000);

export const createTerritoryBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    type: territoryTypeInput,
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
  type: territoryTypeInput.optional(),
  parentId: z.uuid().optional(),
  q: z.string().trim().min(1).max(100).optional(),
});

export const updateTerritoryBody = z
  .object({
    name: z.string().trim().min(1).max(160).optional(),
    type: territoryTypeInput.optional(),
    code: z.string().trim().min(1).max(40).nullable().optional(),
    parentId: z.uuid().nullable().optional(),
    centroid: latLngSchema.nullable().optional(),
    geometry: geometrySchema.nullable().optional(),
    population: count.nullable().optional(),
    registeredVoters: count.nullable().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'Send at least one field to change.' })
  .meta({
    examples: [
      { name: 'Comuna 10 - La Candelaria', parentId: '01960000-0000-7000-8000-000000000001' },
      { type: 'localidad', code: null },
    ],
  });

export const territoryImportQuery = z.object({
  /** `true`: read and check everything, answer what would be written, write nothing. */
  dryRun: z.enum(['true', 'false'], { error: 'expected true or false' }).default('false'),
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
export type UpdateTerritoryInput = z.infer<typeof updateTerritoryBody>;
export type ListTerritoriesInput = z.infer<typeof listTerritoriesQuery>;
