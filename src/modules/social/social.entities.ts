import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { FullTextType } from '@mikro-orm/postgresql';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { UserSchema } from '../auth';
import { TerritorySchema } from '../territories';
import { ALERT_KINDS, ALERT_STATES, PLATFORMS, PROFILE_SOURCES, SENTIMENT_LABELS, SEVERITIES } from './social.constants';

export * from './social.constants';

/** A candidate the campaign watches; ours is tracked the same way so comparisons have a "we". */
export const CompetitorSchema = defineEntity({
  name: 'SocialCompetitor',
  tableName: 'social_competitors',
  indexes: [{ properties: ['name', 'id'] }],
  uniques: [
    { name: 'social_competitors_name_unique', expression: 'create unique index social_competitors_name_unique on social_competitors (lower(name))' },
    // One "we": comparisons mark a single competitor as ours.
    { name: 'social_competitors_one_own', expression: 'create unique index social_competitors_one_own on social_competitors (is_own) where is_own' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    name: p.string().length(160),
    party: p.string().length(160).nullable(),
    /** `#rrggbb`, for the war room's charts. */
    colour: p.string().length(7).nullable(),
    photoUrl: p.string().length(2048).nullable(),
    notes: p.text().nullable(),
    isOwn: p.boolean().default(false),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    active: p.boolean().default(true),
    ...timestamps,
  }),
});
export type Competitor = InferEntity<typeof CompetitorSchema>;

/**
 * One competitor on one platform. The poller's list is this table: `nextFetchAt` says when it is
 * due, `pausedReason` stops it until staff act, and the last error is kept for the dashboard.
 */
export const ProfileSchema = defineEntity({
  name: 'SocialProfile',
  tableName: 'social_profiles',
  uniques: [{ properties: ['platform', 'handle'], name: 'social_profiles_platform_handle_unique' }],
  indexes: [
    { properties: ['competitor'] },
    { name: 'social_profiles_due', expression: 'create index social_profiles_due on social_profiles (next_fetch_at) where paused_reason is null and next_fetch_at is not null' },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    competitor: () => p.manyToOne(CompetitorSchema).deleteRule('cascade'),
    platform: p.enum([...PLATFORMS]),
    /** Normalised: lower case, without `@` or the platform's URL. */
    handle: p.string().length(100),
    platformId: p.string().length(64).nullable(),
    url: p.string().length(2048).nullable(),
    source: p.enum([...PROFILE_SOURCES]),
    displayName: p.string().length(200).nullable(),
    followers: p.bigint('number').nullable(),
    lastFetchedAt: p.datetime().nullable(),
    lastError: p.string().length(500).nullable(),
    consecutiveFailures: p.integer().default(0),
    /** Set when fetching cannot go on without a person (an expired token, an unknown handle). */
    pausedReason: p.string().length(500).nullable(),
    /** When the poller should read it next; null for import-only profiles. */
    nextFetchAt: p.datetime().nullable(),
    ...createdAtStamp,
  }),
});
export type Profile = InferEntity<typeof ProfileSchema>;

/**
 * A competitor's post with its latest engagement; the history of that engagement is in the
 * snapshots. `search` is the Spanish full-text vector PostgreSQL keeps from the text.
 */
export const PostSchema = defineEntity({
  name: 'SocialPost',
  tableName: 'social_posts',
  uniques: [{ properties: ['platform', 'platformPostId'], name: 'social_posts_platform_post_unique' }],
  indexes: [
    { properties: ['competitor', 'publishedAt'] },
    { properties: ['publishedAt', 'id'] },
    { properties: ['engagement', 'id'] },
    { properties: ['search'], type: 'fulltext' },
    // The engagement-spike rule reads an author's recent posts on one platform with their latest counts.
    {
      name: 'social_posts_baseline',
      expression: 'create index social_posts_baseline on social_posts (competitor_id, platform, published_at) include (engagement, engagement_rate)',
    },
  ],
  properties: (p) => ({
    ...uuidPrimaryKey,
    platform: p.enum([...PLATFORMS]),
    platformPostId: p.string().length(100),
    competitor: () => p.manyToOne(CompetitorSchema).deleteRule('cascade'),
    profile: () => p.manyToOne(ProfileSchema).nullable().deleteRule('set null'),
    publishedAt: p.datetime(),
    text: p.text(),
    url: p.string().length(2048).nullable(),
    mediaType: p.string().length(30).nullable(),
    likes: p.bigint('number').nullable(),
    comments: p.bigint('number').nullable(),
    shares: p.bigint('number').nullable(),
    views: p.bigint('number').nullable(),
    /** likes + comments + shares of the latest snapshot. */
    engagement: p.bigint('number').default(0),
    /** engagement ÷ the profile's followers × 100 at the latest snapshot; null when followers are unknown. */
    engagementRate: p.double().nullable(),
    sentimentScore: p.double(),
    sentimentLabel: p.enum([...SENTIMENT_LABELS]),
    hashtags: p.array().default([]),
    mentions: p.array().default([]),
    keywords: p.array().default([]),
    /** The text names our candidate (name or handle): the posts the negative-sentiment rule watches. */
    mentionsUs: p.boolean().default(false),
    search: p.type(new FullTextType('spanish')).generated("(to_tsvector('spanish', text)) stored").lazy().hidden().nullable(),
    firstSeenAt: p.datetime().onCreate(() => new Date()),
    lastSnapshotAt: p.datetime(),
  }),
});
export type Post = InferEntity<typeof PostSchema>;

/** Engagement of one post as one fetch or import saw it: the series that shows a post taking off. */
export const PostSnapshotSchema = defineEntity({
  name: 'SocialPostSnapshot',
  tableName: 'social_post_snapshots',
  properties: (p) => ({
    post: () => p.manyToOne(PostSchema).primary().deleteRule('cascade'),
    capturedAt: p.datetime().primary(),
    likes: p.bigint('number').nullable(),
    comments: p.bigint('number').nullable(),
    shares: p.bigint('number').nullable(),
    views: p.bigint('number').nullable(),
    engagement: p.bigint('number'),
  }),
});
export type PostSnapshot = InferEntity<typeof PostSnapshotSchema>;

/** Followers of one profile at one fetch, for growth curves and surge alerts. */
export const FollowerSnapshotSchema = defineEntity({
  name: 'SocialFollowerSnapshot',
  tableName: 'social_follower_snapshots',
  properties: (p) => ({
    profile: () => p.manyToOne(ProfileSchema).primary().deleteRule('cascade'),
    capturedAt: p.datetime().primary(),
    followers: p.bigint('number'),
  }),
});
export type FollowerSnapshot = InferEntity<typeof FollowerSnapshotSchema>;

/** A rule's settings, by kind (validated by the rule schemas; docs/social-monitoring.md gives each formula). */
export type AlertRuleParams = Record<string, unknown>;

/** What makes an alert; managers edit them, the defaults are written on first start. */
export const AlertRuleSchema = defineEntity({
  name: 'SocialAlertRule',
  tableName: 'social_alert_rules',
  properties: (p) => ({
    ...uuidPrimaryKey,
    kind: p.enum([...ALERT_KINDS]),
    name: p.string().length(160),
    enabled: p.boolean().default(true),
    severity: p.enum([...SEVERITIES]),
    params: p.json<AlertRuleParams>(),
    /** Only this competitor's posts and profiles; null: every competitor the rule applies to. */
    competitor: () => p.manyToOne(CompetitorSchema).nullable().deleteRule('cascade'),
    ...timestamps,
  }),
});
export type AlertRule = InferEntity<typeof AlertRuleSchema>;

/** One alert; `dedupeKey` makes "exactly once" the database's promise, whichever process evaluates. */
export const AlertSchema = defineEntity({
  name: 'SocialAlert',
  tableName: 'social_alerts',
  indexes: [{ properties: ['createdAt', 'id'] }, { properties: ['state', 'createdAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    rule: () => p.manyToOne(AlertRuleSchema).nullable().deleteRule('set null'),
    kind: p.enum([...ALERT_KINDS]),
    dedupeKey: p.string().length(200).unique(),
    competitor: () => p.manyToOne(CompetitorSchema).nullable().deleteRule('cascade'),
    profile: () => p.manyToOne(ProfileSchema).nullable().deleteRule('set null'),
    post: () => p.manyToOne(PostSchema).nullable().deleteRule('set null'),
    severity: p.enum([...SEVERITIES]),
    title: p.string().length(300),
    details: p.json<Record<string, unknown>>(),
    state: p.enum([...ALERT_STATES]).default('new'),
    seenBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    seenAt: p.datetime().nullable(),
    ...createdAtStamp,
  }),
});
export type Alert = InferEntity<typeof AlertSchema>;

/** Calls or units spent per platform and quota period (YouTube's Pacific day, X's month). */
export const QuotaUsageSchema = defineEntity({
  name: 'SocialQuotaUsage',
  tableName: 'social_quota_usage',
  properties: (p) => ({
    platform: p.enum([...PLATFORMS]).primary(),
    periodStart: p.datetime().primary(),
    used: p.bigint('number').default(0),
  }),
});
export type QuotaUsage = InferEntity<typeof QuotaUsageSchema>;

/**
 * Posts per competitor, platform and local day (the campaign's time zone, recorded in
 * `social_rollup_settings`), kept by triggers on `social_posts` (migration SocialDailyRollup)
 * whatever writes the posts: comparisons over months read a few thousand rows instead of every post.
 */
export const DailyPostsSchema = defineEntity({
  name: 'SocialDailyPosts',
  tableName: 'social_daily_posts',
  properties: (p) => ({
    competitor: () => p.manyToOne(CompetitorSchema).primary().deleteRule('cascade'),
    platform: p.enum([...PLATFORMS]).primary(),
    day: p.string().length(10).primary(),
    posts: p.integer().default(0),
    engagement: p.bigint('number').default(0),
    rateSum: p.double().default(0),
    rateCount: p.integer().default(0),
    positive: p.integer().default(0),
    negative: p.integer().default(0),
  }),
});

/** Each profile's last follower count of each local day: what follower comparisons carry forward. */
export const DailyFollowersSchema = defineEntity({
  name: 'SocialDailyFollowers',
  tableName: 'social_daily_followers',
  properties: (p) => ({
    profile: () => p.manyToOne(ProfileSchema).primary().deleteRule('cascade'),
    day: p.string().length(10).primary(),
    capturedAt: p.datetime(),
    followers: p.bigint('number'),
  }),
});

/** The time zone the daily rollup's days are in; re-built when the configured one changes. */
export const RollupSettingsSchema = defineEntity({
  name: 'SocialRollupSettings',
  tableName: 'social_rollup_settings',
  properties: (p) => ({
    id: p.smallint().primary().autoincrement(false),
    timeZone: p.string().length(64),
  }),
});

export const socialEntities = [
  CompetitorSchema,
  ProfileSchema,
  PostSchema,
  PostSnapshotSchema,
  FollowerSnapshotSchema,
  AlertRuleSchema,
  AlertSchema,
  QuotaUsageSchema,
  DailyPostsSchema,
  DailyFollowersSchema,
  RollupSettingsSchema,
];
