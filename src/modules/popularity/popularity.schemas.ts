import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { POLL_METHODS, POLL_OPTIONS, POLL_SCOPES, SWOT_QUADRANTS } from './popularity.constants';

// ───────────── polls

/** Results may add up to a little over 100 from rounding, not more. */
export const RESULTS_SUM_TOLERANCE = 0.5;

const pollResult = z
  .object({
    competitorId: z.uuid().optional(),
    option: z.enum(POLL_OPTIONS).optional(),
    percentage: z.number().min(0).max(100),
  })
  .refine((result) => (result.competitorId === undefined) !== (result.option === undefined), 'give either competitorId or option, not both');

export const createPollBody = z
  .object({
    pollster: z.string().trim().min(1).max(160),
    sponsor: z.string().trim().min(1).max(160).nullable().optional(),
    registrationNumber: z.string().trim().min(1).max(60).optional().describe('CNE registration, when it has one'),
    fieldworkStart: calendarDate,
    fieldworkEnd: calendarDate,
    publishedAt: calendarDate,
    scope: z.enum(POLL_SCOPES),
    territoryId: z.uuid().optional(),
    universe: z.string().trim().min(1).max(2000).nullable().optional(),
    sampleSize: z.number().int().positive().max(10_000_000),
    method: z.enum(POLL_METHODS),
    probabilistic: z.boolean(),
    marginOfError: z.number().positive().max(100).describe('percentage points'),
    confidenceLevel: z.number().min(50).max(99.99).describe('e.g. 95'),
    question: z.string().trim().min(1).max(2000).nullable().optional(),
    results: z.array(pollResult).min(1).max(60),
    sourceUrl: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    notes: z.string().trim().max(5000).optional(),
  })
  .superRefine((poll, ctx) => {
    if (poll.fieldworkEnd < poll.fieldworkStart) ctx.addIssue({ code: 'custom', path: ['fieldworkEnd'], message: 'fieldwork cannot end before it starts' });
    const total = poll.results.reduce((sum, result) => sum + result.percentage, 0);
    if (total > 100 + RESULTS_SUM_TOLERANCE) ctx.addIssue({ code: 'custom', path: ['results'], message: `the percentages add up to ${Math.round(total * 10) / 10}, above 100` });
    const seen = new Set<string>();
    poll.results.forEach((result, index) => {
      const key = result.competitorId ?? result.option!;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['results', index], message: 'listed twice' });
      seen.add(key);
    });
    if (poll.scope !== 'national' && !poll.territoryId) ctx.addIssue({ code: 'custom', path: ['territoryId'], message: `a ${poll.scope} poll names its territory` });
  });
export type CreatePollInput = z.infer<typeof createPollBody>;

export const listPollsQuery = z.object({
  ...pageQueryShape,
  pollster: z.string().trim().min(1).max(160).optional(),
  scope: z.enum(POLL_SCOPES).optional(),
  territoryId: z.uuid().optional(),
  compliant: z.stringbool().optional(),
  from: calendarDate.optional().describe('published on or after'),
  to: calendarDate.optional().describe('published on or before'),
});
export type ListPollsInput = z.infer<typeof listPollsQuery>;

export const complianceView = z.object({
  compliant: z.boolean(),
  problems: z.array(z.object({ code: z.string(), message: z.string() })),
});

export const pollView = z
  .object({
    id: z.uuid(),
    pollster: z.string(),
    sponsor: z.string().nullable(),
    registrationNumber: z.string().nullable(),
    fieldworkStart: calendarDate,
    fieldworkEnd: calendarDate,
    publishedAt: calendarDate,
    scope: z.enum(POLL_SCOPES),
    territoryId: z.uuid().nullable(),
    universe: z.string().nullable(),
    sampleSize: z.number().int(),
    method: z.enum(POLL_METHODS),
    probabilistic: z.boolean(),
    marginOfError: z.number(),
    confidenceLevel: z.number(),
    question: z.string().nullable(),
    results: z.array(z.object({ competitorId: z.uuid().nullable(), option: z.enum(POLL_OPTIONS).nullable(), percentage: z.number() })),
    sourceUrl: z.string().nullable(),
    notes: z.string().nullable(),
    compliance: complianceView,
    createdAt: instant,
  })
  .meta({ id: 'Poll' });

// ───────────── daily metrics

/** The documented metrics, their unit and range; any other snake_case key is a custom metric. */
export const METRIC_CATALOGUE = {
  favourability: { unit: '%', min: 0, max: 100 },
  unfavourability: { unit: '%', min: 0, max: 100 },
  name_recognition: { unit: '%', min: 0, max: 100 },
  vote_intention: { unit: '%', min: 0, max: 100 },
  followers: { unit: 'people', min: 0, max: 1e10 },
  engagement_rate: { unit: '%', min: 0, max: 1000 },
  sentiment: { unit: 'net, −100…100', min: -100, max: 100 },
  share_of_voice: { unit: '%', min: 0, max: 100 },
  leads: { unit: 'people', min: 0, max: 1e9 },
  volunteers: { unit: 'people', min: 0, max: 1e9 },
  whatsapp_replies: { unit: 'messages', min: 0, max: 1e9 },
} as const satisfies Record<string, { unit: string; min: number; max: number }>;
export type CatalogueMetric = keyof typeof METRIC_CATALOGUE;
/** Values of custom metrics stay within this, so a typo of a few extra digits is caught. */
export const CUSTOM_METRIC_LIMIT = 1e12;
/** The source the automatic daily job writes under; others may not use it. */
export const AUTOMATIC_SOURCE = 'comando';

export const metricItem = z
  .object({
    date: calendarDate,
    competitorId: z.uuid(),
    metric: z
      .string()
      .trim()
      .regex(/^[a-z][a-z0-9_]{1,59}$/, 'expected a snake_case key such as favourability'),
    value: z.number().finite(),
    source: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9_.-]{0,59}$/i, 'expected a short source name such as invamer or manual')
      .default('manual'),
  })
  .superRefine((item, ctx) => {
    const known = METRIC_CATALOGUE[item.metric as CatalogueMetric];
    const min = known?.min ?? -CUSTOM_METRIC_LIMIT;
    const max = known?.max ?? CUSTOM_METRIC_LIMIT;
    if (item.value < min || item.value > max) ctx.addIssue({ code: 'custom', path: ['value'], message: `${item.metric} takes values from ${min} to ${max}` });
    if (item.source.toLowerCase() === AUTOMATIC_SOURCE)
      ctx.addIssue({ code: 'custom', path: ['source'], message: `"${AUTOMATIC_SOURCE}" is reserved for the metrics Comando records itself` });
  });
export type MetricItem = z.infer<typeof metricItem>;

export const METRIC_BATCH_MAX = 1000;
/** One metric, or `{ metrics: [...] }`; items are validated one by one so a bad item does not sink the batch. */
export const postMetricsBody = z.union([z.object({ metrics: z.array(z.unknown()).min(1).max(METRIC_BATCH_MAX) }), z.record(z.string(), z.unknown())]);

export const metricsAnswer = z.object({
  accepted: z.number().int().describe('new values'),
  updated: z.number().int().describe('values that replaced an earlier one for the same day, competitor, metric and source'),
  rejected: z.array(z.object({ index: z.number().int(), reason: z.string() })),
});

export const listMetricsQuery = z.object({
  ...pageQueryShape,
  competitorId: z.uuid().optional(),
  metric: z.string().trim().max(60).optional(),
  source: z.string().trim().max(60).optional(),
  from: calendarDate.optional(),
  to: calendarDate.optional(),
});
export type ListMetricsInput = z.infer<typeof listMetricsQuery>;

export const metricView = z
  .object({ id: z.uuid(), date: calendarDate, competitorId: z.uuid(), metric: z.string(), value: z.number(), source: z.string(), updatedAt: instant })
  .meta({ id: 'PopularityMetric' });

// ───────────── score, dashboard, SWOT

export const scoreWeightsBody = z
  .object({
    pollAverage: z.number().min(0).max(1),
    favourabilityNet: z.number().min(0).max(1),
    engagementShare: z.number().min(0).max(1),
    sentiment: z.number().min(0).max(1),
    momentum: z.number().min(0).max(1),
  })
  .strict()
  .refine((weights) => Object.values(weights).some((weight) => weight > 0), 'at least one weight must be above 0');

export const dashboardQuery = z.object({
  halfLifeDays: z.coerce.number().min(1).max(180).optional().describe('Recency half-life of the poll average (14 days unless said)'),
  scope: z.enum(POLL_SCOPES).optional().describe('Only polls of this scope'),
  territoryId: z.uuid().optional().describe('Only polls of this territory'),
});

const band = { average: z.number(), low: z.number(), high: z.number() };

export const dashboardView = z
  .object({
    asOf: instant,
    pollAverage: z.object({
      confidence: z.number(),
      halfLifeDays: z.number(),
      polls: z.number().int(),
      averages: z.array(
        z.object({
          competitorId: z.uuid(),
          name: z.string(),
          isOwn: z.boolean(),
          ...band,
          standardError: z.number(),
          effectivePolls: z.number(),
          change14d: z.number().nullable(),
        }),
      ),
      houseEffects: z.array(z.object({ pollster: z.string(), competitorId: z.uuid(), effect: z.number(), polls: z.number().int() })),
      trend: z.array(z.object({ date: calendarDate, averages: z.array(z.object({ competitorId: z.uuid(), ...band })) })),
    }),
    lead: z
      .object({ ourId: z.uuid(), rivalId: z.uuid(), lead: z.number(), low: z.number(), high: z.number(), polls: z.number().int() })
      .nullable()
      .describe('Our poll average minus the first rival’s, with its band'),
    latestPolls: z.array(pollView),
    scores: z.array(
      z.object({
        competitorId: z.uuid(),
        name: z.string(),
        isOwn: z.boolean(),
        score: z.number().nullable(),
        components: z.array(
          z.object({ component: z.string(), raw: z.number().nullable(), normalised: z.number().nullable(), weight: z.number(), contribution: z.number().nullable() }),
        ),
      }),
    ),
    weights: z.record(z.string(), z.number()),
    latestMetrics: z.array(z.object({ competitorId: z.uuid(), metric: z.string(), date: calendarDate, value: z.number(), source: z.string() })),
  })
  .meta({ id: 'PopularityDashboard' });

const evidence = z.object({
  type: z.enum(['poll', 'metric', 'alert', 'post', 'link']),
  id: z.string().max(200).nullable().default(null),
  label: z.string().trim().min(1).max(300),
});

export const createSwotBody = z.object({
  quadrant: z.enum(SWOT_QUADRANTS),
  text: z.string().trim().min(1).max(500),
  evidence: z.array(evidence).max(20).default([]),
  suggestionKey: z.string().max(200).optional().describe('Accepting a suggestion: its key, so it is not suggested again'),
});
export type CreateSwotInput = z.infer<typeof createSwotBody>;

export const updateSwotBody = z
  .object({
    quadrant: z.enum(SWOT_QUADRANTS).optional(),
    text: z.string().trim().min(1).max(500).optional(),
    evidence: z.array(evidence).max(20).optional(),
    active: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type UpdateSwotInput = z.infer<typeof updateSwotBody>;

export const swotItemView = z
  .object({
    id: z.uuid(),
    quadrant: z.enum(SWOT_QUADRANTS),
    text: z.string(),
    evidence: z.array(z.object({ type: z.string(), id: z.string().nullable(), label: z.string() })),
    suggestionKey: z.string().nullable(),
    authorId: z.uuid().nullable(),
    active: z.boolean(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'SwotItem' });

export const swotSuggestionView = z.object({
  key: z.string(),
  quadrant: z.enum(SWOT_QUADRANTS),
  text: z.string(),
  evidence: z.array(z.object({ type: z.string(), id: z.string().nullable(), label: z.string() })),
});

export const swotView = z
  .object(
    Object.fromEntries(SWOT_QUADRANTS.map((quadrant) => [quadrant, z.object({ items: z.array(swotItemView), suggestions: z.array(swotSuggestionView) })])) as Record<
      (typeof SWOT_QUADRANTS)[number],
      z.ZodObject<{ items: z.ZodArray<typeof swotItemView>; suggestions: z.ZodArray<typeof swotSuggestionView> }>
    >,
  )
  .meta({ id: 'Swot' });

export const idParams = z.object({ id: z.uuid() });
