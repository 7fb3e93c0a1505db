import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';

export const campaignSettingsBody = z
  .object({
    electionDate: calendarDate.nullable().describe('The election day, in TIMEZONE; null until it is known'),
  })
  .strict();
export type CampaignSettingsInput = z.infer<typeof campaignSettingsBody>;

export const campaignSettingsView = z
  .object({
    electionDate: calendarDate.nullable(),
    updatedAt: instant,
  })
  .meta({ id: 'CampaignSettings' });
