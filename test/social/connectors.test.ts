import type { SocialConfig } from '../../src/config';
import {
  ConnectorError,
  createConnectors,
  FacebookConnector,
  InstagramConnector,
  XConnector,
  YouTubeConnector,
  type ConnectorFailure,
  type FetchRequest,
  type FetchResult,
  type Platform,
  type SocialConnector,
} from '../../src/modules/social/connectors';
import { startSocialFake, type SocialFake } from '../fakes/social-apis';

/** The connectors' clock: fixed, so quota resets and Retry-After land on known instants. */
const NOW = new Date('2025-06-15T18:30:00Z');
const clockAt = (instant: Date) => () => instant;
const hoursBefore = (hours: number, from = NOW) => new Date(from.getTime() - hours * 3_600_000);

let fake: SocialFake;
beforeAll(async () => {
  fake = await startSocialFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function socialConfig(overrides: { youtube?: Partial<SocialConfig['youtube']>; x?: Partial<SocialConfig['x']>; graph?: Partial<SocialConfig['graph']> } = {}): SocialConfig {
  const credentials = fake.credentials;
  return {
    youtube: { baseUrl: `${fake.url}/youtube/v3`, apiKey: credentials.youtubeKey, dailyUnits: 10_000, ...overrides.youtube },
    x: { baseUrl: `${fake.url}/x/2`, bearerToken: credentials.xBearerToken, monthlyReads: 3_000_000, ...overrides.x },
    graph: {
      baseUrl: `${fake.url}/graph`,
      apiVersion: credentials.graphVersion,
      facebookToken: credentials.facebookToken,
      instagramToken: credentials.instagramToken,
      instagramBusinessId: credentials.instagramBusinessId,
      ...overrides.graph,
    },
    fetchTimeoutSeconds: 5,
    refreshWindowSeconds: 7 * 86400,
    sweepIntervalSeconds: 15,
  };
}

function requestFor(platform: Platform, handle: string, options: Partial<Omit<FetchRequest, 'profile'>> & { platformId?: string } = {}): FetchRequest {
  return { profile: { platform, handle, platformId: options.platformId ?? null }, since: options.since ?? hoursBefore(24 * 7), maxPosts: options.maxPosts ?? 500 };
}

/** The ConnectorError a fetch fails with; fails the test if it succeeds or throws something else. */
async function failureOf(promise: Promise<FetchResult>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ConnectorError)) throw new Error(`expected a ConnectorError, got ${String(error)}`);
  return error;
}

async function expectFailure(promise: Promise<FetchResult>, failure: ConnectorFailure, retryAt?: Date): Promise<ConnectorError> {
  const error = await failureOf(promise);
  expect(error.failure).toBe(failure);
  expect(error.retryAt?.toISOString()).toBe(retryAt?.toISOString());
  return error;
}

describe('YouTube', () => {
  const connector = (clock = clockAt(NOW), overrides: Partial<SocialConfig['youtube']> = {}) => new YouTubeConnector(socialConfig({ youtube: overrides }).youtube, 5, clock);
  const CHANNEL = 'UCa1b2c3d4e5f6g7h8i9j0kl';

  function seedChannel(videoCount: number, options: { hiddenSubscribers?: boolean } = {}) {
    fake.youtube.addChannel({ id: CHANNEL, handle: '@CandidataAna', title: 'Ana Presidenta', subscribers: 48_213, ...options });
    for (let index = 1; index <= videoCount; index++) {
      fake.youtube.addVideo(CHANNEL, {
        id: `vid${String(index).padStart(8, '0')}`,
        title: `Video ${index}`,
        publishedAt: hoursBefore(index),
        views: 1000 + index,
        likes: 10 * index,
        comments: index,
      });
    }
  }

  it('maps the channel and its uploads: string counts to numbers, dates, urls, newest first', async () => {
    seedChannel(0);
    fake.youtube.addVideo(CHANNEL, {
      id: 'dQw4w9WgXcQ',
      title: 'Cierre de campaña',
      description: 'En vivo desde la plaza',
      publishedAt: new Date('2025-06-14T22:00:00Z'),
      views: 1_234_567,
      likes: 8_901,
      comments: 345,
    });
    fake.youtube.addVideo(CHANNEL, { id: 'older000001', title: 'Entrevista', publishedAt: new Date('2025-06-10T09:15:00Z'), views: 500, likes: null, comments: null });

    const result = await connector().fetch(requestFor('youtube', '@CandidataAna'));

    expect(result.profile).toEqual({ platformId: CHANNEL, displayName: 'Ana Presidenta', followers: 48_213 });
    expect(result.posts).toEqual([
      {
        postId: 'dQw4w9WgXcQ',
        publishedAt: new Date('2025-06-14T22:00:00Z'),
        text: 'Cierre de campaña\n\nEn vivo desde la plaza',
        url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        mediaType: 'video',
        likes: 8_901,
        comments: 345,
        shares: null,
        views: 1_234_567,
      },
      {
        postId: 'older000001',
        publishedAt: new Date('2025-06-10T09:15:00Z'),
        text: 'Entrevista',
        url: 'https://www.youtube.com/watch?v=older000001',
        mediaType: 'video',
        likes: null,
        comments: null,
        shares: null,
        views: 500,
      },
    ]);
    // channels + one playlist page + one videos call.
    expect(result.quotaUsed).toBe(3);
    expect(fake.requests.youtube).toBe(3);
    expect(fake.log[0]!.query.get('forHandle')).toBe('@CandidataAna');
    expect(fake.log[0]!.query.get('id')).toBeNull();
    expect(fake.log[2]!.query.get('id')).toBe('dQw4w9WgXcQ,older000001');
  });

  it('looks the channel up by its id once known, and reports hidden subscribers as null', async () => {
    seedChannel(1, { hiddenSubscribers: true });
    const result = await connector().fetch(requestFor('youtube', '@CandidataAna', { platformId: CHANNEL }));
    expect(result.profile.followers).toBeNull();
    expect(result.posts.map((post) => post.postId)).toEqual(['vid00000001']);
    expect(fake.log[0]!.query.get('id')).toBe(CHANNEL);
    expect(fake.log[0]!.query.get('forHandle')).toBeNull();
  });

  it('pages through the uploads and stops at the first video older than `since`', async () => {
    seedChannel(130);
    const result = await connector().fetch(requestFor('youtube', CHANNEL, { since: hoursBefore(120.5) }));
    expect(result.posts).toHaveLength(120);
    expect(result.posts[0]!.postId).toBe('vid00000001');
    expect(result.posts[119]!.postId).toBe('vid00000120');
    expect(result.posts[119]!.views).toBe(1120);
    // channels + 3 playlist pages (50, 50, 20 then an older one) + 3 videos calls; the 4th page is never read.
    expect(result.quotaUsed).toBe(7);
    expect(fake.log.filter((entry) => entry.path.endsWith('/playlistItems'))).toHaveLength(3);
    expect(fake.log.filter((entry) => entry.path.endsWith('/videos')).map((entry) => entry.query.get('id')!.split(',').length)).toEqual([50, 50, 20]);
  });

  it('stops at maxPosts, asking only for what is still wanted', async () => {
    seedChannel(130);
    const result = await connector().fetch(requestFor('youtube', CHANNEL, { since: hoursBefore(1000), maxPosts: 60 }));
    expect(result.posts.map((post) => post.postId).slice(-2)).toEqual(['vid00000059', 'vid00000060']);
    expect(result.posts).toHaveLength(60);
    expect(result.quotaUsed).toBe(5);
    expect(fake.log.filter((entry) => entry.path.endsWith('/playlistItems')).map((entry) => entry.query.get('maxResults'))).toEqual(['50', '10']);
  });

  it('429 is rate_limited until Retry-After', async () => {
    seedChannel(3);
    fake.failNext('youtube', 1, '429', { retryAfterSeconds: 120 });
    const error = await expectFailure(connector().fetch(requestFor('youtube', CHANNEL)), 'rate_limited', new Date('2025-06-15T18:32:00Z'));
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
  });

  it('quotaExceeded waits for the next midnight in Pacific time, across DST changes', async () => {
    seedChannel(3);
    const cases: [now: string, reset: string][] = [
      ['2025-06-15T18:30:00Z', '2025-06-16T07:00:00Z'], // PDT
      ['2025-01-10T07:59:00Z', '2025-01-10T08:00:00Z'], // 23:59 PST
      ['2025-03-09T07:30:00Z', '2025-03-09T08:00:00Z'], // 23:30 PST, DST starts at 02:00 that night
      ['2025-03-09T09:00:00Z', '2025-03-10T07:00:00Z'], // 01:00 PST, the next midnight is PDT
      ['2025-11-02T07:30:00Z', '2025-11-03T08:00:00Z'], // 00:30 PDT, DST ends at 02:00: the next midnight is PST
    ];
    for (const [now, reset] of cases) {
      fake.failNext('youtube', 1, 'quota');
      const error = await expectFailure(connector(clockAt(new Date(now))).fetch(requestFor('youtube', CHANNEL)), 'quota_exhausted', new Date(reset));
      expect(error.status).toBe(403);
    }
  });

  it('a quota failure on a later page is quota_exhausted too', async () => {
    seedChannel(80);
    // channels, first playlist page and its videos pass; the second playlist page hits the quota.
    fake.failNext('youtube', 1, 'quota', { after: 3 });
    await expectFailure(connector().fetch(requestFor('youtube', CHANNEL, { since: hoursBefore(1000) })), 'quota_exhausted', new Date('2025-06-16T07:00:00Z'));
    expect(fake.requests.youtube).toBe(4);
  });

  it('500 is transient; an invalid key and a missing key are auth', async () => {
    seedChannel(3);
    fake.failNext('youtube', 1, '500');
    expect((await expectFailure(connector().fetch(requestFor('youtube', CHANNEL)), 'transient')).status).toBe(500);
    fake.failNext('youtube', 1, 'expired_token');
    expect((await expectFailure(connector().fetch(requestFor('youtube', CHANNEL)), 'auth')).status).toBe(400);
    // Not injected: the fake checks the key it was given.
    await expectFailure(connector(clockAt(NOW), { apiKey: 'AIzaSomebodyElsesKey000000' }).fetch(requestFor('youtube', CHANNEL)), 'auth');
  });

  it('an unknown channel is not_found', async () => {
    seedChannel(3);
    await expectFailure(connector().fetch(requestFor('youtube', '@nadie')), 'not_found');
    await expectFailure(connector().fetch(requestFor('youtube', 'UCdoesnotexist0000000000')), 'not_found');
    expect(fake.requests.youtube).toBe(2);
  });

  it('a hung request is transient once the timeout passes', async () => {
    seedChannel(3);
    fake.failNext('youtube', 1, 'timeout', { delayMs: 2000 });
    const youtube = new YouTubeConnector(socialConfig().youtube, 0.2, clockAt(NOW));
    const error = await expectFailure(youtube.fetch(requestFor('youtube', CHANNEL)), 'transient');
    expect(error.message).toMatch(/no answer in time/);
  });
});

describe('X', () => {
  const connector = (clock = clockAt(NOW), overrides: Partial<SocialConfig['x']> = {}) => new XConnector(socialConfig({ x: overrides }).x, 5, clock);
  const USER_ID = '1346889436626259968';

  function seedUser(postCount: number) {
    fake.x.addUser({ id: USER_ID, username: 'AnaPresidenta', name: 'Ana Pérez', followers: 987_654 });
    for (let index = 1; index <= postCount; index++) {
      fake.x.addPost(USER_ID, { id: String(1_800_000_000_000_000_000n - BigInt(index)), text: `post ${index}`, createdAt: hoursBefore(index), likes: index });
    }
  }

  it('maps the user and posts: shares are retweets + quotes, views may be absent, replies and retweets left out', async () => {
    seedUser(0);
    fake.x.addPost(USER_ID, {
      id: '1934000000000000001',
      text: 'Hoy en Medellín',
      createdAt: new Date('2025-06-15T12:00:00Z'),
      likes: 1500,
      replies: 230,
      retweets: 310,
      quotes: 45,
      impressions: 98_000,
    });
    fake.x.addPost(USER_ID, { id: '1934000000000000002', text: 'respuesta', createdAt: new Date('2025-06-15T13:00:00Z'), kind: 'reply' });
    fake.x.addPost(USER_ID, { id: '1934000000000000003', text: 'RT @otro', createdAt: new Date('2025-06-15T14:00:00Z'), kind: 'retweet' });
    fake.x.addPost(USER_ID, { id: '1933000000000000000', text: 'antes', createdAt: new Date('2025-06-13T08:00:00Z'), likes: 7, replies: 1, retweets: 2, quotes: 0 });

    const since = new Date('2025-06-10T00:00:00.750Z');
    const result = await connector().fetch(requestFor('x', 'anapresidenta', { since }));

    expect(result.profile).toEqual({ platformId: USER_ID, displayName: 'Ana Pérez', followers: 987_654 });
    expect(result.posts).toEqual([
      {
        postId: '1934000000000000001',
        publishedAt: new Date('2025-06-15T12:00:00Z'),
        text: 'Hoy en Medellín',
        url: 'https://x.com/AnaPresidenta/status/1934000000000000001',
        mediaType: 'text',
        likes: 1500,
        comments: 230,
        shares: 355,
        views: 98_000,
      },
      {
        postId: '1933000000000000000',
        publishedAt: new Date('2025-06-13T08:00:00Z'),
        text: 'antes',
        url: 'https://x.com/AnaPresidenta/status/1933000000000000000',
        mediaType: 'text',
        likes: 7,
        comments: 1,
        shares: 2,
        views: null,
      },
    ]);
    // One user lookup + two posts read.
    expect(result.quotaUsed).toBe(3);
    expect(fake.log[0]!.path).toBe('/x/2/users/by/username/anapresidenta');
    expect(fake.log[0]!.authorization).toBe(`Bearer ${fake.credentials.xBearerToken}`);
    const timeline = fake.log[1]!.query;
    expect(timeline.get('start_time')).toBe('2025-06-10T00:00:00Z');
    expect(timeline.get('exclude')).toBe('retweets,replies');
    expect(timeline.get('tweet.fields')).toBe('created_at,public_metrics');
  });

  it('looks the user up by id once known', async () => {
    seedUser(2);
    const result = await connector().fetch(requestFor('x', 'old_handle', { platformId: USER_ID }));
    expect(fake.log[0]!.path).toBe(`/x/2/users/${USER_ID}`);
    expect(result.posts[0]!.url).toBe(`https://x.com/AnaPresidenta/status/${result.posts[0]!.postId}`);
  });

  it('pages with next_token until `since`, billing each post read', async () => {
    seedUser(260);
    const result = await connector().fetch(requestFor('x', 'AnaPresidenta', { since: hoursBefore(230.5) }));
    expect(result.posts).toHaveLength(230);
    expect(result.posts[229]!.text).toBe('post 230');
    expect(result.posts[229]!.likes).toBe(230);
    expect(result.quotaUsed).toBe(231);
    const pages = fake.log.filter((entry) => entry.path.endsWith('/tweets'));
    expect(pages).toHaveLength(3);
    expect(pages[0]!.query.get('pagination_token')).toBeNull();
    expect(pages[2]!.query.get('pagination_token')).not.toBeNull();
  });

  it('stops at maxPosts and asks for no more posts than it keeps', async () => {
    seedUser(260);
    const result = await connector().fetch(requestFor('x', 'AnaPresidenta', { since: hoursBefore(1000), maxPosts: 150 }));
    expect(result.posts).toHaveLength(150);
    expect(result.quotaUsed).toBe(151);
    expect(fake.log.filter((entry) => entry.path.endsWith('/tweets')).map((entry) => entry.query.get('max_results'))).toEqual(['100', '50']);
  });

  it('429 is rate_limited until x-rate-limit-reset', async () => {
    seedUser(2);
    const resetAt = new Date('2025-06-15T18:45:07Z');
    fake.failNext('x', 1, '429', { resetAt });
    expect((await expectFailure(connector().fetch(requestFor('x', 'AnaPresidenta')), 'rate_limited', resetAt)).status).toBe(429);
  });

  it('a usage cap is quota_exhausted until the first day of the next UTC month', async () => {
    seedUser(2);
    fake.failNext('x', 1, 'quota');
    await expectFailure(connector().fetch(requestFor('x', 'AnaPresidenta')), 'quota_exhausted', new Date('2025-07-01T00:00:00Z'));
    fake.failNext('x', 1, 'quota');
    await expectFailure(connector(clockAt(new Date('2025-12-31T23:59:59Z'))).fetch(requestFor('x', 'AnaPresidenta')), 'quota_exhausted', new Date('2026-01-01T00:00:00Z'));
    // The cap hit on the timeline, after the user lookup, is the same failure.
    fake.failNext('x', 1, 'quota', { after: 1 });
    await expectFailure(connector().fetch(requestFor('x', 'AnaPresidenta')), 'quota_exhausted', new Date('2025-07-01T00:00:00Z'));
    expect(fake.log.map((entry) => entry.path).slice(-2)).toEqual(['/x/2/users/by/username/AnaPresidenta', `/x/2/users/${USER_ID}/tweets`]);
  });

  it('401 is auth, 500 transient, an unknown user not_found', async () => {
    seedUser(2);
    fake.failNext('x', 1, 'expired_token');
    expect((await expectFailure(connector().fetch(requestFor('x', 'AnaPresidenta')), 'auth')).status).toBe(401);
    await expectFailure(connector(clockAt(NOW), { bearerToken: 'AAAAnotTheRightToken000000' }).fetch(requestFor('x', 'AnaPresidenta')), 'auth');
    fake.failNext('x', 1, '500');
    await expectFailure(connector().fetch(requestFor('x', 'AnaPresidenta')), 'transient');
    const missing = await expectFailure(connector().fetch(requestFor('x', 'nadie_aqui')), 'not_found');
    expect(missing.message).toContain('Could not find user with username: [nadie_aqui]');
  });
});

describe('Facebook', () => {
  const connector = (clock = clockAt(NOW), overrides: Partial<SocialConfig['graph']> = {}) => new FacebookConnector(socialConfig({ graph: overrides }).graph, 5, clock);
  const PAGE_ID = '104958162837';

  function seedPage(postCount: number, followers: number | null = 250_300) {
    fake.graph.addPage({ id: PAGE_ID, username: 'AnaPresidentaOficial', name: 'Ana Presidenta', fans: 240_000, followers });
    for (let index = 1; index <= postCount; index++) fake.graph.addPagePost(PAGE_ID, { createdAt: hoursBefore(index), message: `post ${index}`, reactions: index });
  }

  it('maps the page and its posts: reactions as likes, shares 0 when Graph leaves them out', async () => {
    seedPage(0);
    fake.graph.addPagePost(PAGE_ID, { createdAt: new Date('2025-06-15T10:20:30Z'), message: 'Gracias Cali', reactions: 4_321, comments: 210, shares: 87 });
    fake.graph.addPagePost(PAGE_ID, { createdAt: new Date('2025-06-12T08:00:00Z'), reactions: 12, comments: 0, shares: 0 });

    const result = await connector().fetch(requestFor('facebook', 'AnaPresidentaOficial'));

    expect(result.profile).toEqual({ platformId: PAGE_ID, displayName: 'Ana Presidenta', followers: 250_300 });
    expect(result.posts).toEqual([
      {
        postId: `${PAGE_ID}_1`,
        publishedAt: new Date('2025-06-15T10:20:30Z'),
        text: 'Gracias Cali',
        url: `https://www.facebook.com/${PAGE_ID}/posts/1`,
        mediaType: 'post',
        likes: 4_321,
        comments: 210,
        shares: 87,
        views: null,
      },
      {
        postId: `${PAGE_ID}_2`,
        publishedAt: new Date('2025-06-12T08:00:00Z'),
        text: '',
        url: `https://www.facebook.com/${PAGE_ID}/posts/2`,
        mediaType: 'post',
        likes: 12,
        comments: 0,
        shares: 0,
        views: null,
      },
    ]);
    expect(result.quotaUsed).toBe(2);
    expect(fake.log[0]!.path).toBe('/graph/v23.0/AnaPresidentaOficial');
    expect(fake.log[1]!.path).toBe(`/graph/v23.0/${PAGE_ID}/published_posts`);
    expect(fake.log[1]!.query.get('since')).toBe(String(Math.floor(hoursBefore(24 * 7).getTime() / 1000)));
    expect(fake.log[1]!.authorization).toBe(`Bearer ${fake.credentials.facebookToken}`);
  });

  it('falls back to fan_count when the page has no follower count', async () => {
    seedPage(1, null);
    expect((await connector().fetch(requestFor('facebook', PAGE_ID))).profile.followers).toBe(240_000);
  });

  it('follows paging.next across pages until `since`, one call each', async () => {
    seedPage(260);
    const result = await connector().fetch(requestFor('facebook', PAGE_ID, { since: hoursBefore(230.5) }));
    expect(result.posts).toHaveLength(230);
    expect(result.posts[229]).toMatchObject({ text: 'post 230', likes: 230 });
    expect(result.quotaUsed).toBe(4);
    expect(fake.requests.facebook).toBe(4);
    expect(fake.log[3]!.query.get('after')).not.toBeNull();
  });

  it('stops at maxPosts', async () => {
    seedPage(260);
    const result = await connector().fetch(requestFor('facebook', PAGE_ID, { since: hoursBefore(1000), maxPosts: 120 }));
    expect(result.posts).toHaveLength(120);
    expect(result.posts[119]!.text).toBe('post 120');
    expect(result.quotaUsed).toBe(3);
  });

  it('Page throttling (code 32) is rate_limited until the usage header says', async () => {
    seedPage(2);
    fake.failNext('facebook', 1, '429', { regainAccessMinutes: 7 });
    const error = await expectFailure(connector().fetch(requestFor('facebook', PAGE_ID)), 'rate_limited', new Date('2025-06-15T18:37:00Z'));
    expect(error.message).toContain('(#32)');
  });

  it('an expired token is auth, a 500 transient, an unknown page not_found', async () => {
    seedPage(2);
    fake.failNext('facebook', 1, 'expired_token');
    await expectFailure(connector().fetch(requestFor('facebook', PAGE_ID)), 'auth');
    await expectFailure(connector(clockAt(NOW), { facebookToken: 'EAAsomeoneElsesToken00000' }).fetch(requestFor('facebook', PAGE_ID)), 'auth');
    fake.failNext('facebook', 1, '500');
    expect((await expectFailure(connector().fetch(requestFor('facebook', PAGE_ID)), 'transient')).status).toBe(500);
    await expectFailure(connector().fetch(requestFor('facebook', 'nadie.aqui')), 'not_found');
    await expectFailure(connector().fetch(requestFor('facebook', '999999999')), 'not_found');
  });
});

describe('Instagram', () => {
  const connector = (clock = clockAt(NOW), overrides: Partial<SocialConfig['graph']> = {}) => new InstagramConnector(socialConfig({ graph: overrides }).graph, 5, clock);
  const IG_ID = '17841405309211844';

  function seedAccount(mediaCount: number) {
    fake.graph.addInstagramAccount({ id: IG_ID, username: 'ana.presidenta', name: 'Ana Presidenta', followers: 1_204_332 });
    for (let index = 1; index <= mediaCount; index++)
      fake.graph.addMedia('ana.presidenta', { id: `1790000000000${String(index).padStart(4, '0')}`, timestamp: hoursBefore(index), comments: index });
  }

  it('maps the account and media through Business Discovery: media types, hidden likes', async () => {
    seedAccount(0);
    fake.graph.addMedia('ana.presidenta', {
      id: '17900000000000900',
      timestamp: new Date('2025-06-15T15:00:00Z'),
      caption: 'Caravana',
      likes: 25_000,
      comments: 800,
      mediaType: 'CAROUSEL_ALBUM',
    });
    fake.graph.addMedia('ana.presidenta', { id: '17900000000000800', timestamp: new Date('2025-06-14T15:00:00Z'), likes: null, comments: 12, mediaType: 'VIDEO' });

    const result = await connector().fetch(requestFor('instagram', '@ana.presidenta'));

    expect(result.profile).toEqual({ platformId: IG_ID, displayName: 'Ana Presidenta', followers: 1_204_332 });
    expect(result.posts).toEqual([
      {
        postId: '17900000000000900',
        publishedAt: new Date('2025-06-15T15:00:00Z'),
        text: 'Caravana',
        url: 'https://www.instagram.com/p/17900000000000900/',
        mediaType: 'carousel',
        likes: 25_000,
        comments: 800,
        shares: null,
        views: null,
      },
      {
        postId: '17900000000000800',
        publishedAt: new Date('2025-06-14T15:00:00Z'),
        text: '',
        url: 'https://www.instagram.com/p/17900000000000800/',
        mediaType: 'video',
        likes: null,
        comments: 12,
        shares: null,
        views: null,
      },
    ]);
    expect(result.quotaUsed).toBe(1);
    expect(fake.log[0]!.path).toBe(`/graph/v23.0/${fake.credentials.instagramBusinessId}`);
    expect(fake.log[0]!.authorization).toBe(`Bearer ${fake.credentials.instagramToken}`);
    expect(fake.log[0]!.query.get('fields')).toContain('business_discovery.username(ana.presidenta){');
  });

  it('pages the media with the after cursor until `since`', async () => {
    seedAccount(130);
    const result = await connector().fetch(requestFor('instagram', 'ana.presidenta', { since: hoursBefore(120.5) }));
    expect(result.posts).toHaveLength(120);
    expect(result.posts[119]).toMatchObject({ postId: '17900000000000120', comments: 120, mediaType: 'image' });
    expect(result.quotaUsed).toBe(3);
    expect(fake.log[2]!.query.get('fields')).toMatch(/media\.after\([^)]+\)\.limit\(50\)/);
  });

  it('stops at maxPosts', async () => {
    seedAccount(130);
    const result = await connector().fetch(requestFor('instagram', 'ana.presidenta', { since: hoursBefore(1000), maxPosts: 70 }));
    expect(result.posts).toHaveLength(70);
    expect(result.quotaUsed).toBe(2);
    expect(fake.log[1]!.query.get('fields')).toMatch(/\.limit\(20\)/);
  });

  it('throttling is rate_limited, an expired token auth, an unknown user not_found', async () => {
    seedAccount(2);
    fake.failNext('instagram', 1, '429', { regainAccessMinutes: 12 });
    await expectFailure(connector().fetch(requestFor('instagram', 'ana.presidenta')), 'rate_limited', new Date('2025-06-15T18:42:00Z'));
    fake.failNext('instagram', 1, 'expired_token');
    await expectFailure(connector().fetch(requestFor('instagram', 'ana.presidenta')), 'auth');
    fake.failNext('instagram', 1, '500');
    await expectFailure(connector().fetch(requestFor('instagram', 'ana.presidenta')), 'transient');
    const missing = await expectFailure(connector().fetch(requestFor('instagram', 'nadie.aqui')), 'not_found');
    expect(missing.message).toContain('cannot be found');
    // Not a possible username: refused before any call.
    await expectFailure(connector().fetch(requestFor('instagram', 'a){id}')), 'not_found');
    expect(fake.requests.instagram).toBe(4);
  });
});

describe('createConnectors', () => {
  it('builds one connector per API platform, configured only with credentials', async () => {
    const all = createConnectors(socialConfig(), clockAt(NOW));
    expect(Object.keys(all).sort()).toEqual(['facebook', 'instagram', 'x', 'youtube']);
    expect(Object.values(all).map((connector) => [connector.platform, connector.configured])).toEqual([
      ['youtube', true],
      ['x', true],
      ['facebook', true],
      ['instagram', true],
    ]);

    const none = createConnectors(socialConfig({ youtube: { apiKey: undefined }, x: { bearerToken: undefined }, graph: { facebookToken: undefined, instagramToken: undefined } }));
    const withoutBusinessId = createConnectors(socialConfig({ graph: { instagramBusinessId: undefined } }));
    const unconfigured: SocialConnector[] = [none.youtube, none.x, none.facebook, none.instagram, withoutBusinessId.instagram];
    for (const connector of unconfigured) {
      expect(connector.configured).toBe(false);
      const error = await expectFailure(connector.fetch(requestFor(connector.platform, 'alguien')), 'auth');
      expect(error.message).toBe('not configured');
    }
    expect(withoutBusinessId.facebook.configured).toBe(true);
    expect(fake.requests).toEqual({ youtube: 0, x: 0, facebook: 0, instagram: 0 });
  });

  it('a refused connection is transient', async () => {
    const closed = await startSocialFake();
    const url = closed.url;
    await closed.close();
    const youtube = new YouTubeConnector({ baseUrl: `${url}/youtube/v3`, apiKey: 'AIzaAnyKey0000000000', dailyUnits: 1 }, 2);
    const error = await expectFailure(youtube.fetch(requestFor('youtube', '@ana')), 'transient');
    expect(error.message).toContain('ECONNREFUSED');
  });
});
