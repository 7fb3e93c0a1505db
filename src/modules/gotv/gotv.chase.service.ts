import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { roleAllowed, type Actor } from '../../kernel/auth/roles';
import { ConflictError, ForbiddenError, NotFoundError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { ContactOutcome, VoterStatus } from './gotv.entities';
import { coversVoter, scopeOf } from './gotv.scope';

interface VoterRow {
  id: string;
  status: VoterStatus;
  station_id: string;
  brigade_id: string | null;
  claimed_by_id: string | null;
  claimed_until: Date | null;
}

/** Managers (and admins) may release anyone's claim and log over it; brigade members only their own. */
const overridesClaims = (actor: Actor) => roleAllowed(actor.role, ['manager']);

/** The voter, if the caller may chase them (managers: any; brigade: their stations or voters). */
async function voterInScope(em: EntityManager, deps: AppDeps, actor: Actor, voterId: string): Promise<VoterRow> {
  const [voter] = await em.execute<VoterRow[]>('select id, status, polling_station_id as station_id, brigade_id, claimed_by_id, claimed_until from gotv_voters where id = ?', [
    voterId,
  ]);
  if (!voter) throw new NotFoundError('No voter has this id.');
  const scope = await scopeOf(deps, actor);
  if (!coversVoter(scope, voter)) {
    throw new ForbiddenError("This voter is not one of your brigade's.");
  }
  return voter;
}

/**
 * Takes a voter off the call list for a while: one conditional update, so of two people pressing
 * "call" at once exactly one gets the voter. A claim by the same person is renewed.
 */
export async function claimVoter(em: EntityManager, deps: AppDeps, actor: Actor, voterId: string) {
  const voter = await voterInScope(em, deps, actor, voterId);
  if (voter.status === 'voted') throw new ConflictError('This voter has already voted.', 'already_voted');
  const until = new Date(Date.now() + deps.config.gotvClaimSeconds * 1000);
  const [claimed] = await em.execute<{ id: string }[]>(
    `update gotv_voters set claimed_by_id = ?, claimed_until = ?, updated_at = now()
     where id = ? and status <> 'voted' and (claimed_until is null or claimed_until < now() or claimed_by_id = ?) returning id`,
    [actor.id, until, voter.id, actor.id],
  );
  if (!claimed) throw new ConflictError('Someone else is already contacting this voter.', 'voter_claimed');
  return { voterId: voter.id, claimedBy: actor.id, claimedUntil: until.toISOString() };
}

/** Gives a voter back to the call list: the claimer may release their own claim, a manager any. */
export async function releaseClaim(em: EntityManager, deps: AppDeps, actor: Actor, voterId: string): Promise<void> {
  const voter = await voterInScope(em, deps, actor, voterId);
  const active = voter.claimed_by_id !== null && voter.claimed_until !== null && new Date(voter.claimed_until).getTime() > Date.now();
  if (!active) return;
  if (voter.claimed_by_id !== actor.id && !overridesClaims(actor)) {
    throw new ForbiddenError('Someone else is contacting this voter; only they or a manager can release the claim.');
  }
  await em.execute('update gotv_voters set claimed_by_id = null, claimed_until = null, updated_at = now() where id = ? and claimed_by_id = ?', [voter.id, voter.claimed_by_id]);
}

/** What an outcome does to the voter's status; the others leave it as it is. */
const statusAfter: Partial<Record<ContactOutcome, VoterStatus>> = { reached: 'contacted', on_the_way: 'on_the_way' };

/**
 * Logs a contact attempt, moves the voter along (never back from voted) and releases the claim.
 * While a colleague holds an unexpired claim on the voter, a brigade member may not log an
 * outcome (409 `voter_claimed`, nothing written): that would both talk over the colleague and
 * take their claim away. Managers and admins may, and their outcome releases the claim.
 * The claim is checked in the same statement that writes, so a claim taken a moment earlier counts.
 */
export async function logContact(em: EntityManager, deps: AppDeps, actor: Actor, voterId: string, outcome: ContactOutcome, note: string | undefined) {
  const voter = await voterInScope(em, deps, actor, voterId);
  const id = newId();
  const next = statusAfter[outcome];
  const [row] = await em.execute<{ status: VoterStatus; created_at: Date }[]>(
    `with v as (
       update gotv_voters set
         status = case when status = 'voted' or ?::text is null then status else ?::text end,
         claimed_by_id = null, claimed_until = null, updated_at = now()
       where id = ?
         and (?::boolean or claimed_by_id is null or claimed_until is null or claimed_until <= now() or claimed_by_id = ?)
       returning id, status
     ),
     c as (
       insert into gotv_voter_contacts (id, voter_id, user_id, outcome, note, created_at)
       select ?, v.id, ?, ?, ?, now() from v returning created_at
     )
     select v.status, c.created_at from v, c`,
    [next ?? null, next ?? null, voter.id, overridesClaims(actor), actor.id, id, actor.id, outcome, note ?? null],
  );
  if (!row) throw new ConflictError('Someone else is contacting this voter; wait until they release it or their claim expires.', 'voter_claimed');
  return { id, voterId: voter.id, outcome, voterStatus: row.status, createdAt: new Date(row.created_at).toISOString() };
}
