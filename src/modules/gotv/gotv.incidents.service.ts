import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { GOTV_ROOM } from './gotv.events';
import { gotvPolicy } from './gotv.policy';
import { publishStations } from './gotv.pushes';
import { scopeOf } from './gotv.scope';
import { findStation, recordIncident } from './gotv.stations.repository';
import type { CreateIncidentInput } from './gotv.schemas';

/**
 * Records an incident and sets its station to `incident` in one flush; the war room hears of it
 * at once. A brigade member may report only at a station of one of their brigades (gotv.policy.ts).
 */
export async function reportIncident(em: EntityManager, deps: AppDeps, actor: Actor, input: CreateIncidentInput) {
  const station = await findStation(em, input.pollingStationId);
  if (!station) throw invalidField('body.pollingStationId', 'No polling station has this id.');
  gotvPolicy.authorize(actor, 'reportAt', { scope: await scopeOf(deps, actor), stationId: station.id });
  const incident = await recordIncident(em, station, { id: newId(), type: input.type, severity: input.severity, description: input.description, reportedById: actor.id });
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
