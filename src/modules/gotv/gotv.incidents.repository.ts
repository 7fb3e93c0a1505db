import type { EntityManager } from '@mikro-orm/postgresql';
import { IncidentSchema, type Incident, type IncidentPhotoType } from './gotv.entities';

export function findIncident(em: EntityManager, id: string): Promise<Incident | null> {
  return em.findOne(IncidentSchema, { id });
}

/** The incident this reporter already sent with this clientId, if any. */
export function findIncidentByClientId(em: EntityManager, reportedById: string, clientId: string): Promise<Incident | null> {
  return em.findOne(IncidentSchema, { reportedBy: reportedById, clientId });
}

export async function setIncidentPhoto(em: EntityManager, incident: Incident, photo: { type: IncidentPhotoType; size: number }): Promise<void> {
  incident.photoType = photo.type;
  incident.photoSize = photo.size;
  await em.flush();
}
