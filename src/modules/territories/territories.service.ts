import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { insertTerritory } from './territories.repository';
import { findPage } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { centroidOf } from './geometry';
import { TerritorySchema, type Territory } from './territories.entities';
import { TERRITORIES_ROOM } from './territories.events';
import { allowedParentTypes, parentAllowed } from './territories.policy';
import { presentTerritory } from './territories.presenter';
import type { CreateTerritoryInput, ListTerritoriesInput } from './territories.schemas';

async function checkParent(em: EntityManager, input: CreateTerritoryInput): Promise<void> {
  if (!input.parentId) return;
  const parent = await em.findOne(TerritorySchema, { id: input.parentId }, { fields: ['id', 'type'] });
  if (!parent) throw invalidField('body.parentId', 'No territory has this id.');
  if (!parentAllowed(input.type, parent.type)) {
    const allowed = allowedParentTypes(input.type);
    throw invalidField(
      'body.parentId',
      allowed.length
        ? `A ${input.type} can only be inside a ${allowed.join(' or ')}, not a ${parent.type}.`
        : `A ${input.type} cannot be inside another territory.`,
    );
  }
}

/**
 * One insert and, with a parent, one indexed look-up: the write path stays at two round trips
 * so that bulk set-up of thousands of barrios is quick. Duplicate codes are caught by the
 * database's (type, code) constraint, not by a racy read first.
 */
export async function createTerritory(em: EntityManager, deps: AppDeps, input: CreateTerritoryInput) {
  await checkParent(em, input);
  const centroid = input.centroid ?? (input.geometry ? centroidOf(input.geometry) : undefined);
  const now = new Date();
  const row = {
    id: newId(),
    name: input.name,
    type: input.type,
    code: input.code ?? null,
    parent: input.parentId ?? null,
    centroidLat: centroid?.lat ?? null,
    centroidLng: centroid?.lng ?? null,
    geometry: input.geometry ?? null,
    population: input.population ?? null,
    registeredVoters: input.registeredVoters ?? null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await insertTerritory(deps.db, {
      id: row.id,
      name: row.name,
      type: row.type,
      code: row.code,
      parentId: row.parent,
      centroid: centroid ?? null,
      geometry: row.geometry,
      population: row.population,
      registeredVoters: row.registeredVoters,
      at: now,
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new ConflictError(`A ${input.type} with code ${input.code} already exists.`, 'territory_code_taken');
    }
    throw error;
  }
  deps.realtime.publish(TERRITORIES_ROOM, 'territories:created', {
    id: row.id,
    name: row.name,
    type: row.type,
    parentId: row.parent,
  });
  return {
    ...presentTerritory({ ...row, parent: row.parent ? ({ id: row.parent } as Territory) : null } as unknown as Territory),
    geometry: row.geometry,
  };
}

export async function listTerritories(em: EntityManager, query: ListTerritoriesInput) {
  const where: Record<string, unknown> = {};
  if (query.type) where.type = query.type;
  if (query.parentId) where.parent = query.parentId;
  if (query.q) where.name = { $ilike: containsPattern(query.q) };
  return findPage(em, TerritorySchema, where, query, { name: 'asc', id: 'asc' }, presentTerritory);
}

export async function getTerritory(em: EntityManager, id: string): Promise<Territory> {
  const territory = await em.findOne(TerritorySchema, { id }, { populate: ['geometry'] });
  if (!territory) throw new NotFoundError('No territory has this id.');
  return territory;
}

/**
 * For other modules that reference territories by id (campaigns, placements, stations): a 400
 * naming the first unknown id's field, in one query for all of them.
 */
export async function assertTerritoriesExist(
  em: EntityManager,
  ids: (string | undefined | null)[],
  path: (index: number) => string,
): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (!wanted.length) return;
  const found = new Set((await em.find(TerritorySchema, { id: { $in: wanted } }, { fields: ['id'] })).map((territory) => territory.id));
  const missing = ids.findIndex((id) => id && !found.has(id));
  if (missing >= 0) throw invalidField(path(missing), 'No territory has this id.');
}

/**
 * SQL for "the ids of these territories and of everything inside them" (a comuna with its barrios),
 * to use as `x.territory_id in (${TERRITORY_AND_DESCENDANTS})` with one parameter: an array of ids
 * bound as `array[?]` (MikroORM's execute expands an array parameter into a list).
 */
export const TERRITORY_AND_DESCENDANTS = `with recursive inside(id) as (
    select id from territories where id = any(array[?]::uuid[])
    union select t.id from territories t join inside on t.parent_id = inside.id
  ) select id from inside`;
