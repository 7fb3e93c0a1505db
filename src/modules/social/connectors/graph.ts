import { z } from 'zod';
import type { SocialConfig } from '../../../config';
import { ConnectorError, type FetchedPost, type FetchedProfile, type FetchRequest, type FetchResult, type SocialConnector } from './connector';
import { getJson, instant, parseJsonSafely, parseShape, shortMessage, systemClock, type Clock, type JsonReply } from './http';

/** Graph's largest page of a Page's posts. */
const FACEBOOK_PAGE_SIZE = 100;
/** Business Discovery's largest page of media. */
const INSTAGRAM_PAGE_SIZE = 50;

const graphErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.number().optional(),
    error_subcode: z.number().optional(),
    error_user_msg: z.string().optional(),
    is_transient: z.boolean().optional(),
  }),
});

/** Application (4), user (17), Page (32) and per-call (613) request limits. */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/** Business Use Case throttling: 80001 Pages, 80002 Instagram, up to 80014. */
const isBusinessThrottle = (code: number) => code >= 80001 && code <= 80014;

const usageHeaderSchema = z.record(z.string(), z.array(z.object({ estimated_time_to_regain_access: z.number().optional() })));

/** When a throttled app may call again, from `X-Business-Use-Case-Usage` (minutes); absent when the header does not say. */
export function regainAccessAt(header: string | null, now: Date): Date | undefined {
  const parsed = usageHeaderSchema.safeParse(header ? parseJsonSafely(header) : undefined);
  if (!parsed.success) return undefined;
  const minutes = Math.max(0, ...Object.values(parsed.data).flatMap((entries) => entries.map((entry) => entry.estimated_time_to_regain_access ?? 0)));
  return minutes > 0 ? new Date(now.getTime() + minutes * 60_000) : undefined;
}

function graphFailure(label: string, reply: JsonReply, now: Date): ConnectorError {
  const parsed = graphErrorSchema.safeParse(reply.body);
  const error = parsed.success ? parsed.data.error : undefined;
  const code = error?.code;
  const { status } = reply;
  const message = shortMessage(label, [error?.message, error?.error_user_msg].filter(Boolean).join(' — ') || undefined, status);
  if (code === 190 || code === 102 || code === 104) return new ConnectorError('auth', message, undefined, status);
  if (code !== undefined && (THROTTLE_CODES.has(code) || isBusinessThrottle(code))) {
    return new ConnectorError('rate_limited', message, regainAccessAt(reply.headers.get('x-business-use-case-usage'), now), status);
  }
  if (
    (code === 100 && error?.error_subcode === 33) ||
    code === 803 ||
    code === 110 ||
    error?.error_subcode === 2207013 ||
    /does not exist|cannot be found/i.test(`${error?.message ?? ''} ${error?.error_user_msg ?? ''}`)
  ) {
    return new ConnectorError('not_found', message, undefined, status);
  }
  // Code 10 and 200–299 are missing permissions (Page Public Content Access, say): only staff can fix them.
  if (code === 10 || (code !== undefined && code >= 200 && code < 300)) return new ConnectorError('auth', message, undefined, status);
  if (status >= 500 || error?.is_transient || code === 1 || code === 2) return new ConnectorError('transient', message, undefined, status);
  return new ConnectorError('bad_response', message, undefined, status);
}

/** One fetch's Graph calls with one token; counts them because the quota is per call. */
class GraphSession {
  calls = 0;

  constructor(
    private readonly config: SocialConfig['graph'],
    private readonly token: string,
    private readonly label: string,
    private readonly timeoutSeconds: number,
    private readonly clock: Clock,
  ) {}

  url(path: string, params: Record<string, string>): string {
    return `${this.config.baseUrl}/${this.config.apiVersion}/${path}?${new URLSearchParams(params)}`;
  }

  async get(url: string): Promise<unknown> {
    // `paging.next` is followed as given, but never to another host: it would receive the token.
    if (new URL(url).origin !== new URL(this.config.baseUrl).origin) throw new ConnectorError('bad_response', `${this.label}: paging link to another host`);
    this.calls++;
    const reply = await getJson(url, { label: this.label, timeoutSeconds: this.timeoutSeconds, headers: { Authorization: `Bearer ${this.token}` } });
    if (!reply.ok) throw graphFailure(this.label, reply, this.clock());
    return reply.body;
  }
}

const pageSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  fan_count: z.number().optional(),
  followers_count: z.number().optional(),
});

const summarySchema = z.object({ summary: z.object({ total_count: z.number() }).optional() }).optional();

const publishedPostsSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      created_time: instant,
      message: z.string().optional(),
      permalink_url: z.string().optional(),
      shares: z.object({ count: z.number() }).optional(),
      reactions: summarySchema,
      comments: summarySchema,
    }),
  ),
  paging: z.object({ next: z.string().optional() }).optional(),
});

const POST_FIELDS = 'id,created_time,message,permalink_url,shares,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0)';

/** Facebook Pages through the Graph API: a Page's followers and its published posts with reactions, comments and shares. */
export class FacebookConnector implements SocialConnector {
  readonly platform = 'facebook';
  readonly configured: boolean;

  constructor(
    private readonly config: SocialConfig['graph'],
    private readonly timeoutSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.configured = Boolean(config.facebookToken);
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    if (!this.configured || !this.config.facebookToken) throw new ConnectorError('auth', 'not configured');
    const session = new GraphSession(this.config, this.config.facebookToken, 'Facebook', this.timeoutSeconds, this.clock);
    const node = request.profile.platformId ?? request.profile.handle.replace(/^@/, '');
    const page = parseShape(pageSchema, await session.get(session.url(encodeURIComponent(node), { fields: 'id,name,fan_count,followers_count' })), 'Facebook page');
    const profile: FetchedProfile = { platformId: page.id, displayName: page.name ?? null, followers: page.followers_count ?? page.fan_count ?? null };

    const posts: FetchedPost[] = [];
    let next: string | undefined = session.url(`${encodeURIComponent(page.id)}/published_posts`, {
      fields: POST_FIELDS,
      limit: String(Math.min(FACEBOOK_PAGE_SIZE, request.maxPosts)),
      since: String(Math.floor(request.since.getTime() / 1000)),
    });
    let reachedSince = false;
    while (next && posts.length < request.maxPosts && !reachedSince) {
      const batch: z.infer<typeof publishedPostsSchema> = parseShape(publishedPostsSchema, await session.get(next), 'Facebook posts');
      for (const post of batch.data) {
        if (post.created_time < request.since) {
          reachedSince = true;
          break;
        }
        if (posts.length >= request.maxPosts) break;
        posts.push({
          postId: post.id,
          publishedAt: post.created_time,
          text: post.message ?? '',
          url: post.permalink_url ?? null,
          mediaType: 'post',
          likes: post.reactions?.summary?.total_count ?? null,
          comments: post.comments?.summary?.total_count ?? null,
          // Graph leaves `shares` out when nobody shared the post.
          shares: post.shares?.count ?? 0,
          views: null,
        });
      }
      next = batch.data.length ? batch.paging?.next : undefined;
    }
    return { profile, posts, quotaUsed: session.calls };
  }
}

const mediaSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      caption: z.string().optional(),
      timestamp: instant,
      like_count: z.number().optional(),
      comments_count: z.number().optional(),
      permalink: z.string().optional(),
      media_type: z.string().optional(),
    }),
  ),
  paging: z.object({ cursors: z.object({ after: z.string().optional() }).optional() }).optional(),
});

const businessDiscoverySchema = z.object({
  business_discovery: z.object({
    id: z.string().min(1),
    username: z.string().optional(),
    name: z.string().optional(),
    followers_count: z.number().optional(),
    media: mediaSchema.optional(),
  }),
});

const MEDIA_FIELDS = 'id,caption,timestamp,like_count,comments_count,permalink,media_type';
/** Instagram's own rule for usernames; anything else could not exist and must not reach a field expansion. */
const INSTAGRAM_USERNAME = /^[A-Za-z0-9._]{1,30}$/;

function instagramMediaType(mediaType: string | undefined): string | null {
  if (!mediaType) return null;
  return mediaType === 'CAROUSEL_ALBUM' ? 'carousel' : mediaType.toLowerCase();
}

/** Instagram professional accounts through Business Discovery, read as our own business account. */
export class InstagramConnector implements SocialConnector {
  readonly platform = 'instagram';
  readonly configured: boolean;

  constructor(
    private readonly config: SocialConfig['graph'],
    private readonly timeoutSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.configured = Boolean(config.instagramToken && config.instagramBusinessId);
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    const { instagramToken, instagramBusinessId } = this.config;
    if (!this.configured || !instagramToken || !instagramBusinessId) throw new ConnectorError('auth', 'not configured');
    const username = request.profile.handle.replace(/^@/, '');
    if (!INSTAGRAM_USERNAME.test(username)) throw new ConnectorError('not_found', `Instagram: ${username} is not a valid username`);
    const session = new GraphSession(this.config, instagramToken, 'Instagram', this.timeoutSeconds, this.clock);
    const discover = async (fields: string) =>
      parseShape(businessDiscoverySchema, await session.get(session.url(encodeURIComponent(instagramBusinessId), { fields })), 'Instagram business_discovery').business_discovery;
    const posts: FetchedPost[] = [];
    const pageSize = () => Math.max(1, Math.min(INSTAGRAM_PAGE_SIZE, request.maxPosts - posts.length));
    const account = await discover(`business_discovery.username(${username}){id,username,name,followers_count,media_count,media.limit(${pageSize()}){${MEDIA_FIELDS}}}`);
    const profile: FetchedProfile = { platformId: account.id, displayName: account.name ?? account.username ?? null, followers: account.followers_count ?? null };
    let media = account.media;
    let reachedSince = false;
    while (media && posts.length < request.maxPosts) {
      for (const item of media.data) {
        if (item.timestamp < request.since) {
          reachedSince = true;
          break;
        }
        if (posts.length >= request.maxPosts) break;
        posts.push({
          postId: item.id,
          publishedAt: item.timestamp,
          text: item.caption ?? '',
          url: item.permalink ?? null,
          mediaType: instagramMediaType(item.media_type),
          // The owner can hide like counts: Graph then leaves like_count out.
          likes: item.like_count ?? null,
          comments: item.comments_count ?? null,
          shares: null,
          views: null,
        });
      }
      const after = media.paging?.cursors?.after;
      if (reachedSince || !after || !media.data.length || posts.length >= request.maxPosts) break;
      media = (await discover(`business_discovery.username(${username}){media.after(${after}).limit(${pageSize()}){${MEDIA_FIELDS}}}`)).media;
    }
    return { profile, posts, quotaUsed: session.calls };
  }
}
