import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

// What the console's social screens need from the API: editing a profile, the feed's alert filter
// and accent-insensitive search, and alerts that arrive with their reasons.

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;

const base = '/api/social-monitoring';
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
const missing = '00000000-0000-7000-8000-000000000000';

beforeAll(async () => {
  // No connector credentials: X profiles are `not_configured`, TikTok ones import-only.
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  volunteer = await createUser(app, admin, 'volunteer');
});
afterAll(async () => {
  await app.close();
});

interface Profile {
  id: string;
  platform: string;
  handle: string;
  url: string | null;
  source: string;
  status: string;
  pausedReason: string | null;
  lastError: string | null;
  platformId: string | null;
  nextFetchAt: string | null;
}

async function competitor(body: object): Promise<{ id: string; profiles: Profile[] }> {
  const response = await app.http.post(`${base}/competitors`).set(manager.auth).send(body);
  expect(response.status).toBe(201);
  return response.body;
}

const importPosts = (posts: unknown[]) => app.http.post(`${base}/posts/import`).set(manager.auth).send({ posts });

describe('PATCH a profile', () => {
  let rival: { id: string; profiles: Profile[] };
  let x: Profile;
  let tiktok: Profile;
  const path = (profileId: string, competitorId = rival.id) => `${base}/competitors/${competitorId}/profiles/${profileId}`;

  beforeAll(async () => {
    rival = await competitor({
      name: 'Perfil Editable',
      profiles: [
        { platform: 'x', handle: 'editable_old' },
        { platform: 'tiktok', handle: 'editable_tt' },
      ],
    });
    x = rival.profiles.find((profile) => profile.platform === 'x')!;
    tiktok = rival.profiles.find((profile) => profile.platform === 'tiktok')!;
    await competitor({ name: 'Dueño del handle', profiles: [{ platform: 'x', handle: 'ya_tomado' }] });
  });

  it('takes a new handle in any accepted form, clears what was learnt about the old one, keeps the row', async () => {
    await app.runtime.deps.db.write(sql`update social_profiles set paused_reason = 'Unknown handle', last_error = 'Unknown handle', consecutive_failures = 3,
      platform_id = '42', next_fetch_at = null where id = ${x.id}::uuid`);
    const changed = await app.http.patch(path(x.id)).set(manager.auth).send({ handle: 'https://twitter.com/Editable_New' }).expect(200);
    expect(changed.body).toMatchObject({
      id: x.id,
      handle: 'editable_new',
      url: 'https://x.com/editable_new',
      source: 'api',
      pausedReason: null,
      lastError: null,
      platformId: null,
    });
    expect(changed.body.nextFetchAt).toEqual(expect.any(String));
    const row = await app.runtime.deps.db.first<{ consecutive_failures: number }>(sql`select consecutive_failures from social_profiles where id = ${x.id}::uuid`);
    expect(row!.consecutive_failures).toBe(0);
    const listed = await app.http.get(`${base}/competitors/${rival.id}`).set(viewer.auth).expect(200);
    expect(listed.body.profiles.map((profile: Profile) => profile.handle)).toContain('editable_new');
  });

  it('sets and restores the URL, and switches the source', async () => {
    const custom = await app.http.patch(path(x.id)).set(manager.auth).send({ url: 'https://example.org/perfil' }).expect(200);
    expect(custom.body).toMatchObject({ handle: 'editable_new', url: 'https://example.org/perfil' });
    const restored = await app.http.patch(path(x.id)).set(manager.auth).send({ url: null }).expect(200);
    expect(restored.body.url).toBe('https://x.com/editable_new');
    const imported = await app.http.patch(path(x.id)).set(manager.auth).send({ source: 'import' }).expect(200);
    expect(imported.body).toMatchObject({ source: 'import', status: 'import_only', nextFetchAt: null });
    const polled = await app.http.patch(path(x.id)).set(manager.auth).send({ source: 'api' }).expect(200);
    expect(polled.body).toMatchObject({ source: 'api', status: 'not_configured' });
    expect(polled.body.nextFetchAt).toEqual(expect.any(String));
    // A change to what the profile already is writes nothing and answers the profile as it is.
    const same = await app.http.patch(path(x.id)).set(manager.auth).send({ source: 'api', handle: 'editable_new' }).expect(200);
    expect(same.body).toMatchObject({ handle: 'editable_new', source: 'api', nextFetchAt: polled.body.nextFetchAt });
  });

  it('answers 400 naming the field, 404 and 409 in the standard shape', async () => {
    const fieldOf = (problem: Record<string, unknown>) => (problem.errors as { path: string }[])[0]!.path;
    expect(fieldOf(expectProblem(await app.http.patch(path(x.id)).set(manager.auth).send({ handle: 'con espacios' }), 400))).toBe('body.handle');
    expect(fieldOf(expectProblem(await app.http.patch(path(x.id)).set(manager.auth).send({ handle: 'https://instagram.com/otra' }), 400))).toBe('body.handle');
    expect(fieldOf(expectProblem(await app.http.patch(path(tiktok.id)).set(manager.auth).send({ source: 'api' }), 400))).toBe('body.source');
    expect(fieldOf(expectProblem(await app.http.patch(path(x.id)).set(manager.auth).send({ url: 'ftp://x.com/a' }), 400))).toBe('body.url');
    expect(fieldOf(expectProblem(await app.http.patch(path(x.id)).set(manager.auth).send({ source: 'scraper' }), 400))).toBe('body.source');
    expectProblem(await app.http.patch(path(x.id)).set(manager.auth).send({}), 400);
    expectProblem(await app.http.patch(path(x.id)).set(manager.auth).set('content-type', 'application/json').send('{"handle":'), 400);
    expectProblem(await app.http.patch(`${base}/competitors/not-a-uuid/profiles/${x.id}`).set(manager.auth).send({ handle: 'a' }), 400);
    expectProblem(await app.http.patch(path(missing)).set(manager.auth).send({ handle: 'a' }), 404);
    // A profile is changed only through its own competitor.
    const other = await competitor({ name: 'Otro competidor' });
    expectProblem(await app.http.patch(path(x.id, other.id)).set(manager.auth).send({ handle: 'a' }), 404);
    expectProblem(await app.http.patch(path(x.id)).set(manager.auth).send({ handle: '@YA_TOMADO' }), 409, 'profile_taken');
    const unchanged = await app.http.get(`${base}/competitors/${rival.id}`).set(viewer.auth).expect(200);
    expect(unchanged.body.profiles.find((profile: Profile) => profile.id === x.id).handle).toBe('editable_new');
  });

  it('is for managers (and admins), not viewers or volunteers', async () => {
    expectProblem(await app.http.patch(path(x.id)).set(viewer.auth).send({ handle: 'a' }), 403);
    expectProblem(await app.http.patch(path(x.id)).set(volunteer.auth).send({ handle: 'a' }), 403);
    expectProblem(await app.http.patch(path(x.id)).send({ handle: 'a' }), 401);
  });

  it('is in the OpenAPI document', async () => {
    const spec = await app.http.get('/api/openapi.json').expect(200);
    const operation = spec.body.paths['/api/social-monitoring/competitors/{id}/profiles/{profileId}'].patch;
    expect(operation).toBeDefined();
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '404', '409']));
  });
});

describe('the feed: alert filter and accent-insensitive search', () => {
  let feedId: string;
  const ids = async (query: string) =>
    (await app.http.get(`${base}/posts?competitorId=${feedId}&${query}`).set(viewer.auth).expect(200)).body.data
      .map((post: { platformPostId: string }) => post.platformPostId)
      .sort();

  beforeAll(async () => {
    feedId = (await competitor({ name: 'Feed Filtrado', profiles: [{ platform: 'tiktok', handle: 'feed_filtrado' }] })).id;
    const row = (postId: string, hours: number, text: string) => ({ platform: 'tiktok', handle: 'feed_filtrado', postId, publishedAt: hoursAgo(hours), text });
    // The default new-post rule alerts on posts first seen while younger than 24 hours; older history raises nothing.
    await importPosts([
      row('nuevo', 1, 'Corrupción en la alcaldía de Medellín'),
      row('viejo', 72, 'Recorrido por Bogotá con la comunidad'),
      row('viejo-2', 80, 'CORRUPCIÓN, otra vez'),
    ]).expect(200);
  });

  it('keeps only posts that raised an alert, or only those that did not', async () => {
    expect(await ids('hasAlert=true')).toEqual(['nuevo']);
    expect(await ids('hasAlert=false')).toEqual(['viejo', 'viejo-2']);
    expect(await ids('')).toEqual(['nuevo', 'viejo', 'viejo-2']);
    expectProblem(await app.http.get(`${base}/posts?hasAlert=quizas`).set(viewer.auth), 400);
    expectProblem(await app.http.get(`${base}/posts?hasAlert=true`).set(volunteer.auth), 403);
  });

  it('finds words typed without accents or in another case', async () => {
    expect(await ids('q=corrupcion')).toEqual(['nuevo', 'viejo-2']);
    expect(await ids('q=MEDELLIN')).toEqual(['nuevo']);
    expect(await ids('q=bogota')).toEqual(['viejo']);
    expect(await ids('q=corrupcion&hasAlert=false')).toEqual(['viejo-2']);
    expectProblem(await app.http.get(`${base}/posts?q=${'a'.repeat(201)}`).set(viewer.auth), 400);
  });
});

describe('live alerts', () => {
  it('carry their reasons', async () => {
    await competitor({ name: 'Razones', profiles: [{ platform: 'tiktok', handle: 'razones' }] });
    const socket = await connectSocket(app.url, viewer.token);
    try {
      expect((await subscribe(socket, ['social'])).joined).toEqual(['social']);
      const arriving = nextEvent<{ kind: string; details: Record<string, unknown> }>(socket, 'social:alert');
      await importPosts([{ platform: 'tiktok', handle: 'razones', postId: 'razon-1', publishedAt: hoursAgo(0.2), text: 'Anuncio de campaña' }]).expect(200);
      expect(await arriving).toMatchObject({ kind: 'new_post', details: { platform: 'tiktok', excerpt: 'Anuncio de campaña' } });
    } finally {
      socket.close();
    }
  });
});
