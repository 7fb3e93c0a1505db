import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { activeUsersWithRoles, countActiveUsers, usersByIds } from '../auth';
import * as repository from './gotv.brigades.repository';
import { gotvPolicy } from './gotv.policy';
import type { CreateBrigadeInput, UpdateBrigadeInput } from './gotv.schemas';
import { forgetScopes } from './gotv.scope';

type BrigadeDeps = Pick<AppDeps, 'db' | 'caches' | 'realtime'>;

/** A 400 on `path` unless `found` rows matched every distinct id. */
function assertFound(ids: readonly string[], found: number, path: string, message: string) {
  if (found !== new Set(ids).size) throw invalidField(path, message);
}

/** Why each member who cannot be one is refused, by name: staff fix the one they picked wrongly, not guess. */
async function assertMembers(q: Queries, memberIds: readonly string[]) {
  const users = await usersByIds(q, memberIds);
  const problems = [...new Set(memberIds)].flatMap((id) => {
    const user = users.get(id);
    if (!user) return [`no user has id ${id}`];
    if (!user.active) return [`${user.name}'s account is deactivated`];
    if (user.role !== 'brigade') return [`${user.name} is ${user.role === 'admin' ? 'an' : 'a'} ${user.role}, not a brigade member`];
    return [];
  });
  if (problems.length) throw invalidField('body.memberIds', `Every member must be an active user with the brigade role: ${problems.join('; ')}.`);
}

/** Members, leader and stations must name existing rows; checked before anything is written. */
async function assertReferences(q: Queries, input: { memberIds?: string[] | undefined; stationIds?: string[] | undefined; leaderId?: string | null | undefined }) {
  await assertMembers(q, input.memberIds ?? []);
  const leader = input.leaderId ? [input.leaderId] : [];
  assertFound(leader, await countActiveUsers(q, leader), 'body.leaderId', 'No active user has this id.');
  const stations = input.stationIds ?? [];
  assertFound(stations, await repository.countStations(q, stations), 'body.stationIds', 'Every station must exist.');
}

function nameTaken(error: unknown): never {
  if (error instanceof UniqueConstraintViolationException) throw new ConflictError('A brigade with this name exists.', 'brigade_name_taken');
  throw error;
}

const present = (brigade: repository.BrigadeRecord) => ({ ...brigade, createdAt: brigade.createdAt.toISOString() });

async function describeOne(q: Queries, id: string) {
  const [brigade] = await repository.describeBrigades(q, [id]);
  if (!brigade) throw new NotFoundError('No brigade has this id.');
  return brigade;
}

export async function createBrigade(deps: BrigadeDeps, input: CreateBrigadeInput) {
  await assertReferences(deps.db, input);
  const id = newId();
  await deps.db
    .transaction((tx) => repository.insertBrigade(tx, { id, name: input.name, leaderId: input.leaderId ?? null, memberIds: input.memberIds, stationIds: input.stationIds }))
    .catch(nameTaken);
  await forgetScopes(deps, input.memberIds);
  return present(await describeOne(deps.db, id));
}

/** One brigade; a brigade member may read only the brigades they belong to. */
export async function getBrigade(q: Queries, actor: Actor, id: string) {
  const brigade = await describeOne(q, id);
  gotvPolicy.authorize(actor, 'readBrigade', brigade);
  return present(brigade);
}

export async function listBrigades(q: Queries) {
  return (await repository.describeBrigades(q)).map(present);
}

/** How many brigade users `brigadePeople` lists at most: more than any campaign fields. */
export const BRIGADE_PEOPLE_MAX = 2000;

/**
 * The people a brigade screen names and chooses from: every active user with the brigade role (who
 * may be made a member), and every user a brigade names now as member or leader, whatever their
 * role or state (so a deactivated member is still named, and marked).
 */
export async function brigadePeople(q: Queries) {
  const [candidates, brigades] = await Promise.all([activeUsersWithRoles(q, ['brigade'], BRIGADE_PEOPLE_MAX), repository.describeBrigades(q)]);
  const named = await usersByIds(
    q,
    brigades.flatMap((brigade) => [...brigade.memberIds, ...(brigade.leaderId ? [brigade.leaderId] : [])]),
  );
  const people = new Map(candidates.map((user) => [user.id, { id: user.id, name: user.name, role: user.role, active: true }]));
  for (const [id, user] of named) if (!people.has(id)) people.set(id, { id, ...user });
  return { data: [...people.values()].sort((a, b) => a.name.localeCompare(b.name, 'es') || a.id.localeCompare(b.id)) };
}

/** Renames, changes the leader, or replaces the member or station lists (each list given is the new whole list). */
export async function updateBrigade(deps: BrigadeDeps, id: string, input: UpdateBrigadeInput) {
  if (!(await repository.brigadeExists(deps.db, id))) throw new NotFoundError('No brigade has this id.');
  await assertReferences(deps.db, input);
  const before = await deps.db
    .transaction(async (tx) => {
      if (!(await repository.lockBrigade(tx, id))) throw new NotFoundError('No brigade has this id.');
      const members = await repository.brigadeMemberIds(tx, id);
      await repository.updateBrigadeRow(tx, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.leaderId !== undefined ? { leaderId: input.leaderId } : {}),
      });
      if (input.memberIds) await repository.replaceMembers(tx, id, input.memberIds);
      if (input.stationIds) await repository.replaceStations(tx, id, input.stationIds);
      return members;
    })
    .catch(nameTaken);
  const after = await describeOne(deps.db, id);
  // Members who left or joined, and (for a station change) everyone in it, see their new scope now.
  await forgetScopes(deps, [...before, ...after.memberIds]);
  return present(after);
}

export async function assignVoters(q: Queries, brigadeId: string, voterIds: string[]) {
  if (!(await repository.brigadeExists(q, brigadeId))) throw new NotFoundError('No brigade has this id.');
  assertFound(voterIds, await repository.countVoters(q, voterIds), 'body.voterIds', 'Every voter must exist.');
  await repository.assignVotersTo(q, brigadeId, voterIds);
  return present(await describeOne(q, brigadeId));
}
