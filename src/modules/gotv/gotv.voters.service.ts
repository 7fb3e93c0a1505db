import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, ForbiddenError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { findPage } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { contactExists, normalisePhone } from '../audience';
import type { Queries } from '../../kernel/sql';
import { TERRITORY_AND_DESCENDANTS } from '../territories';
import { PollingStationSchema, VoterSchema, type Voter } from './gotv.entities';
import { presentVoter } from './gotv.presenter';
import type { CreateVoterInput, ListVotersInput, UpdateVoterInput } from './gotv.schemas';
import { projectionChanged, publishStations } from './gotv.pushes';
import { coversVoter, scopeOf } from './gotv.scope';

/**
 * The checks a voter's fields need beyond their shape, for a new voter and a correction alike:
 * the station exists and has the table, the contact exists, the phone is a phone. Only the fields
 * given are checked, against what a corrected voter already has (`current`): a new table at their
 * station, their table at a new station.
 */
async function checkedVoterFields(
  em: EntityManager,
  db: Queries,
  input: { pollingStationId?: string | undefined; tableNumber?: number | null | undefined; contactId?: string | null | undefined; phone?: string | null | undefined },
  current?: { stationId: string; tableNumber: number | null },
): Promise<{ phone?: string | null }> {
  if (input.pollingStationId || input.tableNumber) {
    const station = await em.findOne(PollingStationSchema, { id: input.pollingStationId ?? current!.stationId }, { fields: ['id', 'tables'] });
    if (!station) throw invalidField('body.pollingStationId', 'No polling station has this id.');
    const table = input.tableNumber === undefined ? current?.tableNumber : input.tableNumber;
    if (table && table > station.tables) {
      const path = input.tableNumber ? 'body.tableNumber' : 'body.pollingStationId';
      throw invalidField(path, `The station has ${station.tables} tables${input.tableNumber ? '' : `; the voter is at table ${table}: send the new table too`}.`);
    }
  }
  if (input.contactId && !(await contactExists(db, input.contactId))) {
    throw invalidField('body.contactId', 'No contact has this id.');
  }
  if (input.phone === undefined) return {};
  if (input.phone === null || input.phone === '') return { phone: null };
  const phone = normalisePhone(input.phone);
  if (!phone) throw invalidField('body.phone', 'not a valid phone number');
  return { phone };
}

/** Writes the entity; a document number already registered is a 409. */
async function flushVoter(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new ConflictError('A voter with this document number is already registered.', 'voter_document_taken');
    }
    throw error;
  }
}

export async function createVoter(em: EntityManager, db: Queries, input: CreateVoterInput) {
  const { phone } = await checkedVoterFields(em, db, input);
  const voter = em.create(VoterSchema, {
    id: newId(),
    name: input.name,
    documentId: input.documentId,
    phone: phone ?? null,
    pollingStation: input.pollingStationId,
    tableNumber: input.tableNumber ?? null,
    contact: input.contactId ?? null,
    priority: input.priority,
    status: 'pending',
    votedAt: null,
  });
  await flushVoter(em);
  return presentVoter(voter);
}

/**
 * A manager's correction (an imported list with the wrong station or a mistyped phone). Moving a
 * voter to another station moves them in both stations' figures (the tallies follow), and both
 * stations' rooms are told; whether they voted, and their reports, stay as they are.
 */
export async function updateVoter(em: EntityManager, deps: AppDeps, id: string, input: UpdateVoterInput) {
  const voter = await getVoter(em, id);
  const previousStation = voter.pollingStation.id;
  const { phone } = await checkedVoterFields(em, deps.db, input, { stationId: previousStation, tableNumber: voter.tableNumber ?? null });
  const { pollingStationId, contactId, phone: _typed, ...fields } = input;
  em.assign(voter, {
    ...fields,
    ...(phone !== undefined ? { phone } : {}),
    ...(pollingStationId !== undefined ? { pollingStation: pollingStationId } : {}),
    ...(contactId !== undefined ? { contact: contactId } : {}),
  });
  await flushVoter(em);
  if (voter.pollingStation.id !== previousStation) {
    await publishStations(deps, [previousStation, voter.pollingStation.id], false);
    projectionChanged(deps)();
  }
  return presentVoter(voter);
}

/**
 * Removes a confirmed voter: one registered by mistake, or a citizen who asked to be removed
 * (habeas data). Their contact log (its notes may hold personal data) goes with them; their
 * turnout reports stay as facts of the day without the person (station and time only), so the
 * hourly curve does not change, while the station's confirmed figures drop them.
 */
export async function deleteVoter(em: EntityManager, deps: AppDeps, id: string): Promise<void> {
  const [row] = await em.execute<{ station_id: string }[]>('delete from gotv_voters where id = ? returning polling_station_id as station_id', [id]);
  if (!row) throw new NotFoundError('No voter has this id.');
  await publishStations(deps, [row.station_id], false);
  projectionChanged(deps)();
}

export async function getVoter(em: EntityManager, id: string): Promise<Voter> {
  const voter = await em.findOne(VoterSchema, { id });
  if (!voter) throw new NotFoundError('No voter has this id.');
  return voter;
}

/**
 * `status=pending` is the call list brigades work from; a brigade member sees only the voters of
 * their stations and brigades, and `claim=free` hides the ones a colleague is calling right now.
 * `territoryId` includes the stations of the territories inside it, as the live map does.
 */
export async function listVoters(em: EntityManager, deps: AppDeps, actor: Actor, query: ListVotersInput) {
  const where: Record<string, unknown>[] = [];
  const scope = await scopeOf(deps, actor);
  if (!scope.all) {
    where.push({ $or: [{ pollingStation: { $in: idsOrNone(scope.stations) } }, { brigade: { $in: idsOrNone(scope.brigades) } }] });
  }
  if (query.pollingStationId) where.push({ pollingStation: query.pollingStationId });
  if (query.territoryId) where.push({ pollingStation: { territory: { $in: idsOrNone(await territoryAndDescendants(em, query.territoryId)) } } });
  if (query.brigadeId) where.push({ brigade: query.brigadeId });
  if (query.status) where.push({ status: query.status });
  if (query.priority) where.push({ priority: query.priority });
  if (query.claim === 'mine') where.push({ claimedBy: actor.id, claimedUntil: { $gt: new Date() } });
  if (query.claim === 'free') where.push({ $or: [{ claimedUntil: null }, { claimedUntil: { $lte: new Date() } }] });
  if (query.q) {
    const digits = query.q.replace(/\D/g, '');
    where.push({ $or: [{ name: { $ilike: containsPattern(query.q) } }, ...(digits.length >= 4 ? [{ documentId: { $like: `${digits}%` } }] : [])] });
  }
  return findPage(em, VoterSchema, where.length ? { $and: where } : {}, query, { name: 'asc', id: 'asc' }, presentVoter);
}

/** The territory and every territory inside it (a comuna with its barrios), as the live map counts them. */
async function territoryAndDescendants(em: EntityManager, territoryId: string): Promise<Set<string>> {
  const rows = await em.execute<{ id: string }[]>(TERRITORY_AND_DESCENDANTS, [[territoryId]]);
  return new Set(rows.map((row) => row.id));
}

/** `$in` with an empty list would be invalid SQL in some drivers; the nil UUID matches nothing. */
function idsOrNone(ids: ReadonlySet<string>): string[] {
  return ids.size ? [...ids] : ['00000000-0000-0000-0000-000000000000'];
}

/** One voter; a brigade member may read only voters their brigade covers. */
export async function getVoterFor(em: EntityManager, deps: AppDeps, actor: Actor, id: string) {
  const voter = await getVoter(em, id);
  const scope = await scopeOf(deps, actor);
  if (!coversVoter(scope, { station_id: voter.pollingStation.id, brigade_id: voter.brigade ? voter.brigade.id : null })) {
    throw new ForbiddenError("This voter is not one of your brigade's.");
  }
  return presentVoter(voter);
}
