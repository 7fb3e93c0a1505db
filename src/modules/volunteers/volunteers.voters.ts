import type { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../../kernel/errors';
import { findVoterIds } from '../gotv';
import { addVoters, findVolunteer, replaceVoters, votersOf, votersTakenByOthers } from './volunteers.repository';
import type { VotersInput, votersView } from './volunteers.schemas';

type Deps = Pick<AppDeps, 'db'>;

const NO_VOLUNTEER = 'No volunteer has this id, or their data was erased.';

export async function votersOfVolunteer(deps: Deps, volunteerId: string): Promise<z.input<typeof votersView>> {
  if (!(await findVolunteer(deps.db, volunteerId))) throw new NotFoundError(NO_VOLUNTEER);
  const voters = await votersOf(deps.db, volunteerId);
  return {
    volunteerId,
    voters: voters.map((voter) => ({
      voterId: voter.voterId,
      status: voter.status,
      votedAt: voter.votedAt ? voter.votedAt.toISOString() : null,
      linkedAt: voter.linkedAt.toISOString(),
    })),
    total: voters.length,
    voted: voters.filter((voter) => voter.status === 'voted').length,
  };
}

/**
 * Links confirmed GOTV voters to the volunteer who brings them, by voter id or cédula: `replace`
 * sets the whole list, otherwise they are added. Unknown voters are a 400 naming them; voters
 * another volunteer already brings are a 409 naming who (each vote counts for one volunteer).
 */
export async function linkVoters(deps: Deps, volunteerId: string, input: VotersInput, replace: boolean): Promise<z.input<typeof votersView>> {
  const found = await findVoterIds(deps.db, { ids: input.voterIds, documentIds: input.documentIds });
  const errors: FieldError[] = [];
  (input.voterIds ?? []).forEach((id, index) => {
    if (!found.byId.has(id)) errors.push({ path: `body.voterIds.${index}`, message: 'No confirmed voter has this id.' });
  });
  (input.documentIds ?? []).forEach((documentId, index) => {
    if (!found.byDocument.has(documentId)) errors.push({ path: `body.documentIds.${index}`, message: `No confirmed voter has cédula ${documentId}.` });
  });
  if (errors.length) throw new ValidationError(errors, errors.length === 1 ? errors[0]!.message : `${errors.length} voters are not in the GOTV list.`, 'unknown_voter');
  const voterIds = [...new Set([...found.byId, ...found.byDocument.values()])];
  await deps.db.transaction(async (tx) => {
    if (!(await findVolunteer(tx, volunteerId, true))) throw new NotFoundError(NO_VOLUNTEER);
    const taken = await votersTakenByOthers(tx, volunteerId, voterIds);
    if (taken.length) {
      throw new AppError(
        409,
        'voter_linked',
        'Conflict',
        `${taken.length} of these voters already count for another volunteer (voter ${taken[0]!.voterId} for ${taken[0]!.volunteerId}).`,
        undefined,
        { taken },
      );
    }
    const at = new Date();
    if (replace) await replaceVoters(tx, volunteerId, voterIds, at);
    else await addVoters(tx, volunteerId, voterIds, at);
  });
  return votersOfVolunteer(deps, volunteerId);
}
