import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { IMPORT_BODY_LIMIT, importPosts, importRequestRows } from './social.import';
import { socialPolicy } from './social.policy';
import {
  alertView,
  comparisonQuery,
  comparisonView,
  competitorView,
  createCompetitorBody,
  createRuleBody,
  dashboardQuery,
  dashboardView,
  idParams,
  importAnswer,
  importBody,
  listAlertsQuery,
  listCompetitorsQuery,
  listPostsQuery,
  postDetailView,
  postView,
  profileInput,
  profileParams,
  profileView,
  ruleView,
  updateAlertBody,
  updateCompetitorBody,
  updateProfileBody,
  updateRuleBody,
} from './social.schemas';
import * as service from './social.service';
import { comparison, socialDashboard } from './social.stats';

const fetchAnswer = z.object({
  outcome: z.discriminatedUnion('status', [
    z.object({ status: z.literal('fetched'), posts: z.number().int(), created: z.number().int(), snapshots: z.number().int(), followers: z.number().nullable() }),
    z.object({ status: z.literal('waiting'), reason: z.string(), until: instant }),
    z.object({ status: z.enum(['gone', 'skipped']) }),
  ]),
  profile: profileView,
});

const base = '/api/social-monitoring';

export const socialRouter = new ApiRouter('social-monitoring', 'Competitors on social platforms: profiles, posts, alerts and comparisons')
  .get(
    `${base}/dashboard`,
    {
      summary: 'Social monitoring dashboard',
      description:
        'Per competitor (ours marked): followers by platform with 7- and 30-day growth, posts, engagement, average engagement rate, ' +
        'share of voice and sentiment mix over the last `days` (7 unless said), each profile with its connector health; ' +
        'the latest alerts; each platform connector with its quota use.',
      access: socialPolicy.roles('read'),
      query: dashboardQuery,
      response: dashboardView,
    },
    async ({ ctx, input }) => socialDashboard(ctx.deps, input.query.days),
  )
  .post(
    `${base}/competitors`,
    {
      summary: 'Register a competitor to monitor',
      description:
        'With its profiles (`platform` + handle, page id, channel id or profile URL, normalised). Profiles of platforms with a ' +
        'connector are polled (`source: api`); TikTok profiles are fed by imports. One competitor may be ours (`isOwn`).',
      access: socialPolicy.roles('manage'),
      body: createCompetitorBody,
      status: 201,
      response: competitorView,
      errors: { 409: 'The profile is already tracked (`profile_taken`), the name exists (`competitor_name_taken`) or another competitor is ours (`own_taken`)' },
    },
    async ({ ctx, input }) => service.createCompetitor(ctx.deps, input.body),
  )
  .get(
    `${base}/competitors`,
    {
      summary: 'List competitors',
      description: 'Sorted by name, each with its profiles and their connector health.',
      access: socialPolicy.roles('read'),
      query: listCompetitorsQuery,
      response: pageSchema(competitorView),
    },
    async ({ ctx, input }) => service.listCompetitors(ctx.deps, input.query),
  )
  .get(`${base}/competitors/:id`, { summary: 'One competitor', access: socialPolicy.roles('read'), params: idParams, response: competitorView }, async ({ ctx, input }) =>
    service.getCompetitor(ctx.deps, input.params.id),
  )
  .patch(
    `${base}/competitors/:id`,
    {
      summary: 'Change a competitor',
      description: 'Any of the fields; `active: false` stops showing it without losing its history.',
      access: socialPolicy.roles('manage'),
      params: idParams,
      body: updateCompetitorBody,
      response: competitorView,
      errors: { 409: 'The name exists or another competitor is ours' },
    },
    async ({ ctx, input }) => service.changeCompetitor(ctx.deps, input.params.id, input.body),
  )
  .post(
    `${base}/competitors/:id/profiles`,
    {
      summary: 'Add a profile to a competitor',
      access: socialPolicy.roles('manage'),
      params: idParams,
      body: profileInput,
      status: 201,
      response: profileView,
      errors: { 409: 'The profile is already tracked (`profile_taken`)' },
    },
    async ({ ctx, input }) => service.addProfile(ctx.deps, input.params.id, input.body),
  )
  .patch(
    `${base}/competitors/:id/profiles/:profileId`,
    {
      summary: "Change a profile's handle, URL or source",
      description:
        'Another handle (a renamed account, a typo fixed) or source clears the last error, the pause and the platform id, and a polled profile is read at once; ' +
        'its posts and follower history stay. `url: null` puts back the platform URL of the handle.',
      access: socialPolicy.roles('manage'),
      params: profileParams,
      body: updateProfileBody,
      response: profileView,
      errors: { 404: 'This competitor has no profile with this id', 409: 'Another profile has this handle on this platform (`profile_taken`)' },
    },
    async ({ ctx, input }) => service.changeProfile(ctx.deps, input.params.id, input.params.profileId, input.body),
  )
  .delete(
    `${base}/competitors/:id/profiles/:profileId`,
    {
      summary: 'Stop tracking a profile',
      description: 'Its posts stay, attributed to the competitor; its follower history goes.',
      access: socialPolicy.roles('manage'),
      params: profileParams,
      status: 204,
    },
    async ({ ctx, input }) => {
      await service.removeProfile(ctx.deps, input.params.id, input.params.profileId);
      return undefined;
    },
  )
  .post(
    `${base}/profiles/:id/fetch`,
    {
      summary: 'Fetch a profile now',
      description: "Reads the profile's followers and recent posts at once, and lifts a pause (an expired token that was renewed, a fixed handle).",
      access: socialPolicy.roles('manage'),
      params: idParams,
      response: fetchAnswer,
      errors: {
        409: 'Import-only profile (`import_only`), connector without credentials (`not_configured`) or a fetch already running (`fetch_in_progress`)',
        502: 'The platform refused (`upstream_failed`); the reason is recorded on the profile',
      },
    },
    async ({ ctx, input }) => service.fetchNow(ctx.deps, input.params.id),
  )
  .get(
    `${base}/posts`,
    {
      summary: 'List collected posts',
      description:
        'Filter by `competitorId`, `platform`, publication `from`/`to` (a day or an instant), Spanish full-text `q`, `sentiment` ' +
        'and `minEngagement`; `sort=recent` (default) or `engagement`.',
      access: socialPolicy.roles('read'),
      query: listPostsQuery,
      response: pageSchema(postView),
    },
    async ({ ctx, input }) => service.listPosts(ctx.deps, input.query),
  )
  .get(
    `${base}/posts/:id`,
    { summary: 'One post with its engagement history', access: socialPolicy.roles('read'), params: idParams, response: postDetailView },
    async ({ ctx, input }) => service.getPost(ctx.deps, input.params.id),
  )
  .post(
    `${base}/posts/import`,
    {
      summary: 'Import posts with their engagement (JSON or CSV)',
      description:
        'For platforms without an API that returns competitors’ posts (TikTok) or campaigns without API access: `{ "posts": [...] }` ' +
        'or `text/csv` with the same column names (platform, competitorId or handle, postId, publishedAt, text, url, mediaType, likes, ' +
        'comments, shares, views, followers, capturedAt). Each row is a post plus its engagement as of `capturedAt` (now unless said): ' +
        'importing the same post later adds a snapshot, the same file twice changes nothing. Bad rows are reported by index, the rest kept. ' +
        'Up to 100,000 rows and 20 MB.',
      access: socialPolicy.roles('manage'),
      body: importBody,
      bodyTypes: ['json', 'csv'],
      bodyLimit: IMPORT_BODY_LIMIT,
      handlerParsesBody: true,
      response: importAnswer,
      errors: { 400: 'Malformed CSV (`malformed_csv`) or a body without posts', 413: 'Larger than 20 MB or more than 100,000 rows' },
    },
    async ({ ctx }) => importPosts(ctx.deps, await importRequestRows(ctx.request.body, ctx.is('text/csv') === 'text/csv', ctx.req)),
  )
  .get(
    `${base}/alerts`,
    {
      summary: 'List alerts',
      description: 'Newest first; filter by `state`, `severity`, `kind`, `competitorId` and creation `from`/`to`.',
      access: socialPolicy.roles('read'),
      query: listAlertsQuery,
      response: pageSchema(alertView),
    },
    async ({ ctx, input }) => service.listAlerts(ctx.deps, input.query),
  )
  .patch(
    `${base}/alerts/:id`,
    {
      summary: 'Mark an alert seen or dismissed',
      description: '`new` undoes the mark. Who marked it and when are kept.',
      access: socialPolicy.roles('triageAlerts'),
      params: idParams,
      body: updateAlertBody,
      response: alertView,
    },
    async ({ ctx, input, actor }) => service.markAlert(ctx.deps.db, input.params.id, input.body.state, actor.id),
  )
  .get(
    `${base}/alert-rules`,
    { summary: 'List alert rules', description: 'The formulas are in docs/social-monitoring.md.', access: socialPolicy.roles('read'), response: z.array(ruleView) },
    async ({ ctx }) => service.listRules(ctx.deps.db),
  )
  .post(
    `${base}/alert-rules`,
    {
      summary: 'Create an alert rule',
      description: '`kind` decides `params`: new_post, keyword, engagement_spike, follower_change, negative_sentiment.',
      access: socialPolicy.roles('manage'),
      body: createRuleBody,
      status: 201,
      response: ruleView,
    },
    async ({ ctx, input }) => service.createRule(ctx.deps.db, input.body),
  )
  .patch(
    `${base}/alert-rules/:id`,
    { summary: 'Change an alert rule', access: socialPolicy.roles('manage'), params: idParams, body: updateRuleBody, response: ruleView },
    async ({ ctx, input }) => service.changeRule(ctx.deps.db, input.params.id, input.body),
  )
  .delete(
    `${base}/alert-rules/:id`,
    { summary: 'Delete an alert rule', description: 'Its alerts stay.', access: socialPolicy.roles('manage'), params: idParams, status: 204 },
    async ({ ctx, input }) => {
      await service.removeRule(ctx.deps.db, input.params.id);
      return undefined;
    },
  )
  .get(
    `${base}/comparison`,
    {
      summary: 'Comparison against competitors',
      description:
        '`metric` = followers | engagement | engagementRate | posts | sentiment (net: positive − negative per 100 posts) | shareOfVoice, ' +
        'by `interval` = day | week between `from` and `to` (the last 30 days unless said), optionally one `platform`: one series per ' +
        'competitor (ours marked) and a summary with the latest value, its change over the range and the rank.',
      access: socialPolicy.roles('read'),
      query: comparisonQuery,
      response: comparisonView,
    },
    async ({ ctx, input }) => comparison(ctx.deps, input.query),
  );
