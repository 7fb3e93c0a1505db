/** The levels of the territory tree, with nothing but TypeScript: the entity, the schemas and the staff console (which bundles the schemas) use them. */
export const TERRITORY_TYPES = ['department', 'municipality', 'commune', 'neighbourhood', 'zone'] as const;
export type TerritoryType = (typeof TERRITORY_TYPES)[number];
