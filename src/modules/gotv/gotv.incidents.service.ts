import type { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { AppError, ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { detectFileType, readBody, type FileArea } from '../../kernel/file-store';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { usersByIds } from '../auth';
import { INCIDENT_PHOTO_TYPES, type IncidentPhotoType } from './gotv.entities';
import { GOTV_ROOM } from './gotv.events';
import { findIncident, findIncidentByClientId, incidentPage, recordIncident, setIncidentPhoto, stationExists, type IncidentRecord } from './gotv.incidents.repository';
import { gotvPolicy } from './gotv.policy';
import { presentIncident } from './gotv.presenter';
import { publishStations } from './gotv.pushes';
import { scopeOf } from './gotv.scope';
import type { CreateIncidentInput, ListIncidentsInput } from './gotv.schemas';
import { mapPage } from '../../kernel/pagination';

/** A phone's photo, compressed before it is sent: 2 MB is several times what the brigade app sends. */
export const INCIDENT_PHOTO_MAX_BYTES = 2 * 1024 * 1024;

export const incidentPhotoArea = (deps: Pick<AppDeps, 'files'>): FileArea => deps.files.area('gotv/incident-photos');

/**
 * Records an incident and sets its station to `incident` in one transaction; the war room hears of it
 * at once. A brigade member may report only at a station of one of their brigades (gotv.policy.ts).
 * A resend with the same `clientId` by the same reporter answers the first record (`created: false`).
 */
export async function reportIncident(deps: AppDeps, actor: Actor, input: CreateIncidentInput) {
  const stationId = input.pollingStationId;
  if (!(await stationExists(deps.db, stationId))) throw invalidField('body.pollingStationId', 'No polling station has this id.');
  gotvPolicy.authorize(actor, 'reportAt', { scope: await scopeOf(deps, actor), stationId });
  const clientId = input.clientId ?? null;
  const resent = (first: IncidentRecord) => {
    if (first.stationId !== stationId) throw new ConflictError('This clientId was already used for an incident at another station.', 'client_id_reused');
    return { created: false, incident: presentIncident(first) };
  };
  if (clientId) {
    const first = await findIncidentByClientId(deps.db, actor.id, clientId);
    if (first) return resent(first);
  }
  let incident: IncidentRecord;
  try {
    incident = await deps.db.transaction((tx) =>
      recordIncident(tx, { id: newId(), stationId, type: input.type, severity: input.severity, description: input.description, reportedById: actor.id, clientId }),
    );
  } catch (error) {
    // The same resend arriving twice at once: the other request recorded it.
    if (!(clientId && error instanceof UniqueConstraintViolationException)) throw error;
    const first = await findIncidentByClientId(deps.db, actor.id, clientId);
    if (!first) throw error;
    return resent(first);
  }
  deps.realtime.publish(GOTV_ROOM, 'gotv:incident', incidentEvent(incident));
  await publishStations(deps, [stationId], true);
  return { created: true, incident: presentIncident(incident) };
}

const incidentEvent = (incident: IncidentRecord) => ({
  id: incident.id,
  stationId: incident.stationId,
  type: incident.type,
  severity: incident.severity,
  createdAt: incident.createdAt.toISOString(),
  photo: incident.photoType !== null,
});

/** Incidents newest first, with their reporters' names, for the war room's alerts feed (and a station's history). */
export async function listIncidents(q: Queries, query: ListIncidentsInput) {
  const { cursor, limit, pollingStationId, since } = query;
  const page = await incidentPage(q, { stationId: pollingStationId, since: since ? new Date(since) : undefined }, { cursor, limit });
  const reporters = await usersByIds(
    q,
    page.data.map((incident) => incident.reportedById),
  );
  return mapPage(page, (incident) => presentIncident(incident, reporters.get(incident.reportedById)?.name ?? null));
}

/** One incident, with its reporter's name: the war room's detail. */
export async function getIncident(q: Queries, id: string) {
  const incident = await findIncident(q, id);
  if (!incident) throw new NotFoundError('No incident has this id.');
  const reporters = await usersByIds(q, [incident.reportedById]);
  return presentIncident(incident, reporters.get(incident.reportedById)?.name ?? null);
}

/** The incident, if this actor may add its photo: its reporter (still covering the station) or a manager. */
async function incidentToPhotograph(deps: AppDeps, actor: Actor, id: string): Promise<IncidentRecord> {
  const incident = await findIncident(deps.db, id);
  if (!incident) throw new NotFoundError('No incident has this id.');
  gotvPolicy.authorize(actor, 'reportAt', { scope: await scopeOf(deps, actor), stationId: incident.stationId });
  gotvPolicy.authorize(actor, 'photographIncident', { reportedById: incident.reportedById });
  return incident;
}

/**
 * Stores an incident's photo (replacing the one it had): the body is read up to 2 MB (413 past it)
 * and must be a JPEG or PNG by its first bytes, as its Content-Type says (415 otherwise).
 */
export async function attachIncidentPhoto(deps: AppDeps, actor: Actor, id: string, declaredType: string, body: Readable, declaredLength: number | undefined) {
  // Who may upload is settled before the body is read: a refused phone does not send 2 MB for nothing.
  const incident = await incidentToPhotograph(deps, actor, id);
  const bytes = await readBody(body, declaredLength, INCIDENT_PHOTO_MAX_BYTES, 'A photo');
  if (!bytes.length) throw invalidField('body', 'The photo is empty.', 'empty_body');
  const detected = detectFileType(bytes, INCIDENT_PHOTO_TYPES);
  if (detected !== declaredType) {
    throw new AppError(
      415,
      'photo_type_mismatch',
      'Unsupported media type',
      detected ? `The photo is ${detected} but was sent as ${declaredType}; send it with its own type.` : 'The file is not a JPEG or PNG image (its first bytes are not).',
    );
  }
  const area = incidentPhotoArea(deps);
  const staged = await area.stage(incident.id, bytes);
  try {
    await staged.place();
  } catch (error) {
    await staged.discard();
    throw error;
  }
  const photographed = await setIncidentPhoto(deps.db, incident.id, { type: detected, size: bytes.length });
  if (!photographed) throw new NotFoundError('No incident has this id.');
  // The war room marks the incident it already shows.
  deps.realtime.publish(GOTV_ROOM, 'gotv:incident', incidentEvent(photographed));
  return presentIncident(photographed);
}

/** Where an incident's photo is, for staff and its reporter; 404 when it has none. */
export async function incidentPhotoOf(deps: AppDeps, actor: Actor, id: string): Promise<{ type: IncidentPhotoType; size: number; file: Readable }> {
  const incident = await findIncident(deps.db, id);
  if (!incident) throw new NotFoundError('No incident has this id.');
  gotvPolicy.authorize(actor, 'seeIncidentPhoto', { reportedById: incident.reportedById });
  const area = incidentPhotoArea(deps);
  const stored = incident.photoType ? await area.read(incident.id) : undefined;
  if (!incident.photoType || !stored) throw new NotFoundError('This incident has no photo.');
  return { type: incident.photoType, size: stored.size, file: stored.stream };
}
