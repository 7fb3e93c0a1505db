/**
 * The API's answers as the server declares them: types inferred from its zod schemas (type-only
 * imports, erased at build time, so no server code reaches the bundle). A schema change that breaks
 * a screen breaks `npm run typecheck`.
 */
import type { z } from 'zod';
import type { loginResponse } from '../../src/modules/auth/auth.schemas';
import type { dashboardView } from '../../src/modules/gotv/gotv.dashboard';
import type { liveMapView } from '../../src/modules/gotv/gotv.live';
import type { projectionView } from '../../src/modules/gotv/projection/projection';
import type { claimView, contactOutcomeBody, createIncidentBody, incidentView, turnoutAnswer, turnoutReport, voterView } from '../../src/modules/gotv/gotv.schemas';
import type { brigadeView } from '../../src/modules/gotv/gotv.schemas';
import type { stationView } from '../../src/modules/gotv/gotv.schemas';
import type { territoryDetailView, territoryView } from '../../src/modules/territories/territories.schemas';
import type { alertView } from '../../src/modules/social/social.schemas';
import type { activityView } from '../../src/modules/whatsapp/whatsapp.schemas';

export type { IncidentEvent, ProjectionSummary, StationEvent, TurnoutItem } from '../../src/modules/gotv/gotv.events';
export type { SocialAlertEvent } from '../../src/modules/social/social.events';
export type { MessageActivityEvent as WhatsappActivityEvent } from '../../src/modules/whatsapp/whatsapp.events';
export type { SubscribeAck } from '../../src/kernel/realtime';

export type LoginAnswer = z.output<typeof loginResponse>;
export type Dashboard = z.output<typeof dashboardView>;
export type LiveMap = z.output<typeof liveMapView>;
export type StationFigures = LiveMap['features'][number]['properties'];
export type Projection = z.output<typeof projectionView>;
export type Territory = z.output<typeof territoryView>;
export type TerritoryDetail = z.output<typeof territoryDetailView>;
export type Voter = z.output<typeof voterView>;
export type Station = z.output<typeof stationView>;
export type Brigade = z.output<typeof brigadeView>;
export type Claim = z.output<typeof claimView>;
export type TurnoutAnswer = z.output<typeof turnoutAnswer>;
export type TurnoutReport = z.input<typeof turnoutReport>;
export type ContactOutcome = z.input<typeof contactOutcomeBody>['outcome'];
export type IncidentInput = z.input<typeof createIncidentBody>;
export type Incident = z.output<typeof incidentView>;
export type SocialAlert = z.output<typeof alertView>;
export type WhatsappActivity = z.output<typeof activityView>;
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
/** RFC 9457 problem+json as every error answer carries it. */
export interface Problem {
  status: number;
  code: string;
  title: string;
  detail: string;
  errors?: { path: string; message: string }[];
  /** A problem's own members (RFC 9457 extensions): the `contactId` a 409 names, the `module` that refused a merge. */
  [extension: string]: unknown;
}
