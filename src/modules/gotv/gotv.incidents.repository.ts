import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, snakeRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import type { IncidentPhotoType, IncidentSchema, PollingStationSchema } from './gotv.entities';

type IncidentTables = InferKyselyDB<typeof IncidentSchema | typeof PollingStationSchema>;
const db = tables<IncidentTables>();

type IncidentRow = Selectable<IncidentTables['gotv_incidents']>;

const incidentOf = (row: IncidentRow) => camelRow(row);

/** An incident as the services see it: the row's fields in camelCase. */
export type IncidentRecord = ReturnType<typeof incidentOf>;

const incidents = () => db.selectFrom('gotv_incidents').selectAll();

export async function findIncident(q: Queries, id: string): Promise<IncidentRecord | undefined> {
  const row = await q.first(incidents().where('id', '=', id));
  return row && incidentOf(row);
}

/** The incident this reporter already sent with this clientId, if any. */
export async function findIncidentByClientId(q: Queries, reportedById: string, clientId: string): Promise<IncidentRecord | undefined> {
  const row = await q.first(incidents().where('reported_by_id', '=', reportedById).where('client_id', '=', clientId));
  return row && incidentOf(row);
}

/** Whether a polling station has this id: an incident is reported at one. */
export async function stationExists(q: Queries, id: string): Promise<boolean> {
  return (await q.first(db.selectFrom('gotv_polling_stations').select('id').where('id', '=', id))) !== undefined;
}

export type NewIncident = Pick<IncidentRecord, 'id' | 'stationId' | 'type' | 'severity' | 'description' | 'reportedById' | 'clientId'>;

/**
 * Records the incident and marks its station `incident`, in one transaction; a clientId this
 * reporter already used is the database's unique violation (nothing written).
 */
export async function recordIncident(tx: Queries, incident: NewIncident): Promise<IncidentRecord> {
  // A station already marked keeps its updated_at, as when the ORM found nothing to change.
  await tx.write(
    db.updateTable('gotv_polling_stations').set({ status: 'incident', updated_at: new Date() }).where('id', '=', incident.stationId).where('status', '<>', 'incident'),
  );
  const row = await tx.first(
    db
      .insertInto('gotv_incidents')
      .values(snakeRow({ ...incident, createdAt: new Date() }))
      .returningAll(),
  );
  return incidentOf(row!);
}

export interface IncidentFilter {
  stationId?: string | undefined;
  since?: Date | undefined;
}

/** Newest first, so a screen's first page is the latest alerts. */
export async function incidentPage(q: Queries, filter: IncidentFilter, page: PageRequest): Promise<Page<IncidentRecord>> {
  let query = incidents();
  if (filter.stationId) query = query.where('station_id', '=', filter.stationId);
  if (filter.since) query = query.where('created_at', '>=', filter.since);
  const rows = await queryPage(q, query, ['created_at', 'id'], 'desc', page);
  return mapPage(rows, incidentOf);
}

/** Sets the incident's photo (type and size) and answers the incident as it now is; undefined when it is gone. */
export async function setIncidentPhoto(q: Queries, id: string, photo: { type: IncidentPhotoType; size: number }): Promise<IncidentRecord | undefined> {
  const row = await q.first(db.updateTable('gotv_incidents').set({ photo_type: photo.type, photo_size: photo.size }).where('id', '=', id).returningAll());
  return row && incidentOf(row);
}
