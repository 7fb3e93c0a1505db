import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, invalidField, NotFoundError } from '../../kernel/errors';
import type { TerritoryReference } from '../../kernel/module';
import { GOTV_ROOM, stationRoom } from './gotv.events';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { assertTerritoriesExist } from '../territories';
import { presentStation } from './gotv.presenter';
import { publishStations } from './gotv.pushes';
import type { CreateStationInput, ListStationsInput, UpdateStationInput } from './gotv.schemas';
import * as repository from './gotv.stations.repository';
import type { StationRecord } from './gotv.stations.repository';
import { mapPage } from '../../kernel/pagination';

function duplicateCode(code: string | undefined) {
  return (error: unknown): never => {
    if (error instanceof UniqueConstraintViolationException) {
      throw new ConflictError(`A polling station with code ${code} already exists.`, 'station_code_taken');
    }
    throw error;
  };
}

export async function createStation(deps: AppDeps, input: CreateStationInput) {
  await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const station = await repository
    .insertStation(deps.db, {
      id: newId(),
      code: input.code,
      name: input.name,
      address: input.address ?? null,
      territoryId: input.territoryId ?? null,
      lat: input.lat,
      lng: input.lng,
      tables: input.tables,
      registeredVoters: input.registeredVoters,
      previousTurnout: input.previousTurnout ?? null,
      status: input.status,
    })
    .catch(duplicateCode(input.code));
  await publishStations(deps, [station.id], true);
  return presentStation(station);
}

export async function getStation(q: Queries, id: string): Promise<StationRecord> {
  const station = await repository.findStation(q, id);
  if (!station) throw new NotFoundError('No polling station has this id.');
  return station;
}

export async function updateStation(deps: AppDeps, id: string, input: UpdateStationInput) {
  const station = await getStation(deps.db, id);
  if (input.territoryId) await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  // The previous turnout is checked against the registered voters the station will have after the change.
  const registeredVoters = input.registeredVoters ?? station.registeredVoters;
  const previousTurnout = input.previousTurnout === undefined ? station.previousTurnout : input.previousTurnout;
  if (previousTurnout !== null && previousTurnout !== undefined && previousTurnout > registeredVoters) {
    const path = input.previousTurnout === undefined ? 'body.registeredVoters' : 'body.previousTurnout';
    throw invalidField(path, `previousTurnout (${previousTurnout}) cannot exceed registeredVoters (${registeredVoters})`);
  }
  // As the unit of work did: a change that changes nothing writes nothing, so `updatedAt` stays.
  const changes = Object.fromEntries(Object.entries(input).filter(([field, value]) => value !== undefined && value !== station[field as keyof typeof input]));
  const saved = Object.keys(changes).length ? await repository.saveStation(deps.db, id, changes) : station;
  if (!saved) throw new NotFoundError('No polling station has this id.');
  await publishStations(deps, [station.id], true);
  return presentStation(saved);
}

export async function listStations(db: Queries, query: ListStationsInput) {
  const { cursor, limit, territoryId, status, q } = query;
  const page = await repository.stationPage(db, { territoryId, status, search: q }, { cursor, limit });
  return mapPage(page, presentStation);
}

function stationInUse(references: readonly TerritoryReference[]): AppError {
  const said = references.length
    ? references.map((reference) => `${reference.count.toLocaleString('es-CO')} ${reference.count === 1 ? reference.one : reference.many}`).join(', ')
    : 'something was added to it meanwhile';
  return new AppError(409, 'station_in_use', 'Station in use', `The polling station is still in use (${said}); move or remove them first. Nothing was deleted.`, undefined, {
    references: references.map((reference) => ({ ...reference })),
  });
}

/**
 * Deletes a station nothing points at: while voters, turnout reports, brigades or incidents do,
 * 409 `station_in_use` with their counts (the foreign keys refuse one that races a new row, answered
 * the same way). Screens following it are told to reload, so it leaves the live map.
 */
export async function deleteStation(deps: AppDeps, id: string): Promise<void> {
  await deps.db
    .transaction(async (tx) => {
      const references = (await repository.stationReferences(tx, id)).filter((reference) => reference.count > 0);
      if (references.length) throw stationInUse(references);
      if (!(await repository.deleteStation(tx, id))) throw new NotFoundError('No polling station has this id.');
    })
    .catch((error: unknown) => {
      if (error instanceof ForeignKeyConstraintViolationException) throw stationInUse([]);
      throw error;
    });
  deps.realtime.publish([GOTV_ROOM, stationRoom(id)], 'resync', { rooms: [], reason: 'bulk_change', at: new Date().toISOString() });
}
