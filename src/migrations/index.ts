import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261124051706_Popularity } from './Migration20261124051706_Popularity';
import { Migration20261124045254_SocialMonitoring } from './Migration20261124045254_SocialMonitoring';
import { Migration20261123224445_AudienceErasureAndAudit } from './Migration20261123224445_AudienceErasureAndAudit';
import { Migration20261123225130_OutboundInDoubtAndPause } from './Migration20261123225130_OutboundInDoubtAndPause';
import { Migration20261123214423_ConsentWithdrawals } from './Migration20261123214423_ConsentWithdrawals';
import { Migration20261123180839_GotvReportsOutliveVoters } from './Migration20261123180839_GotvReportsOutliveVoters';
import { Migration20261123172439_GotvStationTallies } from './Migration20261123172439_GotvStationTallies';
import { Migration20261123090335_ConsentTextsAppendOnly } from './Migration20261123090335_ConsentTextsAppendOnly';
import { Migration20261122054517_GotvReportsByStationReceived } from './Migration20261122054517_GotvReportsByStationReceived';
import { Migration20261122051509_WhatsApp } from './Migration20261122051509_WhatsApp';
import { Migration20261122052516_EmailMarketing } from './Migration20261122052516_EmailMarketing';
import { Migration20261122042945_GotvClaimsAndContacts } from './Migration20261122042945_GotvClaimsAndContacts';
import { Migration20261122042757_GotvIncidents } from './Migration20261122042757_GotvIncidents';
import { Migration20261122042110_GotvSettings } from './Migration20261122042110_GotvSettings';
import { Migration20261122041804_GotvTurnoutReports } from './Migration20261122041804_GotvTurnoutReports';
import { Migration20261122041611_GotvBrigades } from './Migration20261122041611_GotvBrigades';
import { Migration20261122041336_GotvVoters } from './Migration20261122041336_GotvVoters';
import { Migration20261122041152_GotvPollingStations } from './Migration20261122041152_GotvPollingStations';
import { Migration20261122025204_QrCampaignsAndAudience } from './Migration20261122025204_QrCampaignsAndAudience';
import { Migration20261122022408_Initial } from './Migration20261122022408_Initial';
import { Migration20261123151500_GotvRehearsalReports } from './Migration20261123151500_GotvRehearsalReports';

/** Every migration, in order. `npm run migration:create` adds to this list; landed ones are never edited. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122022408_Initial', class: Migration20261122022408_Initial },
  { name: 'Migration20261122025204_QrCampaignsAndAudience', class: Migration20261122025204_QrCampaignsAndAudience },
  { name: 'Migration20261122041152_GotvPollingStations', class: Migration20261122041152_GotvPollingStations },
  { name: 'Migration20261122041336_GotvVoters', class: Migration20261122041336_GotvVoters },
  { name: 'Migration20261122041611_GotvBrigades', class: Migration20261122041611_GotvBrigades },
  { name: 'Migration20261122041804_GotvTurnoutReports', class: Migration20261122041804_GotvTurnoutReports },
  { name: 'Migration20261122042110_GotvSettings', class: Migration20261122042110_GotvSettings },
  { name: 'Migration20261122042757_GotvIncidents', class: Migration20261122042757_GotvIncidents },
  { name: 'Migration20261122042945_GotvClaimsAndContacts', class: Migration20261122042945_GotvClaimsAndContacts },
  { name: 'Migration20261122051509_WhatsApp', class: Migration20261122051509_WhatsApp },
  { name: 'Migration20261122052516_EmailMarketing', class: Migration20261122052516_EmailMarketing },
  { name: 'Migration20261122054517_GotvReportsByStationReceived', class: Migration20261122054517_GotvReportsByStationReceived },
  { name: 'Migration20261123090335_ConsentTextsAppendOnly', class: Migration20261123090335_ConsentTextsAppendOnly },
  { name: 'Migration20261123151500_GotvRehearsalReports', class: Migration20261123151500_GotvRehearsalReports },
  { name: 'Migration20261123172439_GotvStationTallies', class: Migration20261123172439_GotvStationTallies },
  { name: 'Migration20261123180839_GotvReportsOutliveVoters', class: Migration20261123180839_GotvReportsOutliveVoters },
  { name: 'Migration20261123214423_ConsentWithdrawals', class: Migration20261123214423_ConsentWithdrawals },
  { name: 'Migration20261123224445_AudienceErasureAndAudit', class: Migration20261123224445_AudienceErasureAndAudit },
  { name: 'Migration20261123225130_OutboundInDoubtAndPause', class: Migration20261123225130_OutboundInDoubtAndPause },
  { name: 'Migration20261124045254_SocialMonitoring', class: Migration20261124045254_SocialMonitoring },
  { name: 'Migration20261124051706_Popularity', class: Migration20261124051706_Popularity },
];
