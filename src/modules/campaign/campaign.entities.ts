import { defineEntity } from '@mikro-orm/core';

/** What the whole campaign shares, one row (id 1): the election day that finance, GOTV, the dashboard and volunteers all count to. */
export const CampaignSettingsSchema = defineEntity({
  name: 'CampaignSettings',
  tableName: 'campaign_settings',
  checks: [{ name: 'campaign_settings_singleton_check', expression: 'id = 1' }],
  properties: (p) => ({
    id: p.smallint().primary().autoincrement(false),
    electionDate: p.string().length(10).nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()),
  }),
});
