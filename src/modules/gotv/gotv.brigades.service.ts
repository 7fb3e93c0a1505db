import { UniqueConstraintViolationException, type EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, ForbiddenError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { UserSchema } from '../auth';
import { BrigadeMemberSchema, BrigadeSchema, BrigadeStationSchema, PollingStationSchema, VoterSchema } from './gotv.entities';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { forgetScopes } from './gotv.scope';
import type { CreateBrigadeInput, UpdateBrigadeInput } from './gotv.schemas';

/** A 400 on `path` unless every id names an existing row (matching `where`). */
async function assertAll<T extends object>(em: EntityManager, entity: EntityName<T>, ids: string[], path: string, what: string, where: Record<string, unknown> = {}) {
  const unique = [...new Set(ids)];
  if (!unique.length) return;
  const found = await em.count(entity, { id: { $in: unique }, ...where } as never);
  if (found !== unique.length) throw invalidField(path, what);
}

/** Members, leader and stations must name existing rows; checked before anything is written. */
async function assertPeople(em: EntityManager, input: { memberIds?: string[]; stationIds?: string[]; leaderId?: string | null }) {
  await assertAll(em, UserSchema, input.memberIds ?? [], 'body.memberIds', 'Every member must be an active user with the brigade role.', { role: 'brigade', active: true });
  await assertAll(em, UserSchema, input.leaderId ? [input.leaderId] : [], 'body.leaderId', 'No active user has this id.', { active: true });
  await assertAll(em, PollingStationSchema, input.stationIds ?? [], 'body.stationIds', 'Every station must exist.');
}

async function flushNamed(em: EntityManager) {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError('A brigade with this name exists.', 'brigade_name_taken');
    throw error;
  }
}

export async function createBrigade(em: EntityManager, deps: AppDeps, input: CreateBrigadeInput) {
  await assertPeople(em, input);
  const brigade = em.create(BrigadeSchema, { id: newId(), name: input.name, leader: input.leaderId ?? null });
  for (const user of new Set(input.memberIds)) em.create(BrigadeMemberSchema, { brigade, user });
  for (const station of new Set(input.stationIds)) em.create(BrigadeStationSchema, { brigade, station });
  await flushNamed(em);
  await forgetScopes(deps, input.memberIds);
  return (await describeBrigades(em, [brigade.id]))[0]!;
}

/** One brigade; a brigade member may read only the brigades they belong to. */
export async function getBrigade(em: EntityManager, actor: Actor, id: string) {
  const [brigade] = await describeBrigades(em, [id]);
  if (!brigade) throw new NotFoundError('No brigade has this id.');
  if (actor.role === 'brigade' && !brigade.memberIds.includes(actor.id)) throw new ForbiddenError('You are not a member of this brigade.');
  return brigade;
}

/** Renames, changes the leader, or replaces the member or station lists (each list given is the new whole list). */
export async function updateBrigade(em: EntityManager, deps: AppDeps, id: string, input: UpdateBrigadeInput) {
  if (!(await em.count(BrigadeSchema, { id }))) throw new NotFoundError('No brigade has this id.');
  await assertPeople(em, input);
  const before = await em.find(BrigadeMemberSchema, { brigade: id });
  await em.transactional(async (tx) => {
    const brigade = await tx.findOneOrFail(BrigadeSchema, { id });
    if (input.name !== undefined) brigade.name = input.name;
    if (input.leaderId !== undefined) brigade.leader = input.leaderId ? tx.getReference(UserSchema, input.leaderId) : null;
    if (input.memberIds) {
      await tx.nativeDelete(BrigadeMemberSchema, { brigade: id });
      for (const user of new Set(input.memberIds)) tx.create(BrigadeMemberSchema, { brigade, user });
    }
    if (input.stationIds) {
      await tx.nativeDelete(BrigadeStationSchema, { brigade: id });
      for (const station of new Set(input.stationIds)) tx.create(BrigadeStationSchema, { brigade, station });
    }
    await flushNamed(tx);
  });
  const after = (await describeBrigades(em, [id]))[0]!;
  // Members who left or joined, and (for a station change) everyone in it, see their new scope now.
  await forgetScopes(deps, [...before.map((member) => member.user.id), ...after.memberIds]);
  return after;
}

/** Brigades with their members, stations and number of voters, in three grouped queries. */
export async function describeBrigades(em: EntityManager, ids?: string[]) {
  const brigades = await em.find(BrigadeSchema, ids ? { id: { $in: ids } } : {}, { orderBy: { name: 'asc' }, limit: 500 });
  const brigadeIds = brigades.map((brigade) => brigade.id);
  const [members, stations, voters] = await Promise.all([
    em.find(BrigadeMemberSchema, { brigade: { $in: brigadeIds } }),
    em.find(BrigadeStationSchema, { brigade: { $in: brigadeIds } }),
    em.execute<{ brigade_id: string; n: number }[]>('select brigade_id, count(*)::int as n from gotv_voters where brigade_id = any(array[?]::uuid[]) group by brigade_id', [
      brigadeIds.length ? brigadeIds : ['00000000-0000-0000-0000-000000000000'],
    ]),
  ]);
  const voterCounts = new Map(voters.map((row) => [row.brigade_id, row.n]));
  return brigades.map((brigade) => ({
    id: brigade.id,
    name: brigade.name,
    leaderId: brigade.leader ? brigade.leader.id : null,
    memberIds: members.filter((member) => member.brigade.id === brigade.id).map((member) => member.user.id),
    stationIds: stations.filter((station) => station.brigade.id === brigade.id).map((station) => station.station.id),
    voters: voterCounts.get(brigade.id) ?? 0,
    createdAt: brigade.createdAt.toISOString(),
  }));
}

export async function assignVoters(em: EntityManager, brigadeId: string, voterIds: string[]) {
  if (!(await em.count(BrigadeSchema, { id: brigadeId }))) throw new NotFoundError('No brigade has this id.');
  await assertAll(em, VoterSchema, voterIds, 'body.voterIds', 'Every voter must exist.');
  await em.nativeUpdate(VoterSchema, { id: { $in: [...new Set(voterIds)] } }, { brigade: brigadeId });
  return (await describeBrigades(em, [brigadeId]))[0]!;
}
