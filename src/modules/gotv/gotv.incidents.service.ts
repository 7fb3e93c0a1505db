import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { ForbiddenError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { IncidentSchema, PollingStationSchema } from './gotv.entities';
import { GOTV_ROOM } from './gotv.events';
import { publishStations } from './gotv.pushes';
import { coversStation, scopeOf } from './gotv.scope';
import type { CreateIncidentInput } from './gotv.schemas';

/**
 * Records an incident and sets its station to `incident` in one flush; the war room hears of it
 * at once. A brigade member may report only at a station of one of their brigades (gotv.scope.ts).
 */
export async function reportIncident(em: EntityManager, deps: AppDeps, actor: Actor, input: CreateIncidentInput) {
  const station = await em.findOne(PollingStationSchema, { id: input.pollingStationId });
  if (!station) throw invalidField('body.pollingStationId', 'No polling station has this id.');
  const scope = await scopeOf(deps, actor);
  if (!coversStation(scope, station.id)) throw new ForbiddenError("This station is not one of your brigade's.");
  const incident = em.create(IncidentSchema, {
    id: newId(),
    station,
    type: input.type,
    severity: input.severity,
    description: input.description,
    reportedBy: actor.id,
  });
  station.status = 'incident';
  await em.flush();
  const event = { id: incident.id, stationId: station.id, type: incident.type, severity: incident.severity, createdAt: incident.createdAt.toISOString() };
  deps.realtime.publish(GOTV_ROOM, 'gotv:incident', event);
  await publishStations(deps, [station.id], true);
  return {
    id: incident.id,
    pollingStationId: station.id,
    type: incident.type,
    severity: incident.severity,
    description: incident.description,
    reportedBy: actor.id,
    createdAt: incident.createdAt.toISOString(),
  };
}
