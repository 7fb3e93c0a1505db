import { ApiRouter } from '../../kernel/http/router';
import { invalidField } from '../../kernel/errors';
import { pageSchema } from '../../kernel/pagination';
import { popularityDashboard } from './popularity.dashboard';
import { popularityPolicy } from './popularity.policy';
import {
  createPollBody,
  createSwotBody,
  dashboardQuery,
  dashboardView,
  idParams,
  listMetricsQuery,
  listPollsQuery,
  metricView,
  metricsAnswer,
  pollView,
  postMetricsBody,
  scoreWeightsBody,
  swotItemView,
  swotView,
  updateSwotBody,
} from './popularity.schemas';
import { validateWeights } from './popularity.score';
import * as service from './popularity.service';
import { changeSwotItem, createSwotItem, removeSwotItem, swot } from './popularity.swot';

const base = '/api/popularity';

export const popularityRouter = new ApiRouter('popularity', 'Polls, the poll average, daily metrics, the composite score and SWOT')
  .post(
    `${base}/polls`,
    {
      summary: 'Register a published poll with its technical sheet',
      description:
        'Results name social-monitoring competitors (`competitorId`) or `option` blank | undecided | none. The answer carries ' +
        '`compliance`: the Ley 2494 de 2025 checks (probabilistic, margin of error ≤ 3 national / ≤ 5 territorial at ≥ 95 %, a margin ' +
        'the sample can give, the sheet complete). A poll that fails them is stored and flagged, not refused.',
      access: popularityPolicy.roles('record'),
      body: createPollBody,
      status: 201,
      response: pollView,
    },
    async ({ ctx, input, actor }) => service.createPoll(ctx.deps, input.body, actor.id),
  )
  .get(
    `${base}/polls`,
    {
      summary: 'List polls',
      description: 'Newest publication first; filter by pollster, scope, territory, compliance and publication day range.',
      access: popularityPolicy.roles('read'),
      query: listPollsQuery,
      response: pageSchema(pollView),
    },
    async ({ ctx, input }) => {
      if (input.query.from && input.query.to && input.query.from > input.query.to) throw invalidField('query.from', '`from` must not be after `to`.');
      return service.listPolls(ctx.deps.db, input.query);
    },
  )
  .get(`${base}/polls/:id`, { summary: 'One poll', access: popularityPolicy.roles('read'), params: idParams, response: pollView }, async ({ ctx, input }) =>
    service.getPoll(ctx.deps.db, input.params.id),
  )
  .post(
    `${base}/metrics`,
    {
      summary: 'Record daily popularity metrics',
      description:
        '`{ date, competitorId, metric, value, source? }` or `{ metrics: [...] }` (≤ 1,000). One value per day, competitor, metric and ' +
        'source: a second post of the same key replaces it (`updated`). Bad items are reported by index and not written; the rest are. ' +
        'Catalogue and ranges: docs/popularity.md; any other snake_case key is a custom metric.',
      access: popularityPolicy.roles('record'),
      body: postMetricsBody,
      handlerParsesBody: true,
      response: metricsAnswer,
      errors: { 400: 'A batch above 1,000 items, or nothing valid in it' },
    },
    async ({ ctx }) => {
      const body: unknown = ctx.request.body;
      if (typeof body === 'object' && body !== null && 'metrics' in body) {
        const metrics = (body as { metrics: unknown }).metrics;
        if (!Array.isArray(metrics) || metrics.length === 0) throw invalidField('body.metrics', 'expected a non-empty array of metrics');
        if (metrics.length > 1000) throw invalidField('body.metrics', `at most 1,000 metrics per batch; this one has ${metrics.length}`);
      }
      return service.recordMetrics(ctx.deps, body);
    },
  )
  .get(
    `${base}/metrics`,
    {
      summary: 'List daily metrics',
      description: 'Newest day first; filter by competitor, metric, source and day range.',
      access: popularityPolicy.roles('read'),
      query: listMetricsQuery,
      response: pageSchema(metricView),
    },
    async ({ ctx, input }) => service.listMetrics(ctx.deps.db, input.query),
  )
  .get(
    `${base}/dashboard`,
    {
      summary: 'Popularity dashboard',
      description:
        'The poll average per competitor with its band, trend (30 days), house effects and 14-day change; our lead over the first ' +
        'rival with its band; the latest polls; the composite score per competitor with each component; the latest daily metrics. ' +
        'Method: docs/popularity.md.',
      access: popularityPolicy.roles('read'),
      query: dashboardQuery,
      response: dashboardView,
    },
    async ({ ctx, input }) => popularityDashboard(ctx.deps, input.query),
  )
  .put(
    `${base}/score-weights`,
    {
      summary: "Set the composite score's weights",
      description: 'Each component 0–1, at least one above 0; they are normalised over the components a competitor has.',
      access: popularityPolicy.roles('setWeights'),
      body: scoreWeightsBody,
      response: scoreWeightsBody,
    },
    async ({ ctx, input }) => {
      const problem = validateWeights(input.body);
      if (problem) throw invalidField('body', problem);
      return service.replaceWeights(ctx.deps.db, input.body);
    },
  )
  .get(
    `${base}/swot`,
    {
      summary: 'SWOT view',
      description: 'The four quadrants: items staff wrote or accepted, and suggestions read from the data with their evidence (accept one with POST and its `suggestionKey`).',
      access: popularityPolicy.roles('read'),
      response: swotView,
    },
    async ({ ctx }) => swot(ctx.deps),
  )
  .post(
    `${base}/swot`,
    {
      summary: 'Add a SWOT item, or accept a suggestion',
      access: popularityPolicy.roles('record'),
      body: createSwotBody,
      status: 201,
      response: swotItemView,
      errors: { 409: 'The suggestion was already accepted (`suggestion_taken`)' },
    },
    async ({ ctx, input, actor }) => createSwotItem(ctx.deps.db, input.body, actor.id),
  )
  .patch(
    `${base}/swot/:id`,
    { summary: 'Change a SWOT item', access: popularityPolicy.roles('record'), params: idParams, body: updateSwotBody, response: swotItemView },
    async ({ ctx, input }) => changeSwotItem(ctx.deps.db, input.params.id, input.body),
  )
  .delete(`${base}/swot/:id`, { summary: 'Delete a SWOT item', access: popularityPolicy.roles('record'), params: idParams, status: 204 }, async ({ ctx, input }) => {
    await removeSwotItem(ctx.deps.db, input.params.id);
    return undefined;
  });
