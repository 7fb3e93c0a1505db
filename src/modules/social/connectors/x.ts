import { z } from 'zod';
import type { SocialConfig } from '../../../config';
import { ConnectorError, type FetchedPost, type FetchRequest, type FetchResult, type SocialConnector } from './connector';
import { getJson, instant, parseShape, shortMessage, systemClock, type Clock, type JsonReply } from './http';

const LABEL = 'X';
/** The timeline endpoint's bounds for `max_results`. */
const MIN_PAGE = 5;
const MAX_PAGE = 100;

const problemSchema = z.object({ title: z.string().optional(), detail: z.string().optional(), type: z.string().optional(), period: z.string().optional() });

const userSchema = z.object({
  data: z
    .object({
      id: z.string().min(1),
      name: z.string().optional(),
      username: z.string().optional(),
      public_metrics: z.object({ followers_count: z.number() }).optional(),
    })
    .optional(),
  errors: z.array(problemSchema).optional(),
});

const timelineSchema = z.object({
  data: z
    .array(
      z.object({
        id: z.string().min(1),
        text: z.string(),
        created_at: instant,
        public_metrics: z
          .object({
            like_count: z.number(),
            reply_count: z.number(),
            retweet_count: z.number(),
            quote_count: z.number(),
            impression_count: z.number().optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  meta: z.object({ result_count: z.number().optional(), next_token: z.string().optional() }).optional(),
  errors: z.array(problemSchema).optional(),
});

/** X's reads are billed per month, reset on the 1st at 00:00 UTC. */
function firstOfNextUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** X API v2 with an app bearer token: a user's followers and their own posts (no retweets or replies). */
export class XConnector implements SocialConnector {
  readonly platform = 'x';
  readonly configured: boolean;

  constructor(
    private readonly config: SocialConfig['x'],
    private readonly timeoutSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.configured = Boolean(config.bearerToken);
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    if (!this.configured) throw new ConnectorError('auth', 'not configured');
    const usage = { reads: 0 };
    const { profile } = request;
    const handle = profile.handle.replace(/^@/, '');
    // A known id survives a change of username; the first lookup has only the handle.
    const path = profile.platformId ? `users/${encodeURIComponent(profile.platformId)}` : `users/by/username/${encodeURIComponent(handle)}`;
    const user = parseShape(userSchema, await this.get(path, { 'user.fields': 'public_metrics,name' }), `${LABEL} user`);
    usage.reads++;
    if (!user.data) throw new ConnectorError('not_found', shortMessage(LABEL, user.errors?.[0]?.detail ?? `no user ${handle}`, 200), undefined, 200);
    const username = user.data.username ?? handle;
    const posts = request.maxPosts > 0 ? await this.postsSince(user.data.id, username, request, usage) : [];
    return {
      profile: { platformId: user.data.id, displayName: user.data.name ?? null, followers: user.data.public_metrics?.followers_count ?? null },
      posts,
      quotaUsed: usage.reads,
    };
  }

  private async postsSince(userId: string, username: string, request: FetchRequest, usage: { reads: number }): Promise<FetchedPost[]> {
    const posts: FetchedPost[] = [];
    // X wants RFC 3339 without fractions; flooring the second only widens the window, and older posts are dropped below.
    const startTime = new Date(Math.floor(request.since.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    let paginationToken: string | undefined;
    let reachedSince = false;
    do {
      // Every post returned is billed, so ask for no more than are still wanted.
      const wanted = Math.min(MAX_PAGE, Math.max(MIN_PAGE, request.maxPosts - posts.length));
      const page = parseShape(
        timelineSchema,
        await this.get(`users/${encodeURIComponent(userId)}/tweets`, {
          'tweet.fields': 'created_at,public_metrics',
          max_results: String(wanted),
          exclude: 'retweets,replies',
          start_time: startTime,
          ...(paginationToken ? { pagination_token: paginationToken } : {}),
        }),
        `${LABEL} tweets`,
      );
      usage.reads += page.data?.length ?? 0;
      // A protected or suspended account answers 200 with errors only.
      if (!page.data && page.errors?.length) throw new ConnectorError('not_found', shortMessage(LABEL, page.errors[0]?.detail, 200), undefined, 200);
      for (const tweet of page.data ?? []) {
        if (tweet.created_at < request.since) {
          reachedSince = true;
          break;
        }
        if (posts.length >= request.maxPosts) break;
        const metrics = tweet.public_metrics;
        posts.push({
          postId: tweet.id,
          publishedAt: tweet.created_at,
          text: tweet.text,
          url: `https://x.com/${encodeURIComponent(username)}/status/${encodeURIComponent(tweet.id)}`,
          mediaType: 'text',
          likes: metrics?.like_count ?? null,
          comments: metrics?.reply_count ?? null,
          shares: metrics ? metrics.retweet_count + metrics.quote_count : null,
          views: metrics?.impression_count ?? null,
        });
      }
      paginationToken = page.meta?.next_token;
    } while (paginationToken && posts.length < request.maxPosts && !reachedSince);
    return posts;
  }

  private async get(path: string, params: Record<string, string>): Promise<unknown> {
    const reply = await getJson(`${this.config.baseUrl}/${path}?${new URLSearchParams(params)}`, {
      label: LABEL,
      timeoutSeconds: this.timeoutSeconds,
      headers: { Authorization: `Bearer ${this.config.bearerToken}` },
    });
    if (!reply.ok) throw this.failure(reply);
    return reply.body;
  }

  private failure(reply: JsonReply): ConnectorError {
    const parsed = problemSchema.safeParse(reply.body);
    const problem = parsed.success ? parsed.data : {};
    const { status } = reply;
    const message = shortMessage(LABEL, problem.detail ?? problem.title, status);
    if (status === 429) {
      if (problem.title === 'UsageCapExceeded' || problem.type?.includes('usage-capped')) {
        const now = this.clock();
        return new ConnectorError('quota_exhausted', message, problem.period === 'Daily' ? nextUtcMidnight(now) : firstOfNextUtcMonth(now), status);
      }
      const reset = Number(reply.headers.get('x-rate-limit-reset'));
      return new ConnectorError('rate_limited', message, reset > 0 ? new Date(reset * 1000) : undefined, status);
    }
    // 403 is an app not attached to a project or lacking access: only staff can fix it.
    if (status === 401 || status === 403) return new ConnectorError('auth', message, undefined, status);
    if (status === 404) return new ConnectorError('not_found', message, undefined, status);
    if (status >= 500) return new ConnectorError('transient', message, undefined, status);
    return new ConnectorError('bad_response', message, undefined, status);
  }
}
