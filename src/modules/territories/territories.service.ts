import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { centroidOf } from './geometry';
import { TERRITORIES_ROOM } from './territories.events';
import { allowedParentTypes, parentAllowed } from './territories.policy';
import { presentTerritory, presentTerritoryDetail } from './territories.presenter';
import { existingTerritoryIds, findTerritory, insertTerritory, territoryPage, typesOf, type TerritoryRecord } from './territories.repository';
import type { CreateTerritoryInput, ListTerritoriesInput } from './territories.schemas';

async function checkParent(q: Queries, input: CreateTerritoryInput): Promise<void> {
  if (!input.parentId) return;
  const parentType = (await typesOf(q, [input.parentId])).get(input.parentId);
  if (!parentType) throw invalidField('body.parentId', 'No territory has this id.');
  if (!parentAllowed(input.type, parentType)) {
    const allowed = allowedParentTypes(input.type);
    throw invalidField(
      'body.parentId',
      allowed.length ? `A ${input.type} can only be inside a ${allowed.join(' or ')}, not a ${parentType}.` : `A ${input.type} cannot be inside another territory.`,
    );
  }
}

/**
 * One insert and, with a parent, one indexed look-up: the write path stays at two round trips
 * so that bulk set-up of thousands of barrios is quick. Duplicate codes are caught by the
 * database's (type, code) constraint, not by a racy read first.
 */
export async function createTerritory(deps: Pick<AppDeps, 'db' | 'realtime'>, input: CreateTerritoryInput) {
  await checkParent(deps.db, input);
  const centroid = input.centroid ?? (input.geometry ? centroidOf(input.geometry) : undefined);
  const territory: TerritoryRecord = {
    id: newId(),
    name: input.name,
    type: input.type,
    code: input.code ?? null,
    parentId: input.parentId ?? null,
    centroidLat: centroid?.lat ?? null,
    centroidLng: centroid?.lng ?? null,
    population: input.population ?? null,
    registeredVoters: input.registeredVoters ?? null,
    createdAt: new Date(),
    geometry: input.geometry ?? null,
  };
  try {
    await insertTerritory(deps.db, {
      id: territory.id,
      name: territory.name,
      type: territory.type,
      code: territory.code,
      parentId: territory.parentId,
      centroid: centroid ?? null,
      geometry: input.geometry ?? null,
      population: territory.population,
      registeredVoters: territory.registeredVoters,
      at: territory.createdAt,
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new ConflictError(`A ${input.type} with code ${input.code} already exists.`, 'territory_code_taken');
    }
    throw error;
  }
  deps.realtime.publish(TERRITORIES_ROOM, 'territories:created', {
    id: territory.id,
    name: territory.name,
    type: territory.type,
    parentId: territory.parentId,
  });
  return presentTerritoryDetail(territory);
}

export async function listTerritories(em: EntityManager, query: ListTerritoriesInput) {
  const page = await territoryPage(em, query, query);
  return { data: page.data.map(presentTerritory), nextCursor: page.nextCursor };
}

export async function getTerritory(q: Queries, id: string): Promise<TerritoryRecord> {
  const territory = await findTerritory(q, id);
  if (!territory) throw new NotFoundError('No territory has this id.');
  return territory;
}

/**
 * For other modules that reference territories by id (campaigns, placements, stations): a 400
 * naming the first unknown id's field, in one query for all of them. Takes the request's
 * EntityManager or any `Queries` (`deps.db`, a transaction).
 */
export async function assertTerritoriesExist(source: EntityManager | Queries, ids: (string | undefined | null)[], path: (index: number) => string): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (!wanted.length) return;
  const found = await existingTerritoryIds(source, wanted);
  const missing = ids.findIndex((id) => id && !found.has(id));
  if (missing >= 0) throw invalidField(path(missing), 'No territory has this id.');
}
