import type { ModuleManifest } from '../../kernel/module';
import { volunteersEntities } from './volunteers.entities';
import { volunteersPersonalData } from './volunteers.personal-data';
import { volunteersTimeline } from './volunteers.timeline';
import { volunteersRouter } from './volunteers.routes';
import { volunteersBackground } from './volunteers.sync';
import { volunteersTerritoryReferences } from './volunteers.repository';

/** The campaign's team: volunteers, activities, the leader pyramid and the leaderboard (docs/volunteers.md). */
export const volunteersModule: ModuleManifest = {
  territoryReferences: volunteersTerritoryReferences,
  name: 'volunteers',
  entities: volunteersEntities,
  routers: [volunteersRouter],
  personalData: volunteersPersonalData,
  personTimeline: volunteersTimeline,
  // One process at a time copies GOTV brigade work into activities (an advisory lock picks it).
  onWorkersStarted: async (deps) => volunteersBackground(deps),
};

export { VolunteerSchema } from './volunteers.entities';
export { activeVolunteers, enrolVolunteerProspect, volunteersByStatus } from './volunteers.service';
export { activeVolunteersAt, activitiesByDay, activitiesByTerritory, volunteersByTerritory } from './volunteers.figures.repository';
