import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { findPage } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { assertTerritoriesExist } from '../territories';
import { PollingStationSchema, type PollingStation } from './gotv.entities';
import { presentStation } from './gotv.presenter';
import { publishStations } from './gotv.pushes';
import type { CreateStationInput, ListStationsInput, UpdateStationInput } from './gotv.schemas';

function duplicateCode(error: unknown, code: string | undefined): never {
  if (error instanceof UniqueConstraintViolationException) {
    throw new ConflictError(`A polling station with code ${code} already exists.`, 'station_code_taken');
  }
  throw error;
}

export async function createStation(em: EntityManager, deps: AppDeps, input: CreateStationInput) {
  await assertTerritoriesExist(em, [input.territoryId], () => 'body.territoryId');
  const station = em.create(PollingStationSchema, {
    id: newId(),
    code: input.code,
    name: input.name,
    address: input.address ?? null,
    territory: input.territoryId ?? null,
    lat: input.lat,
    lng: input.lng,
    tables: input.tables,
    registeredVoters: input.registeredVoters,
    status: input.status,
  });
  try {
    await em.flush();
  } catch (error) {
    duplicateCode(error, input.code);
  }
  await publishStations(deps, [station.id], true);
  return presentStation(station);
}

export async function getStation(em: EntityManager, id: string): Promise<PollingStation> {
  const station = await em.findOne(PollingStationSchema, { id });
  if (!station) throw new NotFoundError('No polling station has this id.');
  return station;
}

export async function updateStation(em: EntityManager, deps: AppDeps, id: string, input: UpdateStationInput) {
  const station = await getStation(em, id);
  if (input.territoryId) await assertTerritoriesExist(em, [input.territoryId], () => 'body.territoryId');
  const { territoryId, ...fields } = input;
  em.assign(station, { ...fields, ...(territoryId !== undefined ? { territory: territoryId } : {}) });
  await em.flush();
  await publishStations(deps, [station.id], true);
  return presentStation(station);
}

export function listStations(em: EntityManager, query: ListStationsInput) {
  const where: Record<string, unknown> = {};
  if (query.territoryId) where.territory = query.territoryId;
  if (query.status) where.status = query.status;
  if (query.q) {
    const pattern = containsPattern(query.q);
    where.$or = [{ name: { $ilike: pattern } }, { code: { $ilike: pattern } }];
  }
  return findPage(em, PollingStationSchema, where, query, { name: 'asc', id: 'asc' }, presentStation);
}
