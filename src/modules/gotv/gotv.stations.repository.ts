import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
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

/** Every station by its code, for an import to resolve rows against. */
export function stationsByCode(q: Queries): Promise<{ code: string; id: string; tables: number }[]> {
  return q.rows(db.selectFrom('gotv_polling_stations').select(['code', 'id', 'tables']));
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
  electionDate: string;
  opensAt: string;
  closesAt: string;
  turnoutCurve: CurvePointJson[] | null;
  /** Past days' curves as stored (validated where they are used: gotv.curve-history.ts). */
  curveHistory: unknown[];
  /** How far turnout strays from the stations' previous turnout, as stored (null: the defaults). */
  previousTurnoutSpread: unknown;
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
  const row = await q.first(db.selectFrom('gotv_settings').select(['election_date', 'opens_at', 'closes_at', 'turnout_curve']).where('id', '=', SINGLE_ROW));
  return row && { electionDate: row.election_date, opensAt: row.opens_at, closesAt: row.closes_at, ...readStoredCurve(row.turnout_curve) };
}

export async function saveSettings(q: Queries, settings: SettingsRecord): Promise<void> {
  const spread = settings.previousTurnoutSpread ?? null;
  const stored: StoredTurnoutCurve | null =
    settings.curveHistory.length || spread !== null
      ? { curve: settings.turnoutCurve, history: settings.curveHistory, ...(spread !== null ? { previousTurnoutSpread: spread } : {}) }
      : settings.turnoutCurve;
  const curve = stored === null ? null : JSON.stringify(stored);
  await q.write(
    sql`insert into gotv_settings (id, election_date, opens_at, closes_at, turnout_curve, updated_at)
        values (${SINGLE_ROW}, ${settings.electionDate}, ${settings.opensAt}, ${settings.closesAt}, ${curve}::jsonb, now())
        on conflict (id) do update set election_date = excluded.election_date, opens_at = excluded.opens_at, closes_at = excluded.closes_at,
          turnout_curve = excluded.turnout_curve, updated_at = excluded.updated_at`,
  );
}
