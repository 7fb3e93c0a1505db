import type { ModuleManifest } from '../../kernel/module';
import { EmailCampaignSchema, EmailEventSchema, EmailRecipientSchema, EmailSuppressionSchema, EmailTemplateSchema, EmailVariantSchema } from './email.entities';
import { emailJobs, resumeUnfinished } from './email.jobs';
import { emailRouter } from './email.routes';
import { trackingRouter } from './email.tracking.routes';

/** Newsletters: MJML templates, segmented campaigns with A/B tests, tracking, unsubscribe, statistics. */
export const emailModule: ModuleManifest = {
  name: 'email',
  entities: [EmailTemplateSchema, EmailCampaignSchema, EmailVariantSchema, EmailRecipientSchema, EmailEventSchema, EmailSuppressionSchema],
  routers: [emailRouter, trackingRouter],
  jobs: emailJobs,
  onWorkersStarted: resumeUnfinished,
};

export { decideWinner, chooseWinner, twoProportionZ } from './email.ab';
