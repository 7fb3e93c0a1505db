import type { Queries } from '../../kernel/sql';
import { setContactOfUser } from './agenda.repository';

/**
 * Records which contact a user account is (null forgets it), so that the account answers events
 * and signs up for shifts as that person. The volunteers module calls it when it links a volunteer
 * to a login; the caller has checked that both exist.
 */
export async function linkUserContact(q: Queries, userId: string, contactId: string | null): Promise<void> {
  await setContactOfUser(q, userId, contactId, new Date());
}
