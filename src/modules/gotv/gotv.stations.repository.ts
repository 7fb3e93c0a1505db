import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries } from '../../kernel/sql';
import {
  BrigadeStationSchema,
  GotvSettingsSchema,
  TurnoutReportSchema,
  VoterSchema,
  type CurvePointJson,
  type FollowingDayJson,
  type StoredTurnoutCurve,
  IncidentSchema,
  PollingStationSchema,
  type StationStatus,
} from './gotv.entities';
import type { TerritoryReference, TerritoryReferenceHolder } from '../../kernel/module';

type StationTables = InferKyselyDB<
  typeof PollingStationSchema | typeof GotvSettingsSchema | typeof VoterSchema | typeof BrigadeStationSchema | typeof TurnoutReportSchema | typeof IncidentSchema
>;
const db = tables<StationTables>();

// lat and lng are double columns: numbers, whatever the entity's type allows.
const stationOf = (row: Selectable<StationTables['gotv_polling_stations']>) => camelRow(row, ['lat', 'lng']);
export type StationRecord = ReturnType<typeof stationOf>;

export type StationFields = Pick<StationRecord, 'code' | 'name' | 'address' | 'territoryId' | 'lat' | 'lng' | 'tables' | 'registeredVoters' | 'previousTurnout' | 'status'>;

/** A new station; a code already taken is the database's unique violation. */
export async function insertStation(q: Queries, station: StationFields & { id: string }): Promise<StationRecord> {
  const at = new Date();
  const record: StationRecord = { ...station, createdAt: at, updatedAt: at };
  await q.write(db.insertInto('gotv_polling_stations').values(snakeRow(record)));
  return record;
}

export async function findStation(q: Queries, id: string): Promise<StationRecord | undefined> {
  const row = await q.first(db.selectFrom('gotv_polling_stations').selectAll().where('id', '=', id));
  return row && stationOf(row);
}

/** Writes the fields given (the others stay); the station as it is now, or undefined when it is gone. */
export async function saveStation(q: Queries, id: string, changes: Partial<StationFields>): Promise<StationRecord | undefined> {
  const { rows } = await q.write(
    db
      .updateTable('gotv_polling_stations')
      .set({ ...snakeRow(changes), updated_at: new Date() })
      .where('id', '=', id)
      .returningAll(),
  );
  return rows[0] && stationOf(rows[0]);
}

export interface StationFilter {
  territoryId?: string | undefined;
  status?: StationStatus | undefined;
  /** In the name or the code. */
  search?: string | undefined;
}

/** A page of stations by name. */
export async function stationPage(q: Queries, filter: StationFilter, page: PageRequest): Promise<Page<StationRecord>> {
  let query = db.selectFrom('gotv_polling_stations').selectAll();
  if (filter.territoryId) query = query.where('territory_id', '=', filter.territoryId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    query = query.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('code', 'ilike', pattern)]));
  }
  const found = await queryPage(q, query, ['name', 'id'], 'asc', page);
  return mapPage(found, stationOf);
}

const registeredColumns = ['code', 'id', 'name', 'address', 'territory_id', 'lat', 'lng', 'tables', 'registered_voters', 'previous_turnout'] as const;
const registeredOf = (row: Pick<Selectable<StationTables['gotv_polling_stations']>, (typeof registeredColumns)[number]>) => camelRow(row, ['lat', 'lng']);
/** A station as an import resolves rows against it. */
export type RegisteredStation = ReturnType<typeof registeredOf>;

/** Every station by its code, for an import to resolve rows against. */
export async function stationsByCode(q: Queries): Promise<RegisteredStation[]> {
  return (await q.rows(db.selectFrom('gotv_polling_stations').select(registeredColumns))).map(registeredOf);
}

/** Imported stations, one array per column; null where a row leaves a field as it is. */
export interface StationBatch {
  codes: string[];
  names: (string | null)[];
  addresses: (string | null)[];
  territoryIds: (string | null)[];
  lats: (number | null)[];
  lngs: (number | null)[];
  tables: (number | null)[];
  registeredVoters: (number | null)[];
  previousTurnouts: (number | null)[];
}

const batchColumns = (batch: StationBatch) =>
  sql`unnest(${batch.codes}::text[], ${batch.names}::text[], ${batch.addresses}::text[], ${batch.territoryIds}::uuid[], ${batch.lats}::float8[],
             ${batch.lngs}::float8[], ${batch.tables}::int[], ${batch.registeredVoters}::int[], ${batch.previousTurnouts}::int[])
      as t(code, name, address, territory_id, lat, lng, tables, registered_voters, previous_turnout)`;

/** New stations (every required field present), in one statement; their ids. A code taken meanwhile is the unique violation. */
export async function insertStationBatch(q: Queries, batch: StationBatch): Promise<string[]> {
  const ids = batch.codes.map(() => newId());
  // Codes are unique within a batch (the import refuses a repeated one), so each id pairs by code.
  const rows = await q.rows(
    sql<{ id: string }>`
      insert into gotv_polling_stations (id, code, name, address, territory_id, lat, lng, tables, registered_voters, previous_turnout, status, created_at, updated_at)
      select i.id, t.code, t.name, t.address, t.territory_id, t.lat, t.lng, t.tables, t.registered_voters, t.previous_turnout, 'pending', now(), now()
      from ${batchColumns(batch)}
      join unnest(${ids}::uuid[], ${batch.codes}::text[]) as i(id, code) on i.code = t.code
      returning id`,
  );
  return rows.map((row) => row.id);
}

/** Registered stations by code: each field a row fills is set, the rest kept; their ids. */
export async function updateStationBatch(q: Queries, batch: StationBatch): Promise<string[]> {
  const rows = await q.rows(
    sql<{ id: string }>`
      update gotv_polling_stations s
      set name = coalesce(t.name, s.name), address = coalesce(t.address, s.address), territory_id = coalesce(t.territory_id, s.territory_id),
          lat = coalesce(t.lat, s.lat), lng = coalesce(t.lng, s.lng), tables = coalesce(t.tables, s.tables),
          registered_voters = coalesce(t.registered_voters, s.registered_voters), previous_turnout = coalesce(t.previous_turnout, s.previous_turnout),
          updated_at = now()
      from ${batchColumns(batch)}
      where s.code = t.code
      returning s.id`,
  );
  return rows.map((row) => row.id);
}

/** The one settings row (id 1), when a manager has saved it. */
const SINGLE_ROW = 1;

export interface SettingsRecord {
  opensAt: string;
  closesAt: string;
  turnoutCurve: CurvePointJson[] | null;
  /** Past days' curves as stored (validated where they are used: projection/curve-history.ts). */
  curveHistory: unknown[];
  /** How far turnout strays from the stations' previous turnout, as stored (null: the defaults). */
  previousTurnoutSpread: unknown;
  /** Later polling days as stored (validated where they are used: projection/curve-history.ts). */
  followingDays: unknown[];
}

/**
 * The curve column holds the configured curve as an array, or, once a curve history is kept,
 * `{ curve, history }`: the same jsonb column, so no table changes.
 */
function readStoredCurve(stored: StoredTurnoutCurve | null): Pick<SettingsRecord, 'turnoutCurve' | 'curveHistory' | 'previousTurnoutSpread'> {
  if (stored === null) return { turnoutCurve: null, curveHistory: [], previousTurnoutSpread: null };
  if (Array.isArray(stored)) return { turnoutCurve: stored, curveHistory: [], previousTurnoutSpread: null };
  return { turnoutCurve: stored.curve ?? null, curveHistory: Array.isArray(stored.history) ? stored.history : [], previousTurnoutSpread: stored.previousTurnoutSpread ?? null };
}

export async function findSettings(q: Queries): Promise<SettingsRecord | undefined> {
  const row = await q.first(db.selectFrom('gotv_settings').select(['opens_at', 'closes_at', 'turnout_curve', 'following_days']).where('id', '=', SINGLE_ROW));
  return (
    row && {
      opensAt: row.opens_at,
      closesAt: row.closes_at,
      ...readStoredCurve(row.turnout_curve),
      followingDays: Array.isArray(row.following_days) ? row.following_days : [],
    }
  );
}

export async function saveSettings(q: Queries, settings: SettingsRecord): Promise<void> {
  const spread = settings.previousTurnoutSpread ?? null;
  const stored: StoredTurnoutCurve | null =
    settings.curveHistory.length || spread !== null
      ? { curve: settings.turnoutCurve, history: settings.curveHistory, ...(spread !== null ? { previousTurnoutSpread: spread } : {}) }
      : settings.turnoutCurve;
  // A json column's null stays SQL null; jsonText would write the JSON text `null`.
  const turnoutCurve = stored === null ? null : jsonText(stored);
  const followingDays = settings.followingDays.length ? jsonText(settings.followingDays as FollowingDayJson[]) : null;
  await q.write(
    db
      .insertInto('gotv_settings')
      .values({ id: SINGLE_ROW, opens_at: settings.opensAt, closes_at: settings.closesAt, turnout_curve: turnoutCurve, following_days: followingDays, updated_at: new Date() })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet((eb) => ({
          opens_at: eb.ref('excluded.opens_at'),
          closes_at: eb.ref('excluded.closes_at'),
          turnout_curve: eb.ref('excluded.turnout_curve'),
          following_days: eb.ref('excluded.following_days'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      ),
  );
}

/** Stations placed in a territory, the confirmed voters at them and the brigades that cover them. */
export const gotvTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    db.selectNoFrom((query) => [
      query
        .selectFrom('gotv_polling_stations')
        .select((station) => station.cast<number>(station.fn.countAll(), 'integer').as('n'))
        .where('territory_id', '=', territoryId)
        .as('stations'),
      query
        .selectFrom('gotv_voters as v')
        .innerJoin('gotv_polling_stations as s', 's.id', 'v.polling_station_id')
        .select((voter) => voter.cast<number>(voter.fn.countAll(), 'integer').as('n'))
        .where('s.territory_id', '=', territoryId)
        .as('voters'),
      query
        .selectFrom('gotv_brigade_stations as b')
        .innerJoin('gotv_polling_stations as s', 's.id', 'b.station_id')
        .select((brigade) => brigade.cast<number>(brigade.fn.count('b.brigade_id').distinct(), 'integer').as('n'))
        .where('s.territory_id', '=', territoryId)
        .as('brigades'),
    ]),
  );
  return [
    { count: row?.stations ?? 0, one: 'puesto', many: 'puestos' },
    { count: row?.voters ?? 0, one: 'votante', many: 'votantes' },
    { count: row?.brigades ?? 0, one: 'brigada', many: 'brigadas' },
  ];
};

/** What points at a station: its voters, turnout reports, covering brigades and incidents. */
export async function stationReferences(q: Queries, id: string): Promise<TerritoryReference[]> {
  const row = await q.first(
    db.selectNoFrom((query) => [
      query
        .selectFrom('gotv_voters')
        .select((voter) => voter.cast<number>(voter.fn.countAll(), 'integer').as('n'))
        .where('polling_station_id', '=', id)
        .as('voters'),
      query
        .selectFrom('gotv_turnout_reports')
        .select((report) => report.cast<number>(report.fn.countAll(), 'integer').as('n'))
        .where('station_id', '=', id)
        .as('reports'),
      query
        .selectFrom('gotv_brigade_stations')
        .select((brigade) => brigade.cast<number>(brigade.fn.countAll(), 'integer').as('n'))
        .where('station_id', '=', id)
        .as('brigades'),
      query
        .selectFrom('gotv_incidents')
        .select((incident) => incident.cast<number>(incident.fn.countAll(), 'integer').as('n'))
        .where('station_id', '=', id)
        .as('incidents'),
    ]),
  );
  return [
    { count: row?.voters ?? 0, one: 'votante', many: 'votantes' },
    { count: row?.reports ?? 0, one: 'reporte de votación', many: 'reportes de votación' },
    { count: row?.brigades ?? 0, one: 'brigada', many: 'brigadas' },
    { count: row?.incidents ?? 0, one: 'incidente', many: 'incidentes' },
  ];
}

/** Removes a station (its tally goes with it); one that rows still point at is the foreign-key violation. */
export async function deleteStation(q: Queries, id: string): Promise<boolean> {
  const { count } = await q.write(db.deleteFrom('gotv_polling_stations').where('id', '=', id));
  return count > 0;
}
