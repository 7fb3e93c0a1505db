import type { ModuleManifest } from '../../kernel/module';
import { CampaignSettingsSchema } from './campaign.entities';
import { campaignRouter } from './campaign.routes';

export const campaignModule: ModuleManifest = {
  name: 'campaign',
  entities: [CampaignSettingsSchema],
  routers: [campaignRouter],
};

export { electionDateChanged, electionDateOf, readElectionDate, setElectionDate } from './campaign.settings';
