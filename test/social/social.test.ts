import { instantAt, localClock } from '../../src/kernel/calendar';
import { sql } from '../../src/kernel/sql';
import { fetchProfile, quotaPeriod, sweepDueProfiles } from '../../src/modules/social/social.poller';
import { ensureRollupZone } from '../../src/modules/social/social.stats.repository';
import { SOCIAL_FAKE_CREDENTIALS, startSocialFake, type SocialFake } from '../fakes/social-apis';
import { startTestApp, type TestApp } from '../helpers/app';
import { io } from 'socket.io-client';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let fake: SocialFake;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;

const base = '/api/social-monitoring';
const hoursAgo = (hours: number, from = Date.now()) => new Date(from - hours * 3_600_000).toISOString();

beforeAll(async () => {
  fake = await startSocialFake();
  app = await startTestApp(
    {
      SOCIAL_X_BASE_URL: `${fake.url}/x/2`,
      SOCIAL_X_BEARER_TOKEN: SOCIAL_FAKE_CREDENTIALS.xBearerToken,
      SOCIAL_YOUTUBE_BASE_URL: `${fake.url}/youtube/v3`,
      SOCIAL_YOUTUBE_API_KEY: SOCIAL_FAKE_CREDENTIALS.youtubeKey,
      SOCIAL_YOUTUBE_DAILY_UNITS: '40',
      SOCIAL_GRAPH_BASE_URL: `${fake.url}/graph`,
      SOCIAL_SWEEP_INTERVAL: '1',
    },
    // The poller is driven by hand here, except in the test that lets the workers run.
    { workers: false },
  );
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  volunteer = await createUser(app, admin, 'volunteer');
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

async function count(table: string): Promise<number> {
  const row = await app.runtime.deps.db.first<{ n: number }>(sql`select count(*)::int as n from ${sql.raw(table)}`);
  return row!.n;
}

async function competitor(body: object): Promise<{ id: string; profiles: { id: string; platform: string; handle: string; status: string }[] }> {
  const response = await app.http.post(`${base}/competitors`).set(manager.auth).send(body);
  expect(response.status).toBe(201);
  return response.body;
}

function importPosts(posts: unknown[]) {
  return app.http.post(`${base}/posts/import`).set(manager.auth).send({ posts });
}

describe('competitors and profiles', () => {
  it('registers a competitor with profiles given as handles or URLs, normalised', async () => {
    const created = await competitor({
      name: 'Ana Rival',
      party: 'Partido Azul',
      colour: '#1F77B4',
      profiles: [
        { platform: 'x', handle: 'https://x.com/AnaRival' },
        { platform: 'instagram', handle: '@Ana.Rival' },
        { platform: 'tiktok', handle: 'https://www.tiktok.com/@ana_rival' },
        { platform: 'youtube', handle: 'https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv' },
      ],
    });
    expect(created).toMatchObject({ name: 'Ana Rival', colour: '#1f77b4', isOwn: false, active: true });
    const byPlatform = Object.fromEntries(created.profiles.map((profile) => [profile.platform, profile]));
    expect(byPlatform.x).toMatchObject({ handle: 'anarival', source: 'api', status: 'pending', url: 'https://x.com/anarival' });
    expect(byPlatform.instagram).toMatchObject({ handle: 'ana.rival', status: 'not_configured' });
    expect(byPlatform.tiktok).toMatchObject({ handle: 'ana_rival', source: 'import', status: 'import_only' });
    expect(byPlatform.youtube).toMatchObject({ handle: 'UCabcdefghijklmnopqrstuv' });

    const listed = await app.http.get(`${base}/competitors`).set(viewer.auth).expect(200);
    expect(listed.body.data.map((row: { name: string }) => row.name)).toContain('Ana Rival');
    await app.http.get(`${base}/competitors/${created.id}`).set(viewer.auth).expect(200);
  });

  it('refuses bad profiles with a 400 naming the field, and duplicates with a 409', async () => {
    const bad = [
      [{ platform: 'myspace', handle: 'x' }, 'body.profiles.0.platform'],
      [{ platform: 'x', handle: 'ana rival' }, 'body.profiles.0.handle'],
      [{ platform: 'instagram', handle: 'https://x.com/ana' }, 'body.profiles.0.handle'],
      [{ platform: 'x', handle: 'a_name_far_too_long_for_x' }, 'body.profiles.0.handle'],
      [{ platform: 'tiktok', handle: 'ana', source: 'api' }, 'body.profiles.0.source'],
    ] as const;
    for (const [profile, path] of bad) {
      const response = await app.http
        .post(`${base}/competitors`)
        .set(manager.auth)
        .send({ name: `Bad ${path}`, profiles: [profile] });
      const problem = expectProblem(response, 400);
      expect((problem.errors as { path: string }[])[0]!.path).toBe(path);
    }
    const twice = await app.http
      .post(`${base}/competitors`)
      .set(manager.auth)
      .send({
        name: 'Twice',
        profiles: [
          { platform: 'x', handle: 'same' },
          { platform: 'x', handle: '@SAME' },
        ],
      });
    expectProblem(twice, 400);
    const taken = await app.http
      .post(`${base}/competitors`)
      .set(manager.auth)
      .send({ name: 'Copycat', profiles: [{ platform: 'x', handle: '@anarival' }] });
    expectProblem(taken, 409, 'profile_taken');
    // Nothing partial: the competitor of a refused profile was not written.
    expect((await app.http.get(`${base}/competitors`).set(viewer.auth)).body.data.map((row: { name: string }) => row.name)).not.toContain('Copycat');
    expectProblem(await app.http.post(`${base}/competitors`).set(manager.auth).send({ name: 'ana rival' }), 409, 'competitor_name_taken');
    expectProblem(await app.http.post(`${base}/competitors`).set(manager.auth).send({ name: 'No colour', colour: 'blue' }), 400);
    expectProblem(await app.http.post(`${base}/competitors`).set(viewer.auth).send({ name: 'Viewer' }), 403);
    expectProblem(await app.http.get(`${base}/competitors`).set(volunteer.auth), 403);
  });

  it('keeps one "we", changes fields, adds and removes profiles', async () => {
    const ours = await competitor({ name: 'Nuestra Candidata', isOwn: true, profiles: [{ platform: 'x', handle: 'nuestra' }] });
    expectProblem(await app.http.post(`${base}/competitors`).set(manager.auth).send({ name: 'Otra nuestra', isOwn: true }), 409, 'own_taken');
    const patched = await app.http.patch(`${base}/competitors/${ours.id}`).set(manager.auth).send({ notes: 'Alcaldía 2027' }).expect(200);
    expect(patched.body).toMatchObject({ notes: 'Alcaldía 2027', isOwn: true });
    expectProblem(await app.http.patch(`${base}/competitors/${ours.id}`).set(manager.auth).send({}), 400);
    expectProblem(await app.http.patch(`${base}/competitors/00000000-0000-7000-8000-000000000000`).set(manager.auth).send({ notes: 'x' }), 404);
    const added = await app.http.post(`${base}/competitors/${ours.id}/profiles`).set(manager.auth).send({ platform: 'tiktok', handle: '@nuestra' }).expect(201);
    expect(added.body).toMatchObject({ platform: 'tiktok', handle: 'nuestra', source: 'import' });
    expectProblem(await app.http.post(`${base}/competitors/${ours.id}/profiles`).set(manager.auth).send({ platform: 'tiktok', handle: 'nuestra' }), 409, 'profile_taken');
    await app.http.delete(`${base}/competitors/${ours.id}/profiles/${added.body.id}`).set(manager.auth).expect(204);
    expectProblem(await app.http.delete(`${base}/competitors/${ours.id}/profiles/${added.body.id}`).set(manager.auth), 404);
  });
});

describe('import', () => {
  let rivalId: string;
  beforeAll(async () => {
    rivalId = (await competitor({ name: 'Importado', profiles: [{ platform: 'tiktok', handle: 'importado' }] })).id;
  });

  it('imports JSON idempotently, and a later capture adds a snapshot', async () => {
    const rows = [
      {
        platform: 'tiktok',
        handle: '@importado',
        postId: 'tt-1',
        publishedAt: hoursAgo(30),
        text: 'Gran jornada en el barrio',
        likes: 10,
        comments: 2,
        shares: 1,
        views: 300,
        capturedAt: hoursAgo(29),
      },
      { platform: 'tiktok', competitorId: rivalId, postId: 'tt-2', publishedAt: hoursAgo(28), text: 'Otro video', likes: 5, capturedAt: hoursAgo(27) },
    ];
    const first = await importPosts(rows).expect(200);
    expect(first.body).toEqual({ created: 2, updated: 0, snapshots: 2, rejected: [] });
    const posts = await count('social_posts');
    const snapshots = await count('social_post_snapshots');
    const again = await importPosts(rows).expect(200);
    expect(again.body).toEqual({ created: 0, updated: 2, snapshots: 0, rejected: [] });
    expect(await count('social_posts')).toBe(posts);
    expect(await count('social_post_snapshots')).toBe(snapshots);
    const later = await importPosts([{ ...rows[0], likes: 50, capturedAt: hoursAgo(2) }]).expect(200);
    expect(later.body).toEqual({ created: 0, updated: 1, snapshots: 1, rejected: [] });
    // An older export imported late adds its point to the series but does not roll the post back.
    await importPosts([{ ...rows[0], likes: 20, capturedAt: hoursAgo(10) }]).expect(200);
    const list = await app.http.get(`${base}/posts?competitorId=${rivalId}&platform=tiktok`).set(viewer.auth).expect(200);
    const post = list.body.data.find((row: { platformPostId: string }) => row.platformPostId === 'tt-1');
    expect(post).toMatchObject({ likes: 50, engagement: 53 });
    const detail = await app.http.get(`${base}/posts/${post.id}`).set(viewer.auth).expect(200);
    expect(detail.body.snapshots.map((row: { likes: number }) => row.likes)).toEqual([10, 20, 50]);
  });

  it('imports CSV with the same columns', async () => {
    const csv = ['platform,handle,postId,publishedAt,text,likes,comments,shares,views', `tiktok,importado,tt-csv,${hoursAgo(5)},"Hola, Bogotá",7,1,0,100`].join('\n');
    const response = await app.http.post(`${base}/posts/import`).set(manager.auth).set('Content-Type', 'text/csv').send(csv).expect(200);
    expect(response.body).toEqual({ created: 1, updated: 0, snapshots: 1, rejected: [] });
    expectProblem(await app.http.post(`${base}/posts/import`).set(manager.auth).set('Content-Type', 'text/csv').send('platform,postId\n"tiktok,unclosed'), 400, 'malformed_csv');
  });

  it('reports bad rows by index and keeps the rest', async () => {
    const response = await importPosts([
      { platform: 'tiktok', handle: 'importado', publishedAt: hoursAgo(3), text: 'sin id' },
      { platform: 'tiktok', handle: 'importado', postId: 'ok-1', publishedAt: hoursAgo(3), text: 'bien' },
      { platform: 'tiktok', handle: 'importado', postId: 'absurd', publishedAt: hoursAgo(3), likes: 1e13 },
      { platform: 'tiktok', handle: 'importado', postId: 'negative', publishedAt: hoursAgo(3), likes: -4 },
      { platform: 'tiktok', competitorId: '00000000-0000-7000-8000-000000000000', postId: 'orphan', publishedAt: hoursAgo(3) },
      { platform: 'tiktok', handle: 'nobody', postId: 'x', publishedAt: hoursAgo(3) },
      { platform: 'myspace', handle: 'importado', postId: 'y', publishedAt: hoursAgo(3) },
      { platform: 'tiktok', handle: 'importado', postId: 'future', publishedAt: new Date(Date.now() + 3 * 86_400_000).toISOString() },
      { platform: 'tiktok', handle: 'importado', postId: 'early', publishedAt: hoursAgo(3), capturedAt: hoursAgo(4) },
      'not an object',
    ]).expect(200);
    expect(response.body.created).toBe(1);
    expect(response.body.rejected.map((row: { index: number }) => row.index)).toEqual([0, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(response.body.rejected[0].reason).toMatch(/postId/);
    expect(response.body.rejected[1].reason).toMatch(/likes/);
  });

  it('refuses an empty body, a non-array and a body over 20 MB', async () => {
    expectProblem(await app.http.post(`${base}/posts/import`).set(manager.auth).send({ posts: [] }), 400);
    expectProblem(await app.http.post(`${base}/posts/import`).set(manager.auth).send({ posts: 'x' }), 400);
    const big = JSON.stringify({ posts: [{ platform: 'tiktok', handle: 'importado', postId: 'big', publishedAt: hoursAgo(1), text: 'x'.repeat(50 * 1024 * 1024) }] });
    expectProblem(await app.http.post(`${base}/posts/import`).set(manager.auth).set('Content-Type', 'application/json').send(big), 413);
    expectProblem(
      await app.http
        .post(`${base}/posts/import`)
        .set(manager.auth)
        .set('Content-Type', 'text/csv')
        .send(`platform\n${'x'.repeat(21 * 1024 * 1024)}`),
      413,
    );
    expectProblem(
      await app.http
        .post(`${base}/posts/import`)
        .set(viewer.auth)
        .send({ posts: [{}] }),
      403,
    );
  });
});

describe('alerts', () => {
  let rivalId: string;
  beforeAll(async () => {
    rivalId = (await competitor({ name: 'Despegue', profiles: [{ platform: 'tiktok', handle: 'despegue' }] })).id;
    // Ten earlier posts with steady engagement: the trailing baseline.
    await importPosts(
      Array.from({ length: 10 }, (_, index) => ({
        platform: 'tiktok',
        handle: 'despegue',
        postId: `base-${index}`,
        publishedAt: hoursAgo(24 * (index + 2)),
        text: 'Recorrido',
        likes: 100 + (index % 3) * 10,
        comments: 10,
        shares: 5,
        capturedAt: hoursAgo(20),
      })),
    ).expect(200);
  });

  async function alertsOf(kind: string): Promise<{ id: string; postId: string; details: Record<string, unknown>; title: string }[]> {
    const response = await app.http.get(`${base}/alerts?kind=${kind}&competitorId=${rivalId}&limit=200`).set(viewer.auth).expect(200);
    return response.body.data;
  }

  it('raises a spike exactly once as a post grows past its baseline', async () => {
    const post = { platform: 'tiktok', handle: 'despegue', postId: 'viral', publishedAt: hoursAgo(6), text: 'Video del debate' };
    await importPosts([{ ...post, likes: 90, comments: 10, shares: 5, capturedAt: hoursAgo(5) }]).expect(200);
    expect(await alertsOf('engagement_spike')).toHaveLength(0);
    await importPosts([{ ...post, likes: 2000, comments: 300, shares: 200, capturedAt: hoursAgo(3) }]).expect(200);
    await importPosts([{ ...post, likes: 5000, comments: 600, shares: 400, capturedAt: hoursAgo(1) }]).expect(200);
    await importPosts([{ ...post, likes: 5000, comments: 600, shares: 400, capturedAt: hoursAgo(1) }]).expect(200);
    const spikes = await alertsOf('engagement_spike');
    expect(spikes).toHaveLength(1);
    expect(spikes[0]!.details).toMatchObject({ measure: 'engagement', value: 2500, baselinePosts: 10 });
    expect(Number(spikes[0]!.details.zScore)).toBeGreaterThan(2.5);
  });

  it('raises keyword alerts for a rule created by a manager, accent- and case-insensitive', async () => {
    const rule = await app.http
      .post(`${base}/alert-rules`)
      .set(manager.auth)
      .send({ kind: 'keyword', name: 'Reforma', severity: 'critical', params: { keywords: ['reforma tributaria', 'escándalo'] } })
      .expect(201);
    expect(rule.body.params).toEqual({ keywords: ['reforma tributaria', 'escándalo'], includeOwnNames: false });
    await importPosts([{ platform: 'tiktok', handle: 'despegue', postId: 'kw-1', publishedAt: hoursAgo(1), text: '¡No a la REFORMA TRIBUTARIA! Qué escandalo' }]).expect(200);
    await importPosts([{ platform: 'tiktok', handle: 'despegue', postId: 'kw-2', publishedAt: hoursAgo(1), text: 'Reformas al parque' }]).expect(200);
    const alerts = (await alertsOf('keyword')).filter((alert) => alert.details.matched);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.details.matched).toEqual(['reforma tributaria', 'escándalo']);
    expectProblem(
      await app.http
        .post(`${base}/alert-rules`)
        .set(manager.auth)
        .send({ kind: 'keyword', name: 'Vacía', severity: 'info', params: { keywords: [] } }),
      400,
    );
    expectProblem(await app.http.post(`${base}/alert-rules`).set(manager.auth).send({ kind: 'weather', name: 'x', severity: 'info' }), 400);
    expectProblem(
      await app.http
        .patch(`${base}/alert-rules/${rule.body.id}`)
        .set(manager.auth)
        .send({ params: { keywords: 'x' } }),
      400,
    );
    const disabled = await app.http.patch(`${base}/alert-rules/${rule.body.id}`).set(manager.auth).send({ enabled: false }).expect(200);
    expect(disabled.body.enabled).toBe(false);
    await app.http.delete(`${base}/alert-rules/${rule.body.id}`).set(manager.auth).expect(204);
  });

  it('raises a follower surge once per profile and day, from the followers imports state', async () => {
    const surging = await competitor({ name: 'Seguidores', profiles: [{ platform: 'tiktok', handle: 'seguidores' }] });
    // Captures a minute apart just after local midnight, so they fall on one local day whenever the test runs.
    const midnight = instantAt(localClock(new Date(), 'America/Bogota').date, 0, 'America/Bogota').getTime();
    const at = (offsetMs: number) => new Date(midnight + offsetMs).toISOString();
    const row = (postId: string, followers: number, capturedAt: string) => ({
      platform: 'tiktok',
      handle: 'seguidores',
      postId,
      publishedAt: at(-40 * 3_600_000),
      followers,
      capturedAt,
    });
    await importPosts([row('f-1', 10_000, at(-30 * 3_600_000))]).expect(200);
    await importPosts([row('f-1', 10_200, at(30_000))]).expect(200);
    const quiet = await app.http.get(`${base}/alerts?kind=follower_change&competitorId=${surging.id}`).set(viewer.auth).expect(200);
    expect(quiet.body.data).toHaveLength(0);
    await importPosts([row('f-1', 11_000, at(60_000))]).expect(200);
    await importPosts([row('f-1', 11_100, at(120_000))]).expect(200);
    const alerts = await app.http.get(`${base}/alerts?kind=follower_change&competitorId=${surging.id}`).set(viewer.auth).expect(200);
    expect(alerts.body.data).toHaveLength(1);
    expect(alerts.body.data[0].details).toMatchObject({ direction: 'surge', percent: 10, followers: 11_000, referenceFollowers: 10_000 });
    // Growth on the dashboard: against the newest count at least 7 days old.
    await importPosts([{ platform: 'tiktok', handle: 'seguidores', postId: 'f-old', publishedAt: hoursAgo(24 * 9), followers: 9_000, capturedAt: hoursAgo(24 * 8) }]).expect(200);
    const dashboard = await app.http.get(`${base}/dashboard?days=30`).set(viewer.auth).expect(200);
    const figures = dashboard.body.competitors.find((item: { id: string }) => item.id === surging.id);
    expect(figures.followers).toEqual([{ platform: 'tiktok', followers: 11_100, growth7d: { absolute: 2_100, percent: 23.33 }, growth30d: null }]);
    expectProblem(await app.http.get(`${base}/dashboard?days=365`).set(viewer.auth), 400);
  });

  it('raises one alert when the conversation about us turns negative', async () => {
    // Our candidate is the one registered in 'keeps one "we"' above.
    const own = (await app.http.get(`${base}/competitors?limit=200`).set(viewer.auth)).body.data.find((row: { isOwn: boolean }) => row.isOwn);
    expect(own).toBeDefined();
    const critic = await competitor({ name: 'Crítico', profiles: [{ platform: 'tiktok', handle: 'critico' }] });
    const texts = ['horrible', 'pésima y mentirosa', 'terrible gestión', 'un fracaso total', 'qué vergüenza, malísima', 'buen día'];
    await importPosts(
      texts.map((text, index) => ({ platform: 'tiktok', handle: 'critico', postId: `neg-${index}`, publishedAt: hoursAgo(1 + index / 10), text: `${own.name}: ${text}` })),
    ).expect(200);
    await importPosts([{ platform: 'tiktok', handle: 'critico', postId: 'neg-late', publishedAt: hoursAgo(0.2), text: `${own.name}, terrible` }]).expect(200);
    const alerts = await app.http.get(`${base}/alerts?kind=negative_sentiment`).set(viewer.auth).expect(200);
    expect(alerts.body.data).toHaveLength(1);
    expect(alerts.body.data[0]).toMatchObject({ severity: 'critical', competitorId: null });
    expect(alerts.body.data[0].details.posts).toBeGreaterThanOrEqual(5);
    const mentions = await app.http.get(`${base}/alerts?kind=keyword&competitorId=${critic.id}`).set(viewer.auth).expect(200);
    expect(mentions.body.data.length).toBeGreaterThanOrEqual(6);
  });

  it('lets screens mark alerts seen or dismissed and filter by state', async () => {
    const [alert] = await alertsOf('new_post');
    expect(alert).toBeDefined();
    const seen = await app.http.patch(`${base}/alerts/${alert!.id}`).set(viewer.auth).send({ state: 'seen' }).expect(200);
    expect(seen.body).toMatchObject({ state: 'seen', seenBy: viewer.id });
    const listed = await app.http.get(`${base}/alerts?state=seen`).set(viewer.auth).expect(200);
    expect(listed.body.data.map((row: { id: string }) => row.id)).toContain(alert!.id);
    expectProblem(await app.http.patch(`${base}/alerts/${alert!.id}`).set(viewer.auth).send({ state: 'archived' }), 400);
    expectProblem(await app.http.get(`${base}/alerts?from=2026-02-01&to=2026-01-01`).set(viewer.auth), 400);
  });
});

describe('posts list and comparison', () => {
  let a: string;
  let b: string;
  const day = (offset: number, hour = 15) => {
    const date = new Date();
    date.setUTCDate(date.getUTCDate() - offset);
    date.setUTCHours(hour, 0, 0, 0);
    return date.toISOString();
  };
  beforeAll(async () => {
    a = (await competitor({ name: 'Comparada A', profiles: [{ platform: 'tiktok', handle: 'comp_a' }] })).id;
    b = (await competitor({ name: 'Comparada B', profiles: [{ platform: 'tiktok', handle: 'comp_b' }] })).id;
    await importPosts([
      {
        platform: 'tiktok',
        handle: 'comp_a',
        postId: 'ca-1',
        publishedAt: day(3),
        text: 'Apoyamos las reformas al transporte, excelente propuesta',
        likes: 100,
        comments: 20,
        shares: 30,
        followers: 1000,
        capturedAt: day(3, 20),
      },
      {
        platform: 'tiktok',
        handle: 'comp_a',
        postId: 'ca-2',
        publishedAt: day(3, 16),
        text: 'Una propuesta terrible y corrupta',
        likes: 50,
        followers: 1000,
        capturedAt: day(3, 20),
      },
      {
        platform: 'tiktok',
        handle: 'comp_b',
        postId: 'cb-1',
        publishedAt: day(3),
        text: 'Hoy caminamos por Suba',
        likes: 50,
        comments: 0,
        shares: 0,
        followers: 4000,
        capturedAt: day(3, 20),
      },
      { platform: 'tiktok', handle: 'comp_b', postId: 'cb-2', publishedAt: day(2), text: 'Gracias Kennedy', likes: 200, followers: 5000, capturedAt: day(2, 20) },
    ]).expect(200);
  });

  it('filters by full text in Spanish, sentiment and engagement, sorted and paged', async () => {
    const text = await app.http.get(`${base}/posts?q=reforma&competitorId=${a}`).set(viewer.auth).expect(200);
    expect(text.body.data.map((row: { platformPostId: string }) => row.platformPostId)).toEqual(['ca-1']);
    const top = await app.http.get(`${base}/posts?sort=engagement&limit=2&platform=tiktok&minEngagement=100`).set(viewer.auth).expect(200);
    expect(top.body.data.map((row: { engagement: number }) => row.engagement)).toEqual(
      [...top.body.data.map((row: { engagement: number }) => row.engagement)].sort((x, y) => y - x),
    );
    expect(top.body.nextCursor).toEqual(expect.any(String));
    const next = await app.http
      .get(`${base}/posts?sort=engagement&limit=2&platform=tiktok&minEngagement=100&cursor=${encodeURIComponent(top.body.nextCursor)}`)
      .set(viewer.auth)
      .expect(200);
    expect(next.body.data.every((row: { engagement: number }) => row.engagement <= top.body.data[1].engagement)).toBe(true);
    const recent = (await app.http.get(`${base}/posts?platform=tiktok`).set(viewer.auth).expect(200)).body.data.map((row: { id: string }) => row.id);
    const firstTwo = await app.http.get(`${base}/posts?platform=tiktok&limit=2`).set(viewer.auth).expect(200);
    const rest = await app.http
      .get(`${base}/posts?platform=tiktok&cursor=${encodeURIComponent(firstTwo.body.nextCursor)}`)
      .set(viewer.auth)
      .expect(200);
    expect([...firstTwo.body.data, ...rest.body.data].map((row: { id: string }) => row.id)).toEqual(recent);
    const negative = await app.http.get(`${base}/posts?sentiment=negative&competitorId=${a}`).set(viewer.auth).expect(200);
    expect(negative.body.data.map((row: { platformPostId: string }) => row.platformPostId)).toEqual(['ca-2']);
    expectProblem(await app.http.get(`${base}/posts?sort=random`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/posts?cursor=garbage`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/posts?from=2026-03-01&to=2026-02-01`).set(viewer.auth), 400);
  });

  it('computes series per competitor that match the hand-computed values', async () => {
    const query = `from=${day(3, 0).slice(0, 10)}&to=${day(2, 0).slice(0, 10)}&interval=day&platform=tiktok`;
    const series = async (metric: string) => {
      const response = await app.http.get(`${base}/comparison?metric=${metric}&${query}`).set(viewer.auth).expect(200);
      const of = (id: string) => response.body.series.find((row: { competitorId: string }) => row.competitorId === id).values;
      return { a: of(a), b: of(b), body: response.body };
    };
    const engagement = await series('engagement');
    expect(engagement.body.buckets).toHaveLength(2);
    expect(engagement.a).toEqual([200, 0]);
    expect(engagement.b).toEqual([50, 200]);
    expect((await series('posts')).a).toEqual([2, 0]);
    const rate = await series('engagementRate');
    expect(rate.a).toEqual([10, null]); // (150/1000 + 50/1000) / 2 × 100
    expect(rate.b).toEqual([1.25, 4]);
    const followers = await series('followers');
    expect(followers.b).toEqual([4000, 5000]);
    const summaryB = followers.body.summary.find((row: { competitorId: string }) => row.competitorId === b);
    expect(summaryB).toMatchObject({ latest: 5000, change: 1000, changePercent: 25 });
    const sentiment = await series('sentiment');
    expect(sentiment.a[0]).toBe(0); // one positive, one negative
    const voice = await series('shareOfVoice');
    // Their engagement over everyone's that day (other tests' competitors post too).
    const totalFirstDay = engagement.body.series.reduce((sum: number, row: { values: number[] }) => sum + row.values[0]!, 0);
    expect(voice.a[0]).toBeCloseTo((200 / totalFirstDay) * 100, 1);
    expect(voice.body.series.reduce((sum: number, row: { values: (number | null)[] }) => sum + (row.values[0] ?? 0), 0)).toBeCloseTo(100, 0);

    // The daily rollup the comparison reads agrees with a recount of the posts, also after a rebuild in another zone.
    const recount = sql`select competitor_id, platform, to_char(published_at at time zone 'America/Bogota', 'YYYY-MM-DD') as day, count(*)::int as posts,
      sum(engagement)::float8 as engagement, count(*) filter (where sentiment_label = 'negative')::int as negative from social_posts group by 1, 2, 3 order by 1, 2, 3`;
    const rollup = sql`select competitor_id, platform, day, posts, engagement::float8 as engagement, negative from social_daily_posts where posts <> 0 order by 1, 2, 3`;
    const db = app.runtime.deps.db;
    expect(await db.rows(rollup)).toEqual(await db.rows(recount));
    expect(await ensureRollupZone(db, 'Asia/Tokyo')).toBe(true);
    expect(await ensureRollupZone(db, 'America/Bogota')).toBe(true);
    expect(await ensureRollupZone(db, 'America/Bogota')).toBe(false);
    expect(await db.rows(rollup)).toEqual(await db.rows(recount));
    const lastOfDay = sql`select distinct on (profile_id, day) profile_id, day, followers::float8 as followers
      from (select profile_id, to_char(captured_at at time zone 'America/Bogota', 'YYYY-MM-DD') as day, captured_at, followers from social_follower_snapshots) x
      order by profile_id, day, captured_at desc`;
    const dailyFollowers = sql`select profile_id, day, followers::float8 as followers from social_daily_followers order by profile_id, day`;
    expect(await db.rows(dailyFollowers)).toEqual(await db.rows(lastOfDay));

    expectProblem(await app.http.get(`${base}/comparison?metric=followers&interval=year`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/comparison?metric=likes`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/comparison?metric=posts&from=2026-05-01&to=2026-04-01`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/comparison?metric=posts&from=2020-01-01&to=2026-01-01`).set(viewer.auth), 400);
  });
});

describe('connectors and the poller', () => {
  it('fetches an X profile: followers, posts and the dashboard', async () => {
    const user = fake.x.addUser({ id: '5001', username: 'RivalX', name: 'Rival X', followers: 12000 });
    for (let index = 0; index < 3; index++)
      fake.x.addPost(user.id, {
        id: `90${index}`,
        text: `Propuesta ${index}`,
        createdAt: new Date(Date.now() - (index + 1) * 3_600_000),
        likes: 10 * index,
        replies: 1,
        retweets: 2,
        quotes: 0,
      });
    const created = await competitor({ name: 'Rival X', profiles: [{ platform: 'x', handle: '@RivalX' }] });
    const profileId = created.profiles[0]!.id;
    const outcome = await fetchProfile(app.runtime.deps, profileId);
    expect(outcome).toMatchObject({ status: 'fetched', posts: 3, followers: 12000 });
    const dashboard = await app.http.get(`${base}/dashboard`).set(viewer.auth).expect(200);
    const row = dashboard.body.competitors.find((item: { id: string }) => item.id === created.id);
    expect(row.followers).toEqual([{ platform: 'x', followers: 12000, growth7d: null, growth30d: null }]);
    expect(row.posts).toBe(3);
    expect(row.profiles[0]).toMatchObject({ status: 'ok', platformId: '5001', displayName: 'Rival X' });
    expect(dashboard.body.connectors.find((item: { platform: string }) => item.platform === 'instagram')).toMatchObject({
      status: 'not_configured',
      quota: { used: 0, budget: null },
    });
    expect(dashboard.body.connectors.find((item: { platform: string }) => item.platform === 'tiktok')).toMatchObject({ status: 'import_only', quota: null });
  });

  it('waits out a 429 until the reset the headers give, and recovers after a 500', async () => {
    fake.x.addUser({ id: '5002', username: 'limitada', name: 'Limitada', followers: 10 });
    const profileId = (await competitor({ name: 'Limitada', profiles: [{ platform: 'x', handle: 'limitada' }] })).profiles[0]!.id;
    const resetAt = new Date(Math.ceil((Date.now() + 15 * 60_000) / 1000) * 1000);
    fake.failNext('x', 1, '429', { resetAt });
    expect(await fetchProfile(app.runtime.deps, profileId)).toMatchObject({ status: 'waiting', until: resetAt });
    let profile = (await app.http.get(`${base}/dashboard`).set(viewer.auth)).body.competitors
      .flatMap((row: { profiles: object[] }) => row.profiles)
      .find((row: { id: string }) => row.id === profileId);
    expect(profile).toMatchObject({ nextFetchAt: resetAt.toISOString() });
    expect(await sweepDueProfiles(app.runtime.deps)).not.toContain(profileId);
    fake.failNext('x', 1, '500');
    expect(await fetchProfile(app.runtime.deps, profileId)).toMatchObject({ status: 'failed', failure: 'transient', paused: false });
    expect(await fetchProfile(app.runtime.deps, profileId)).toMatchObject({ status: 'fetched' });
    profile = (await app.http.get(`${base}/competitors`).set(viewer.auth)).body.data
      .flatMap((row: { profiles: object[] }) => row.profiles)
      .find((row: { id: string }) => row.id === profileId);
    expect(profile).toMatchObject({ status: 'ok', lastError: null });
  });

  it('pauses a profile whose token expired, with the reason, until staff fetch it again', async () => {
    fake.x.addUser({ id: '5003', username: 'caducada', name: 'Caducada', followers: 10 });
    const profileId = (await competitor({ name: 'Caducada', profiles: [{ platform: 'x', handle: 'caducada' }] })).profiles[0]!.id;
    fake.failNext('x', 1, 'expired_token');
    expect(await fetchProfile(app.runtime.deps, profileId)).toMatchObject({ status: 'failed', failure: 'auth', paused: true });
    expect(await fetchProfile(app.runtime.deps, profileId)).toEqual({ status: 'paused' });
    const listed = (await app.http.get(`${base}/competitors`).set(viewer.auth)).body.data.flatMap((row: { profiles: object[] }) => row.profiles);
    expect(listed.find((row: { id: string }) => row.id === profileId)).toMatchObject({ status: 'paused', pausedReason: expect.stringMatching(/./) });
    const fetched = await app.http.post(`${base}/profiles/${profileId}/fetch`).set(manager.auth).expect(200);
    expect(fetched.body).toMatchObject({ outcome: { status: 'fetched' }, profile: { status: 'ok', pausedReason: null } });
    expectProblem(await app.http.post(`${base}/profiles/${profileId}/fetch`).set(viewer.auth), 403);
  });

  it('stops at the YouTube quota and waits for its reset', async () => {
    const channel = fake.youtube.addChannel({ id: 'UCquotaquotaquotaquota00', title: 'Canal', subscribers: 500 });
    fake.youtube.addVideo(channel.id, { id: 'vid1', title: 'Debate', publishedAt: new Date(Date.now() - 3_600_000), views: 100 });
    const profileId = (await competitor({ name: 'Canal', profiles: [{ platform: 'youtube', handle: channel.id }] })).profiles[0]!.id;
    fake.failNext('youtube', 1, 'quota');
    const outcome = await fetchProfile(app.runtime.deps, profileId);
    expect(outcome).toMatchObject({ status: 'waiting' });
    expect((outcome as { until: Date }).until.getTime()).toBeGreaterThan(Date.now());
    // The campaign's own budget (40 units here) stops fetches before the platform does, without a call.
    const period = quotaPeriod('youtube', app.runtime.deps.config.social, new Date());
    await app.runtime.deps.db.write(sql`insert into social_quota_usage (platform, period_start, used) values ('youtube', ${period.start}, 40)
      on conflict (platform, period_start) do update set used = 40`);
    const requests = fake.requests.youtube;
    const blocked = await app.http.post(`${base}/profiles/${profileId}/fetch`).set(manager.auth).expect(200);
    expect(blocked.body.outcome).toEqual({ status: 'waiting', reason: expect.stringMatching(/quota/), until: period.end.toISOString() });
    expect(fake.requests.youtube).toBe(requests);
    const dashboard = await app.http.get(`${base}/dashboard`).set(viewer.auth).expect(200);
    expect(dashboard.body.connectors.find((item: { platform: string }) => item.platform === 'youtube')).toMatchObject({ status: 'configured', quota: { used: 40, budget: 40 } });
    expectProblem(await app.http.post(`${base}/profiles/00000000-0000-7000-8000-000000000000/fetch`).set(manager.auth), 404);
  });
});

describe('live alerts across instances', () => {
  it('delivers social:alert to a screen connected to another process', async () => {
    const sibling = await app.sibling();
    const socket = io(sibling.url, { transports: ['websocket'], auth: { token: viewer.token }, reconnectionDelay: 50, forceNew: true });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    try {
      expect((await subscribe(socket, ['social'])).joined).toEqual(['social']);
      const denied = await connectSocket(sibling.url, volunteer.token);
      expect((await subscribe(denied, ['social'])).denied).toEqual([{ room: 'social', code: 'forbidden' }]);
      denied.close();
      await competitor({ name: 'En Vivo', profiles: [{ platform: 'tiktok', handle: 'en_vivo' }] });
      const arriving = nextEvent<{ kind: string; title: string }>(socket, 'social:alert');
      await importPosts([{ platform: 'tiktok', handle: 'en_vivo', postId: 'live-1', publishedAt: hoursAgo(0.1), text: 'Anuncio' }]).expect(200);
      expect(await arriving).toMatchObject({ kind: 'new_post', title: expect.stringContaining('En Vivo') });
      // A screen whose network drops for a moment gets what it missed when it reconnects.
      const missed: string[] = [];
      socket.on('social:alert', (event: { title: string }) => missed.push(event.title));
      const reconnected = new Promise<void>((resolve) => socket.io.once('reconnect', () => resolve()));
      socket.io.engine.close();
      await importPosts([{ platform: 'tiktok', handle: 'en_vivo', postId: 'live-2', publishedAt: hoursAgo(0.05), text: 'Durante el corte' }]).expect(200);
      await reconnected;
      // The missed alert is replayed as the socket reconnects.
      await until(() => missed.length > 0, 10_000, 'the missed alert');
      expect(socket.recovered).toBe(true);
      expect(missed).toEqual([expect.stringContaining('En Vivo')]);
    } finally {
      socket.close();
    }
  });
});
