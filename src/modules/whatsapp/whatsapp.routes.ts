import { ApiRouter } from '../../kernel/http/router';
import { AppError, UnauthorizedError } from '../../kernel/errors';
import { pageSchema } from '../../kernel/pagination';
import { z } from 'zod';
import * as campaigns from './whatsapp.campaigns';
import * as conversations from './whatsapp.conversations';
import * as quickReplies from './whatsapp.quick-replies';
import { dashboard } from './whatsapp.dashboard';
import { whatsappPolicy } from './whatsapp.policy';
import { createTemplate, listTemplates } from './whatsapp.templates';
import { handleWebhookPayload, signatureValid } from './whatsapp.webhook';
import { campaignIdParams, campaignPreviewView, campaignView, createCampaignBody, listCampaignsQuery, previewCampaignBody, sendResponse } from './whatsapp.campaigns.schemas';
import {
  activityView,
  assigneeView,
  conversationIdParams,
  conversationView,
  createQuickReplyBody,
  createTemplateBody,
  dashboardView,
  listActivityQuery,
  listAssigneesQuery,
  listConversationsQuery,
  listMessagesQuery,
  listQuickRepliesQuery,
  listTemplatesQuery,
  messageView,
  quickReplyIdParams,
  quickReplyView,
  replyBody,
  templateView,
  unreadView,
  updateConversationBody,
  updateQuickReplyBody,
  webhookVerifyQuery,
} from './whatsapp.schemas';

const noCampaign = { 404: 'No such campaign' };
const noConversation = { 404: 'No such conversation' };

export const whatsappRouter = new ApiRouter('whatsapp', 'WhatsApp templates, mass campaigns and two-way conversations (Cloud API)')
  .post(
    '/api/whatsapp/templates',
    {
      summary: 'Create a message template (registered with the provider)',
      description: "`status` is the provider's (PENDING until Meta reviews it); the template-status webhook updates it. Placeholders `{{1}}..{{n}}`, no gaps, one example each.",
      access: whatsappPolicy.roles('manageTemplates'),
      body: createTemplateBody,
      status: 201,
      response: templateView,
      errors: { 409: 'A template with this name and language exists', 502: 'The provider refused or could not be reached' },
    },
    async ({ ctx, input, actor }) => createTemplate(ctx.deps, actor, input.body),
  )
  .get(
    '/api/whatsapp/templates',
    { summary: 'Message templates, newest first', access: whatsappPolicy.roles('readTemplates'), query: listTemplatesQuery, response: pageSchema(templateView) },
    async ({ ctx, input }) => listTemplates(ctx.deps.db, input.query),
  )
  .post(
    '/api/whatsapp/campaigns',
    {
      summary: 'Create a WhatsApp campaign: an approved template, one variable per placeholder, a segment',
      description:
        'Variables are `contact.firstName`, `contact.name`, `contact.neighbourhood`, `contact.territory` or literal text (`{ "literal": "..." }` for text that starts with `contact.`). `audienceSize` counts contacts who opted in to WhatsApp and did not opt out, one per phone.',
      access: whatsappPolicy.roles('manageCampaigns'),
      body: createCampaignBody,
      status: 201,
      response: campaignView,
      errors: { 409: 'The template is not approved' },
    },
    async ({ ctx, input, actor }) => campaigns.createCampaign(ctx.deps, actor, input.body),
  )
  .post(
    '/api/whatsapp/campaigns/preview',
    {
      summary: 'How many people a segment would reach on WhatsApp, before creating the campaign',
      description:
        "The segment as `POST /api/whatsapp/campaigns` takes it, counted the same way (`reachable` is the `audienceSize` a campaign created now would get), with the messaging tier's use and the send rate, so a screen can say how much of the send goes out at once and how long it takes. Nothing is written.",
      access: whatsappPolicy.roles('manageCampaigns'),
      body: previewCampaignBody,
      response: campaignPreviewView,
    },
    async ({ ctx, input }) => campaigns.previewCampaign(ctx.deps, input.body),
  )
  .get(
    '/api/whatsapp/campaigns',
    { summary: 'WhatsApp campaigns with progress, newest first', access: whatsappPolicy.roles('readCampaigns'), query: listCampaignsQuery, response: pageSchema(campaignView) },
    async ({ ctx, input }) => campaigns.listCampaigns(ctx.deps.db, input.query),
  )
  .get(
    '/api/whatsapp/campaigns/:id',
    { summary: 'One campaign with its progress counters', access: whatsappPolicy.roles('readCampaigns'), params: campaignIdParams, response: campaignView, errors: noCampaign },
    async ({ ctx, input }) => campaigns.getCampaign(ctx.deps.db, input.params.id),
  )
  .post(
    '/api/whatsapp/campaigns/:id/send',
    {
      summary: 'Send a campaign: one queued message per recipient, sent by the workers at the configured rate',
      description: 'Only once (409 after). `notice` says when the messaging tier cannot reach everyone within the rolling 24 hours: the rest waits.',
      access: whatsappPolicy.roles('manageCampaigns'),
      params: campaignIdParams,
      status: 202,
      response: sendResponse,
      errors: { ...noCampaign, 409: 'Already sent, cancelled, or the template is not approved' },
    },
    async ({ ctx, input }) => campaigns.sendCampaign(ctx.deps, input.params.id),
  )
  .post(
    '/api/whatsapp/campaigns/:id/pause',
    {
      summary: 'Pause sending (messages in flight finish)',
      access: whatsappPolicy.roles('manageCampaigns'),
      params: campaignIdParams,
      response: campaignView,
      errors: { ...noCampaign, 409: 'Not sending or scheduled' },
    },
    async ({ ctx, input }) => campaigns.pauseCampaign(ctx.deps, input.params.id),
  )
  .post(
    '/api/whatsapp/campaigns/:id/resume',
    {
      summary: 'Resume a paused campaign',
      description:
        'Paused by staff, or by the sender after WHATSAPP_PAUSE_AFTER_ERRORS consecutive provider errors (`notice` says why, `outbound:paused` in the whatsapp room): sending goes on from where it stopped and the pause notice goes.',
      access: whatsappPolicy.roles('manageCampaigns'),
      params: campaignIdParams,
      response: campaignView,
      errors: { ...noCampaign, 409: 'Not paused' },
    },
    async ({ ctx, input }) => campaigns.resumeCampaign(ctx.deps, input.params.id),
  )
  .post(
    '/api/whatsapp/campaigns/:id/cancel',
    {
      summary: 'Cancel a campaign: queued messages are not sent',
      access: whatsappPolicy.roles('manageCampaigns'),
      params: campaignIdParams,
      response: campaignView,
      errors: { ...noCampaign, 409: 'Already completed or cancelled' },
    },
    async ({ ctx, input }) => campaigns.cancelCampaign(ctx.deps, input.params.id),
  )
  .get(
    '/api/whatsapp/webhook',
    {
      summary: 'Webhook verification handshake (Meta)',
      description: 'Answers `hub.challenge` as text when `hub.verify_token` matches WHATSAPP_VERIFY_TOKEN; 403 otherwise.',
      access: 'public',
      query: webhookVerifyQuery,
      produces: { 'text/plain': 'The challenge' },
      errors: { 403: 'Wrong verify token' },
    },
    async ({ ctx, input }) => {
      const expected = ctx.deps.config.whatsapp.verifyToken;
      const query = input.query;
      if (!expected || query['hub.mode'] !== 'subscribe' || query['hub.verify_token'] !== expected || !query['hub.challenge']) {
        throw new AppError(403, 'forbidden', 'Forbidden', 'The verify token does not match.');
      }
      ctx.type = 'text/plain';
      ctx.body = query['hub.challenge'];
      return undefined;
    },
  )
  .post(
    '/api/whatsapp/webhook',
    {
      summary: 'Webhook deliveries from the WhatsApp Cloud API (statuses, inbound messages, template reviews)',
      description: 'Signed with `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret). Deliveries of an unknown shape are acknowledged and ignored.',
      access: 'public',
      body: z.unknown(),
      handlerParsesBody: true,
      rawBody: true,
      response: z.object({ received: z.literal(true), applied: z.number().int(), inbound: z.number().int(), ignored: z.number().int() }),
      errors: { 401: 'Missing or bad signature' },
    },
    async ({ ctx }) => {
      const raw = (ctx.request as { rawBody?: string }).rawBody;
      if (!signatureValid(ctx.deps.config.whatsapp.appSecret, raw, ctx.get('X-Hub-Signature-256') || undefined)) {
        ctx.deps.logger.warn({ requestId: ctx.state.requestId, webhook: 'whatsapp' }, 'whatsapp webhook with a missing or bad signature refused');
        throw new UnauthorizedError('The webhook signature is missing or wrong.');
      }
      const outcome = await handleWebhookPayload(ctx.deps, ctx.request.body);
      return { received: true as const, applied: outcome.applied, inbound: outcome.inbound, ignored: outcome.ignored };
    },
  )
  .get(
    '/api/whatsapp/conversations',
    {
      summary: 'Conversations, newest activity first',
      description:
        'Each with its contact, assignee, last message, unread count and whether the 24-hour window is open (and until when). Filters: `status`, `unread`, ' +
        '`assignee` (`me`, `none` or a user id), `q` (name, or phone digits in any format).',
      access: whatsappPolicy.roles('converse'),
      query: listConversationsQuery,
      response: pageSchema(conversationView),
    },
    async ({ ctx, input, actor }) => conversations.listConversations(ctx.deps, actor, input.query),
  )
  .get(
    '/api/whatsapp/activity',
    {
      summary: 'Recent conversation messages, without their text (what `whatsapp:activity` pushes)',
      description:
        'Newest first: each message’s id, direction, kind and time, never its text, number or author, so roles that follow the figures (viewers: the war room) ' +
        'may read it. `direction=in` lists people’s replies.',
      access: whatsappPolicy.roles('follow'),
      query: listActivityQuery,
      response: pageSchema(activityView),
    },
    async ({ ctx, input }) => conversations.listActivity(ctx.deps, input.query),
  )
  .get(
    '/api/whatsapp/conversations/unread',
    {
      summary: 'Unread across open conversations (the inbox badge)',
      description: '`whatsapp:unread` pushes the same figures live, at most once a second.',
      access: whatsappPolicy.roles('converse'),
      response: unreadView,
    },
    async ({ ctx }) => conversations.unreadTotals(ctx.deps),
  )
  .get(
    '/api/whatsapp/assignees',
    {
      summary: 'Who a conversation may be assigned to',
      description: 'Active staff whose role may hold conversations (those `PATCH .../conversations/:id` accepts as `assignedToId`), by name; `q` in the name or email.',
      access: whatsappPolicy.roles('converse'),
      query: listAssigneesQuery,
      response: pageSchema(assigneeView),
    },
    async ({ ctx, input }) => conversations.listAssignees(ctx.deps.db, input.query),
  )
  .get(
    '/api/whatsapp/conversations/:id',
    { summary: 'One conversation', access: whatsappPolicy.roles('converse'), params: conversationIdParams, response: conversationView, errors: noConversation },
    async ({ ctx, input }) => conversations.getConversation(ctx.deps, input.params.id),
  )
  .patch(
    '/api/whatsapp/conversations/:id',
    {
      summary: 'Assign a conversation (or unassign with null), resolve (`closed`) or reopen it',
      description:
        'The assignee must be an active user who may hold conversations (`assignee_cannot_converse` otherwise). A new message from the person reopens a closed conversation. ' +
        'The answer is the conversation as the list shows it; `whatsapp:conversation` tells the inbox room.',
      access: whatsappPolicy.roles('converse'),
      params: conversationIdParams,
      body: updateConversationBody,
      response: conversationView,
      errors: noConversation,
    },
    async ({ ctx, input, actor }) => conversations.updateConversation(ctx.deps, actor, input.params.id, input.body),
  )
  .get(
    '/api/whatsapp/conversations/:id/messages',
    {
      summary: "The contact's messages, newest first",
      access: whatsappPolicy.roles('converse'),
      params: conversationIdParams,
      query: listMessagesQuery,
      response: pageSchema(messageView),
      errors: noConversation,
    },
    async ({ ctx, input }) => conversations.listMessages(ctx.deps, input.params.id, input.query),
  )
  .post(
    '/api/whatsapp/conversations/:id/messages',
    {
      summary: 'Reply: `{ text }` inside the 24-hour window, `{ templateId, variables }` outside it',
      description:
        'Queued ahead of campaign messages and sent by the workers; the answer is the queued message. Templates usable outside the window: `GET /api/whatsapp/templates?status=APPROVED` (`placeholders`: how many `variables`).',
      access: whatsappPolicy.roles('converse'),
      params: conversationIdParams,
      body: replyBody,
      status: 202,
      response: messageView,
      errors: { ...noConversation, 409: 'window_closed, opted_out, no_consent or template_not_approved' },
    },
    async ({ ctx, input, actor }) => conversations.reply(ctx.deps, actor, input.params.id, input.body),
  )
  .post(
    '/api/whatsapp/conversations/:id/read',
    {
      summary: 'Mark a conversation read (unread count 0)',
      access: whatsappPolicy.roles('converse'),
      params: conversationIdParams,
      response: conversationView,
      errors: noConversation,
    },
    async ({ ctx, input, actor }) => conversations.markRead(ctx.deps, actor, input.params.id),
  )
  .post(
    '/api/whatsapp/conversations/:id/unread',
    {
      summary: 'Mark a conversation unread again',
      description: "A read conversation counts the person's last message as unread (unread count 1); one with unread messages keeps its count.",
      access: whatsappPolicy.roles('converse'),
      params: conversationIdParams,
      response: conversationView,
      errors: { ...noConversation, 409: 'The person never wrote in it (`nothing_inbound`)' },
    },
    async ({ ctx, input, actor }) => conversations.markUnread(ctx.deps, actor, input.params.id),
  )
  .get(
    '/api/whatsapp/quick-replies',
    {
      summary: "The team's quick replies, by shortcut",
      description:
        '`q` narrows to shortcuts starting with it or titles containing it (the reply box’s `/` menu). With `conversationId` each carries `rendered`: ' +
        'its text with `{{nombre}}`, `{{primer_nombre}}`, `{{barrio}}` (the person) and `{{agente}}` (the caller) filled, and the variables left empty for want of a value.',
      access: whatsappPolicy.roles('converse'),
      query: listQuickRepliesQuery,
      response: pageSchema(quickReplyView),
      errors: { 400: 'Also `unknown_conversation` for a `conversationId` no conversation has' },
    },
    async ({ ctx, input, actor }) => quickReplies.listQuickReplies(ctx.deps, actor, input.query),
  )
  .post(
    '/api/whatsapp/quick-replies',
    {
      summary: 'Add a quick reply',
      access: whatsappPolicy.roles('manageQuickReplies'),
      body: createQuickReplyBody,
      status: 201,
      response: quickReplyView,
      errors: { 409: 'The shortcut is taken (`shortcut_taken`)' },
    },
    async ({ ctx, input, actor }) => quickReplies.createQuickReply(ctx.deps, actor, input.body),
  )
  .patch(
    '/api/whatsapp/quick-replies/:id',
    {
      summary: 'Change a quick reply',
      access: whatsappPolicy.roles('manageQuickReplies'),
      params: quickReplyIdParams,
      body: updateQuickReplyBody,
      response: quickReplyView,
      errors: { 404: 'No such quick reply', 409: 'The shortcut is taken (`shortcut_taken`)' },
    },
    async ({ ctx, input, actor }) => quickReplies.updateQuickReply(ctx.deps, actor, input.params.id, input.body),
  )
  .delete(
    '/api/whatsapp/quick-replies/:id',
    { summary: 'Remove a quick reply', access: whatsappPolicy.roles('manageQuickReplies'), params: quickReplyIdParams, status: 204, errors: { 404: 'No such quick reply' } },
    async ({ ctx, input }) => {
      await quickReplies.deleteQuickReply(ctx.deps, input.params.id);
      return undefined;
    },
  )
  .get(
    '/api/whatsapp/dashboard',
    {
      summary: 'WhatsApp totals and rates, per campaign, conversations, opt-outs, last 24 hours, messaging tier',
      access: whatsappPolicy.roles('readDashboard'),
      response: dashboardView,
    },
    async ({ ctx }) => dashboard(ctx.deps.db, ctx.deps.config.whatsapp),
  );
