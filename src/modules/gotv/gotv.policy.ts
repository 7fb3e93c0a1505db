import type { Actor } from '../../kernel/auth/roles';
import { definePolicy } from '../../kernel/policy';
import { sql, type Sql } from '../../kernel/sql-tag';

/**
 * What a brigade member may act on: the stations of their brigades, and the voters at those
 * stations or assigned to one of their brigades. Everyone else with a GOTV role covers everything.
 */
export interface BrigadeScope {
  all: boolean;
  stations: ReadonlySet<string>;
  brigades: ReadonlySet<string>;
}

export const EVERYTHING: BrigadeScope = { all: true, stations: new Set(), brigades: new Set() };

/** Whether the actor's scope is everything (no brigade scope to load). */
export const coversEverything = (actor: Actor) => actor.role !== 'brigade';

/** A voter as the scope rule sees them. */
export interface ScopedVoter {
  stationId: string;
  brigadeId: string | null;
}

// The brigade rule, three ways, side by side: as a predicate on a loaded scope (one station or
// voter), as a filter for a page of voters, and inside a statement (a voter report checks it in
// the same round trip that records it). test/gotv/gotv.policy.test.ts proves the three agree.

export function coversStation(scope: BrigadeScope, stationId: string): boolean {
  return scope.all || scope.stations.has(stationId);
}

/** A voter is covered through their station or through the brigade they are assigned to. */
export function coversVoter(scope: BrigadeScope, voter: ScopedVoter): boolean {
  return coversStation(scope, voter.stationId) || (voter.brigadeId !== null && scope.brigades.has(voter.brigadeId));
}

/**
 * `coversVoter` as a condition on a voter's columns inside a statement, for a user whose scope is
 * not loaded: true when one of the user's brigades is the voter's, or covers the voter's station.
 */
export function brigadeCoversVoterSql(userId: string | Sql, voter: { stationId: Sql; brigadeId: Sql }): Sql<never> {
  return sql`exists (
    select 1 from gotv_brigade_members m
    where m.user_id = ${userId}::uuid and (m.brigade_id = ${voter.brigadeId}
      or exists (select 1 from gotv_brigade_stations s where s.brigade_id = m.brigade_id and s.station_id = ${voter.stationId})))`;
}

/** `coversVoter` as the voter list's filter: the ids a loaded scope covers, or no filter at all. */
export function coveredVoterFilter(scope: BrigadeScope): { stationIds: string[]; brigadeIds: string[] } | undefined {
  return scope.all ? undefined : { stationIds: [...scope.stations], brigadeIds: [...scope.brigades] };
}

const notYourStation = "This station is not one of your brigade's.";
const notYourVoter = "This voter is not one of your brigade's.";

/**
 * Who may do what on election day. Managers set up stations, voters and brigades; viewers watch;
 * brigade members report and chase voters within their scope (`BrigadeScope`, loaded per user by
 * gotv.scope.ts), and read only their own brigades.
 */
export const gotvPolicy = definePolicy({
  readStations: { roles: ['manager', 'viewer', 'brigade'] },
  manageStations: { roles: ['manager'] },
  readVoters: { roles: ['manager', 'brigade'] },
  manageVoters: { roles: ['manager'] },
  listBrigades: { roles: ['manager', 'viewer'] },
  readBrigade: {
    roles: ['manager', 'viewer', 'brigade'],
    check: (actor: Actor, brigade: { memberIds: readonly string[] }) => actor.role !== 'brigade' || brigade.memberIds.includes(actor.id),
    refusal: 'You are not a member of this brigade.',
  },
  manageBrigades: { roles: ['manager'] },
  readSettings: { roles: ['manager', 'viewer'] },
  manageSettings: { roles: ['manager'] },
  /** The war room's figures: live map, projection, dashboard. */
  watch: { roles: ['manager', 'viewer'] },
  /** Turnout reports and incidents at a station. */
  reportAt: {
    roles: ['manager', 'brigade'],
    check: (_actor: Actor, at: { scope: BrigadeScope; stationId: string }) => coversStation(at.scope, at.stationId),
    refusal: notYourStation,
  },
  /** Adding an incident's photo: its reporter, or a manager (both also within `reportAt`). */
  photographIncident: {
    roles: ['manager', 'brigade'],
    check: (actor: Actor, incident: { reportedById: string }) => actor.role !== 'brigade' || actor.id === incident.reportedById,
    refusal: 'Only the person who reported the incident, or a manager, may add its photo.',
  },
  /** Seeing an incident's photo: staff, and the brigade member who took it. */
  seeIncidentPhoto: {
    roles: ['manager', 'viewer', 'brigade'],
    check: (actor: Actor, incident: { reportedById: string }) => actor.role !== 'brigade' || actor.id === incident.reportedById,
    refusal: 'Only staff and the person who reported the incident may see its photo.',
  },
  /** Reading, calling and logging contact with one voter. */
  chase: {
    roles: ['manager', 'brigade'],
    check: (_actor: Actor, target: { scope: BrigadeScope; voter: ScopedVoter }) => coversVoter(target.scope, target.voter),
    refusal: notYourVoter,
  },
  /** Releasing or logging over a colleague's claim on a voter. */
  overrideClaims: { roles: ['manager'] },
  /** The war room's socket room, with every station and report. */
  followWarRoom: { roles: ['manager', 'viewer'] },
  /** One station's socket room: a brigade member only for their brigades' stations. */
  followStation: {
    roles: ['manager', 'viewer', 'brigade'],
    check: (_actor: Actor, at: { scope: BrigadeScope; stationId: string }) => coversStation(at.scope, at.stationId),
  },
});
