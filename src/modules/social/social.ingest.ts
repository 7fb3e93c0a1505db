import type { AppDeps } from '../../kernel/context';
import type { Queries } from '../../kernel/sql';
import { evaluateAfterIngest } from './social.alerts';
import type { FetchedPost } from './connectors/connector';
import { SOCIAL_ROOM } from './social.events';
import { insertSnapshots, postKey, recordFollowers, upsertPosts, type FollowerObservation, type PostState, type SnapshotRow } from './social.posts.repository';
import { allRules, ownNames, type RuleRecord } from './social.repository';
import { analyseSentiment, extractHashtags, extractMentions, matchKeywords } from './social.text';

/**
 * One observation of a post, from a connector or an import row: the post and its counts at
 * `capturedAt`, and the profile's followers then (the engagement rate's denominator; null when unknown).
 */
export type ObservedPost = FetchedPost & Pick<PostState, 'platform' | 'competitorId' | 'profileId' | 'capturedAt'> & { followers: number | null };

export interface IngestResult {
  created: number;
  updated: number;
  snapshots: number;
}

/** Posts per statement: large enough to amortise round trips, small enough to keep each under a second. */
const CHUNK = 5000;
/** New posts published this recently are pushed to the war room as they arrive; older ones are history. */
const LIVE_POST_HOURS = 48;

export const engagementOf = (post: Pick<ObservedPost, 'likes' | 'comments' | 'shares'>) => (post.likes ?? 0) + (post.comments ?? 0) + (post.shares ?? 0);

/** What the text analysis needs to know once per ingest: the keywords rules watch and our names. */
export interface TextContext {
  keywords: string[];
  ownNames: string[];
  /** The enabled rules, read once per ingest for the keywords and then for the alerts. */
  rules: RuleRecord[];
}

export async function textContext(q: Queries): Promise<TextContext> {
  const [rules, names] = await Promise.all([allRules(q, { enabledOnly: true }), ownNames(q)]);
  const keywords = new Set<string>();
  for (const rule of rules) {
    if (rule.kind !== 'keyword') continue;
    for (const keyword of (rule.params.keywords as string[] | undefined) ?? []) keywords.add(keyword);
  }
  return { keywords: [...keywords], ownNames: names, rules };
}

function enrich(post: ObservedPost, context: TextContext): PostState {
  const sentiment = analyseSentiment(post.text);
  const engagement = engagementOf(post);
  const ownMatches = context.ownNames.length ? matchKeywords(post.text, context.ownNames) : [];
  const mentions = extractMentions(post.text);
  const mentionsUs = ownMatches.length > 0 || mentions.some((handle) => context.ownNames.some((name) => name.toLowerCase() === handle));
  const { followers, ...observation } = post;
  return {
    ...observation,
    engagement,
    engagementRate: followers ? (engagement / followers) * 100 : null,
    sentimentScore: sentiment.score,
    sentimentLabel: sentiment.label,
    hashtags: extractHashtags(post.text),
    mentions,
    keywords: context.keywords.length ? matchKeywords(post.text, context.keywords) : [],
    mentionsUs,
  };
}

/**
 * The one way posts enter the module, for connectors and imports alike: each post's newest
 * observation becomes its state, every observation a snapshot, then the alert rules run over what
 * changed and new recent posts go to the war room. Idempotent: the same observations again
 * change nothing.
 */
export async function ingestPosts(
  deps: Pick<AppDeps, 'db' | 'realtime' | 'config'>,
  observed: readonly ObservedPost[],
  options: { now?: Date; followers?: readonly FollowerObservation[] } = {},
): Promise<IngestResult> {
  const now = options.now ?? new Date();
  const result: IngestResult = { created: 0, updated: 0, snapshots: 0 };
  const context = await textContext(deps.db);
  const newest = new Map<string, ObservedPost>();
  for (const post of observed) {
    const key = postKey(post.platform, post.postId);
    const held = newest.get(key);
    if (!held || post.capturedAt >= held.capturedAt) newest.set(key, post);
  }
  const states = [...newest.values()].map((post) => enrich(post, context));
  const ids = new Map<string, string>();
  const created: string[] = [];
  const touched: string[] = [];
  for (let start = 0; start < states.length; start += CHUNK) {
    for (const row of await upsertPosts(deps.db, states.slice(start, start + CHUNK))) {
      ids.set(row.key, row.id);
      touched.push(row.id);
      if (row.inserted) created.push(row.id);
    }
  }
  result.created = created.length;
  result.updated = touched.length - created.length;
  const snapshots: SnapshotRow[] = observed.map((post) => ({
    key: postKey(post.platform, post.postId),
    capturedAt: post.capturedAt,
    likes: post.likes,
    comments: post.comments,
    shares: post.shares,
    views: post.views,
    engagement: engagementOf(post),
  }));
  for (let start = 0; start < snapshots.length; start += CHUNK) result.snapshots += await insertSnapshots(deps.db, ids, snapshots.slice(start, start + CHUNK));

  const followers = new Map<string, FollowerObservation>();
  for (const row of options.followers ?? []) followers.set(`${row.profileId}\u0000${row.capturedAt.toISOString()}`, row);
  for (const post of observed) {
    if (post.profileId && post.followers !== null)
      followers.set(`${post.profileId}\u0000${post.capturedAt.toISOString()}`, { profileId: post.profileId, capturedAt: post.capturedAt, followers: post.followers });
  }
  await recordFollowers(deps.db, [...followers.values()], deps.config.timeZone);

  const createdSet = new Set(created);
  const liveSince = now.getTime() - LIVE_POST_HOURS * 3_600_000;
  const publish = deps.realtime.batched(SOCIAL_ROOM, 'social:post');
  for (const state of states) {
    const id = ids.get(postKey(state.platform, state.postId))!;
    if (createdSet.has(id) && state.publishedAt.getTime() >= liveSince) {
      publish({ id, competitorId: state.competitorId, platform: state.platform, publishedAt: state.publishedAt.toISOString(), url: state.url, sentiment: state.sentimentLabel });
    }
  }
  await evaluateAfterIngest(deps, { created, touched, profileIds: [...new Set([...followers.values()].map((row) => row.profileId))] }, now, context.rules);
  return result;
}
