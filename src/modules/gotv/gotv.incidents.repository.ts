import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { IncidentSchema, type Incident, type IncidentPhotoType } from './gotv.entities';

export function findIncident(em: EntityManager, id: string): Promise<Incident | null> {
  return em.findOne(IncidentSchema, { id });
}

/** The incident with its reporter loaded (their name is shown with it). */
export function findIncidentWithReporter(em: EntityManager, id: string): Promise<Incident | null> {
  return em.findOne(IncidentSchema, { id }, { populate: ['reportedBy'] });
}

/** The incident this reporter already sent with this clientId, if any. */
export function findIncidentByClientId(em: EntityManager, reportedById: string, clientId: string): Promise<Incident | null> {
  return em.findOne(IncidentSchema, { reportedBy: reportedById, clientId });
}

export interface IncidentFilter {
  stationId?: string | undefined;
  since?: Date | undefined;
}

/** Newest first, so a screen's first page is the latest alerts. */
export function incidentPage<Out>(em: EntityManager, filter: IncidentFilter, page: PageRequest, present: (incident: Incident) => Out): Promise<Page<Out>> {
  const where: Record<string, unknown> = {};
  if (filter.stationId) where.station = filter.stationId;
  if (filter.since) where.createdAt = { $gte: filter.since };
  return findPage(em, IncidentSchema, where, page, { createdAt: 'desc', id: 'desc' }, present, { populate: ['reportedBy'] });
}

export async function setIncidentPhoto(em: EntityManager, incident: Incident, photo: { type: IncidentPhotoType; size: number }): Promise<void> {
  incident.photoType = photo.type;
  incident.photoSize = photo.size;
  await em.flush();
}
