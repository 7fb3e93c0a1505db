import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries } from '../../kernel/sql';
import { territoryAndDescendants, territoryDirectory } from '../territories';
import { VoterSchema, type PollingStationSchema, type ContactOutcome, type Voter, type VoterPriority, type VoterStatus } from './gotv.entities';

type VoterTables = InferKyselyDB<typeof VoterSchema | typeof PollingStationSchema>;
const db = tables<VoterTables>();

/** A station's id and number of tables: what a voter's fields are checked against. */
export function stationTables(q: Queries, id: string): Promise<{ id: string; tables: number } | undefined> {
  return q.first(db.selectFrom('gotv_polling_stations').select(['id', 'tables']).where('id', '=', id));
}

export type NewVoter = Pick<Voter, 'id' | 'name' | 'documentId' | 'phone' | 'tableNumber' | 'priority'> & { stationId: string; contactId: string | null };

/** A new voter through the unit of work; a document already registered is the database's unique violation. */
export async function insertVoter(em: EntityManager, voter: NewVoter): Promise<Voter> {
  const { stationId, contactId, ...fields } = voter;
  const entity = em.create(VoterSchema, { ...fields, pollingStation: stationId, contact: contactId, status: 'pending', votedAt: null });
  await em.flush();
  return entity;
}

export function findVoter(em: EntityManager, id: string): Promise<Voter | null> {
  return em.findOne(VoterSchema, { id });
}

export interface VoterChanges {
  name?: string | undefined;
  documentId?: string | undefined;
  phone?: string | null | undefined;
  stationId?: string | undefined;
  tableNumber?: number | null | undefined;
  contactId?: string | null | undefined;
  priority?: VoterPriority | undefined;
}

/** Applies a correction to a loaded voter and writes it. */
export async function saveVoter(em: EntityManager, voter: Voter, changes: VoterChanges): Promise<void> {
  const { stationId, contactId, ...fields } = changes;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  em.assign(voter, {
    ...defined,
    ...(stationId !== undefined ? { pollingStation: stationId } : {}),
    ...(contactId !== undefined ? { contact: contactId } : {}),
  });
  await em.flush();
}

/** Deletes the voter (their contact log goes with them; reports keep the station and time): the station they were at. */
export async function deleteVoterRow(q: Queries, id: string): Promise<string | undefined> {
  const row = await q.first(db.deleteFrom('gotv_voters').where('id', '=', id).returning('polling_station_id'));
  return row?.polling_station_id;
}

export interface VoterFilter {
  /** Only voters at these stations or assigned to these brigades (a brigade member's scope). */
  covered?: { stationIds: string[]; brigadeIds: string[] } | undefined;
  stationId?: string | undefined;
  /** Stations in this territory or any territory inside it. */
  territoryId?: string | undefined;
  brigadeId?: string | undefined;
  status?: VoterStatus | undefined;
  priority?: VoterPriority | undefined;
  /** `mine`: claimed by `userId` right now; `free`: nobody's claim is running. */
  claim?: 'mine' | 'free' | undefined;
  userId: string;
  /** A name, or the start of a document number. */
  search?: string | undefined;
}

/** `$in` with an empty list matches nothing only in some drivers; the nil UUID matches nothing everywhere. */
const idsOrNone = (ids: readonly string[]) => (ids.length ? [...ids] : ['00000000-0000-0000-0000-000000000000']);

/** A page of voters by name (the call list when `status=pending` and `claim=free`). */
export async function voterPage<Out>(em: EntityManager, q: Queries, filter: VoterFilter, page: PageRequest, present: (voter: Voter) => Out): Promise<Page<Out>> {
  const where: Record<string, unknown>[] = [];
  const now = new Date();
  if (filter.covered) where.push({ $or: [{ pollingStation: { $in: idsOrNone(filter.covered.stationIds) } }, { brigade: { $in: idsOrNone(filter.covered.brigadeIds) } }] });
  if (filter.stationId) where.push({ pollingStation: filter.stationId });
  if (filter.territoryId) {
    const territories = await q.rows(territoryAndDescendants([filter.territoryId]));
    where.push({ pollingStation: { territory: { $in: idsOrNone(territories.map((row) => row.id)) } } });
  }
  if (filter.brigadeId) where.push({ brigade: filter.brigadeId });
  if (filter.status) where.push({ status: filter.status });
  if (filter.priority) where.push({ priority: filter.priority });
  if (filter.claim === 'mine') where.push({ claimedBy: filter.userId, claimedUntil: { $gt: now } });
  if (filter.claim === 'free') where.push({ $or: [{ claimedUntil: null }, { claimedUntil: { $lte: now } }] });
  if (filter.search) {
    const digits = filter.search.replace(/\D/g, '');
    where.push({ $or: [{ name: { $ilike: containsPattern(filter.search) } }, ...(digits.length >= 4 ? [{ documentId: { $like: `${digits}%` } }] : [])] });
  }
  return findPage(em, VoterSchema, where.length ? { $and: where } : {}, page, { name: 'asc', id: 'asc' }, present);
}

/** What an export writes instead of ids: each station's code, name and territory, each brigade's name. */
export interface VoterPlaceNames {
  stations: Map<string, { code: string; name: string; territory: string | null }>;
  brigades: Map<string, string>;
}

export async function voterPlaceNames(q: Queries, stationIds: readonly string[], brigadeIds: readonly string[]): Promise<VoterPlaceNames> {
  const [stations, brigades] = await Promise.all([
    q.rows(sql<{ id: string; code: string; name: string; territory: string | null }>`
      select s.id, s.code, s.name, t.name as territory from gotv_polling_stations s left join ${territoryDirectory()} t on t.id = s.territory_id
      where s.id = any(${[...new Set(stationIds)]}::uuid[])`),
    q.rows(sql<{ id: string; name: string }>`select id, name from gotv_brigades where id = any(${[...new Set(brigadeIds)]}::uuid[])`),
  ]);
  return { stations: new Map(stations.map(({ id, ...station }) => [id, station])), brigades: new Map(brigades.map((row) => [row.id, row.name])) };
}

/** A voter as the call list's claims see them. */
export interface ChaseTarget {
  id: string;
  status: VoterStatus;
  stationId: string;
  brigadeId: string | null;
  claimedById: string | null;
  claimedUntil: Date | null;
}

export async function chaseTarget(q: Queries, id: string): Promise<ChaseTarget | undefined> {
  const row = await q.first(db.selectFrom('gotv_voters').select(['id', 'status', 'polling_station_id', 'brigade_id', 'claimed_by_id', 'claimed_until']).where('id', '=', id));
  return (
    row && {
      id: row.id,
      status: row.status as VoterStatus,
      stationId: row.polling_station_id,
      brigadeId: row.brigade_id,
      claimedById: row.claimed_by_id,
      claimedUntil: row.claimed_until,
    }
  );
}

/**
 * One conditional update, so of two people pressing "call" at once exactly one gets the voter;
 * a claim by the same person is renewed. False when someone else holds it or the voter voted.
 */
export async function claimVoterRow(q: Queries, voterId: string, userId: string, until: Date): Promise<boolean> {
  const { count } = await q.write(
    sql`update gotv_voters set claimed_by_id = ${userId}::uuid, claimed_until = ${until}::timestamptz, updated_at = now()
        where id = ${voterId}::uuid and status <> 'voted'
          and (claimed_until is null or claimed_until < now() or claimed_by_id = ${userId}::uuid)`,
  );
  return count > 0;
}

/** Ends the claim, if it is still this user's. */
export async function releaseClaimRow(q: Queries, voterId: string, claimedById: string): Promise<void> {
  await q.write(
    db.updateTable('gotv_voters').set({ claimed_by_id: null, claimed_until: null, updated_at: new Date() }).where('id', '=', voterId).where('claimed_by_id', '=', claimedById),
  );
}

export interface ContactAttempt {
  id: string;
  voterId: string;
  userId: string;
  outcome: ContactOutcome;
  note: string | null;
  clientId: string | null;
  /** The voter's status after it, unless they voted (never moved back from voted); null: unchanged. */
  nextStatus: VoterStatus | null;
  /** May log over a colleague's running claim. */
  overridesClaims: boolean;
}

/**
 * Logs the attempt, moves the voter along and releases the claim in one statement, so a claim
 * taken a moment earlier counts; nothing is written (undefined) while a colleague's claim runs.
 */
export async function recordContactAttempt(q: Queries, attempt: ContactAttempt): Promise<{ status: VoterStatus; createdAt: Date } | undefined> {
  const row = await q.first(
    sql<{ status: VoterStatus; created_at: Date }>`
      with v as (
        update gotv_voters set
          status = case when status = 'voted' or ${attempt.nextStatus}::text is null then status else ${attempt.nextStatus}::text end,
          claimed_by_id = null, claimed_until = null, updated_at = now()
        where id = ${attempt.voterId}::uuid
          and (${attempt.overridesClaims}::boolean or claimed_by_id is null or claimed_until is null or claimed_until <= now() or claimed_by_id = ${attempt.userId}::uuid)
        returning id, status
      ),
      c as (
        insert into gotv_voter_contacts (id, voter_id, user_id, outcome, note, client_id, created_at)
        select ${attempt.id}::uuid, v.id, ${attempt.userId}::uuid, ${attempt.outcome}, ${attempt.note}, ${attempt.clientId}::uuid, now() from v
        on conflict do nothing
        returning created_at
      )
      select v.status, c.created_at from v, c`,
  );
  return row && { status: row.status, createdAt: row.created_at };
}

export interface RecordedContact {
  id: string;
  voterId: string;
  outcome: ContactOutcome;
  voterStatus: VoterStatus;
  createdAt: Date;
}

/** The contact outcome this user already logged with this clientId (a phone's resend), with the voter's status now. */
export async function contactByClientId(q: Queries, userId: string, clientId: string): Promise<RecordedContact | undefined> {
  const row = await q.first(
    sql<{ id: string; voter_id: string; outcome: ContactOutcome; status: VoterStatus; created_at: Date }>`
      select c.id, c.voter_id, c.outcome, v.status, c.created_at
      from gotv_voter_contacts c join gotv_voters v on v.id = c.voter_id
      where c.user_id = ${userId}::uuid and c.client_id = ${clientId}::uuid`,
  );
  return row && { id: row.id, voterId: row.voter_id, outcome: row.outcome, voterStatus: row.status, createdAt: row.created_at };
}
