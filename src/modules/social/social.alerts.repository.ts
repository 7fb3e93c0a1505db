import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { sql, type Queries } from '../../kernel/sql';
import { UserSchema } from '../auth';
import { AlertSchema, type Alert, type AlertKind, type AlertState, type Platform, type SentimentLabel, type Severity } from './social.entities';

export interface NewAlert {
  ruleId: string;
  kind: AlertKind;
  dedupeKey: string;
  competitorId: string | null;
  profileId: string | null;
  postId: string | null;
  severity: Severity;
  title: string;
  details: Record<string, unknown>;
}

export interface AlertRecord extends Omit<NewAlert, 'ruleId' | 'dedupeKey'> {
  id: string;
  ruleId: string | null;
  state: AlertState;
  seenBy: string | null;
  seenAt: Date | null;
  createdAt: Date;
}

/**
 * Inserts the alerts whose key is new and returns only those: two processes evaluating the same
 * change create each alert once, and only the one that created it announces it.
 */
export async function insertAlerts(q: Queries, alerts: readonly NewAlert[], at: Date): Promise<AlertRecord[]> {
  if (!alerts.length) return [];
  const column = <T>(pick: (alert: NewAlert) => T) => alerts.map(pick);
  const rows = await q.rows<{ id: string; dedupe_key: string }>(sql`
    insert into social_alerts (id, rule_id, kind, dedupe_key, competitor_id, profile_id, post_id, severity, title, details, state, created_at)
    select x.id, x.rule_id, x.kind, x.dedupe_key, x.competitor_id, x.profile_id, x.post_id, x.severity, x.title, x.details, 'new', ${at}::timestamptz
    from unnest(${alerts.map(() => newId())}::uuid[], ${column((alert) => alert.ruleId)}::uuid[], ${column((alert) => alert.kind)}::text[],
      ${column((alert) => alert.dedupeKey)}::text[], ${column((alert) => alert.competitorId)}::uuid[], ${column((alert) => alert.profileId)}::uuid[],
      ${column((alert) => alert.postId)}::uuid[], ${column((alert) => alert.severity)}::text[], ${column((alert) => alert.title)}::text[],
      ${column((alert) => JSON.stringify(alert.details))}::jsonb[])
      as x(id, rule_id, kind, dedupe_key, competitor_id, profile_id, post_id, severity, title, details)
    on conflict (dedupe_key) do nothing
    returning id, dedupe_key`);
  const byKey = new Map(alerts.map((alert) => [alert.dedupeKey, alert]));
  return rows.map((row) => {
    const alert = byKey.get(row.dedupe_key)!;
    return {
      id: row.id,
      ruleId: alert.ruleId,
      kind: alert.kind,
      competitorId: alert.competitorId,
      profileId: alert.profileId,
      postId: alert.postId,
      severity: alert.severity,
      title: alert.title,
      details: alert.details,
      state: 'new',
      seenBy: null,
      seenAt: null,
      createdAt: at,
    };
  });
}

function alertOfEntity(alert: Alert): AlertRecord {
  return {
    id: alert.id,
    ruleId: alert.rule ? alert.rule.id : null,
    kind: alert.kind,
    competitorId: alert.competitor ? alert.competitor.id : null,
    profileId: alert.profile ? alert.profile.id : null,
    postId: alert.post ? alert.post.id : null,
    severity: alert.severity,
    title: alert.title,
    details: alert.details,
    state: alert.state,
    seenBy: alert.seenBy ? alert.seenBy.id : null,
    seenAt: alert.seenAt ?? null,
    createdAt: alert.createdAt,
  };
}

export interface AlertFilter {
  state?: AlertState | undefined;
  severity?: Severity | undefined;
  kind?: AlertKind | undefined;
  competitorId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export function alertPage(em: EntityManager, filter: AlertFilter, page: PageRequest): Promise<Page<AlertRecord>> {
  const where: Record<string, unknown> = {};
  if (filter.state) where.state = filter.state;
  if (filter.severity) where.severity = filter.severity;
  if (filter.kind) where.kind = filter.kind;
  if (filter.competitorId) where.competitor = filter.competitorId;
  if (filter.from || filter.to) where.createdAt = { ...(filter.from && { $gte: filter.from }), ...(filter.to && { $lt: filter.to }) };
  return findPage(em, AlertSchema, where, page, { createdAt: 'desc', id: 'desc' }, alertOfEntity);
}

/** Marks an alert; `new` undoes a mark. The alert as it now is, or undefined. */
export async function setAlertState(em: EntityManager, id: string, state: AlertState, userId: string): Promise<AlertRecord | undefined> {
  const alert = await em.findOne(AlertSchema, { id });
  if (!alert) return undefined;
  alert.state = state;
  alert.seenBy = state === 'new' ? null : em.getReference(UserSchema, userId);
  alert.seenAt = state === 'new' ? null : new Date();
  await em.flush();
  return alertOfEntity(alert);
}

export async function latestAlerts(em: EntityManager, limit: number): Promise<AlertRecord[]> {
  return (await em.find(AlertSchema, { state: { $ne: 'dismissed' } }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit })).map(alertOfEntity);
}

// ───────────── what the rules read

export interface CandidatePost {
  id: string;
  competitorId: string;
  competitorName: string;
  isOwn: boolean;
  profileId: string | null;
  platform: Platform;
  publishedAt: Date;
  text: string;
  url: string | null;
  keywords: string[];
  mentionsUs: boolean;
  sentimentLabel: SentimentLabel;
}

/** The posts a rule looks at, with their author; only those published since `since`. */
export async function candidatePosts(q: Queries, ids: readonly string[], since: Date): Promise<CandidatePost[]> {
  if (!ids.length) return [];
  return q.rows<CandidatePost>(sql`
    select p.id, p.competitor_id as "competitorId", c.name as "competitorName", c.is_own as "isOwn", p.profile_id as "profileId",
      p.platform, p.published_at as "publishedAt", p.text, p.url, p.keywords, p.mentions_us as "mentionsUs", p.sentiment_label as "sentimentLabel"
    from social_posts p join social_competitors c on c.id = p.competitor_id
    where p.id = any(${ids}::uuid[]) and p.published_at >= ${since}::timestamptz`);
}

export interface EngagementBaseline {
  id: string;
  competitorId: string;
  competitorName: string;
  profileId: string | null;
  platform: Platform;
  engagement: number;
  engagementRate: number | null;
  /** Earlier posts of the same author and platform inside the baseline window. */
  posts: number;
  meanEngagement: number | null;
  sdEngagement: number | null;
  postsWithRate: number;
  meanRate: number | null;
  sdRate: number | null;
}

/**
 * Each post's engagement against its author's trailing baseline on the same platform: the other
 * posts published in the `days` before it, with their latest counts.
 */
export async function engagementBaselines(q: Queries, ids: readonly string[], since: Date, days: number): Promise<EngagementBaseline[]> {
  if (!ids.length) return [];
  return q.rows<EngagementBaseline>(sql`
    select t.id, t.competitor_id as "competitorId", c.name as "competitorName", t.profile_id as "profileId", t.platform,
      t.engagement::float8 as engagement, t.engagement_rate as "engagementRate",
      b.posts::int as posts, b.mean_engagement as "meanEngagement", b.sd_engagement as "sdEngagement",
      b.posts_with_rate::int as "postsWithRate", b.mean_rate as "meanRate", b.sd_rate as "sdRate"
    from social_posts t
    join social_competitors c on c.id = t.competitor_id
    cross join lateral (
      select count(*) as posts, avg(o.engagement)::float8 as mean_engagement, stddev_samp(o.engagement)::float8 as sd_engagement,
        count(o.engagement_rate) as posts_with_rate, avg(o.engagement_rate) as mean_rate, stddev_samp(o.engagement_rate) as sd_rate
      from social_posts o
      where o.competitor_id = t.competitor_id and o.platform = t.platform and o.id <> t.id
        and o.published_at >= t.published_at - make_interval(days => ${days}::int) and o.published_at < t.published_at
    ) b
    where t.id = any(${ids}::uuid[]) and t.published_at >= ${since}::timestamptz`);
}

export interface FollowerChange {
  profileId: string;
  competitorId: string;
  competitorName: string;
  platform: Platform;
  handle: string;
  capturedAt: Date;
  followers: number;
  referenceAt: Date;
  referenceFollowers: number;
}

/** Each profile's newest follower count against the newest one at least `hours` older. */
export async function followerChanges(q: Queries, profileIds: readonly string[], hours: number): Promise<FollowerChange[]> {
  if (!profileIds.length) return [];
  return q.rows<FollowerChange>(sql`
    select p.id as "profileId", c.id as "competitorId", c.name as "competitorName", p.platform, p.handle,
      latest.captured_at as "capturedAt", latest.followers::float8 as followers,
      reference.captured_at as "referenceAt", reference.followers::float8 as "referenceFollowers"
    from social_profiles p
    join social_competitors c on c.id = p.competitor_id
    cross join lateral (select captured_at, followers from social_follower_snapshots s where s.profile_id = p.id order by captured_at desc limit 1) latest
    cross join lateral (select captured_at, followers from social_follower_snapshots s where s.profile_id = p.id
      and s.captured_at <= latest.captured_at - make_interval(hours => ${hours}::int) order by captured_at desc limit 1) reference
    where p.id = any(${profileIds}::uuid[]) and reference.followers > 0`);
}

/** Posts by others that mention us in the window, and how many of them are negative. */
export async function sentimentAboutUs(q: Queries, since: Date): Promise<{ posts: number; negative: number }> {
  const row = await q.first<{ posts: number; negative: number }>(sql`
    select count(*)::int as posts, count(*) filter (where p.sentiment_label = 'negative')::int as negative
    from social_posts p join social_competitors c on c.id = p.competitor_id
    where p.mentions_us and not c.is_own and p.published_at >= ${since}::timestamptz`);
  return row ?? { posts: 0, negative: 0 };
}
