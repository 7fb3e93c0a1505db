import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { ConflictError, ForbiddenError, NotFoundError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { ContactOutcome, VoterStatus } from './gotv.entities';
import { gotvPolicy } from './gotv.policy';
import { scopeOf } from './gotv.scope';
import { chaseTarget, claimVoterRow, contactByClientId, recordContactAttempt, releaseClaimRow, type ChaseTarget } from './gotv.voters.repository';

type ChaseDeps = Pick<AppDeps, 'db' | 'caches' | 'config'>;

/** The voter, if the caller may chase them (managers: any; brigade: their stations or voters). */
async function voterInScope(deps: ChaseDeps, actor: Actor, voterId: string): Promise<ChaseTarget> {
  const voter = await chaseTarget(deps.db, voterId);
  if (!voter) throw new NotFoundError('No voter has this id.');
  gotvPolicy.authorize(actor, 'chase', { scope: await scopeOf(deps, actor), voter });
  return voter;
}

/**
 * Takes a voter off the call list for a while: one conditional update, so of two people pressing
 * "call" at once exactly one gets the voter. A claim by the same person is renewed.
 */
export async function claimVoter(deps: ChaseDeps, actor: Actor, voterId: string) {
  const voter = await voterInScope(deps, actor, voterId);
  if (voter.status === 'voted') throw new ConflictError('This voter has already voted.', 'already_voted');
  const until = new Date(Date.now() + deps.config.gotvClaimSeconds * 1000);
  if (!(await claimVoterRow(deps.db, voter.id, actor.id, until))) throw new ConflictError('Someone else is already contacting this voter.', 'voter_claimed');
  return { voterId: voter.id, claimedBy: actor.id, claimedUntil: until.toISOString() };
}

/** Gives a voter back to the call list: the claimer may release their own claim, a manager any. */
export async function releaseClaim(deps: ChaseDeps, actor: Actor, voterId: string): Promise<void> {
  const voter = await voterInScope(deps, actor, voterId);
  const active = voter.claimedById !== null && voter.claimedUntil !== null && new Date(voter.claimedUntil).getTime() > Date.now();
  if (!active) return;
  if (voter.claimedById !== actor.id && !gotvPolicy.allows(actor, 'overrideClaims')) {
    throw new ForbiddenError('Someone else is contacting this voter; only they or a manager can release the claim.');
  }
  await releaseClaimRow(deps.db, voter.id, voter.claimedById!);
}

/** What an outcome does to the voter's status; the others leave it as it is. */
const statusAfter: Partial<Record<ContactOutcome, VoterStatus>> = { reached: 'contacted', on_the_way: 'on_the_way' };

/**
 * Logs a contact attempt, moves the voter along (never back from voted) and releases the claim.
 * While a colleague holds an unexpired claim on the voter, a brigade member may not log an
 * outcome (409 `voter_claimed`, nothing written): that would both talk over the colleague and
 * take their claim away. Managers and admins may, and their outcome releases the claim.
 * The claim is checked in the same statement that writes, so a claim taken a moment earlier counts.
 * A resend with the same `clientId` answers the first record (`created: false`), claim or not.
 */
export async function logContact(deps: ChaseDeps, actor: Actor, voterId: string, input: { outcome: ContactOutcome; note?: string | undefined; clientId?: string | undefined }) {
  const voter = await voterInScope(deps, actor, voterId);
  const clientId = input.clientId ?? null;
  const resent = async () => {
    const first = clientId ? await contactByClientId(deps.db, actor.id, clientId) : undefined;
    if (first && first.voterId !== voter.id) throw new ConflictError('This clientId was already used for another voter.', 'client_id_reused');
    return first && { created: false, contact: { ...first, createdAt: first.createdAt.toISOString() } };
  };
  const earlier = await resent();
  if (earlier) return earlier;
  const id = newId();
  const row = await recordContactAttempt(deps.db, {
    id,
    voterId: voter.id,
    userId: actor.id,
    outcome: input.outcome,
    note: input.note ?? null,
    clientId,
    nextStatus: statusAfter[input.outcome] ?? null,
    overridesClaims: gotvPolicy.allows(actor, 'overrideClaims'),
  });
  if (!row) {
    // Nothing written: a colleague's claim, or the same resend recorded a moment ago by another request.
    const raced = await resent();
    if (raced) return raced;
    throw new ConflictError('Someone else is contacting this voter; wait until they release it or their claim expires.', 'voter_claimed');
  }
  return { created: true, contact: { id, voterId: voter.id, outcome: input.outcome, voterStatus: row.status, createdAt: row.createdAt.toISOString() } };
}
