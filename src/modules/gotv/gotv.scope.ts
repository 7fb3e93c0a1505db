import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { brigadeScopeRows } from './gotv.brigades.repository';
import { coversEverything, EVERYTHING, type BrigadeScope } from './gotv.policy';

type ScopeDeps = Pick<AppDeps, 'caches' | 'db'>;

/**
 * A brigade member's scope (gotv.policy.ts says what it covers), read on election day's count
 * reports, call lists and contacts: cached per user for 30 s and dropped in every process when a
 * brigade's members or stations change (`forgetScopes`).
 */
function scopes(deps: ScopeDeps) {
  return deps.caches.named<BrigadeScope>(
    'gotv-scope',
    async (userId) => {
      const rows = await brigadeScopeRows(deps.db, userId);
      return { all: false, brigades: new Set(rows.brigades), stations: new Set(rows.stations) };
    },
    30_000,
  );
}

export async function scopeOf(deps: ScopeDeps, actor: Actor): Promise<BrigadeScope> {
  if (coversEverything(actor)) return EVERYTHING;
  return scopes(deps).get(actor.id);
}

/**
 * After a brigade's members or stations changed: these users' scopes are read afresh everywhere,
 * and their sockets leave the station rooms they no longer cover.
 */
export async function forgetScopes(deps: ScopeDeps & Pick<AppDeps, 'realtime'>, userIds: Iterable<string>): Promise<void> {
  const cache = scopes(deps);
  const users = [...new Set(userIds)];
  await Promise.all(users.map((userId) => cache.invalidate(userId)));
  await Promise.all(users.map((userId) => deps.realtime.recheckRooms(userId)));
}
