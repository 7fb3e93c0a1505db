import { definePolicy } from '../../kernel/policy';
import type { TerritoryType } from './territories.entities';

/** Who may do what with territories: every signed-in role reads the map; managers shape it. */
export const territoriesPolicy = definePolicy({
  read: { roles: [] },
  create: { roles: ['manager'] },
  /** The live room of new territories, for maps. */
  follow: { roles: ['manager', 'treasurer', 'viewer', 'brigade', 'volunteer'] },
});

/**
 * Which types a territory's parent may have: departamento → municipio → comuna/localidad →
 * barrio. A barrio may hang directly from a municipio that has no comunas; zones are the
 * campaign's own groupings and may sit under any administrative level or stand alone.
 */
const allowedParents: Record<TerritoryType, readonly TerritoryType[]> = {
  department: [],
  municipality: ['department'],
  commune: ['municipality'],
  neighbourhood: ['commune', 'municipality'],
  zone: ['department', 'municipality', 'commune'],
};

export function parentAllowed(child: TerritoryType, parent: TerritoryType): boolean {
  return allowedParents[child].includes(parent);
}

export function allowedParentTypes(child: TerritoryType): readonly TerritoryType[] {
  return allowedParents[child];
}
