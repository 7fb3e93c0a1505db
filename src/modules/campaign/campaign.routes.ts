import { ApiRouter } from '../../kernel/http/router';
import { campaignPolicy } from './campaign.policy';
import { campaignSettingsBody, campaignSettingsView } from './campaign.schemas';
import { getCampaignSettings, putCampaignSettings } from './campaign.settings';

/** Settings the whole campaign shares: one election day for finance, GOTV, the dashboard and volunteers. */
export const campaignRouter = new ApiRouter('campaign', "The campaign's shared settings: the election day every module counts to")
  .get(
    '/api/campaign/settings',
    { summary: "The campaign's shared settings (the election day)", access: campaignPolicy.roles('read'), response: campaignSettingsView },
    async ({ ctx }) => getCampaignSettings(ctx.deps.db),
  )
  .put(
    '/api/campaign/settings',
    {
      summary: 'Set the election day',
      description:
        'The single source of the election day: finance projects its spending to it, GOTV runs its day and projection on it, the dashboard ' +
        'and the volunteer pyramid count the days to it. `PUT /api/finance/settings` and `PUT /api/gotv/settings` still take `electionDate` and write it here.',
      access: campaignPolicy.roles('configure'),
      body: campaignSettingsBody,
      response: campaignSettingsView,
    },
    async ({ ctx, input }) => putCampaignSettings(ctx.deps, input.body),
  );
