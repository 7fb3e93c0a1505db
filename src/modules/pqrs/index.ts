import type { ModuleManifest } from '../../kernel/module';
import { startPqrsBackground } from './pqrs.background';
import { pqrsEntities } from './pqrs.entities';
import { pqrsPersonalData } from './pqrs.personal-data';
import { pqrsTimeline } from './pqrs.timeline';
import { pqrsPolicy, PQRS_ROOM } from './pqrs.policy';
import { pqrsRouter } from './pqrs.routes';
import './pqrs.events';
import { pqrsTerritoryReferences } from './pqrs.repository';

/** The PQRS desk: citizens' requests, the legal clock of Ley 1755 de 2015, answers and extensions (docs/pqrs.md). */
export const pqrsModule: ModuleManifest = {
  territoryReferences: pqrsTerritoryReferences,
  name: 'pqrs',
  entities: pqrsEntities,
  routers: [pqrsRouter],
  personalData: pqrsPersonalData,
  personTimeline: pqrsTimeline,
  rooms: () => [{ pattern: new RegExp(`^${PQRS_ROOM}$`), roles: pqrsPolicy.roles('follow'), description: 'PQRS requests filed, changed, answered, extended, due soon' }],
  onWorkersStarted: async (deps) => startPqrsBackground(deps),
};

export { pqrsCounts, pqrsOpenedClosedBetween, type OpenedClosedDay, type PqrsCounts } from './pqrs.figures';
export type { ClockSettings } from './pqrs.clock';
export { pqrsByTerritory, type PqrsTerritoryCount } from './pqrs.territories.repository';
