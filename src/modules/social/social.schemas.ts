import { z } from 'zod';
import { calendarDate, calendarDateOrInstant, instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { ALERT_KINDS, ALERT_STATES, PLATFORMS, PROFILE_SOURCES, SENTIMENT_LABELS, SEVERITIES } from './social.constants';

export const platformSchema = z.enum(PLATFORMS);
/** A day (`2026-11-01`, the campaign's time zone) or an instant. */
const dayOrInstant = calendarDateOrInstant;

// ───────────── competitors and profiles

export const profileInput = z.object({
  platform: platformSchema,
  handle: z.string().trim().min(1).max(300).describe('Username, page id, channel id or the profile URL; normalised'),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  source: z.enum(PROFILE_SOURCES).optional().describe('`api` (polled; default where a connector exists) or `import` (TikTok always)'),
});
export type ProfileInput = z.infer<typeof profileInput>;

const competitorFields = {
  name: z.string().trim().min(1).max(160),
  party: z.string().trim().min(1).max(160).nullable().optional(),
  colour: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'expected a colour such as #1f77b4')
    .nullable()
    .optional(),
  photoUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .optional(),
  notes: z.string().trim().max(5000).nullable().optional(),
  isOwn: z.boolean().optional().describe('Our own candidate (one at most): comparisons mark it'),
  territoryId: z.uuid().nullable().optional(),
  active: z.boolean().optional(),
};

export const createCompetitorBody = z.object({ ...competitorFields, profiles: z.array(profileInput).max(20).default([]) });
export type CreateCompetitorInput = z.infer<typeof createCompetitorBody>;

export const updateCompetitorBody = z
  .object({ ...competitorFields, name: competitorFields.name.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type UpdateCompetitorInput = z.infer<typeof updateCompetitorBody>;

/** A profile's own fields; its platform is what it is (another platform is another profile). */
export const updateProfileBody = z
  .object({
    handle: profileInput.shape.handle.optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional()
      .describe("null: the platform's own URL for the handle"),
    source: profileInput.shape.source,
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type UpdateProfileInput = z.infer<typeof updateProfileBody>;

export const idParams = z.object({ id: z.uuid() });
export const profileParams = z.object({ id: z.uuid(), profileId: z.uuid() });

export const listCompetitorsQuery = z.object({ ...pageQueryShape, active: z.stringbool().optional() });

export const PROFILE_STATUSES = ['ok', 'pending', 'failing', 'paused', 'not_configured', 'import_only'] as const;

export const profileView = z
  .object({
    id: z.uuid(),
    competitorId: z.uuid(),
    platform: platformSchema,
    handle: z.string(),
    platformId: z.string().nullable(),
    url: z.string().nullable(),
    source: z.enum(PROFILE_SOURCES),
    displayName: z.string().nullable(),
    followers: z.number().int().nullable(),
    status: z.enum(PROFILE_STATUSES).describe('Connector health: `pending` until the first fetch'),
    lastFetchedAt: instant.nullable(),
    lastError: z.string().nullable(),
    pausedReason: z.string().nullable(),
    nextFetchAt: instant.nullable(),
  })
  .meta({ id: 'SocialProfile' });

export const competitorView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    party: z.string().nullable(),
    colour: z.string().nullable(),
    photoUrl: z.string().nullable(),
    notes: z.string().nullable(),
    isOwn: z.boolean(),
    territoryId: z.uuid().nullable(),
    active: z.boolean(),
    profiles: z.array(profileView),
    createdAt: instant,
  })
  .meta({ id: 'SocialCompetitor' });

// ───────────── posts and import

/** Engagement counts above this are a typo or a broken export, not a post. */
export const MAX_COUNT = 10_000_000_000;
const count = z.coerce
  .number()
  .int('expected a whole number')
  .min(0, 'cannot be negative')
  .max(MAX_COUNT, `above ${MAX_COUNT.toLocaleString('en')} is not a real count`);
const optionalCount = z.preprocess((value) => (value === '' || value === null ? undefined : value), count.optional());

/** One row of an import: a post plus its engagement as of `capturedAt`. */
export const importRow = z
  .object({
    platform: platformSchema,
    competitorId: z.preprocess((value) => (value === '' ? undefined : value), z.uuid().optional()),
    handle: z.preprocess((value) => (value === '' ? undefined : value), z.string().trim().min(1).max(300).optional()),
    postId: z.coerce.string().trim().min(1, 'the platform post id is required').max(100),
    publishedAt: instant,
    text: z.string().max(20_000).default(''),
    url: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .optional(),
    ),
    mediaType: z.preprocess((value) => (value === '' ? undefined : value), z.string().trim().max(30).optional()),
    likes: optionalCount,
    comments: optionalCount,
    shares: optionalCount,
    views: optionalCount,
    followers: optionalCount.describe("The profile's followers when captured, for growth curves"),
    capturedAt: z.preprocess((value) => (value === '' ? undefined : value), instant.optional()),
  })
  .refine((row) => row.competitorId !== undefined || row.handle !== undefined, { message: 'give competitorId or handle', path: ['competitorId'] });
export type ImportRow = z.infer<typeof importRow>;

export const IMPORT_MAX_ROWS = 100_000;
export const importBody = z.object({ posts: z.array(z.unknown()).min(1).max(IMPORT_MAX_ROWS) });

export const importAnswer = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  snapshots: z.number().int(),
  rejected: z.array(z.object({ index: z.number().int(), reason: z.string() })),
});

export const POST_SORTS = ['recent', 'engagement'] as const;
export const listPostsQuery = z.object({
  ...pageQueryShape,
  competitorId: z.uuid().optional(),
  platform: platformSchema.optional(),
  from: dayOrInstant.optional(),
  to: dayOrInstant.optional(),
  q: z.string().trim().min(1).max(200).optional().describe('Spanish full-text search (word forms: "reformas" finds "reforma")'),
  sentiment: z.enum(SENTIMENT_LABELS).optional(),
  minEngagement: z.coerce.number().int().min(0).optional(),
  hasAlert: z.stringbool().optional().describe('`true`: only posts that raised an alert; `false`: only those that did not'),
  sort: z.enum(POST_SORTS).default('recent'),
});
export type ListPostsInput = z.infer<typeof listPostsQuery>;

export const postView = z
  .object({
    id: z.uuid(),
    platform: platformSchema,
    platformPostId: z.string(),
    competitorId: z.uuid(),
    profileId: z.uuid().nullable(),
    publishedAt: instant,
    text: z.string(),
    url: z.string().nullable(),
    mediaType: z.string().nullable(),
    likes: z.number().int().nullable(),
    comments: z.number().int().nullable(),
    shares: z.number().int().nullable(),
    views: z.number().int().nullable(),
    engagement: z.number().int(),
    engagementRate: z.number().nullable().describe('engagement ÷ followers × 100'),
    sentiment: z.object({ score: z.number(), label: z.enum(SENTIMENT_LABELS) }),
    hashtags: z.array(z.string()),
    mentions: z.array(z.string()),
    keywords: z.array(z.string()),
    lastSnapshotAt: instant,
  })
  .meta({ id: 'SocialPost' });

export const snapshotView = z.object({
  capturedAt: instant,
  likes: z.number().int().nullable(),
  comments: z.number().int().nullable(),
  shares: z.number().int().nullable(),
  views: z.number().int().nullable(),
  engagement: z.number().int(),
});
export const postDetailView = postView.extend({ snapshots: z.array(snapshotView) }).meta({ id: 'SocialPostDetail' });

// ───────────── alerts and rules

export const listAlertsQuery = z.object({
  ...pageQueryShape,
  state: z.enum(ALERT_STATES).optional(),
  severity: z.enum(SEVERITIES).optional(),
  kind: z.enum(ALERT_KINDS).optional(),
  competitorId: z.uuid().optional(),
  from: dayOrInstant.optional(),
  to: dayOrInstant.optional(),
});
export type ListAlertsInput = z.infer<typeof listAlertsQuery>;

export const updateAlertBody = z.object({ state: z.enum(ALERT_STATES) });

export const alertView = z
  .object({
    id: z.uuid(),
    ruleId: z.uuid().nullable(),
    kind: z.enum(ALERT_KINDS),
    severity: z.enum(SEVERITIES),
    title: z.string(),
    details: z.record(z.string(), z.unknown()),
    competitorId: z.uuid().nullable(),
    profileId: z.uuid().nullable(),
    postId: z.uuid().nullable(),
    state: z.enum(ALERT_STATES),
    seenBy: z.uuid().nullable(),
    seenAt: instant.nullable(),
    createdAt: instant,
  })
  .meta({ id: 'SocialAlert' });

const keywordText = z.string().trim().min(2).max(60);

/** Each kind's settings; the formulas are in docs/social-monitoring.md. */
export const ruleParamsByKind = {
  new_post: z.object({
    maxAgeHours: z.number().int().min(1).max(720).default(24).describe('Older posts (first seen late, imported history) raise nothing'),
    includeOwn: z.boolean().default(false),
  }),
  keyword: z
    .object({
      keywords: z.array(keywordText).max(50).default([]),
      includeOwnNames: z.boolean().default(false).describe("Also match our candidate's name and handles"),
    })
    .refine((params) => params.keywords.length > 0 || params.includeOwnNames, 'give keywords or set includeOwnNames'),
  engagement_spike: z.object({
    method: z.enum(['zscore', 'ratio']).default('zscore'),
    k: z.number().min(0.5).max(10).default(2.5).describe('zscore: standard deviations above the baseline mean'),
    ratio: z.number().min(1.05).max(20).default(1.5).describe('ratio: times the baseline mean'),
    baselineDays: z.number().int().min(1).max(90).default(30),
    minBaselinePosts: z.number().int().min(3).max(200).default(5),
  }),
  follower_change: z.object({
    windowHours: z.number().int().min(1).max(720).default(24),
    surgePercent: z.number().min(0.1).max(1000).default(5),
    dropPercent: z.number().min(0.1).max(100).default(3),
  }),
  negative_sentiment: z.object({
    windowHours: z.number().int().min(1).max(168).default(6),
    threshold: z.number().min(0.05).max(1).default(0.4).describe('share of negative posts among those mentioning us'),
    minPosts: z.number().int().min(1).max(1000).default(5),
  }),
} as const;
export type RuleParams = { [K in keyof typeof ruleParamsByKind]: z.infer<(typeof ruleParamsByKind)[K]> };

const ruleCommon = {
  name: z.string().trim().min(1).max(160),
  severity: z.enum(SEVERITIES),
  enabled: z.boolean().default(true),
  competitorId: z.uuid().nullable().default(null),
};
export const createRuleBody = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('new_post'), ...ruleCommon, params: ruleParamsByKind.new_post.default({ maxAgeHours: 24, includeOwn: false }) }),
  z.object({ kind: z.literal('keyword'), ...ruleCommon, params: ruleParamsByKind.keyword }),
  z.object({
    kind: z.literal('engagement_spike'),
    ...ruleCommon,
    params: ruleParamsByKind.engagement_spike.default({ method: 'zscore', k: 2.5, ratio: 1.5, baselineDays: 30, minBaselinePosts: 5 }),
  }),
  z.object({ kind: z.literal('follower_change'), ...ruleCommon, params: ruleParamsByKind.follower_change.default({ windowHours: 24, surgePercent: 5, dropPercent: 3 }) }),
  z.object({ kind: z.literal('negative_sentiment'), ...ruleCommon, params: ruleParamsByKind.negative_sentiment.default({ windowHours: 6, threshold: 0.4, minPosts: 5 }) }),
]);
export type CreateRuleInput = z.infer<typeof createRuleBody>;

export const updateRuleBody = z
  .object({
    name: ruleCommon.name.optional(),
    severity: ruleCommon.severity.optional(),
    enabled: z.boolean().optional(),
    competitorId: z.uuid().nullable().optional(),
    params: z.record(z.string(), z.unknown()).optional().describe("The kind's settings, replaced whole"),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type UpdateRuleInput = z.infer<typeof updateRuleBody>;

export const ruleView = z
  .object({
    id: z.uuid(),
    kind: z.enum(ALERT_KINDS),
    name: z.string(),
    severity: z.enum(SEVERITIES),
    enabled: z.boolean(),
    competitorId: z.uuid().nullable(),
    params: z.record(z.string(), z.unknown()),
    updatedAt: instant,
  })
  .meta({ id: 'SocialAlertRule' });

// ───────────── dashboard and comparison

export const dashboardQuery = z.object({ days: z.coerce.number().int().min(1).max(90).default(7) });

export const COMPARISON_METRICS = ['followers', 'engagement', 'engagementRate', 'posts', 'sentiment', 'shareOfVoice'] as const;
export type ComparisonMetric = (typeof COMPARISON_METRICS)[number];
export const comparisonQuery = z.object({
  metric: z.enum(COMPARISON_METRICS),
  interval: z.enum(['day', 'week']).default('day'),
  from: dayOrInstant.optional(),
  to: dayOrInstant.optional(),
  platform: platformSchema.optional(),
});
export type ComparisonInput = z.infer<typeof comparisonQuery>;

const growth = z.object({ absolute: z.number(), percent: z.number().nullable() }).nullable();

export const dashboardView = z
  .object({
    window: z.object({ days: z.number().int(), from: instant, to: instant }),
    competitors: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        colour: z.string().nullable(),
        isOwn: z.boolean(),
        followers: z.array(z.object({ platform: platformSchema, followers: z.number().nullable(), growth7d: growth, growth30d: growth })),
        posts: z.number().int(),
        engagement: z.number(),
        averageEngagementRate: z.number().nullable(),
        shareOfVoice: z.number().nullable().describe('their engagement ÷ all tracked engagement in the window × 100'),
        sentiment: z.object({ positive: z.number().int(), neutral: z.number().int(), negative: z.number().int() }),
        profiles: z.array(profileView),
      }),
    ),
    alerts: z.object({ new: z.number().int(), latest: z.array(alertView) }),
    connectors: z.array(
      z.object({
        platform: platformSchema,
        status: z.enum(['configured', 'not_configured', 'import_only']),
        quota: z.object({ used: z.number(), budget: z.number().nullable(), resetsAt: instant }).nullable(),
      }),
    ),
  })
  .meta({ id: 'SocialDashboard' });

export const comparisonView = z
  .object({
    metric: z.enum(COMPARISON_METRICS),
    interval: z.enum(['day', 'week']),
    platform: platformSchema.nullable(),
    from: instant,
    to: instant,
    buckets: z.array(calendarDate).describe("Start of each day or week (Monday), the campaign's time zone"),
    series: z.array(z.object({ competitorId: z.uuid(), name: z.string(), colour: z.string().nullable(), isOwn: z.boolean(), values: z.array(z.number().nullable()) })),
    summary: z.array(
      z.object({
        competitorId: z.uuid(),
        name: z.string(),
        isOwn: z.boolean(),
        latest: z.number().nullable(),
        change: z.number().nullable().describe('latest − first value of the range'),
        changePercent: z.number().nullable(),
        rank: z.number().int().nullable().describe('1 = highest latest value'),
      }),
    ),
  })
  .meta({ id: 'SocialComparison' });
