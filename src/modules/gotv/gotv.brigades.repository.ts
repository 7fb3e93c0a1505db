import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import type { BrigadeMemberSchema, BrigadeSchema, BrigadeStationSchema, PollingStationSchema, VoterSchema } from './gotv.entities';

type BrigadeTables = InferKyselyDB<typeof BrigadeSchema | typeof BrigadeMemberSchema | typeof BrigadeStationSchema | typeof VoterSchema | typeof PollingStationSchema>;
const db = tables<BrigadeTables>();

/** A brigade's row with its members, stations and how many voters are assigned to it (created_at last: the answers' field order). */
type BrigadeRow = Omit<Selectable<BrigadeTables['gotv_brigades']>, 'created_at'> & {
  member_ids: Selectable<BrigadeTables['gotv_brigade_members']>['user_id'][];
  station_ids: Selectable<BrigadeTables['gotv_brigade_stations']>['station_id'][];
  voters: number;
} & Pick<Selectable<BrigadeTables['gotv_brigades']>, 'created_at'>;

const brigadeOf = (row: BrigadeRow) => camelRow(row);

export type BrigadeRecord = ReturnType<typeof brigadeOf>;

export type NewBrigade = Pick<BrigadeRecord, 'id' | 'name' | 'leaderId'> & { memberIds: readonly string[]; stationIds: readonly string[] };

/** The brigade and its lists; a name already taken is the database's unique violation. Inside a transaction. */
export async function insertBrigade(tx: Queries, brigade: NewBrigade): Promise<void> {
  await tx.write(db.insertInto('gotv_brigades').values({ id: brigade.id, name: brigade.name, leader_id: brigade.leaderId, created_at: new Date() }));
  await replaceMembers(tx, brigade.id, brigade.memberIds);
  await replaceStations(tx, brigade.id, brigade.stationIds);
}

/** Locks the brigade's row for a change; undefined when there is none. */
export async function lockBrigade(tx: Queries, id: string): Promise<{ id: string } | undefined> {
  return tx.first(db.selectFrom('gotv_brigades').select('id').where('id', '=', id).forUpdate());
}

export async function brigadeExists(q: Queries, id: string): Promise<boolean> {
  return (await q.first(db.selectFrom('gotv_brigades').select('id').where('id', '=', id))) !== undefined;
}

export async function updateBrigadeRow(tx: Queries, id: string, changes: { name?: string; leaderId?: string | null }): Promise<void> {
  const values = { ...(changes.name !== undefined ? { name: changes.name } : {}), ...(changes.leaderId !== undefined ? { leader_id: changes.leaderId } : {}) };
  if (Object.keys(values).length) await tx.write(db.updateTable('gotv_brigades').set(values).where('id', '=', id));
}

/** The brigade's members become exactly these users. */
export async function replaceMembers(tx: Queries, brigadeId: string, userIds: readonly string[]): Promise<void> {
  await tx.write(db.deleteFrom('gotv_brigade_members').where('brigade_id', '=', brigadeId));
  const unique = [...new Set(userIds)];
  if (unique.length) await tx.write(db.insertInto('gotv_brigade_members').values(unique.map((userId) => ({ brigade_id: brigadeId, user_id: userId }))));
}

/** The brigade's stations become exactly these. */
export async function replaceStations(tx: Queries, brigadeId: string, stationIds: readonly string[]): Promise<void> {
  await tx.write(db.deleteFrom('gotv_brigade_stations').where('brigade_id', '=', brigadeId));
  const unique = [...new Set(stationIds)];
  if (unique.length) await tx.write(db.insertInto('gotv_brigade_stations').values(unique.map((stationId) => ({ brigade_id: brigadeId, station_id: stationId }))));
}

export async function brigadeMemberIds(q: Queries, brigadeId: string): Promise<string[]> {
  const rows = await q.rows(db.selectFrom('gotv_brigade_members').select('user_id').where('brigade_id', '=', brigadeId));
  return rows.map((row) => row.user_id);
}

/** Brigades (these, or the first 500 by name) with their members, stations and voter counts, in one statement. */
export async function describeBrigades(q: Queries, ids?: readonly string[]): Promise<BrigadeRecord[]> {
  const only = ids ? sql`where b.id = any(${ids}::uuid[])` : sql``;
  // array(select …) per brigade: the builder has no form for it.
  const rows = await q.rows(
    sql<BrigadeRow>`
      select b.id, b.name, b.leader_id,
        array(select m.user_id from gotv_brigade_members m where m.brigade_id = b.id order by m.user_id) as member_ids,
        array(select s.station_id from gotv_brigade_stations s where s.brigade_id = b.id order by s.station_id) as station_ids,
        (select count(*)::int from gotv_voters v where v.brigade_id = b.id) as voters, b.created_at
      from gotv_brigades b ${only}
      order by b.name limit 500`,
  );
  return rows.map(brigadeOf);
}

/** How many of these ids name polling stations. */
export async function countStations(q: Queries, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const row = await q.first(
    db
      .selectFrom('gotv_polling_stations')
      .select((row) => row.fn.countAll<string>().as('n'))
      .where('id', 'in', [...new Set(ids)]),
  );
  return Number(row?.n ?? 0);
}

/** How many of these ids name voters. */
export async function countVoters(q: Queries, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const row = await q.first(
    db
      .selectFrom('gotv_voters')
      .select((row) => row.fn.countAll<string>().as('n'))
      .where('id', 'in', [...new Set(ids)]),
  );
  return Number(row?.n ?? 0);
}

export async function assignVotersTo(q: Queries, brigadeId: string, voterIds: readonly string[]): Promise<void> {
  if (!voterIds.length) return;
  await q.write(
    db
      .updateTable('gotv_voters')
      .set({ brigade_id: brigadeId, updated_at: new Date() })
      .where('id', 'in', [...new Set(voterIds)]),
  );
}

/** A brigade member's brigades and their stations: what gotv.scope.ts caches per user. */
export async function brigadeScopeRows(q: Queries, userId: string): Promise<{ brigades: string[]; stations: string[] }> {
  const row = await q.first(
    sql<{ brigades: string[] | null; stations: string[] | null }>`
      select array_agg(distinct m.brigade_id) as brigades,
             array_agg(distinct s.station_id) filter (where s.station_id is not null) as stations
      from gotv_brigade_members m left join gotv_brigade_stations s on s.brigade_id = m.brigade_id
      where m.user_id = ${userId}::uuid`.prepared('gotv_brigade_scope'),
  );
  return { brigades: row?.brigades ?? [], stations: row?.stations ?? [] };
}
