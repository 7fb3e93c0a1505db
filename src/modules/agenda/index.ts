import type { ModuleManifest } from '../../kernel/module';
import { agendaEntities } from './agenda.entities';
import { AGENDA_ROOM } from './agenda.events';
import { agendaPersonalData } from './agenda.personal-data';
import { agendaTimeline } from './agenda.timeline';
import { agendaPolicy } from './agenda.policy';
import { logisticsRouter } from './agenda.logistics.routes';
import { startReminders } from './agenda.reminders';
import { agendaRouter } from './agenda.routes';
import { agendaTerritoryReferences } from './agenda.repository';

/** Events, answers, shifts, check-in and logistics (docs/agenda.md). People are audience contacts, referenced by id. */
export const agendaModule: ModuleManifest = {
  territoryReferences: agendaTerritoryReferences,
  name: 'agenda',
  entities: agendaEntities,
  routers: [agendaRouter, logisticsRouter],
  onWorkersStarted: async (deps) => startReminders(deps),
  personalData: agendaPersonalData,
  personTimeline: agendaTimeline,
  rooms: () => [
    { pattern: new RegExp(`^${AGENDA_ROOM}$`), roles: agendaPolicy.roles('follow'), description: 'The agenda: events created, changed and cancelled; check-in counts' },
  ],
};

// What other modules may use.
export { EVENT_TYPES, type EventType } from './agenda.entities';
export { AgendaEventSchema } from './agenda.entities';
export { attendanceByContacts, checkInsSince, eventBudget, eventExists, upcomingEvents, type Attendance, type CheckInFact } from './agenda.repository';
export { linkUserContact } from './agenda.accounts';
export { eventPoints, type EventPoint } from './agenda.figures.repository';
