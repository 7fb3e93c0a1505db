import { SOCIAL_FAKE_CREDENTIALS, startSocialFake, type SocialFake } from '../fakes/social-apis';
import { startTestApp, type TestApp } from '../helpers/app';
import { settled } from '../helpers/settle';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let fake: SocialFake;
let manager: TestUser;

beforeAll(async () => {
  fake = await startSocialFake();
  // Workers on: the sweeper finds due profiles every second and the jobs fetch them.
  app = await startTestApp({ SOCIAL_X_BASE_URL: `${fake.url}/x/2`, SOCIAL_X_BEARER_TOKEN: SOCIAL_FAKE_CREDENTIALS.xBearerToken, SOCIAL_SWEEP_INTERVAL: '1' });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

it('polls a new profile on its own: the sweep claims it once and a job fetches it', async () => {
  const user = fake.x.addUser({ id: '7001', username: 'sola', name: 'Sola', followers: 321 });
  fake.x.addPost(user.id, { id: '7001001', text: 'Primera publicación', createdAt: new Date(Date.now() - 600_000), likes: 4 });
  const created = await app.http
    .post('/api/social-monitoring/competitors')
    .set(manager.auth)
    .send({ name: 'Sola', profiles: [{ platform: 'x', handle: 'sola' }] })
    .expect(201);
  const posts = await until(async () => {
    const response = await app.http.get(`/api/social-monitoring/posts?competitorId=${created.body.id}`).set(manager.auth).expect(200);
    return response.body.data.length ? response.body.data : undefined;
  });
  expect(posts).toEqual([expect.objectContaining({ platformPostId: '7001001', likes: 4, engagementRate: expect.closeTo((4 / 321) * 100, 5) })]);
  // The fetch records its success on the profile just after writing the posts.
  const profile = await until(async () => {
    const found = (await app.http.get(`/api/social-monitoring/competitors/${created.body.id}`).set(manager.auth)).body.profiles[0];
    return found.status === 'ok' ? found : undefined;
  });
  expect(profile).toMatchObject({ status: 'ok', followers: 321 });
  // Next fetch after the platform's interval, not at the next sweep.
  expect(Date.parse(profile.nextFetchAt) - Date.now()).toBeGreaterThan(10 * 60_000);
  const lookups = fake.log.filter((entry) => entry.path.includes('/users/by/username/sola')).length;
  // A profile added now is due at once: once its posts are in, a sweep ran after Sola's fetch and
  // would have claimed Sola too had it been due; settled() lets whatever that sweep queued finish.
  const witness = fake.x.addUser({ id: '7002', username: 'testigo', name: 'Testigo', followers: 12 });
  fake.x.addPost(witness.id, { id: '7002001', text: 'Otra publicación', createdAt: new Date(Date.now() - 600_000), likes: 1 });
  const other = await app.http
    .post('/api/social-monitoring/competitors')
    .set(manager.auth)
    .send({ name: 'Testigo', profiles: [{ platform: 'x', handle: 'testigo' }] })
    .expect(201);
  await until(
    async () => (await app.http.get(`/api/social-monitoring/posts?competitorId=${other.body.id}`).set(manager.auth).expect(200)).body.data.length > 0,
    10_000,
    "the witness's posts",
  );
  await settled([app]);
  expect(fake.log.filter((entry) => entry.path.includes('/users/by/username/sola')).length).toBe(lookups);
});
