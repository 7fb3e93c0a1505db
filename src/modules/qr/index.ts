import type { ModuleManifest } from '../../kernel/module';
import { QrCampaignSchema, QrCodeSchema, QrLeadSchema, QrScanSchema } from './qr.entities';
import { DASHBOARD_ROOM } from './qr.events';
import { landingRouter } from './landing.routes';
import { qrPolicy } from './qr.policy';
import { qrRouter } from './qr.routes';
import { qrPersonalData } from './qr.personal-data';
import { qrTimeline } from './qr.timeline';
import { qrTerritoryReferences } from './qr.repository';

/** Poster campaigns, scans, the public landing page and lead capture. */
export const qrModule: ModuleManifest = {
  territoryReferences: qrTerritoryReferences,
  name: 'qr',
  entities: [QrCampaignSchema, QrCodeSchema, QrScanSchema, QrLeadSchema],
  routers: [qrRouter, landingRouter],
  personalData: qrPersonalData,
  personTimeline: qrTimeline,
  rooms: () => [{ pattern: new RegExp(`^${DASHBOARD_ROOM}$`), roles: qrPolicy.roles('followDashboard'), description: 'War-room dashboard: live leads and totals' }],
};
export { leadsCapturedBetween } from './qr.repository';
export { leadsByDay, leadsByTerritory, posterCodePoints, scansByDay, scansByTerritory, type DayCount, type PosterCodePoint, type TerritoryCount } from './qr.figures.repository';
