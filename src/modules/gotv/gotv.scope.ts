import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';

/** What a brigade member may report on: the stations and voters of their brigades. Managers: all. */
export interface Scope {
  all: boolean;
  stations: ReadonlySet<string>;
  brigades: ReadonlySet<string>;
}

type ScopeDeps = Pick<AppDeps, 'caches' | 'orm'>;

const EVERYTHING: Scope = { all: true, stations: new Set(), brigades: new Set() };

/**
 * A brigade member's scope, read on election day's count reports, call lists and contacts: cached
 * per user for 30 s and dropped in every process when a brigade's members or stations change
 * (`forgetScopes`). Voter reports check the same rule inside their statement (gotv.turnout.service.ts).
 */
function scopes(deps: ScopeDeps) {
  return deps.caches.named<Scope>(
    'gotv-scope',
    async (userId) => {
      const [row] = await deps.orm.em.fork().execute<{ brigades: string[] | null; stations: string[] | null }[]>(
        `select array_agg(distinct m.brigade_id) as brigades,
                array_agg(distinct s.station_id) filter (where s.station_id is not null) as stations
         from gotv_brigade_members m left join gotv_brigade_stations s on s.brigade_id = m.brigade_id
         where m.user_id = ?`,
        [userId],
      );
      return { all: false, brigades: new Set(row?.brigades ?? []), stations: new Set(row?.stations ?? []) };
    },
    30_000,
  );
}

export async function scopeOf(deps: ScopeDeps, actor: Actor): Promise<Scope> {
  if (actor.role !== 'brigade') return EVERYTHING;
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

export function coversStation(scope: Scope, stationId: string): boolean {
  return scope.all || scope.stations.has(stationId);
}

/** A voter is covered through their station or through the brigade they are assigned to. */
export function coversVoter(scope: Scope, voter: { station_id: string; brigade_id: string | null }): boolean {
  return coversStation(scope, voter.station_id) || (voter.brigade_id !== null && scope.brigades.has(voter.brigade_id));
}
