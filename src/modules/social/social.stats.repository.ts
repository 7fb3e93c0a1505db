import type { InferKyselyDB } from '@mikro-orm/sql';
import { camelRow } from '../../kernel/rows';
import { sql, tables, type Database, type Queries } from '../../kernel/sql';
import { AlertSchema, PostSchema, QuotaUsageSchema, type Platform } from './social.entities';

const db = tables<InferKyselyDB<typeof PostSchema | typeof AlertSchema | typeof QuotaUsageSchema>>();

const platformFilter = (column: string, platform: Platform | undefined) => (platform ? sql`and ${sql.raw(column)} = ${platform}` : sql``);

export interface PostBucket {
  competitorId: string;
  bucket: string;
  posts: number;
  engagement: number;
  meanRate: number | null;
  positive: number;
  negative: number;
}

/**
 * Posts per competitor and local day or week of publication, with their latest engagement: what
 * every comparison metric but followers is computed from. Reads the daily rollup the triggers keep
 * (whole local days from `fromDay` to `toDay`), never the posts themselves.
 */
export async function postBuckets(q: Queries, days: { fromDay: string; toDay: string }, interval: 'day' | 'week', platform?: Platform): Promise<PostBucket[]> {
  const bucket = interval === 'day' ? sql`d.day` : sql`to_char(date_trunc('week', d.day::date), 'YYYY-MM-DD')`;
  return q.rows<PostBucket>(sql`
    select d.competitor_id as "competitorId", ${bucket} as bucket, sum(d.posts)::int as posts, sum(d.engagement)::float8 as engagement,
      case when sum(d.rate_count) > 0 then sum(d.rate_sum) / sum(d.rate_count) end as "meanRate",
      sum(d.positive)::int as positive, sum(d.negative)::int as negative
    from social_daily_posts d
    where d.day >= ${days.fromDay} and d.day <= ${days.toDay} ${platformFilter('d.platform', platform)}
    group by 1, 2
    having sum(d.posts) > 0`);
}

/**
 * Makes the daily rollup's days those of `timeZone`: when the campaign's zone changed since it was
 * built, it is rebuilt from the posts while no one writes them. True when it was rebuilt.
 */
export async function ensureRollupZone(db: Database, timeZone: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const current = await tx.first<{ time_zone: string }>(sql`select time_zone from social_rollup_settings where id = 1 for update`);
    if (current?.time_zone === timeZone) return false;
    await tx.write(sql`lock table social_posts in share mode`);
    await tx.write(sql`insert into social_rollup_settings (id, time_zone) values (1, ${timeZone}) on conflict (id) do update set time_zone = excluded.time_zone`);
    await tx.write(sql`lock table social_follower_snapshots in share mode`);
    await tx.write(sql`delete from social_daily_posts`);
    await tx.write(sql`delete from social_daily_followers`);
    await tx.write(sql`
      insert into social_daily_followers (profile_id, day, captured_at, followers)
      select distinct on (profile_id, day) profile_id, day, captured_at, followers
      from (select profile_id, to_char(captured_at at time zone ${timeZone}, 'YYYY-MM-DD') as day, captured_at, followers from social_follower_snapshots) x
      order by profile_id, day, captured_at desc`);
    await tx.write(sql`
      insert into social_daily_posts (competitor_id, platform, day, posts, engagement, rate_sum, rate_count, positive, negative)
      select competitor_id, platform, to_char(published_at at time zone ${timeZone}, 'YYYY-MM-DD'), count(*), coalesce(sum(engagement), 0),
        coalesce(sum(engagement_rate), 0), count(engagement_rate), count(*) filter (where sentiment_label = 'positive'), count(*) filter (where sentiment_label = 'negative')
      from social_posts group by 1, 2, 3`);
    return true;
  });
}

/**
 * Each profile's last follower count per local day from `fromDay` to `toDay`, plus its last count
 * before `fromDay` (to carry into the first buckets): the caller carries counts forward.
 */
export async function dailyFollowers(
  q: Queries,
  days: { fromDay: string; toDay: string },
  platform?: Platform,
): Promise<{ profileId: string; competitorId: string; day: string; followers: number }[]> {
  return q.rows(sql`
    select p.id as "profileId", p.competitor_id as "competitorId", d.day, d.followers::float8 as followers
    from social_profiles p
    join social_daily_followers d on d.profile_id = p.id and d.day >= ${days.fromDay} and d.day <= ${days.toDay}
    where true ${platformFilter('p.platform', platform)}
    union all
    select p.id, p.competitor_id, before.day, before.followers::float8
    from social_profiles p
    cross join lateral (select day, followers from social_daily_followers d where d.profile_id = p.id and d.day < ${days.fromDay} order by day desc limit 1) before
    where true ${platformFilter('p.platform', platform)}`);
}

/** Posts, engagement and sentiment per competitor for posts published since `since`. */
export async function windowFigures(q: Queries, since: Date) {
  const rows = await q.rows(
    db
      .selectFrom('social_posts')
      .select((post) => [
        'competitor_id',
        post.cast<number>(post.fn.countAll(), 'integer').as('posts'),
        post.cast<number>(post.fn.coalesce(post.fn.sum('engagement'), post.lit(0)), 'float8').as('engagement'),
        post.fn.avg<number | null>('engagement_rate').as('mean_rate'),
        post.cast<number>(post.fn.countAll().filterWhere('sentiment_label', '=', 'positive'), 'integer').as('positive'),
        post.cast<number>(post.fn.countAll().filterWhere('sentiment_label', '=', 'neutral'), 'integer').as('neutral'),
        post.cast<number>(post.fn.countAll().filterWhere('sentiment_label', '=', 'negative'), 'integer').as('negative'),
      ])
      .where('published_at', '>=', since)
      .groupBy('competitor_id'),
  );
  return rows.map((row) => camelRow(row));
}

export interface FollowerGrowth {
  profileId: string;
  competitorId: string;
  platform: Platform;
  followers: number | null;
  followers7dAgo: number | null;
  followers30dAgo: number | null;
}

/** Each profile's follower count now and as last known 7 and 30 days ago. */
export async function followerGrowth(q: Queries, now: Date): Promise<FollowerGrowth[]> {
  return q.rows<FollowerGrowth>(sql`
    select p.id as "profileId", p.competitor_id as "competitorId", p.platform, p.followers::float8 as followers,
      (select s.followers::float8 from social_follower_snapshots s where s.profile_id = p.id and s.captured_at <= ${now}::timestamptz - interval '7 days'
        order by s.captured_at desc limit 1) as "followers7dAgo",
      (select s.followers::float8 from social_follower_snapshots s where s.profile_id = p.id and s.captured_at <= ${now}::timestamptz - interval '30 days'
        order by s.captured_at desc limit 1) as "followers30dAgo"
    from social_profiles p`);
}

export async function newAlertCount(q: Queries): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('social_alerts')
      .select((alert) => alert.cast<number>(alert.fn.countAll(), 'integer').as('count'))
      .where('state', '=', 'new'),
  );
  return row?.count ?? 0;
}

export async function quotaUsage(q: Queries, periods: readonly { platform: Platform; start: Date }[]): Promise<Map<Platform, number>> {
  if (!periods.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('social_quota_usage')
      .select(['platform', 'used'])
      .where((usage) =>
        usage(
          usage.refTuple('platform', 'period_start'),
          'in',
          periods.map((period) => usage.tuple(period.platform, period.start)),
        ),
      ),
  );
  // int8 comes as text.
  return new Map(rows.map((row) => [row.platform, Number(row.used)]));
}

export interface DailySocialFigures {
  competitorId: string;
  /** Sum of each profile's newest follower count captured before `until`. */
  followers: number | null;
  posts: number;
  engagement: number;
  meanRate: number | null;
  positive: number;
  negative: number;
}

/**
 * What other modules may read of the social figures, per competitor: followers as of `until` and the
 * posts published in [since, until). The popularity module records them daily as metrics.
 */
export async function socialFiguresBetween(q: Queries, since: Date, until: Date): Promise<DailySocialFigures[]> {
  return q.rows<DailySocialFigures>(sql`
    select c.id as "competitorId",
      (select sum(s.followers)::float8 from social_profiles p
        cross join lateral (select followers from social_follower_snapshots f where f.profile_id = p.id and f.captured_at < ${until}::timestamptz
          order by f.captured_at desc limit 1) s
        where p.competitor_id = c.id) as followers,
      coalesce(w.posts, 0)::int as posts, coalesce(w.engagement, 0)::float8 as engagement, w.mean_rate as "meanRate",
      coalesce(w.positive, 0)::int as positive, coalesce(w.negative, 0)::int as negative
    from social_competitors c
    left join lateral (
      select count(*) as posts, sum(engagement) as engagement, avg(engagement_rate) as mean_rate,
        count(*) filter (where sentiment_label = 'positive') as positive, count(*) filter (where sentiment_label = 'negative') as negative
      from social_posts p where p.competitor_id = c.id and p.published_at >= ${since}::timestamptz and p.published_at < ${until}::timestamptz
    ) w on true
    where c.active`);
}

/** Alerts raised since `since`, by kind and competitor: evidence for other modules' assessments. */
export async function alertCountsSince(q: Queries, since: Date): Promise<{ kind: string; competitorId: string | null; count: number; latestId: string }[]> {
  return q.rows(sql`
    select kind, competitor_id as "competitorId", count(*)::int as count, (array_agg(id order by created_at desc))[1] as "latestId"
    from social_alerts where created_at >= ${since}::timestamptz and state <> 'dismissed'
    group by kind, competitor_id`);
}
