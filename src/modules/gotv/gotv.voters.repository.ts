import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql as builderSql, type Selectable } from 'kysely';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, snakeRow } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries } from '../../kernel/sql';
import { territoryAndDescendants, territoryDirectory } from '../territories';
import type { BrigadeSchema, PollingStationSchema, VoterContactSchema, VoterSchema, ContactOutcome, VoterPriority, VoterStatus } from './gotv.entities';

type VoterTables = InferKyselyDB<typeof VoterSchema | typeof VoterContactSchema | typeof PollingStationSchema | typeof BrigadeSchema>;
const db = tables<VoterTables>();

const voterOf = (row: Selectable<VoterTables['gotv_voters']>) => camelRow(row);
export type VoterRecord = ReturnType<typeof voterOf>;

/** A station's id and number of tables: what a voter's fields are checked against. */
export function stationTables(q: Queries, id: string): Promise<{ id: string; tables: number } | undefined> {
  return q.first(db.selectFrom('gotv_polling_stations').select(['id', 'tables']).where('id', '=', id));
}

/** The fields a manager gives a voter; the rest start empty (`pending`, no brigade, no claim). */
export type VoterFields = Pick<VoterRecord, 'name' | 'documentId' | 'phone' | 'pollingStationId' | 'tableNumber' | 'contactId' | 'priority'>;

/** A new voter; a document already registered is the database's unique violation. */
export async function insertVoter(q: Queries, voter: VoterFields & { id: string }): Promise<VoterRecord> {
  const at = new Date();
  const record: VoterRecord = { ...voter, brigadeId: null, status: 'pending', votedAt: null, claimedById: null, claimedUntil: null, createdAt: at, updatedAt: at };
  await q.write(db.insertInto('gotv_voters').values(snakeRow(record)));
  return record;
}

export async function findVoter(q: Queries, id: string): Promise<VoterRecord | undefined> {
  const row = await q.first(db.selectFrom('gotv_voters').selectAll().where('id', '=', id));
  return row && voterOf(row);
}

/** Writes the fields given (the others stay); the voter as they are now, or undefined when gone. */
export async function saveVoter(q: Queries, id: string, changes: Partial<VoterFields>): Promise<VoterRecord | undefined> {
  const { rows } = await q.write(
    db
      .updateTable('gotv_voters')
      .set({ ...snakeRow(changes), updated_at: new Date() })
      .where('id', '=', id)
      .returningAll(),
  );
  return rows[0] && voterOf(rows[0]);
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

/** `in ()` is not SQL; the nil UUID matches nothing. */
const idsOrNone = (ids: readonly string[]) => (ids.length ? [...ids] : ['00000000-0000-0000-0000-000000000000']);

/** A page of voters by name (the call list when `status=pending` and `claim=free`). */
export async function voterPage(q: Queries, filter: VoterFilter, page: PageRequest): Promise<Page<VoterRecord>> {
  const now = new Date();
  let query = db.selectFrom('gotv_voters').selectAll();
  const covered = filter.covered;
  if (covered) {
    query = query.where((eb) => eb.or([eb('polling_station_id', 'in', idsOrNone(covered.stationIds)), eb('brigade_id', 'in', idsOrNone(covered.brigadeIds))]));
  }
  if (filter.stationId) query = query.where('polling_station_id', '=', filter.stationId);
  if (filter.territoryId) {
    // territories publishes its tree as a fragment for the `sql` tag, which the builder cannot embed: its ids first.
    const territories = await q.rows(territoryAndDescendants([filter.territoryId]));
    const stations = db
      .selectFrom('gotv_polling_stations')
      .select('id')
      .where('territory_id', 'in', idsOrNone(territories.map((row) => row.id)));
    query = query.where('polling_station_id', 'in', stations);
  }
  if (filter.brigadeId) query = query.where('brigade_id', '=', filter.brigadeId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.priority) query = query.where('priority', '=', filter.priority);
  if (filter.claim === 'mine') query = query.where('claimed_by_id', '=', filter.userId).where('claimed_until', '>', now);
  if (filter.claim === 'free') query = query.where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]));
  const search = filter.search;
  if (search) {
    const digits = search.replace(/\D/g, '');
    query = query.where((eb) => eb.or([eb('name', 'ilike', containsPattern(search)), ...(digits.length >= 4 ? [eb('document_id', 'like', `${digits}%`)] : [])]));
  }
  const found = await queryPage(q, query, ['name', 'id'], 'asc', page);
  return mapPage(found, voterOf);
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
    q.rows(
      db
        .selectFrom('gotv_brigades')
        .select(['id', 'name'])
        .where('id', 'in', idsOrNone([...new Set(brigadeIds)])),
    ),
  ]);
  return { stations: new Map(stations.map(({ id, ...station }) => [id, station])), brigades: new Map(brigades.map((row) => [row.id, row.name])) };
}

/** A voter as the call list's claims see them. */
export async function chaseTarget(q: Queries, id: string) {
  const row = await q.first(
    db.selectFrom('gotv_voters').select(['id', 'status', 'polling_station_id as station_id', 'brigade_id', 'claimed_by_id', 'claimed_until']).where('id', '=', id),
  );
  return row && camelRow(row);
}
export type ChaseTarget = NonNullable<Awaited<ReturnType<typeof chaseTarget>>>;

/**
 * One conditional update, so of two people pressing "call" at once exactly one gets the voter;
 * a claim by the same person is renewed. False when someone else holds it or the voter voted.
 */
export async function claimVoterRow(q: Queries, voterId: string, userId: string, until: Date): Promise<boolean> {
  const { count } = await q.write(
    db
      .updateTable('gotv_voters')
      .set({ claimed_by_id: userId, claimed_until: until, updated_at: builderSql<Date>`now()` })
      .where('id', '=', voterId)
      .where('status', '<>', 'voted')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', builderSql<Date>`now()`), eb('claimed_by_id', '=', userId)])),
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

/** The contact outcome this user already logged with this clientId (a phone's resend), with the voter's status now. */
export async function contactByClientId(q: Queries, userId: string, clientId: string) {
  const row = await q.first(
    db
      .selectFrom('gotv_voter_contacts as c')
      .innerJoin('gotv_voters as v', 'v.id', 'c.voter_id')
      .select(['c.id', 'c.voter_id', 'c.outcome', 'v.status as voter_status', 'c.created_at'])
      .where('c.user_id', '=', userId)
      .where('c.client_id', '=', clientId),
  );
  return row && camelRow(row);
}
export type RecordedContact = NonNullable<Awaited<ReturnType<typeof contactByClientId>>>;
