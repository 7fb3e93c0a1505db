import { ApiRouter } from '../../kernel/http/router';
import { ConflictError } from '../../kernel/errors';
import { pageSchema } from '../../kernel/pagination';
import { decideWinner } from './email.ab';
import * as campaigns from './email.campaigns.service';
import { resumeCampaign } from './email.outbound';
import { presentTemplate } from './email.presenter';
import {
  campaignPreviewView,
  campaignView,
  createCampaignBody,
  createTemplateBody,
  dashboardView,
  idParams,
  listQuery,
  draftView,
  previewCampaignBody,
  previewQuery,
  previewView,
  renderDraftBody,
  sendAccepted,
  statsView,
  templateSummary,
  templateView,
  testSendBody,
  testSendView,
} from './email.schemas';
import { campaignStats, emailDashboard } from './email.stats';
import { emailPolicy } from './email.policy';
import * as templates from './email.templates.service';

const noTemplate = { 404: 'No such template' };
const noCampaign = { 404: 'No such campaign' };

/** Staff side of email marketing: templates, campaigns, sending, A/B decisions, statistics. */
export const emailRouter = new ApiRouter('email-marketing', 'Email templates, campaigns with automatic A/B tests, and their statistics')
  .post(
    '/api/email-marketing/templates',
    {
      summary: 'Create an email template (MJML or HTML)',
      description:
        'MJML is compiled at validation level strict; errors come back one per line. Variables: `{{contact.firstName}}`, `{{contact.lastName}}`, `{{contact.name}}`, `{{contact.email}}`, `{{campaign.name}}`, `{{unsubscribeUrl}}` — escaped; unknown ones are a 400. Every http(s) link is click-tracked; an unsubscribe link is added when the template has none.',
      access: emailPolicy.roles('manageTemplates'),
      body: createTemplateBody,
      status: 201,
      response: templateView,
    },
    async ({ ctx, input }) => templates.createTemplate(ctx.deps.db, input.body),
  )
  .post(
    '/api/email-marketing/templates/render',
    {
      summary: 'Render a draft template for a live preview, saving nothing',
      description:
        'MJML is compiled at validation level soft, so HTML comes back even when a rule is broken; `problems` lists, each with its line, what creating the template would refuse (strict MJML, variables, links). The HTML is filled in for a sample person with the links as written.',
      access: emailPolicy.roles('manageTemplates'),
      body: renderDraftBody,
      response: draftView,
    },
    async ({ input }) => templates.previewDraft(input.body),
  )
  .post(
    '/api/email-marketing/templates/:id/test',
    {
      summary: 'Send a template once to an address, as a test',
      description:
        'Filled in for the sample person, from EMAIL_FROM, subject prefixed `[Prueba]`, through the configured SMTP (or the outbox), and waited for. No tracking, no List-Unsubscribe (it goes to no contact). 30 an hour per staff member.',
      access: emailPolicy.roles('manageTemplates'),
      params: idParams,
      body: testSendBody,
      response: testSendView,
      errors: {
        ...noTemplate,
        429: 'Too many test sends this hour',
        502: 'The mail server refused the message',
        503: 'The mail server could not be reached or asked to try later',
      },
    },
    async ({ ctx, input, actor }) => templates.sendTestMessage(ctx.deps, actor.id, input.params.id, input.body.to),
  )
  .get(
    '/api/email-marketing/templates',
    { summary: 'Email templates, newest first', access: emailPolicy.roles('readTemplates'), query: listQuery, response: pageSchema(templateSummary) },
    async ({ ctx, input }) => templates.listTemplates(ctx.deps.db, input.query),
  )
  .get(
    '/api/email-marketing/templates/:id',
    { summary: 'One email template with its source, HTML and text', access: emailPolicy.roles('readTemplates'), params: idParams, response: templateView, errors: noTemplate },
    async ({ ctx, input }) => presentTemplate(await templates.getTemplate(ctx.deps.db, input.params.id)),
  )
  .get(
    '/api/email-marketing/templates/:id/preview',
    {
      summary: 'Render a template for a sample contact (or a real one with contactId)',
      access: emailPolicy.roles('readTemplates'),
      params: idParams,
      query: previewQuery,
      response: previewView,
      errors: { 403: 'A real contact (contactId) asked for by someone who may not see people', 404: 'No such template or contact' },
    },
    async ({ ctx, input, actor }) => {
      if (input.query.contactId) emailPolicy.authorize(actor, 'previewAsContact');
      return templates.previewTemplate(ctx.deps.db, input.params.id, input.query.contactId);
    },
  )
  .post(
    '/api/email-marketing/campaigns',
    {
      summary: 'Create an email campaign',
      description:
        '`audienceSize` counts distinct addresses in the segment with email opt-in, not unsubscribed, not bounced. A segment that reaches nobody is a 400 (`empty_audience`).',
      access: emailPolicy.roles('manageCampaigns'),
      body: createCampaignBody,
      status: 201,
      response: campaignView,
    },
    async ({ ctx, input }) => campaigns.createCampaign(ctx.deps, input.body),
  )
  .post(
    '/api/email-marketing/campaigns/preview',
    {
      summary: 'How many a segment reaches by email, before a campaign is written',
      description: 'Distinct addresses with email opt-in, not unsubscribed, not bounced: what `audienceSize` would be now. Nothing is written.',
      access: emailPolicy.roles('manageCampaigns'),
      body: previewCampaignBody,
      response: campaignPreviewView,
    },
    async ({ ctx, input }) => campaigns.previewAudience(ctx.deps, input.body.segment),
  )
  .get(
    '/api/email-marketing/campaigns',
    { summary: 'Email campaigns, newest first', access: emailPolicy.roles('readCampaigns'), query: listQuery, response: pageSchema(campaignView) },
    async ({ ctx, input }) => campaigns.listCampaigns(ctx.deps.db, input.query),
  )
  .get(
    '/api/email-marketing/campaigns/:id',
    { summary: 'One email campaign', access: emailPolicy.roles('readCampaigns'), params: idParams, response: campaignView, errors: noCampaign },
    async ({ ctx, input }) => campaigns.getCampaign(ctx.deps.db, input.params.id),
  )
  .put(
    '/api/email-marketing/campaigns/:id',
    {
      summary: 'Change a campaign that has not started',
      description:
        'The whole campaign as for creation (the same rules; `audienceSize` is counted again, the variants replaced). Without `scheduledAt` it becomes a draft; with it, it is scheduled at the new time. A campaign that is sending or sent is a 409 (`not_editable`).',
      access: emailPolicy.roles('manageCampaigns'),
      params: idParams,
      body: createCampaignBody,
      response: campaignView,
      errors: { ...noCampaign, 409: 'The campaign has started' },
    },
    async ({ ctx, input }) => campaigns.updateCampaign(ctx.deps, input.params.id, input.body),
  )
  .post(
    '/api/email-marketing/campaigns/:id/send',
    {
      summary: 'Send a campaign now',
      description: 'Writes the send list and queues the work (202). With an A/B test only the test share goes now; the winner follows after waitMinutes. A second send is a 409.',
      access: emailPolicy.roles('manageCampaigns'),
      params: idParams,
      status: 202,
      response: sendAccepted,
      errors: { ...noCampaign, 409: 'Already sent, or the audience is empty now' },
    },
    async ({ ctx, input }) => campaigns.startCampaign(ctx.deps, input.params.id),
  )
  .post(
    '/api/email-marketing/campaigns/:id/resume',
    {
      summary: 'Resume a campaign the sender paused',
      description:
        'After EMAIL_PAUSE_AFTER_ERRORS consecutive provider errors the sender pauses a campaign (status `paused`, `notice` says why, `outbound:paused` in the email room) and sends nothing more of it. Once the cause is fixed, this sends the rest from where it stopped. Only a paused campaign can be resumed (409 otherwise).',
      access: emailPolicy.roles('manageCampaigns'),
      params: idParams,
      response: campaignView,
      errors: { ...noCampaign, 409: 'The campaign is not paused' },
    },
    async ({ ctx, input }) => resumeCampaign(ctx.deps, input.params.id),
  )
  .post(
    '/api/email-marketing/campaigns/:id/decide-winner',
    {
      summary: 'End the A/B wait now and send the winner',
      description: 'The same rule as the automatic decision after waitMinutes; runs once (409 if the test is not waiting for a decision).',
      access: emailPolicy.roles('manageCampaigns'),
      params: idParams,
      response: campaignView,
      errors: { ...noCampaign, 409: 'No A/B test waiting for a decision' },
    },
    async ({ ctx, input }) => {
      await campaigns.loadCampaign(ctx.deps.db, input.params.id);
      const result = await decideWinner(ctx.deps, input.params.id, { now: true });
      if (!result.decided) throw new ConflictError('This campaign has no A/B test waiting for a decision.', 'not_waiting');
      return campaigns.getCampaign(ctx.deps.db, input.params.id);
    },
  )
  .get(
    '/api/email-marketing/campaigns/:id/stats',
    {
      summary: 'Statistics of an email campaign',
      description: 'Rates are over delivered messages. Opens exclude machine opens (reported as `opens.machine`) and include recipients who clicked.',
      access: emailPolicy.roles('readCampaigns'),
      params: idParams,
      response: statsView,
      errors: noCampaign,
    },
    async ({ ctx, input }) => campaignStats(ctx.deps.db, input.params.id),
  )
  .get(
    '/api/email-marketing/dashboard',
    { summary: 'Email dashboard: recent campaigns, 30-day totals, audience', access: emailPolicy.roles('readCampaigns'), response: dashboardView },
    async ({ ctx }) => emailDashboard(ctx.deps.db),
  );
