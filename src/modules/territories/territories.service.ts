import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import type { TerritoryReference } from '../../kernel/module';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { centroidOf } from './geometry';
import type { TerritoryType } from './territories.entities';
import { TERRITORIES_ROOM } from './territories.events';
import { allowedParentTypes, parentAllowed } from './territories.policy';
import { presentTerritory, presentTerritoryDetail } from './territories.presenter';
import {
  childTypes,
  deleteTerritory,
  existingTerritoryIds,
  findTerritory,
  insertTerritory,
  isWithin,
  territoryPage,
  typesOf,
  updateTerritory as writeChanges,
  type TerritoryRecord,
} from './territories.repository';
import type { CreateTerritoryInput, ListTerritoriesInput, UpdateTerritoryInput } from './territories.schemas';
import { mapPage } from '../../kernel/pagination';

async function checkParent(q: Queries, input: { type: TerritoryType; parentId?: string | null | undefined }): Promise<void> {
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

function codeTaken(type: TerritoryType, code: string | null | undefined) {
  return (error: unknown): never => {
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`A ${type} with code ${code} already exists.`, 'territory_code_taken');
    throw error;
  };
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
    codeTaken(input.type, input.code)(error);
  }
  deps.realtime.publish(TERRITORIES_ROOM, 'territories:created', {
    id: territory.id,
    name: territory.name,
    type: territory.type,
    parentId: territory.parentId,
  });
  return presentTerritoryDetail(territory);
}

export async function listTerritories(q: Queries, query: ListTerritoriesInput) {
  const page = await territoryPage(q, query, query);
  return mapPage(page, presentTerritory);
}

export async function getTerritory(q: Queries, id: string): Promise<TerritoryRecord> {
  const territory = await findTerritory(q, id);
  if (!territory) throw new NotFoundError('No territory has this id.');
  return territory;
}

/**
 * For other modules that reference territories by id (campaigns, placements, stations): a 400
 * naming the first unknown id's field, in one query for all of them, with `deps.db` or a transaction.
 */
export async function assertTerritoriesExist(source: Queries, ids: (string | undefined | null)[], path: (index: number) => string): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (!wanted.length) return;
  const found = await existingTerritoryIds(source, wanted);
  const missing = ids.findIndex((id) => id && !found.has(id));
  if (missing >= 0) throw invalidField(path(missing), 'No territory has this id.');
}

/**
 * Changes a territory: its level and parent are checked as on creation, and a move under itself
 * or one of its own sub-territories (a cycle) is refused, as is a level its sub-territories could
 * not sit in. A new geometry without a centroid moves the centroid to the geometry's.
 */
export async function updateTerritory(deps: Pick<AppDeps, 'db' | 'realtime'>, id: string, input: UpdateTerritoryInput) {
  const current = await getTerritory(deps.db, id);
  const type = input.type ?? current.type;
  const parentId = input.parentId === undefined ? current.parentId : input.parentId;
  if (input.parentId && (await isWithin(deps.db, input.parentId, id))) {
    throw invalidField('body.parentId', input.parentId === id ? 'A territory cannot be inside itself.' : 'The new parent lies inside this territory: the move would make a cycle.');
  }
  if (input.type !== undefined || input.parentId !== undefined) {
    await checkParent(deps.db, { type, parentId });
    if (type !== current.type) {
      const refused = [...(await childTypes(deps.db, id))].filter(([child]) => !parentAllowed(child, type));
      if (refused.length) {
        const what = refused.map(([child, n]) => `${n} ${child}`).join(', ');
        throw invalidField('body.type', `Its sub-territories (${what}) cannot be inside a ${type}; move them first.`);
      }
    }
  }
  const centroid = input.centroid !== undefined ? input.centroid : input.geometry ? centroidOf(input.geometry) : undefined;
  const code = input.code === undefined ? current.code : input.code;
  await writeChanges(deps.db, id, { ...input, type, parentId, centroid }).catch(codeTaken(type, code));
  const changed = await getTerritory(deps.db, id);
  if (changed.name !== current.name || changed.type !== current.type || changed.parentId !== current.parentId) {
    deps.realtime.publish(TERRITORIES_ROOM, 'territories:updated', { id, name: changed.name, type: changed.type, parentId: changed.parentId });
  }
  return presentTerritoryDetail(changed);
}

/** What still points at a territory, from every module (its sub-territories too), the kinds with none left out. */
export async function territoryReferences(deps: Pick<AppDeps, 'db' | 'territoryReferences'>, q: Queries, id: string): Promise<(TerritoryReference & { module: string })[]> {
  const found = await Promise.all(
    deps.territoryReferences.map(async (section) => (await section.references(q, id)).map((reference) => ({ module: section.module, ...reference }))),
  );
  return found.flat().filter((reference) => reference.count > 0);
}

function inUse(references: readonly TerritoryReference[]): AppError {
  const said = references.length
    ? references.map((reference) => `${reference.count.toLocaleString('es-CO')} ${reference.count === 1 ? reference.one : reference.many}`).join(', ')
    : 'something was placed in it meanwhile';
  return new AppError(409, 'territory_in_use', 'Territory in use', `The territory is still in use (${said}); move or remove them first. Nothing was deleted.`, undefined, {
    references: references.map((reference) => ({ ...reference })),
  });
}

/**
 * Deletes a territory nothing points at: while any module's rows (or a sub-territory) do, 409
 * `territory_in_use` naming them with their counts. The foreign keys refuse a delete that races a
 * new reference, answered the same way.
 */
export async function removeTerritory(deps: Pick<AppDeps, 'db' | 'realtime' | 'territoryReferences'>, id: string): Promise<void> {
  await getTerritory(deps.db, id);
  await deps.db
    .transaction(async (tx) => {
      const references = await territoryReferences(deps, tx, id);
      if (references.length) throw inUse(references);
      await deleteTerritory(tx, id);
    })
    .catch((error: unknown) => {
      if (error instanceof ForeignKeyConstraintViolationException) throw inUse([]);
      throw error;
    });
  deps.realtime.publish(TERRITORIES_ROOM, 'territories:deleted', { id });
}
