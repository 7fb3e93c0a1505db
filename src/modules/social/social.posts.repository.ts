import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql as builderSql, type ExpressionBuilder, type Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, type CamelCased, type WithNumbers } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { AlertSchema, FollowerSnapshotSchema, PostSchema, PostSnapshotSchema, type Platform, type SentimentLabel } from './social.entities';

type PostTables = InferKyselyDB<typeof PostSchema | typeof PostSnapshotSchema | typeof FollowerSnapshotSchema | typeof AlertSchema>;
const db = tables<PostTables>();

/** Every column of a post but its full-text vector, which only search reads. */
type PostRow = Omit<Selectable<PostTables['social_posts']>, 'search'>;

const postOf = (row: PostRow) => camelRow(row, ['likes', 'comments', 'shares', 'views', 'engagement', 'engagement_rate', 'sentiment_score']);

export type PostRecord = ReturnType<typeof postOf>;

/** A post's state as of one capture, enriched, ready to write; `postId` is the platform's id of it. */
export type PostState = Omit<PostRecord, 'id' | 'platformPostId' | 'firstSeenAt' | 'lastSnapshotAt'> & { postId: string; capturedAt: Date };

const snapshotOf = (row: Selectable<PostTables['social_post_snapshots']>) => camelRow(row, ['likes', 'comments', 'shares', 'views', 'engagement']);

/** A post's counts at one capture; `key` is its `postKey`. */
export type SnapshotRow = Omit<ReturnType<typeof snapshotOf>, 'postId'> & { key: string };

export interface UpsertedPost {
  id: string;
  key: string;
  inserted: boolean;
}

export const postKey = (platform: string, postId: string) => `${platform}\u0000${postId}`;

/**
 * Writes each post's latest state in one statement: new posts are inserted, known ones take the
 * counts and text of this capture only when it is not older than the one they hold, so an old
 * export imported late never rolls a post back. One row per post (the caller groups duplicates).
 */
export async function upsertPosts(q: Queries, posts: readonly PostState[]): Promise<UpsertedPost[]> {
  if (!posts.length) return [];
  const column = <T>(pick: (post: PostState) => T) => posts.map(pick);
  const rows = await q.rows<Pick<PostRow, 'id' | 'platform' | 'platform_post_id'> & { inserted: boolean }>(sql`
    insert into social_posts as p (id, platform, platform_post_id, competitor_id, profile_id, published_at, text, url, media_type,
      likes, comments, shares, views, engagement, engagement_rate, sentiment_score, sentiment_label, hashtags, mentions, keywords,
      mentions_us, first_seen_at, last_snapshot_at)
    select x.id, x.platform, x.post_id, x.competitor_id, x.profile_id, x.published_at, x.text, x.url, x.media_type,
      x.likes, x.comments, x.shares, x.views, x.engagement, x.engagement_rate, x.sentiment_score, x.sentiment_label,
      string_to_array(x.hashtags, ' '), string_to_array(x.mentions, ' '), string_to_array(x.keywords, chr(31)), x.mentions_us, now(), x.captured_at
    from unnest(${column(() => newId())}::uuid[], ${column((post) => post.platform)}::text[], ${column((post) => post.postId)}::text[],
      ${column((post) => post.competitorId)}::uuid[], ${column((post) => post.profileId)}::uuid[], ${column((post) => post.publishedAt)}::timestamptz[],
      ${column((post) => post.text)}::text[], ${column((post) => post.url)}::text[], ${column((post) => post.mediaType)}::text[],
      ${column((post) => post.likes)}::bigint[], ${column((post) => post.comments)}::bigint[], ${column((post) => post.shares)}::bigint[],
      ${column((post) => post.views)}::bigint[], ${column((post) => post.engagement)}::bigint[], ${column((post) => post.engagementRate)}::float8[],
      ${column((post) => post.sentimentScore)}::float8[], ${column((post) => post.sentimentLabel)}::text[], ${column((post) => post.hashtags.join(' '))}::text[],
      ${column((post) => post.mentions.join(' '))}::text[], ${column((post) => post.keywords.join('\u001f'))}::text[], ${column((post) => post.mentionsUs)}::bool[],
      ${column((post) => post.capturedAt)}::timestamptz[])
      as x(id, platform, post_id, competitor_id, profile_id, published_at, text, url, media_type, likes, comments, shares, views, engagement,
        engagement_rate, sentiment_score, sentiment_label, hashtags, mentions, keywords, mentions_us, captured_at)
    on conflict (platform, platform_post_id) do update set
      text = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.text else p.text end,
      url = coalesce(case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.url end, p.url),
      media_type = coalesce(case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.media_type end, p.media_type),
      likes = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.likes else p.likes end,
      comments = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.comments else p.comments end,
      shares = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.shares else p.shares end,
      views = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.views else p.views end,
      engagement = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.engagement else p.engagement end,
      engagement_rate = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.engagement_rate else p.engagement_rate end,
      sentiment_score = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.sentiment_score else p.sentiment_score end,
      sentiment_label = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.sentiment_label else p.sentiment_label end,
      hashtags = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.hashtags else p.hashtags end,
      mentions = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.mentions else p.mentions end,
      keywords = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.keywords else p.keywords end,
      mentions_us = case when excluded.last_snapshot_at >= p.last_snapshot_at then excluded.mentions_us else p.mentions_us end,
      profile_id = coalesce(p.profile_id, excluded.profile_id),
      last_snapshot_at = greatest(p.last_snapshot_at, excluded.last_snapshot_at)
    returning id, platform, platform_post_id, (xmax = 0) as inserted`);
  return rows.map((row) => ({ id: row.id, key: postKey(row.platform, row.platform_post_id), inserted: row.inserted }));
}

/**
 * Engagement snapshots, one per post and capture time. A snapshot whose counts equal the one just
 * before it adds nothing to the series and is skipped, so importing the same file twice (or a
 * poll that finds nothing new) writes nothing. Returns how many were written.
 */
export async function insertSnapshots(q: Queries, postIds: ReadonlyMap<string, string>, snapshots: readonly SnapshotRow[]): Promise<number> {
  const rows = snapshots.filter((snapshot) => postIds.has(snapshot.key));
  if (!rows.length) return 0;
  const column = <T>(pick: (row: SnapshotRow) => T) => rows.map(pick);
  const result = await q.write(sql`
    insert into social_post_snapshots (post_id, captured_at, likes, comments, shares, views, engagement)
    select x.post_id, x.captured_at, x.likes, x.comments, x.shares, x.views, x.engagement
    from unnest(${column((row) => postIds.get(row.key)!)}::uuid[], ${column((row) => row.capturedAt)}::timestamptz[], ${column((row) => row.likes)}::bigint[],
      ${column((row) => row.comments)}::bigint[], ${column((row) => row.shares)}::bigint[], ${column((row) => row.views)}::bigint[], ${column((row) => row.engagement)}::bigint[])
      as x(post_id, captured_at, likes, comments, shares, views, engagement)
    where not exists (
      select 1 from (select s.likes, s.comments, s.shares, s.views from social_post_snapshots s
        where s.post_id = x.post_id and s.captured_at < x.captured_at order by s.captured_at desc limit 1) previous
      where previous.likes is not distinct from x.likes and previous.comments is not distinct from x.comments
        and previous.shares is not distinct from x.shares and previous.views is not distinct from x.views)
    on conflict (post_id, captured_at) do nothing`);
  return result.count;
}

/** A profile's followers at one capture: a follower snapshot's record. */
export type FollowerObservation = CamelCased<WithNumbers<Selectable<PostTables['social_follower_snapshots']>, 'followers'>>;

/**
 * Followers of profiles at capture times; a profile's own count follows its newest capture, and each
 * local day (in `timeZone`) keeps its last count for comparisons. Every write keeps the newest by
 * capture time, so writers in any order agree.
 */
export async function recordFollowers(q: Queries, observations: readonly FollowerObservation[], timeZone: string): Promise<void> {
  if (!observations.length) return;
  const profileIds = observations.map((row) => row.profileId);
  const times = observations.map((row) => row.capturedAt);
  const counts = observations.map((row) => row.followers);
  await q.write(sql`
    with input as (select * from unnest(${profileIds}::uuid[], ${times}::timestamptz[], ${counts}::bigint[]) as x(profile_id, captured_at, followers)),
    written as (
      insert into social_follower_snapshots (profile_id, captured_at, followers) select profile_id, captured_at, followers from input
      on conflict (profile_id, captured_at) do update set followers = excluded.followers),
    daily as (
      insert into social_daily_followers as d (profile_id, day, captured_at, followers)
      select distinct on (profile_id, day) profile_id, day, captured_at, followers
      from (select profile_id, to_char(captured_at at time zone ${timeZone}, 'YYYY-MM-DD') as day, captured_at, followers from input) x
      order by profile_id, day, captured_at desc
      on conflict (profile_id, day) do update set captured_at = excluded.captured_at, followers = excluded.followers
        where excluded.captured_at >= d.captured_at)
    update social_profiles p set followers = newest.followers
    from (select distinct on (profile_id) profile_id, captured_at, followers from input order by profile_id, captured_at desc) newest
    where p.id = newest.profile_id
      and not exists (select 1 from social_follower_snapshots s where s.profile_id = p.id and s.captured_at > newest.captured_at)`);
}

export interface PostFilter {
  competitorId?: string | undefined;
  platform?: Platform | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  q?: string | undefined;
  sentiment?: SentimentLabel | undefined;
  minEngagement?: number | undefined;
  /** Only posts that raised an alert (true) or only those that did not (false). */
  hasAlert?: boolean | undefined;
  sort: 'recent' | 'engagement';
}

const postColumns = [
  'id',
  'platform',
  'platform_post_id',
  'competitor_id',
  'profile_id',
  'published_at',
  'text',
  'url',
  'media_type',
  'likes',
  'comments',
  'shares',
  'views',
  'engagement',
  'engagement_rate',
  'sentiment_score',
  'sentiment_label',
  'hashtags',
  'mentions',
  'keywords',
  'mentions_us',
  'first_seen_at',
  'last_snapshot_at',
] as const satisfies readonly (keyof PostRow)[];

/** A page of posts, newest or most engaging first (keyset pagination; `q` through the Spanish full-text index). */
export async function postPage(q: Queries, filter: PostFilter, page: PageRequest): Promise<Page<PostRecord>> {
  let query = db.selectFrom('social_posts').select(postColumns);
  if (filter.competitorId) query = query.where('competitor_id', '=', filter.competitorId);
  if (filter.platform) query = query.where('platform', '=', filter.platform);
  if (filter.from) query = query.where('published_at', '>=', filter.from);
  if (filter.to) query = query.where('published_at', '<', filter.to);
  if (filter.q) query = query.where(builderSql<boolean>`search @@ plainto_tsquery('spanish', ${filter.q})`);
  if (filter.sentiment) query = query.where('sentiment_label', '=', filter.sentiment);
  if (filter.minEngagement !== undefined) query = query.where('engagement', '>=', filter.minEngagement);
  if (filter.hasAlert !== undefined) {
    const alerted = (post: ExpressionBuilder<PostTables, 'social_posts'>) =>
      post.exists(post.selectFrom('social_alerts').select('social_alerts.id').whereRef('social_alerts.post_id', '=', 'social_posts.id'));
    query = query.where((post) => (filter.hasAlert ? alerted(post) : post.not(alerted(post))));
  }
  const found = await queryPage(q, query, [filter.sort === 'engagement' ? 'engagement' : 'published_at', 'id'], 'desc', page);
  return mapPage(found, postOf);
}

export async function findPost(q: Queries, id: string): Promise<PostRecord | undefined> {
  const row = await q.first(db.selectFrom('social_posts').select(postColumns).where('id', '=', id));
  return row && postOf(row);
}

export async function snapshotsOf(q: Queries, postId: string): Promise<SnapshotRow[]> {
  const rows = await q.rows(db.selectFrom('social_post_snapshots').selectAll().where('post_id', '=', postId).orderBy('captured_at'));
  return rows.map((row) => {
    const { postId: key, ...snapshot } = snapshotOf(row);
    return { key, ...snapshot };
  });
}
