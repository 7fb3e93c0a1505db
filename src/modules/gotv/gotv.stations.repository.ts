import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries } from '../../kernel/sql';
import {
  GotvSettingsSchema,
  type CurvePointJson,
  type StoredTurnoutCurve,
  IncidentSchema,
  PollingStationSchema,
  type Incident,
  type PollingStation,
  type StationStatus,
  type IncidentSeverity,
  type IncidentType,
} from './gotv.entities';
import type { TerritoryReference, TerritoryReferenceHolder } from '../../kernel/module';

type StationTables = InferKyselyDB<typeof PollingStationSchema | typeof GotvSettingsSchema>;
const db = tables<StationTables>();

export type StationFields = Pick<PollingStation, 'code' | 'name' | 'address' | 'lat' | 'lng' | 'tables' | 'registeredVoters' | 'previousTurnout' | 'status'> & {
  territoryId: string | null;
};

/** A new station through the unit of work; a code already taken is the database's unique violation. */
export async function insertStation(em: EntityManager, station: StationFields & { id: string }): Promise<PollingStation> {
  const { territoryId, ...fields } = station;
  const entity = em.create(PollingStationSchema, { ...fields, territory: territoryId });
  await em.flush();
  return entity;
}

export function findStation(em: EntityManager, id: string): Promise<PollingStation | null> {
  return em.findOne(PollingStationSchema, { id });
}

/** Applies a change to a loaded station and writes it. */
export async function saveStation(em: EntityManager, station: PollingStation, changes: Partial<StationFields>): Promise<void> {
  const { territoryId, ...fields } = changes;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  em.assign(station, { ...defined, ...(territoryId !== undefined ? { territory: territoryId } : {}) });
  await em.flush();
}

export interface StationFilter {
  territoryId?: string | undefined;
  status?: StationStatus | undefined;
  /** In the name or the code. */
  search?: string | undefined;
}

export function stationPage<Out>(em: EntityManager, filter: StationFilter, page: PageRequest, present: (station: PollingStation) => Out): Promise<Page<Out>> {
  const where: Record<string, unknown> = {};
  if (filter.territoryId) where.territory = filter.territoryId;
  if (filter.status) where.status = filter.status;
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    where.$or = [{ name: { $ilike: pattern } }, { code: { $ilike: pattern } }];
  }
  return findPage(em, PollingStationSchema, where, page, { name: 'asc', id: 'asc' }, present);
}

export interface RegisteredStation extends Omit<StationFields, 'status'> {
  id: string;
}

/** Every station by its code, for an import to resolve rows against. */
export function stationsByCode(q: Queries): Promise<RegisteredStation[]> {
  return q.rows(
    db
      .selectFrom('gotv_polling_stations')
      .select([
        'code',
        'id',
        'name',
        'address',
        'territory_id as territoryId',
        'lat',
        'lng',
        'tables',
        'registered_voters as registeredVoters',
        'previous_turnout as previousTurnout',
      ]),
  );
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

export interface NewIncident {
  id: string;
  type: IncidentType;
  severity: IncidentSeverity;
  description: string;
  reportedById: string;
  clientId: string | null;
}

/** The incident, and its station turned to `incident`, in one flush. */
export async function recordIncident(em: EntityManager, station: PollingStation, incident: NewIncident): Promise<Incident> {
  const entity = em.create(IncidentSchema, {
    id: incident.id,
    station,
    type: incident.type,
    severity: incident.severity,
    description: incident.description,
    reportedBy: incident.reportedById,
    clientId: incident.clientId,
  });
  station.status = 'incident';
  await em.flush();
  return entity;
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
  const curve = stored === null ? null : JSON.stringify(stored);
  const followingDays = settings.followingDays.length ? JSON.stringify(settings.followingDays) : null;
  await q.write(
    sql`insert into gotv_settings (id, opens_at, closes_at, turnout_curve, following_days, updated_at)
        values (${SINGLE_ROW}, ${settings.opensAt}, ${settings.closesAt}, ${curve}::jsonb, ${followingDays}::jsonb, now())
        on conflict (id) do update set opens_at = excluded.opens_at, closes_at = excluded.closes_at,
          turnout_curve = excluded.turnout_curve, following_days = excluded.following_days, updated_at = excluded.updated_at`,
  );
}

/** Stations placed in a territory, the confirmed voters at them and the brigades that cover them. */
export const gotvTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    sql<{ stations: number; voters: number; brigades: number }>`select
      (select count(*)::int from gotv_polling_stations where territory_id = ${territoryId}) as stations,
      (select count(*)::int from gotv_voters v join gotv_polling_stations s on s.id = v.polling_station_id where s.territory_id = ${territoryId}) as voters,
      (select count(distinct b.brigade_id)::int from gotv_brigade_stations b join gotv_polling_stations s on s.id = b.station_id where s.territory_id = ${territoryId}) as brigades`,
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
    sql<{ voters: number; reports: number; brigades: number; incidents: number }>`select
      (select count(*)::int from gotv_voters where polling_station_id = ${id}) as voters,
      (select count(*)::int from gotv_turnout_reports where station_id = ${id}) as reports,
      (select count(*)::int from gotv_brigade_stations where station_id = ${id}) as brigades,
      (select count(*)::int from gotv_incidents where station_id = ${id}) as incidents`,
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
  const { count } = await q.write(sql`delete from gotv_polling_stations where id = ${id}`);
  return count > 0;
}
