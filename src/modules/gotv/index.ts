import type { ModuleManifest } from '../../kernel/module';
import {
  BrigadeMemberSchema,
  BrigadeSchema,
  BrigadeStationSchema,
  PollingStationSchema,
  TurnoutReportSchema,
  VoterSchema,
  GotvSettingsSchema,
  IncidentSchema,
  VoterContactSchema,
  StationTallySchema,
} from './gotv.entities';
import { GOTV_ROOM, stationRoom } from './gotv.events';
import { gotvPolicy } from './gotv.policy';
import { scopeOf } from './gotv.scope';
import { gotvRouter } from './gotv.routes';
import { turnoutEnvelope } from './gotv.schemas';
import { recordTurnout } from './gotv.turnout.service';
import { gotvBackground } from './gotv.pushes';
import { gotvPersonalData } from './gotv.personal-data';
import { gotvTimeline } from './gotv.timeline';
import { gotvTerritoryReferences } from './gotv.stations.repository';

/** Get-out-the-vote: election-day stations, (next) voters, brigades, turnout, map and projection. */
export const gotvModule: ModuleManifest = {
  territoryReferences: gotvTerritoryReferences,
  name: 'gotv',
  entities: [
    PollingStationSchema,
    VoterSchema,
    BrigadeSchema,
    BrigadeMemberSchema,
    BrigadeStationSchema,
    TurnoutReportSchema,
    GotvSettingsSchema,
    IncidentSchema,
    VoterContactSchema,
    StationTallySchema,
  ],
  routers: [gotvRouter],
  personalData: gotvPersonalData,
  personTimeline: gotvTimeline,
  socketCommands: (deps) => [
    {
      // The same reports as POST /api/gotv/turnout, for phones that keep a socket open.
      event: 'gotv:report',
      roles: gotvPolicy.roles('reportAt'),
      schema: turnoutEnvelope,
      handle: (items, actor) => recordTurnout(deps, actor, items),
    },
  ],
  // The projection follows the clock as well as the reports; stations' figures reach their rooms.
  onWorkersStarted: async (deps) => gotvBackground(deps),
  rooms: (deps) => [
    { pattern: new RegExp(`^${GOTV_ROOM}$`), roles: gotvPolicy.roles('followWarRoom'), description: 'War room: every station and report' },
    {
      pattern: /^gotv:station:[0-9a-f-]{36}$/,
      roles: gotvPolicy.roles('followStation'),
      description: "One station's numbers (a brigade member: only their brigades' stations)",
      admits: async (actor, room) => gotvPolicy.allows(actor, 'followStation', { scope: await scopeOf(deps, actor), stationId: room.slice(stationRoom('').length) }),
    },
  ],
};

export { VoterSchema } from './gotv.entities';
export { brigadeWorkSince, findVoterIds, gotvVoterStatuses, type BrigadeWork } from './gotv.work.repository';
export { stationFigures, turnoutTotals, type StationFigures, type TurnoutTotals } from './gotv.figures.repository';
