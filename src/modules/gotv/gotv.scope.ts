import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../kernel/auth/roles';

/** What a brigade member may report on: the stations and voters of their brigades. Managers: all. */
export interface Scope {
  all: boolean;
  stations: Set<string>;
  brigades: Set<string>;
}

export async function scopeOf(em: EntityManager, actor: Actor): Promise<Scope> {
  if (actor.role !== 'brigade') return { all: true, stations: new Set(), brigades: new Set() };
  const rows = await em.execute<{ brigade_id: string; station_id: string | null }[]>(
    `select m.brigade_id, s.station_id from gotv_brigade_members m
     left join gotv_brigade_stations s on s.brigade_id = m.brigade_id where m.user_id = ?`,
    [actor.id],
  );
  return {
    all: false,
    brigades: new Set(rows.map((row) => row.brigade_id)),
    stations: new Set(rows.flatMap((row) => (row.station_id ? [row.station_id] : []))),
  };
}

export function coversStation(scope: Scope, stationId: string): boolean {
  return scope.all || scope.stations.has(stationId);
}

/** A voter is covered through their station or through the brigade they are assigned to. */
export function coversVoter(scope: Scope, voter: { station_id: string; brigade_id: string | null }): boolean {
  return coversStation(scope, voter.station_id) || (voter.brigade_id !== null && scope.brigades.has(voter.brigade_id));
}
