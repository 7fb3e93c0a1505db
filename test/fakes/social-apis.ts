import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the social APIs the connectors read, all on one port: YouTube Data API v3
 * under `/youtube/v3`, X API v2 under `/x/2`, and the Graph API (Facebook Pages, Instagram
 * Business Discovery) under `/graph/{version}`. It holds seeded accounts and posts, checks each
 * API's credentials where the real one looks for them, pages with the real envelopes and cursors,
 * and answers injected failures with each platform's own error bodies and rate-limit headers.
 */

export type FakeApi = 'youtube' | 'x' | 'facebook' | 'instagram';
/** `timeout` holds the answer back for `delayMs` (5 s unless told); `quota` exists for YouTube and X only. */
export type FakeFailure = '429' | '500' | 'expired_token' | 'quota' | 'timeout';

export interface FailureDetail {
  /** X: the `x-rate-limit-reset` instant. */
  resetAt?: Date;
  /** YouTube: the `Retry-After` seconds. */
  retryAfterSeconds?: number;
  /** Graph: `estimated_time_to_regain_access` in `X-Business-Use-Case-Usage`. */
  regainAccessMinutes?: number;
  /** X usage cap: `Monthly` (the default) or `Daily`. */
  period?: 'Monthly' | 'Daily';
  delayMs?: number;
  /** Let this many requests through before failing (to fail a later page). */
  after?: number;
}

export interface SocialFakeOptions {
  youtubeKey?: string;
  xBearerToken?: string;
  facebookToken?: string;
  instagramToken?: string;
  /** Our own Instagram business account, the node Business Discovery is read through. */
  instagramBusinessId?: string;
  graphVersion?: string;
}

export const SOCIAL_FAKE_CREDENTIALS = {
  youtubeKey: 'AIzaFakeYouTubeKey0123456789',
  xBearerToken: 'AAAAFakeXBearerToken0123456789',
  facebookToken: 'EAAFakeFacebookPageToken0123',
  instagramToken: 'EAAFakeInstagramToken0123456',
  instagramBusinessId: '17841400000000001',
  graphVersion: 'v23.0',
} as const;

export interface FakeVideo {
  id: string;
  title: string;
  description: string;
  publishedAt: Date;
  views: number;
  /** Null: the owner hid it (YouTube then leaves `likeCount` out). */
  likes: number | null;
  /** Null: comments are off (YouTube then leaves `commentCount` out). */
  comments: number | null;
}

export interface FakeChannel {
  id: string;
  handle: string | null;
  title: string;
  subscribers: number;
  hiddenSubscribers: boolean;
  videos: FakeVideo[];
}

export interface FakeTweet {
  id: string;
  text: string;
  createdAt: Date;
  likes: number;
  replies: number;
  retweets: number;
  quotes: number;
  /** Null: X leaves `impression_count` out (older posts, some access levels). */
  impressions: number | null;
  kind: 'original' | 'reply' | 'retweet';
}

export interface FakeXUser {
  id: string;
  username: string;
  name: string;
  followers: number;
  posts: FakeTweet[];
}

export interface FakePagePost {
  id: string;
  createdAt: Date;
  message: string | null;
  reactions: number;
  comments: number;
  shares: number;
}

export interface FakePage {
  id: string;
  username: string | null;
  name: string;
  fans: number;
  /** Null: the Page has no separate follower count, so Graph gives only `fan_count`. */
  followers: number | null;
  posts: FakePagePost[];
}

export interface FakeMedia {
  id: string;
  caption: string | null;
  timestamp: Date;
  /** Null: the owner hid like counts. */
  likes: number | null;
  comments: number;
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
}

export interface FakeInstagramAccount {
  id: string;
  username: string;
  name: string;
  followers: number;
  media: FakeMedia[];
}

interface EngagementFields {
  youtube: Pick<FakeVideo, 'views' | 'likes' | 'comments'>;
  x: Pick<FakeTweet, 'likes' | 'replies' | 'retweets' | 'quotes' | 'impressions'>;
  facebook: Pick<FakePagePost, 'reactions' | 'comments' | 'shares'>;
  instagram: Pick<FakeMedia, 'likes' | 'comments'>;
}

export interface LoggedRequest {
  api: FakeApi;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

type Json = Record<string, unknown>;

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, body, ...(headers ? { headers } : {}) });
const newestFirst = <T>(items: T[], at: (item: T) => Date) => [...items].sort((a, b) => at(b).getTime() - at(a).getTime());
const encodeCursor = (value: string) => Buffer.from(value, 'utf8').toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');
/** Graph writes instants as `2025-01-31T12:00:00+0000`. */
const graphTime = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, '+0000');
const traceId = () => randomBytes(8).toString('base64url');

/** Items after the one a cursor names (X and Graph cursors point past the last item of a page). */
function afterCursor<T extends { id: string }>(items: T[], cursor: string | null): T[] | undefined {
  if (!cursor) return items;
  const lastId = decodeCursor(cursor);
  const index = items.findIndex((item) => item.id === lastId);
  return index < 0 ? undefined : items.slice(index + 1);
}

// ---------- Graph field expansion: `a,b.limit(0).summary(true){c,d}` ----------

interface FieldSpec {
  name: string;
  modifiers: Map<string, string>;
  children: FieldSpec[] | null;
}

class FieldSyntaxError extends Error {}

function parseFields(text: string): FieldSpec[] {
  let at = 0;
  const name = (): string => {
    const match = /^[A-Za-z0-9_]+/.exec(text.slice(at));
    if (!match) throw new FieldSyntaxError(`field name expected at ${at}`);
    at += match[0].length;
    return match[0];
  };
  const field = (): FieldSpec => {
    const spec: FieldSpec = { name: name(), modifiers: new Map(), children: null };
    while (text[at] === '.') {
      at++;
      const modifier = name();
      const close = text.indexOf(')', at);
      if (text[at] !== '(' || close < 0) throw new FieldSyntaxError(`( expected after ${modifier}`);
      spec.modifiers.set(modifier, text.slice(at + 1, close));
      at = close + 1;
    }
    if (text[at] === '{') {
      at++;
      spec.children = list();
      if (text[at] !== '}') throw new FieldSyntaxError(`} expected at ${at}`);
      at++;
    }
    return spec;
  };
  const list = (): FieldSpec[] => {
    const fields = [field()];
    while (text[at] === ',') {
      at++;
      fields.push(field());
    }
    return fields;
  };
  const fields = list();
  if (at !== text.length) throw new FieldSyntaxError(`unexpected ${text[at]} at ${at}`);
  return fields;
}

function graphError(status: number, code: number, message: string, extra: Json = {}): Reply {
  return json(status, { error: { message, type: 'OAuthException', code, ...extra, fbtrace_id: traceId() } });
}

/** Refuses fields a node type does not have, as Graph does, so a typo in a connector fails here too. */
function unknownField(fields: FieldSpec[], allowed: readonly string[], nodeType: string): Reply | undefined {
  const unknown = fields.find((field) => !allowed.includes(field.name));
  return unknown ? graphError(400, 100, `(#100) Tried accessing nonexisting field (${unknown.name}) on node type (${nodeType})`) : undefined;
}

// ---------- per-platform seeded state ----------

class FakeYouTubeState {
  readonly channels = new Map<string, FakeChannel>();

  addChannel(input: { id: string; handle?: string; title: string; subscribers: number; hiddenSubscribers?: boolean }): FakeChannel {
    if (!input.id.startsWith('UC')) throw new Error('YouTube channel ids start with UC');
    const channel: FakeChannel = {
      id: input.id,
      handle: input.handle?.replace(/^@/, '') ?? null,
      title: input.title,
      subscribers: input.subscribers,
      hiddenSubscribers: input.hiddenSubscribers ?? false,
      videos: [],
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  addVideo(channelId: string, input: Omit<FakeVideo, 'description' | 'likes' | 'comments'> & Partial<Pick<FakeVideo, 'description' | 'likes' | 'comments'>>): FakeVideo {
    const channel = this.channels.get(channelId);
    if (!channel) throw new Error(`no channel ${channelId}`);
    const video: FakeVideo = { description: '', likes: 0, comments: 0, ...input };
    channel.videos.push(video);
    return video;
  }

  uploadsPlaylistId(channel: FakeChannel): string {
    return `UU${channel.id.slice(2)}`;
  }
}

class FakeXState {
  readonly users = new Map<string, FakeXUser>();

  addUser(input: { id: string; username: string; name: string; followers: number }): FakeXUser {
    const user: FakeXUser = { ...input, posts: [] };
    this.users.set(user.id, user);
    return user;
  }

  addPost(
    userId: string,
    input: Pick<FakeTweet, 'id' | 'text' | 'createdAt'> & Partial<Pick<FakeTweet, 'likes' | 'replies' | 'retweets' | 'quotes' | 'impressions' | 'kind'>>,
  ): FakeTweet {
    const user = this.users.get(userId);
    if (!user) throw new Error(`no X user ${userId}`);
    const post: FakeTweet = { likes: 0, replies: 0, retweets: 0, quotes: 0, impressions: null, kind: 'original', ...input };
    user.posts.push(post);
    return post;
  }

  byUsername(username: string): FakeXUser | undefined {
    return [...this.users.values()].find((user) => user.username.toLowerCase() === username.toLowerCase());
  }
}

class FakeGraphState {
  readonly pages = new Map<string, FakePage>();
  readonly instagramAccounts = new Map<string, FakeInstagramAccount>();

  addPage(input: { id: string; username?: string; name: string; fans: number; followers?: number | null }): FakePage {
    const page: FakePage = { id: input.id, username: input.username ?? null, name: input.name, fans: input.fans, followers: input.followers ?? null, posts: [] };
    this.pages.set(page.id, page);
    return page;
  }

  /** Post ids are `{page-id}_{post-id}`, as Graph writes them. */
  addPagePost(pageId: string, input: Pick<FakePagePost, 'createdAt'> & Partial<Omit<FakePagePost, 'createdAt'>>): FakePagePost {
    const page = this.pages.get(pageId);
    if (!page) throw new Error(`no page ${pageId}`);
    const post: FakePagePost = { id: `${pageId}_${page.posts.length + 1}`, message: null, reactions: 0, comments: 0, shares: 0, ...input };
    page.posts.push(post);
    return post;
  }

  addInstagramAccount(input: { id: string; username: string; name: string; followers: number }): FakeInstagramAccount {
    const account: FakeInstagramAccount = { ...input, username: input.username.toLowerCase(), media: [] };
    this.instagramAccounts.set(account.username, account);
    return account;
  }

  addMedia(username: string, input: Pick<FakeMedia, 'id' | 'timestamp'> & Partial<Omit<FakeMedia, 'id' | 'timestamp'>>): FakeMedia {
    const account = this.instagramAccounts.get(username.toLowerCase());
    if (!account) throw new Error(`no Instagram account ${username}`);
    const media: FakeMedia = { caption: null, likes: 0, comments: 0, mediaType: 'IMAGE', ...input };
    account.media.push(media);
    return media;
  }

  pageByIdOrUsername(node: string): FakePage | undefined {
    return this.pages.get(node) ?? [...this.pages.values()].find((page) => page.username?.toLowerCase() === node.toLowerCase());
  }
}

// ---------- the server ----------

export class SocialFake {
  readonly youtube = new FakeYouTubeState();
  readonly x = new FakeXState();
  readonly graph = new FakeGraphState();
  readonly credentials: Required<SocialFakeOptions>;
  /** Requests received per API, failed ones included. */
  readonly requests: Record<FakeApi, number> = { youtube: 0, x: 0, facebook: 0, instagram: 0 };
  readonly log: LoggedRequest[] = [];
  url = '';
  /** Injected failures in order; null lets one request through. */
  private readonly failures: Record<FakeApi, ({ kind: FakeFailure; detail: FailureDetail } | null)[]> = { youtube: [], x: [], facebook: [], instagram: [] };
  private server: http.Server | undefined;

  constructor(options: SocialFakeOptions = {}) {
    this.credentials = { ...SOCIAL_FAKE_CREDENTIALS, ...options };
  }

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => void this.route(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  /** Forgets every account, post, injected failure and count. */
  reset(): void {
    this.youtube.channels.clear();
    this.x.users.clear();
    this.graph.pages.clear();
    this.graph.instagramAccounts.clear();
    this.log.length = 0;
    for (const api of Object.keys(this.requests) as FakeApi[]) {
      this.requests[api] = 0;
      this.failures[api] = [];
    }
  }

  /** The next `count` requests to `api` answer this failure instead. */
  failNext(api: FakeApi, count: number, kind: FakeFailure, detail: FailureDetail = {}): void {
    if (kind === 'quota' && (api === 'facebook' || api === 'instagram')) throw new Error('the Graph API has no quota failure to fake');
    for (let i = 0; i < (detail.after ?? 0); i++) this.failures[api].push(null);
    for (let i = 0; i < count; i++) this.failures[api].push({ kind, detail });
  }

  /** Changes a post's counts, as its audience would between two polls. */
  setEngagement<A extends FakeApi>(api: A, postId: string, patch: Partial<EngagementFields[A]>): void {
    const post = this.findPost(api, postId);
    if (!post) throw new Error(`no ${api} post ${postId}`);
    Object.assign(post, patch);
  }

  private findPost(api: FakeApi, postId: string): object | undefined {
    const byId = <T extends { id: string }>(lists: T[][]) => lists.flat().find((post) => post.id === postId);
    if (api === 'youtube') return byId([...this.youtube.channels.values()].map((channel) => channel.videos));
    if (api === 'x') return byId([...this.x.users.values()].map((user) => user.posts));
    if (api === 'facebook') return byId([...this.graph.pages.values()].map((page) => page.posts));
    return byId([...this.graph.instagramAccounts.values()].map((account) => account.media));
  }

  private send(response: http.ServerResponse, reply: Reply): void {
    response.writeHead(reply.status, { 'Content-Type': 'application/json; charset=UTF-8', ...reply.headers });
    response.end(JSON.stringify(reply.body));
  }

  private async route(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    for await (const _chunk of request) {
      // GET only: drain whatever was sent so the socket can be reused.
    }
    const url = new URL(request.url ?? '/', this.url);
    const api = this.apiOf(url.pathname);
    if (!api) {
      response.writeHead(404, { 'Content-Type': 'text/html' });
      return void response.end('<html><body>Not Found</body></html>');
    }
    this.requests[api]++;
    this.log.push({ api, path: url.pathname, query: url.searchParams, authorization: request.headers.authorization });
    const failure = this.failures[api].shift();
    if (failure?.kind === 'timeout') {
      // Hold the answer back, but stop waiting once the client gave up so no timer outlives the test.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, failure.detail.delayMs ?? 5000);
        response.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (response.destroyed) return;
    } else if (failure) return this.send(response, this.failureReply(api, failure.kind, failure.detail));
    if (request.method !== 'GET') return this.send(response, json(405, { error: 'GET only' }));
    const authorization = request.headers.authorization;
    const reply = api === 'youtube' ? this.serveYouTube(url) : api === 'x' ? this.serveX(url, authorization) : this.serveGraph(api, url, authorization);
    this.send(response, reply);
  }

  private apiOf(pathname: string): FakeApi | undefined {
    if (pathname.startsWith('/youtube/v3/')) return 'youtube';
    if (pathname.startsWith('/x/2/')) return 'x';
    if (!pathname.startsWith('/graph/')) return undefined;
    return pathname.split('/')[3] === this.credentials.instagramBusinessId ? 'instagram' : 'facebook';
  }

  private failureReply(api: FakeApi, kind: Exclude<FakeFailure, 'timeout'>, detail: FailureDetail): Reply {
    if (api === 'youtube') {
      const googleError = (status: number, message: string, reason: string, domain: string, extra: Json = {}) =>
        ({ error: { code: status, message, errors: [{ message, domain, reason }], ...extra } }) as const;
      if (kind === '429') return json(429, googleError(429, 'Too many requests.', 'rateLimitExceeded', 'usageLimits'), { 'Retry-After': String(detail.retryAfterSeconds ?? 30) });
      if (kind === '500') return json(500, googleError(500, 'Backend Error', 'backendError', 'global'));
      if (kind === 'quota')
        return json(
          403,
          googleError(
            403,
            'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
            'quotaExceeded',
            'youtube.quota',
          ),
        );
      return json(400, this.youtubeBadKey());
    }
    if (api === 'x') {
      const now = Math.floor(Date.now() / 1000);
      if (kind === '429') {
        const reset = detail.resetAt ? Math.floor(detail.resetAt.getTime() / 1000) : now + 900;
        return json(
          429,
          { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
          { 'x-rate-limit-limit': '900', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) },
        );
      }
      if (kind === 'quota') {
        const period = detail.period ?? 'Monthly';
        return json(429, {
          account_id: 1712345678,
          product_name: 'standard-basic',
          title: 'UsageCapExceeded',
          period,
          scope: 'Product',
          detail: `Usage cap exceeded: ${period} product cap`,
          type: 'https://api.x.com/2/problems/usage-capped',
        });
      }
      if (kind === '500') return json(500, { title: 'Internal Server Error', detail: 'Internal Server Error', type: 'about:blank', status: 500 });
      return json(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    }
    if (kind === '429') {
      const code = api === 'facebook' ? 32 : 80002;
      const reply = graphError(
        400,
        code,
        api === 'facebook' ? '(#32) Page request limit reached' : 'There have been too many calls to this Instagram account. Wait a bit and try again.',
      );
      return { ...reply, headers: this.businessUsageHeader(api, 100, detail.regainAccessMinutes ?? 5) };
    }
    if (kind === '500') return graphError(500, 2, 'An unexpected error has occurred. Please retry your request later.', { is_transient: true });
    return graphError(400, 190, 'Error validating access token: Session has expired on Sunday, 01-Jun-25 10:00:00 PDT.', { error_subcode: 463 });
  }

  private businessUsageHeader(api: 'facebook' | 'instagram', callCount: number, regainMinutes: number): Record<string, string> {
    const entry = { type: api === 'facebook' ? 'pages' : 'instagram', call_count: callCount, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: regainMinutes };
    return { 'X-Business-Use-Case-Usage': JSON.stringify({ '1234567890': [entry] }) };
  }

  // ---------- YouTube Data API v3 ----------

  private youtubeBadKey(): Json {
    const message = 'API key not valid. Please pass a valid API key.';
    return {
      error: {
        code: 400,
        message,
        errors: [{ message, domain: 'usageLimits', reason: 'keyInvalid' }],
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
      },
    };
  }

  private serveYouTube(url: URL): Reply {
    const query = url.searchParams;
    const invalid = (message: string, reason = 'invalidParameter') => json(400, { error: { code: 400, message, errors: [{ message, domain: 'youtube.parameter', reason }] } });
    const key = query.get('key');
    if (!key) {
      const message =
        'Method doesn\u2019t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.';
      return json(403, { error: { code: 403, message, errors: [{ message, domain: 'global', reason: 'forbidden' }], status: 'PERMISSION_DENIED' } });
    }
    if (key !== this.credentials.youtubeKey) return json(400, this.youtubeBadKey());
    const parts = new Set((query.get('part') ?? '').split(',').filter(Boolean));
    if (!parts.size) return invalid('No filter selected. Expected one of: part', 'required');
    const resource = url.pathname.slice('/youtube/v3/'.length);
    if (resource === 'channels') return this.youtubeChannels(query, parts, invalid);
    if (resource === 'playlistItems') return this.youtubePlaylistItems(query, parts, invalid);
    if (resource === 'videos') return this.youtubeVideos(query, parts, invalid);
    return json(404, { error: { code: 404, message: 'Not Found', errors: [{ message: 'Not Found', domain: 'global', reason: 'notFound' }] } });
  }

  private youtubeChannels(query: URLSearchParams, parts: Set<string>, invalid: (message: string, reason?: string) => Reply): Reply {
    let channels: FakeChannel[];
    const ids = query.get('id');
    const handle = query.get('forHandle');
    if (ids) channels = ids.split(',').flatMap((id) => this.youtube.channels.get(id) ?? []);
    else if (handle) channels = [...this.youtube.channels.values()].filter((channel) => channel.handle?.toLowerCase() === handle.replace(/^@/, '').toLowerCase());
    else return invalid('No filter selected. Expected one of: forHandle, id, mine, forUsername, managedByMe', 'missingRequiredParameter');
    const items = channels.map((channel) => ({
      kind: 'youtube#channel',
      etag: traceId(),
      id: channel.id,
      ...(parts.has('snippet') ? { snippet: { title: channel.title, description: '', customUrl: channel.handle ? `@${channel.handle}` : undefined } } : {}),
      ...(parts.has('statistics')
        ? {
            statistics: {
              viewCount: String(channel.videos.reduce((sum, video) => sum + video.views, 0)),
              ...(channel.hiddenSubscribers ? {} : { subscriberCount: String(channel.subscribers) }),
              hiddenSubscriberCount: channel.hiddenSubscribers,
              videoCount: String(channel.videos.length),
            },
          }
        : {}),
      ...(parts.has('contentDetails') ? { contentDetails: { relatedPlaylists: { likes: '', uploads: this.youtube.uploadsPlaylistId(channel) } } } : {}),
    }));
    // With nothing found YouTube leaves `items` out altogether.
    return json(200, { kind: 'youtube#channelListResponse', etag: traceId(), pageInfo: { totalResults: items.length, resultsPerPage: 5 }, ...(items.length ? { items } : {}) });
  }

  private youtubePlaylistItems(query: URLSearchParams, parts: Set<string>, invalid: (message: string, reason?: string) => Reply): Reply {
    const playlistId = query.get('playlistId');
    if (!playlistId) return invalid('No filter selected. Expected one of: id, playlistId', 'missingRequiredParameter');
    const channel = [...this.youtube.channels.values()].find((candidate) => this.youtube.uploadsPlaylistId(candidate) === playlistId);
    if (!channel) {
      const message = "The playlist identified with the request's <code>playlistId</code> parameter cannot be found.";
      return json(404, { error: { code: 404, message, errors: [{ message, domain: 'youtube.playlistItem', reason: 'playlistNotFound' }] } });
    }
    const maxResults = Number(query.get('maxResults') ?? 5);
    if (!Number.isInteger(maxResults) || maxResults < 0 || maxResults > 50) return invalid(`Invalid value '${query.get('maxResults')}'. Values must be within the range: [0, 50]`);
    const token = query.get('pageToken');
    const offset = token ? Number(/^offset:(\d+)$/.exec(decodeCursor(token))?.[1] ?? NaN) : 0;
    if (Number.isNaN(offset)) return invalid(`The request specifies an invalid page token.`, 'invalidPageToken');
    const videos = newestFirst(channel.videos, (video) => video.publishedAt);
    const page = videos.slice(offset, offset + maxResults);
    const end = offset + page.length;
    return json(200, {
      kind: 'youtube#playlistItemListResponse',
      etag: traceId(),
      ...(end < videos.length ? { nextPageToken: encodeCursor(`offset:${end}`) } : {}),
      ...(offset > 0 ? { prevPageToken: encodeCursor(`offset:${Math.max(0, offset - maxResults)}`) } : {}),
      items: page.map((video, index) => ({
        kind: 'youtube#playlistItem',
        etag: traceId(),
        id: encodeCursor(`${playlistId}.${video.id}`),
        ...(parts.has('snippet') ? { snippet: { publishedAt: video.publishedAt.toISOString(), title: video.title, position: offset + index } } : {}),
        ...(parts.has('contentDetails') ? { contentDetails: { videoId: video.id, videoPublishedAt: video.publishedAt.toISOString() } } : {}),
      })),
      pageInfo: { totalResults: videos.length, resultsPerPage: maxResults },
    });
  }

  private youtubeVideos(query: URLSearchParams, parts: Set<string>, invalid: (message: string, reason?: string) => Reply): Reply {
    const ids = (query.get('id') ?? '').split(',').filter(Boolean);
    if (!ids.length) return invalid('No filter selected. Expected one of: chart, id, myRating', 'missingRequiredParameter');
    if (ids.length > 50) return invalid('The request specifies too many video ids (at most 50).', 'badRequest');
    const videos = new Map([...this.youtube.channels.values()].flatMap((channel) => channel.videos.map((video) => [video.id, video] as const)));
    const items = ids.flatMap((id) => {
      const video = videos.get(id);
      if (!video) return [];
      return [
        {
          kind: 'youtube#video',
          etag: traceId(),
          id,
          ...(parts.has('snippet') ? { snippet: { publishedAt: video.publishedAt.toISOString(), title: video.title, description: video.description } } : {}),
          ...(parts.has('statistics')
            ? {
                statistics: {
                  viewCount: String(video.views),
                  ...(video.likes === null ? {} : { likeCount: String(video.likes) }),
                  favoriteCount: '0',
                  ...(video.comments === null ? {} : { commentCount: String(video.comments) }),
                },
              }
            : {}),
        },
      ];
    });
    return json(200, { kind: 'youtube#videoListResponse', etag: traceId(), items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } });
  }

  // ---------- X API v2 ----------

  private serveX(url: URL, authorization: string | undefined): Reply {
    if (authorization !== `Bearer ${this.credentials.xBearerToken}`) return json(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    const headers = {
      'x-rate-limit-limit': '900',
      'x-rate-limit-remaining': String(Math.max(0, 900 - this.requests.x)),
      'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + 900),
    };
    const segments = url.pathname.slice('/x/2/'.length).split('/').map(decodeURIComponent);
    const query = url.searchParams;
    let reply: Reply;
    if (segments.length === 4 && segments[0] === 'users' && segments[1] === 'by' && segments[2] === 'username')
      reply = this.xUser(this.x.byUsername(segments[3]!), 'username', segments[3]!, query);
    else if (segments.length === 2 && segments[0] === 'users') reply = this.xUser(this.x.users.get(segments[1]!), 'id', segments[1]!, query);
    else if (segments.length === 3 && segments[0] === 'users' && segments[2] === 'tweets') reply = this.xTimeline(segments[1]!, query);
    else
      reply = json(404, { errors: [{ message: 'The requested resource could not be found.' }], title: 'Not Found Error', type: 'https://api.x.com/2/problems/resource-not-found' });
    return { ...reply, headers };
  }

  private xNotFound(parameter: 'id' | 'username', value: string): Reply {
    return json(200, {
      errors: [
        {
          value,
          detail: `Could not find user with ${parameter}: [${value}].`,
          title: 'Not Found Error',
          resource_type: 'user',
          parameter,
          resource_id: value,
          type: 'https://api.x.com/2/problems/resource-not-found',
        },
      ],
    });
  }

  private xUser(user: FakeXUser | undefined, parameter: 'id' | 'username', value: string, query: URLSearchParams): Reply {
    if (!user) return this.xNotFound(parameter, value);
    const fields = new Set((query.get('user.fields') ?? '').split(','));
    return json(200, {
      data: {
        id: user.id,
        name: user.name,
        username: user.username,
        ...(fields.has('public_metrics')
          ? { public_metrics: { followers_count: user.followers, following_count: 12, tweet_count: user.posts.length, listed_count: 3, like_count: 40 } }
          : {}),
      },
    });
  }

  private xInvalid(parameter: string, value: string, message: string): Reply {
    return json(400, {
      errors: [{ parameters: { [parameter]: [value] }, message }],
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: 'https://api.x.com/2/problems/invalid-request',
    });
  }

  private xTimeline(userId: string, query: URLSearchParams): Reply {
    const user = this.x.users.get(userId);
    if (!user) return this.xNotFound('id', userId);
    const maxResultsText = query.get('max_results') ?? '10';
    const maxResults = Number(maxResultsText);
    if (!Number.isInteger(maxResults) || maxResults < 5 || maxResults > 100)
      return this.xInvalid('max_results', maxResultsText, `The \`max_results\` query parameter value [${maxResultsText}] is not between 5 and 100`);
    const startTimeText = query.get('start_time');
    if (startTimeText !== null && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(startTimeText))
      return this.xInvalid('start_time', startTimeText, `Invalid 'start_time':'${startTimeText}'. 'start_time' must be a valid RFC 3339 date (YYYY-MM-DDTHH:mm:ssZ)`);
    const startTime = startTimeText ? new Date(startTimeText) : undefined;
    const exclude = new Set((query.get('exclude') ?? '').split(','));
    const fields = new Set((query.get('tweet.fields') ?? '').split(','));
    const visible = newestFirst(
      user.posts.filter((post) => !(post.kind === 'reply' && exclude.has('replies')) && !(post.kind === 'retweet' && exclude.has('retweets'))),
      (post) => post.createdAt,
    ).filter((post) => !startTime || post.createdAt >= startTime);
    const remaining = afterCursor(visible, query.get('pagination_token'));
    if (!remaining) return this.xInvalid('pagination_token', query.get('pagination_token') ?? '', 'The `pagination_token` query parameter value is not valid');
    const page = remaining.slice(0, maxResults);
    if (!page.length) return json(200, { meta: { result_count: 0 } });
    const last = page[page.length - 1]!;
    return json(200, {
      data: page.map((post) => ({
        id: post.id,
        text: post.text,
        edit_history_tweet_ids: [post.id],
        ...(fields.has('created_at') ? { created_at: post.createdAt.toISOString() } : {}),
        ...(fields.has('public_metrics')
          ? {
              public_metrics: {
                retweet_count: post.retweets,
                reply_count: post.replies,
                like_count: post.likes,
                quote_count: post.quotes,
                bookmark_count: 0,
                ...(post.impressions === null ? {} : { impression_count: post.impressions }),
              },
            }
          : {}),
      })),
      ...((query.get('expansions') ?? '').split(',').includes('author_id') ? { includes: { users: [{ id: user.id, name: user.name, username: user.username }] } } : {}),
      meta: {
        result_count: page.length,
        newest_id: page[0]!.id,
        oldest_id: last.id,
        ...(remaining.length > page.length ? { next_token: encodeCursor(last.id) } : {}),
      },
    });
  }

  // ---------- Graph API ----------

  private serveGraph(api: 'facebook' | 'instagram', url: URL, authorization: string | undefined): Reply {
    const [, , version, node, edge, ...rest] = url.pathname.split('/').map(decodeURIComponent);
    const query = url.searchParams;
    const token = query.get('access_token') ?? (authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined);
    if (!token) return graphError(400, 104, 'An access token is required to request this resource.');
    if (token !== (api === 'facebook' ? this.credentials.facebookToken : this.credentials.instagramToken))
      return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (version !== this.credentials.graphVersion || !node || rest.length) return graphError(400, 100, `Unknown path components: ${url.pathname}`);
    let fields: FieldSpec[];
    try {
      fields = parseFields(query.get('fields') ?? 'id,name');
    } catch (error) {
      return graphError(400, 2500, `Syntax error "${(error as Error).message}"`);
    }
    const reply = api === 'instagram' ? this.instagramNode(node, edge, fields) : this.facebookNode(url, node, edge, fields);
    return { ...reply, headers: { ...this.businessUsageHeader(api, this.requests[api], 0), ...reply.headers } };
  }

  private facebookNode(url: URL, node: string, edge: string | undefined, fields: FieldSpec[]): Reply {
    const page = this.graph.pageByIdOrUsername(node);
    if (!page) {
      if (/^\d+$/.test(node))
        return graphError(
          400,
          100,
          `Unsupported get request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          { error_subcode: 33 },
        );
      return graphError(404, 803, `(#803) Some of the aliases you requested do not exist: ${node}`);
    }
    if (edge === undefined) {
      const problem = unknownField(fields, ['id', 'name', 'username', 'fan_count', 'followers_count', 'link'], 'Page');
      if (problem) return problem;
      const values: Json = { id: page.id, name: page.name, username: page.username, fan_count: page.fans, link: `https://www.facebook.com/${page.username ?? page.id}` };
      if (page.followers !== null) values.followers_count = page.followers;
      return json(200, Object.fromEntries(fields.flatMap((field) => (field.name in values ? [[field.name, values[field.name]]] : []))));
    }
    if (edge !== 'published_posts') return graphError(400, 100, `(#100) Tried accessing nonexisting field (${edge}) on node type (Page)`);
    return this.publishedPosts(url, page, fields);
  }

  private publishedPosts(url: URL, page: FakePage, fields: FieldSpec[]): Reply {
    const problem = unknownField(fields, ['id', 'created_time', 'message', 'permalink_url', 'shares', 'reactions', 'comments', 'status_type'], 'Post');
    if (problem) return problem;
    const query = url.searchParams;
    const limit = Number(query.get('limit') ?? 25);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return graphError(400, 100, '(#100) The limit parameter must be between 1 and 100');
    const since = query.get('since');
    if (since !== null && !/^\d+$/.test(since)) return graphError(400, 100, `(#100) Invalid since: ${since}`);
    const posts = newestFirst(page.posts, (post) => post.createdAt).filter((post) => since === null || post.createdAt.getTime() >= Number(since) * 1000);
    const remaining = afterCursor(posts, query.get('after'));
    if (!remaining) return graphError(400, 100, '(#100) Invalid after cursor');
    const batch = remaining.slice(0, limit);
    const summaryOf = (field: FieldSpec | undefined, total: number) =>
      field ? { data: [], ...(field.modifiers.has('summary') ? { summary: { total_count: total } } : {}) } : undefined;
    const wanted = new Map(fields.map((field) => [field.name, field]));
    const data = batch.map((post) => {
      const values: Json = {
        id: post.id,
        created_time: graphTime(post.createdAt),
        permalink_url: `https://www.facebook.com/${page.id}/posts/${post.id.split('_')[1]}`,
        status_type: 'mobile_status_update',
        reactions: summaryOf(wanted.get('reactions'), post.reactions),
        comments: summaryOf(wanted.get('comments'), post.comments),
      };
      if (post.message !== null) values.message = post.message;
      if (post.shares > 0) values.shares = { count: post.shares };
      return Object.fromEntries([...wanted.keys()].flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));
    });
    const paging: Json = {};
    if (batch.length) {
      paging.cursors = { before: encodeCursor(batch[0]!.id), after: encodeCursor(batch[batch.length - 1]!.id) };
      if (remaining.length > batch.length) {
        const next = new URL(url.pathname, this.url);
        for (const [name, value] of query) if (name !== 'after') next.searchParams.set(name, value);
        next.searchParams.set('after', encodeCursor(batch[batch.length - 1]!.id));
        paging.next = next.toString();
      }
    }
    return json(200, { data, ...(batch.length ? { paging } : {}) });
  }

  private instagramNode(node: string, edge: string | undefined, fields: FieldSpec[]): Reply {
    if (edge !== undefined) return graphError(400, 100, `(#100) Tried accessing nonexisting field (${edge}) on node type (IGUser)`);
    const problem = unknownField(fields, ['id', 'username', 'business_discovery'], 'IGUser');
    if (problem) return problem;
    const body: Json = { id: node };
    const discovery = fields.find((field) => field.name === 'business_discovery');
    if (!discovery) return json(200, body);
    const username = discovery.modifiers.get('username');
    if (!username) return graphError(400, 100, '(#100) Missing username for business_discovery');
    const account = this.graph.instagramAccounts.get(username.toLowerCase());
    if (!account)
      return graphError(400, 110, 'Invalid user id', {
        error_subcode: 2207013,
        is_transient: false,
        error_user_title: 'Cannot find User',
        error_user_msg: `The user with username: ${username} cannot be found.`,
      });
    const children = discovery.children ?? [{ name: 'id', modifiers: new Map(), children: null }];
    const unknownChild = unknownField(children, ['id', 'username', 'name', 'followers_count', 'follows_count', 'media_count', 'biography', 'website', 'media'], 'IGUser');
    if (unknownChild) return unknownChild;
    const values: Json = {
      username: account.username,
      name: account.name,
      followers_count: account.followers,
      follows_count: 10,
      media_count: account.media.length,
      biography: '',
      website: '',
    };
    const found: Json = {};
    for (const child of children) {
      if (child.name === 'media') {
        const media = this.instagramMedia(account, child);
        if ('status' in media) return media;
        found.media = media.body;
      } else if (child.name in values) found[child.name] = values[child.name];
    }
    // Graph always includes the node's id.
    found.id = account.id;
    body.business_discovery = found;
    return json(200, body);
  }

  private instagramMedia(account: FakeInstagramAccount, spec: FieldSpec): Reply | { body: Json } {
    const fields = spec.children ?? [{ name: 'id', modifiers: new Map(), children: null }];
    const problem = unknownField(fields, ['id', 'caption', 'timestamp', 'like_count', 'comments_count', 'permalink', 'media_type', 'media_url', 'media_product_type'], 'Media');
    if (problem) return problem;
    const limit = Number(spec.modifiers.get('limit') ?? 25);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return graphError(400, 100, '(#100) The limit parameter must be between 1 and 100');
    const remaining = afterCursor(
      newestFirst(account.media, (media) => media.timestamp),
      spec.modifiers.get('after') ?? null,
    );
    if (!remaining) return graphError(400, 100, '(#100) Invalid after cursor');
    const batch = remaining.slice(0, limit);
    const data = batch.map((media) => {
      const values: Json = {
        id: media.id,
        timestamp: graphTime(media.timestamp),
        comments_count: media.comments,
        permalink: `https://www.instagram.com/p/${media.id}/`,
        media_type: media.mediaType,
        media_url: `https://scontent.cdninstagram.com/${media.id}.jpg`,
        media_product_type: 'FEED',
      };
      if (media.caption !== null) values.caption = media.caption;
      if (media.likes !== null) values.like_count = media.likes;
      return Object.fromEntries(fields.flatMap((field) => (values[field.name] === undefined ? [] : [[field.name, values[field.name]]])));
    });
    const cursors: Json = {};
    if (batch.length) cursors.before = encodeCursor(batch[0]!.id);
    // Business Discovery gives an `after` cursor only while more media remain, and no `next` link.
    if (remaining.length > batch.length) cursors.after = encodeCursor(batch[batch.length - 1]!.id);
    return { body: { data, paging: { cursors } } };
  }
}

export async function startSocialFake(options: SocialFakeOptions = {}): Promise<SocialFake> {
  return new SocialFake(options).start();
}
