import { z } from 'zod';
import type { SocialConfig } from '../../../config';
import { ConnectorError, type FetchedPost, type FetchRequest, type FetchResult, type SocialConnector } from './connector';
import { getJson, instant, parseRetryAfter, parseShape, shortMessage, systemClock, type Clock, type JsonReply } from './http';

const LABEL = 'YouTube';
/** YouTube's daily quota resets at midnight Pacific time. */
const QUOTA_TIME_ZONE = 'America/Los_Angeles';
/** The most ids `videos.list` takes and the largest page `playlistItems.list` returns. */
const PAGE_SIZE = 50;

/** YouTube sends counts as decimal strings (they may exceed 32 bits). */
const countString = z
  .string()
  .regex(/^\d+$/)
  .transform((value) => Number(value));

const channelListSchema = z.object({
  items: z
    .array(
      z.object({
        id: z.string().min(1),
        snippet: z.object({ title: z.string().optional() }).optional(),
        statistics: z.object({ subscriberCount: countString.optional(), hiddenSubscriberCount: z.boolean().optional() }).optional(),
        contentDetails: z.object({ relatedPlaylists: z.object({ uploads: z.string().optional() }).optional() }).optional(),
      }),
    )
    .optional(),
});

const playlistItemsSchema = z.object({
  nextPageToken: z.string().optional(),
  items: z
    .array(z.object({ contentDetails: z.object({ videoId: z.string().min(1), videoPublishedAt: instant.optional() }) }))
    .optional()
    .default([]),
});

const videoListSchema = z.object({
  items: z
    .array(
      z.object({
        id: z.string().min(1),
        snippet: z.object({ publishedAt: instant, title: z.string().optional(), description: z.string().optional() }),
        statistics: z.object({ viewCount: countString.optional(), likeCount: countString.optional(), commentCount: countString.optional() }).optional(),
      }),
    )
    .optional()
    .default([]),
});

const googleErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    errors: z.array(z.object({ reason: z.string().optional() })).optional(),
    details: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
});

const QUOTA_REASONS = new Set(['quotaExceeded', 'dailyLimitExceeded', 'dailyLimitExceededUnreg']);
const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'RATE_LIMIT_EXCEEDED']);
const AUTH_REASONS = new Set(['keyInvalid', 'keyExpired', 'accessNotConfigured', 'ipRefererBlocked', 'API_KEY_INVALID', 'API_KEY_EXPIRED', 'SERVICE_DISABLED']);
const GONE_REASONS = new Set(['channelNotFound', 'playlistNotFound', 'videoNotFound', 'playlistItemsNotAccessible', 'channelClosed', 'channelSuspended']);

/** The wall-clock offset of a time zone from UTC at one instant, in milliseconds. */
function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((candidate) => candidate.type === type)?.value);
  const wallClock = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wallClock - Math.floor(at / 1000) * 1000;
}

/** The next 00:00 on the wall clock of `timeZone` after `now`, as an instant. */
export function nextMidnightIn(timeZone: string, now: Date): Date {
  const offsetNow = zoneOffsetMs(timeZone, now.getTime());
  const wallNow = new Date(now.getTime() + offsetNow);
  const wallMidnight = Date.UTC(wallNow.getUTCFullYear(), wallNow.getUTCMonth(), wallNow.getUTCDate() + 1);
  // Midnight can fall on the other side of a DST change than now: take the offset in force then.
  const firstGuess = wallMidnight - offsetNow;
  return new Date(wallMidnight - zoneOffsetMs(timeZone, firstGuess));
}

/** YouTube Data API v3 with an API key: a channel's subscribers and its latest uploads with their statistics. */
export class YouTubeConnector implements SocialConnector {
  readonly platform = 'youtube';
  readonly configured: boolean;

  constructor(
    private readonly config: SocialConfig['youtube'],
    private readonly timeoutSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.configured = Boolean(config.apiKey);
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    if (!this.configured) throw new ConnectorError('auth', 'not configured');
    const usage = { units: 0 };
    const { profile } = request;
    const lookup: Record<string, string> = profile.platformId
      ? { id: profile.platformId }
      : profile.handle.startsWith('@')
        ? { forHandle: profile.handle }
        : { id: profile.handle };
    const channels = parseShape(channelListSchema, await this.get('channels', { part: 'snippet,statistics,contentDetails', ...lookup }, usage), `${LABEL} channels`);
    const channel = channels.items?.[0];
    if (!channel) throw new ConnectorError('not_found', `${LABEL}: no channel ${profile.platformId ?? profile.handle}`, undefined, 200);
    const statistics = channel.statistics;
    const fetchedProfile = {
      platformId: channel.id,
      displayName: channel.snippet?.title ?? null,
      followers: statistics?.hiddenSubscriberCount ? null : (statistics?.subscriberCount ?? null),
    };
    const uploads = channel.contentDetails?.relatedPlaylists?.uploads;
    const posts = uploads ? await this.uploadsSince(uploads, request, usage) : [];
    return { profile: fetchedProfile, posts, quotaUsed: usage.units };
  }

  /** Walks the uploads playlist newest first, one page of ids then one `videos.list` for their statistics. */
  private async uploadsSince(playlistId: string, request: FetchRequest, usage: { units: number }): Promise<FetchedPost[]> {
    const posts: FetchedPost[] = [];
    let pageToken: string | undefined;
    let reachedSince = false;
    while (posts.length < request.maxPosts && !reachedSince) {
      const page = parseShape(
        playlistItemsSchema,
        await this.get(
          'playlistItems',
          { part: 'contentDetails', playlistId, maxResults: String(Math.min(PAGE_SIZE, request.maxPosts - posts.length)), ...(pageToken ? { pageToken } : {}) },
          usage,
        ),
        `${LABEL} playlistItems`,
      );
      const videoIds: string[] = [];
      for (const { contentDetails } of page.items) {
        // A private or deleted upload stays in the playlist without a publication date: nothing to read.
        if (!contentDetails.videoPublishedAt) continue;
        if (contentDetails.videoPublishedAt < request.since) {
          reachedSince = true;
          break;
        }
        videoIds.push(contentDetails.videoId);
      }
      if (videoIds.length) posts.push(...(await this.videos(videoIds, usage)));
      pageToken = page.nextPageToken;
      if (!pageToken) break;
    }
    return posts
      .filter((post) => post.publishedAt >= request.since)
      .sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime())
      .slice(0, request.maxPosts);
  }

  private async videos(ids: string[], usage: { units: number }): Promise<FetchedPost[]> {
    const list = parseShape(videoListSchema, await this.get('videos', { part: 'snippet,statistics', id: ids.join(',') }, usage), `${LABEL} videos`);
    return list.items.map((video) => ({
      postId: video.id,
      publishedAt: video.snippet.publishedAt,
      text: [video.snippet.title, video.snippet.description].filter(Boolean).join('\n\n'),
      url: `https://www.youtube.com/watch?v=${encodeURIComponent(video.id)}`,
      mediaType: 'video',
      likes: video.statistics?.likeCount ?? null,
      comments: video.statistics?.commentCount ?? null,
      shares: null,
      views: video.statistics?.viewCount ?? null,
    }));
  }

  /** Each list call above costs one quota unit, whatever it returns. */
  private async get(resource: string, params: Record<string, string>, usage: { units: number }): Promise<unknown> {
    usage.units++;
    const query = new URLSearchParams({ ...params, key: this.config.apiKey ?? '' });
    const reply = await getJson(`${this.config.baseUrl}/${resource}?${query}`, { label: LABEL, timeoutSeconds: this.timeoutSeconds });
    if (!reply.ok) throw this.failure(reply);
    return reply.body;
  }

  private failure(reply: JsonReply): ConnectorError {
    const parsed = googleErrorSchema.safeParse(reply.body);
    const error = parsed.success ? parsed.data.error : undefined;
    const reasons = new Set([...(error?.errors ?? []), ...(error?.details ?? [])].flatMap((entry) => (entry.reason ? [entry.reason] : [])));
    const has = (wanted: Set<string>) => [...reasons].some((reason) => wanted.has(reason));
    const { status } = reply;
    const message = shortMessage(LABEL, error?.message, status);
    if (has(QUOTA_REASONS)) return new ConnectorError('quota_exhausted', message, nextMidnightIn(QUOTA_TIME_ZONE, this.clock()), status);
    if (status === 429 || has(RATE_REASONS)) return new ConnectorError('rate_limited', message, parseRetryAfter(reply.headers.get('retry-after'), this.clock()), status);
    if (status === 401 || has(AUTH_REASONS) || (status === 400 && /api key/i.test(error?.message ?? ''))) return new ConnectorError('auth', message, undefined, status);
    if (status === 404 || has(GONE_REASONS)) return new ConnectorError('not_found', message, undefined, status);
    if (status >= 500) return new ConnectorError('transient', message, undefined, status);
    // Any other 403 (`forbidden`, a missing key) means the key may not read this: staff must fix it.
    if (status === 403) return new ConnectorError('auth', message, undefined, status);
    return new ConnectorError('bad_response', message, undefined, status);
  }
}
