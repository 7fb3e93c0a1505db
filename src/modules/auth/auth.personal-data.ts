import { ConflictError } from '../../kernel/errors';
import type { PersonalDataHolder } from '../../kernel/module';
import { ERASED_NAME } from '../../kernel/privacy';
import { accountsOfPerson, countActiveAdmins, eraseAccounts, lockAdmins } from './auth.repository';
import { removeSessions } from './auth.sessions';

/**
 * A person's login accounts: those linked to their contact (a volunteer's login, an agenda
 * account) and any under one of their emails. The export lists them (never the password hash).
 * Erasure anonymises each account and ends it: it cannot sign in again, its tokens and sockets end
 * at once in every process, and its set-password links go. The row stays as the author of what its
 * owner recorded. The last active admin is not erased (409 `last_admin`): make another admin first.
 */
export const authPersonalData: PersonalDataHolder = {
  async export(q, _personId, keys) {
    const accounts = await accountsOfPerson(q, keys.userIds, keys.emails);
    return {
      accounts: accounts.map((account) => ({
        id: account.id,
        name: account.name,
        email: account.email,
        role: account.role,
        active: account.active,
        lastLoginAt: account.lastLoginAt,
        createdAt: account.createdAt,
      })),
    };
  },

  async erase(q, _personId, erasure) {
    const { userIds, emails } = erasure.keys;
    if (!userIds.length && !emails.length) return { accounts: 0 };
    await lockAdmins(q);
    const accounts = await accountsOfPerson(q, userIds, emails, true);
    const admins = accounts.filter((account) => account.role === 'admin' && account.active).length;
    if (admins && (await countActiveAdmins(q)) <= admins) {
      throw new ConflictError("The person's login is the last active admin account; make another admin first, then erase.", 'last_admin');
    }
    const ids = accounts.map((account) => account.id);
    const erased = await eraseAccounts(q, ids, ERASED_NAME, new Date());
    // Where they signed in from (addresses, browsers) goes with the account.
    await removeSessions(q, ids);
    erasure.afterCommit(async (deps) => {
      for (const id of ids) {
        await deps.auth.principals.invalidate(id);
        deps.realtime.disconnectUser(id);
      }
    });
    return { accounts: erased };
  },
};
