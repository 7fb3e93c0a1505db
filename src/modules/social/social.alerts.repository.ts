import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { AlertSchema, CompetitorSchema, PostSchema, type AlertKind, type AlertState, type Severity } from './social.entities';
import type { PostRecord } from './social.posts.repository';
import type { ProfileRecord } from './social.repository';

type AlertTables = InferKyselyDB<typeof AlertSchema | typeof PostSchema | typeof CompetitorSchema>;
const db = tables<AlertTables>();

const alertOf = (row: Selectable<AlertTables['social_alerts']>) => camelRow(row);

export type AlertRecord = ReturnType<typeof alertOf>;

/** What a rule raises: the alert before it is stored, always from a rule. */
export type NewAlert = Pick<AlertRecord, 'kind' | 'dedupeKey' | 'competitorId' | 'profileId' | 'postId' | 'severity' | 'title' | 'details'> & { ruleId: string };

/**
 * Inserts the alerts whose key is new and returns only those: two processes evaluating the same
 * change create each alert once, and only the one that created it announces it.
 */
export async function insertAlerts(q: Queries, alerts: readonly NewAlert[], at: Date): Promise<AlertRecord[]> {
  if (!alerts.length) return [];
  const column = <T>(pick: (alert: NewAlert) => T) => alerts.map(pick);
  const rows = await q.rows<Pick<Selectable<AlertTables['social_alerts']>, 'id' | 'dedupe_key'>>(sql`
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
  return rows.map((row): AlertRecord => ({ ...byKey.get(row.dedupe_key)!, id: row.id, state: 'new', seenById: null, seenAt: null, createdAt: at }));
}

export interface AlertFilter {
  state?: AlertState | undefined;
  severity?: Severity | undefined;
  kind?: AlertKind | undefined;
  competitorId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** A page of alerts, newest first. */
export async function alertPage(q: Queries, filter: AlertFilter, page: PageRequest): Promise<Page<AlertRecord>> {
  let query = db.selectFrom('social_alerts').selectAll();
  if (filter.state) query = query.where('state', '=', filter.state);
  if (filter.severity) query = query.where('severity', '=', filter.severity);
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.competitorId) query = query.where('competitor_id', '=', filter.competitorId);
  if (filter.from) query = query.where('created_at', '>=', filter.from);
  if (filter.to) query = query.where('created_at', '<', filter.to);
  const found = await queryPage(q, query, ['created_at', 'id'], 'desc', page);
  return mapPage(found, alertOf);
}

/** Marks an alert; `new` undoes a mark. The alert as it now is, or undefined. */
export async function setAlertState(q: Queries, id: string, state: AlertState, userId: string): Promise<AlertRecord | undefined> {
  const marked = state !== 'new';
  const { rows } = await q.write(
    db
      .updateTable('social_alerts')
      .set({ state, seen_by_id: marked ? userId : null, seen_at: marked ? new Date() : null })
      .where('id', '=', id)
      .returningAll(),
  );
  return rows[0] && alertOf(rows[0]);
}

/** The newest alerts not dismissed, newest first. */
export async function latestAlerts(q: Queries, limit: number): Promise<AlertRecord[]> {
  const rows = await q.rows(db.selectFrom('social_alerts').selectAll().where('state', '<>', 'dismissed').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit));
  return rows.map(alertOf);
}

// ───────────── what the rules read

/** A new post a rule looks at, with its author's name and whether the author is us. */
export type CandidatePost = Pick<PostRecord, 'id' | 'competitorId' | 'profileId' | 'platform' | 'publishedAt' | 'text' | 'url' | 'keywords' | 'mentionsUs' | 'sentimentLabel'> & {
  competitorName: string;
  isOwn: boolean;
};

/** The posts a rule looks at, with their author; only those published since `since`. */
export async function candidatePosts(q: Queries, ids: readonly string[], since: Date): Promise<CandidatePost[]> {
  if (!ids.length) return [];
  return q.rows<CandidatePost>(sql`
    select p.id, p.competitor_id as "competitorId", c.name as "competitorName", c.is_own as "isOwn", p.profile_id as "profileId",
      p.platform, p.published_at as "publishedAt", p.text, p.url, p.keywords, p.mentions_us as "mentionsUs", p.sentiment_label as "sentimentLabel"
    from social_posts p join social_competitors c on c.id = p.competitor_id
    where p.id = any(${ids}::uuid[]) and p.published_at >= ${since}::timestamptz`);
}

/** A post's engagement, with its author's name, beside its author's baseline. */
export type EngagementBaseline = Pick<PostRecord, 'id' | 'competitorId' | 'profileId' | 'platform' | 'engagement' | 'engagementRate'> & {
  competitorName: string;
  /** Earlier posts of the same author and platform inside the baseline window. */
  posts: number;
  meanEngagement: number | null;
  sdEngagement: number | null;
  postsWithRate: number;
  meanRate: number | null;
  sdRate: number | null;
};

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

/** A profile's newest follower count and the reference one it is compared with. */
export type FollowerChange = Pick<ProfileRecord, 'competitorId' | 'platform' | 'handle'> & {
  profileId: ProfileRecord['id'];
  competitorName: string;
  capturedAt: Date;
  followers: number;
  referenceAt: Date;
  referenceFollowers: number;
};

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
  const row = await q.first(
    db
      .selectFrom('social_posts as p')
      .innerJoin('social_competitors as c', 'c.id', 'p.competitor_id')
      .select((post) => [
        post.cast<number>(post.fn.countAll(), 'integer').as('posts'),
        post.cast<number>(post.fn.countAll().filterWhere('p.sentiment_label', '=', 'negative'), 'integer').as('negative'),
      ])
      .where('p.mentions_us', '=', true)
      .where('c.is_own', '=', false)
      .where('p.published_at', '>=', since),
  );
  return row ?? { posts: 0, negative: 0 };
}
