import type { ModuleManifest } from '../../kernel/module';
import { emailPolicy } from './email.policy';
import { EmailCampaignSchema, EmailEventSchema, EmailNoticeSchema, EmailRecipientSchema, EmailSuppressionSchema, EmailTemplateSchema, EmailVariantSchema } from './email.entities';
import { EMAIL_ROOM } from './email.events';
import { emailJobs, resumeUnfinished } from './email.jobs';
import { emailRouter } from './email.routes';
import { trackingRouter } from './email.tracking.routes';
import { emailPersonalData } from './email.personal-data';
import { emailTimeline } from './email.timeline';

/** Newsletters: MJML templates, segmented campaigns with A/B tests, tracking, unsubscribe, statistics. */
export const emailModule: ModuleManifest = {
  name: 'email',
  entities: [EmailTemplateSchema, EmailCampaignSchema, EmailVariantSchema, EmailRecipientSchema, EmailEventSchema, EmailSuppressionSchema, EmailNoticeSchema],
  routers: [emailRouter, trackingRouter],
  personalData: emailPersonalData,
  personTimeline: emailTimeline,
  jobs: emailJobs,
  rooms: () => [{ pattern: new RegExp(`^${EMAIL_ROOM}$`), roles: emailPolicy.roles('follow'), description: 'Email campaigns: sending progress and state changes' }],
  onWorkersStarted: resumeUnfinished,
};

export { decideWinner, chooseWinner, twoProportionZ } from './email.ab';
export { queueEmailNotice, dispatchEmailNotices, emailNoticeDeliveries, type EmailNoticeResult, type EmailNoticeRefusal } from './email.notices';
export type { NoticeDelivery as EmailNoticeDelivery } from './email.notices.repository';
export { emailClicksByDay, emailReachBetween, type EmailReach } from './email.figures.repository';
