import { addDays, todayIn } from '../../src/kernel/calendar';
import { sql } from '../../src/kernel/sql';
import { recordDailyMetrics } from '../../src/modules/popularity/popularity.daily';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let ours: string;
let rivalA: string;
let rivalB: string;

const base = '/api/popularity';
/** Days before the campaign's today (its time zone's, as the server reads dates), not UTC's. */
const daysAgo = (days: number) => addDays(todayIn(app.runtime.deps.config.timeZone), -days);

async function competitor(name: string, isOwn = false, handle?: string): Promise<string> {
  const body = { name, isOwn, profiles: handle ? [{ platform: 'tiktok', handle }] : [] };
  const response = await app.http.post('/api/social-monitoring/competitors').set(manager.auth).send(body).expect(201);
  return response.body.id;
}

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  ours = await competitor('Nuestra', true, 'nuestra_pop');
  rivalA = await competitor('Rival A', false, 'rival_a_pop');
  rivalB = await competitor('Rival B');
});
afterAll(() => app.close());

function poll(overrides: Record<string, unknown> = {}) {
  return {
    pollster: 'Invamer',
    sponsor: 'Noticias Caracol',
    fieldworkStart: daysAgo(6),
    fieldworkEnd: daysAgo(4),
    publishedAt: daysAgo(3),
    scope: 'national',
    universe: 'Personas de 18 años o más, hogares urbanos',
    sampleSize: 2000,
    method: 'face_to_face',
    probabilistic: true,
    marginOfError: 2.2,
    confidenceLevel: 95,
    question: 'Si las elecciones fueran mañana, ¿por quién votaría?',
    results: [
      { competitorId: ours, percentage: 34 },
      { competitorId: rivalA, percentage: 30 },
      { competitorId: rivalB, percentage: 12 },
      { option: 'blank', percentage: 10 },
      { option: 'undecided', percentage: 14 },
    ],
    ...overrides,
  };
}

describe('polls', () => {
  it('stores a compliant poll and flags one that breaks Ley 2494, each problem named', async () => {
    const good = await app.http.post(`${base}/polls`).set(manager.auth).send(poll()).expect(201);
    expect(good.body.compliance).toEqual({ compliant: true, problems: [] });
    const sondeo = await app.http
      .post(`${base}/polls`)
      .set(manager.auth)
      .send(poll({ pollster: 'Sondeo Web', probabilistic: false, marginOfError: 6, sampleSize: 300, method: 'online', sponsor: null }))
      .expect(201);
    expect(sondeo.body.compliance.compliant).toBe(false);
    expect(sondeo.body.compliance.problems.map((problem: { code: string }) => problem.code).sort()).toEqual([
      'margin_above_national_limit',
      'missing_sponsor',
      'not_probabilistic',
    ]);
    const flagged = await app.http.get(`${base}/polls?compliant=false`).set(viewer.auth).expect(200);
    expect(flagged.body.data.map((row: { id: string }) => row.id)).toEqual([sondeo.body.id]);
    await app.http.get(`${base}/polls/${good.body.id}`).set(viewer.auth).expect(200);
    expectProblem(await app.http.get(`${base}/polls/00000000-0000-7000-8000-000000000000`).set(viewer.auth), 404);
  });

  it('pages polls newest publication first, a page at a time, and refuses a cursor whose values do not fit', async () => {
    const all = (await app.http.get(`${base}/polls?limit=200`).set(viewer.auth).expect(200)).body.data.map((row: { id: string }) => row.id);
    expect(all.length).toBeGreaterThan(1);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await app.http
        .get(`${base}/polls?limit=1${cursor ? `&cursor=${cursor}` : ''}`)
        .set(viewer.auth)
        .expect(200);
      walked.push(...page.body.data.map((row) => row.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all);
    const edited = Buffer.from(JSON.stringify(['2026-01-01', 'not-an-id'])).toString('base64url');
    expectProblem(await app.http.get(`${base}/polls?cursor=${edited}`).set(viewer.auth), 400);
  });

  it('refuses what cannot be a poll, naming the field, and writes nothing', async () => {
    const before = (await app.http.get(`${base}/polls?limit=200`).set(viewer.auth)).body.data.length;
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          results: [
            { competitorId: ours, percentage: 70 },
            { competitorId: rivalA, percentage: 40 },
          ],
        },
        'body.results',
      ],
      [{ sampleSize: -5 }, 'body.sampleSize'],
      [{ fieldworkStart: daysAgo(2), fieldworkEnd: daysAgo(5) }, 'body.fieldworkEnd'],
      [{ marginOfError: 120 }, 'body.marginOfError'],
      [{ results: [{ competitorId: '00000000-0000-7000-8000-000000000000', percentage: 30 }] }, 'body.results.0.competitorId'],
      [
        {
          results: [
            { competitorId: ours, percentage: 30 },
            { competitorId: ours, percentage: 20 },
          ],
        },
        'body.results.1',
      ],
      [{ results: [{ competitorId: ours, option: 'blank', percentage: 30 }] }, 'body.results.0'],
      [{ scope: 'municipality' }, 'body.territoryId'],
    ];
    for (const [overrides, path] of cases) {
      const problem = expectProblem(await app.http.post(`${base}/polls`).set(manager.auth).send(poll(overrides)), 400);
      expect((problem.errors as { path: string }[]).map((error) => error.path)).toContain(path);
    }
    expectProblem(await app.http.post(`${base}/polls`).set(viewer.auth).send(poll()), 403);
    expect((await app.http.get(`${base}/polls?limit=200`).set(viewer.auth)).body.data.length).toBe(before);
  });
});

describe('metrics', () => {
  it('records one value or a batch, replacing the same key and reporting per item', async () => {
    const one = await app.http
      .post(`${base}/metrics`)
      .set(manager.auth)
      .send({ date: daysAgo(1), competitorId: ours, metric: 'favourability', value: 48, source: 'invamer' })
      .expect(200);
    expect(one.body).toEqual({ accepted: 1, updated: 0, rejected: [] });
    const batch = await app.http
      .post(`${base}/metrics`)
      .set(manager.auth)
      .send({
        metrics: [
          { date: daysAgo(1), competitorId: ours, metric: 'favourability', value: 50, source: 'invamer' },
          { date: daysAgo(1), competitorId: rivalA, metric: 'favourability', value: 41, source: 'invamer' },
          { date: daysAgo(1), competitorId: rivalA, metric: 'favourability', value: 42, source: 'invamer' },
          { date: daysAgo(1), competitorId: rivalB, metric: 'favourability', value: 130, source: 'invamer' },
          { date: daysAgo(1), competitorId: '00000000-0000-7000-8000-000000000000', metric: 'favourability', value: 40 },
          { date: daysAgo(1), competitorId: rivalB, metric: 'Favourability!', value: 40 },
          { date: daysAgo(1), competitorId: rivalB, metric: 'leads', value: 3, source: 'comando' },
          { date: daysAgo(1), competitorId: rivalB, metric: 'custom_rallies', value: 3 },
        ],
      })
      .expect(200);
    expect(batch.body.accepted).toBe(2);
    expect(batch.body.updated).toBe(1);
    expect(batch.body.rejected.map((row: { index: number }) => row.index)).toEqual([1, 3, 4, 5, 6]);
    expect(batch.body.rejected[0].reason).toMatch(/replaced by item 2/);
    const listed = await app.http.get(`${base}/metrics?competitorId=${rivalA}&metric=favourability`).set(viewer.auth).expect(200);
    expect(listed.body.data.map((row: { value: number }) => row.value)).toEqual([42]);

    const tooMany = Array.from({ length: 1001 }, () => ({ date: daysAgo(1), competitorId: ours, metric: 'leads', value: 1 }));
    expectProblem(await app.http.post(`${base}/metrics`).set(manager.auth).send({ metrics: tooMany }), 400);
    expectProblem(
      await app.http
        .post(`${base}/metrics`)
        .set(manager.auth)
        .send({ metrics: [{ metric: 'x' }] }),
      400,
    );
    expectProblem(await app.http.post(`${base}/metrics`).set(manager.auth).send({ date: 'ayer', competitorId: ours, metric: 'leads', value: 1 }), 400);
    expectProblem(
      await app.http
        .post(`${base}/metrics`)
        .set(viewer.auth)
        .send({ date: daysAgo(1), competitorId: ours, metric: 'leads', value: 1 }),
      403,
    );
    expectProblem(await app.http.get(`${base}/metrics?from=2026-05-01&to=2026-04-01`).set(viewer.auth), 400);
  });
});

describe('dashboard and score', () => {
  it('gives the poll average with bands, our lead and the composite score with edited weights', async () => {
    await app.http
      .post(`${base}/polls`)
      .set(manager.auth)
      .send(
        poll({
          pollster: 'CNC',
          fieldworkStart: daysAgo(12),
          fieldworkEnd: daysAgo(10),
          publishedAt: daysAgo(9),
          results: [
            { competitorId: ours, percentage: 31 },
            { competitorId: rivalA, percentage: 33 },
          ],
        }),
      )
      .expect(201);
    await app.http
      .post(`${base}/metrics`)
      .set(manager.auth)
      .send({ date: daysAgo(1), competitorId: ours, metric: 'unfavourability', value: 30, source: 'invamer' })
      .expect(200);
    await app.http
      .post(`${base}/metrics`)
      .set(manager.auth)
      .send({ date: daysAgo(1), competitorId: rivalA, metric: 'unfavourability', value: 45, source: 'invamer' })
      .expect(200);

    const dashboard = await app.http.get(`${base}/dashboard`).set(viewer.auth).expect(200);
    const averages = dashboard.body.pollAverage.averages;
    const ourAverage = averages.find((row: { competitorId: string }) => row.competitorId === ours);
    expect(ourAverage.average).toBeGreaterThan(31);
    expect(ourAverage.average).toBeLessThan(34);
    expect(ourAverage.low).toBeLessThan(ourAverage.average);
    expect(ourAverage.high).toBeGreaterThan(ourAverage.average);
    expect(dashboard.body.lead).toMatchObject({ ourId: ours, rivalId: rivalA });
    expect(dashboard.body.lead.low).toBeLessThan(dashboard.body.lead.lead);
    expect(dashboard.body.pollAverage.trend).toHaveLength(30);
    expect(dashboard.body.latestPolls.length).toBeGreaterThanOrEqual(2);

    // All weight on favourability net: the score is (favourability − unfavourability + 100) / 2.
    expectProblem(await app.http.put(`${base}/score-weights`).set(manager.auth).send({ pollAverage: 0, favourabilityNet: 1, engagementShare: 0, sentiment: 0, momentum: 0 }), 403);
    expectProblem(await app.http.put(`${base}/score-weights`).set(admin.auth).send({ pollAverage: 0, favourabilityNet: 0, engagementShare: 0, sentiment: 0, momentum: 0 }), 400);
    expectProblem(
      await app.http.put(`${base}/score-weights`).set(admin.auth).send({ pollAverage: 1, favourabilityNet: 0, engagementShare: 0, sentiment: 0, momentum: 0, luck: 1 }),
      400,
    );
    await app.http.put(`${base}/score-weights`).set(admin.auth).send({ pollAverage: 0, favourabilityNet: 1, engagementShare: 0, sentiment: 0, momentum: 0 }).expect(200);
    const weighted = await app.http.get(`${base}/dashboard`).set(viewer.auth).expect(200);
    const scoreOf = (id: string) => weighted.body.scores.find((row: { competitorId: string }) => row.competitorId === id);
    expect(scoreOf(ours).score).toBeCloseTo((50 - 30 + 100) / 2, 5);
    expect(scoreOf(rivalA).score).toBeCloseTo((42 - 45 + 100) / 2, 5);
    expect(scoreOf(rivalB).score).toBeNull();
    expect(scoreOf(ours).components.find((row: { component: string }) => row.component === 'favourabilityNet')).toMatchObject({ raw: 20, normalised: 60 });
    await app.http
      .put(`${base}/score-weights`)
      .set(admin.auth)
      .send({ pollAverage: 0.4, favourabilityNet: 0.2, engagementShare: 0.15, sentiment: 0.15, momentum: 0.1 })
      .expect(200);
    expectProblem(await app.http.get(`${base}/dashboard?halfLifeDays=0`).set(viewer.auth), 400);
  });
});

describe('automatic daily metrics', () => {
  it('records a day once even when two processes try at the same time', async () => {
    const day = daysAgo(2);
    await app.http
      .post('/api/social-monitoring/posts/import')
      .set(manager.auth)
      .send({
        posts: [
          {
            platform: 'tiktok',
            handle: 'nuestra_pop',
            postId: 'pop-1',
            publishedAt: `${day}T17:00:00Z`,
            text: 'Excelente jornada, gracias',
            likes: 90,
            followers: 1000,
            capturedAt: `${day}T20:00:00Z`,
          },
          {
            platform: 'tiktok',
            handle: 'rival_a_pop',
            postId: 'pop-2',
            publishedAt: `${day}T17:00:00Z`,
            text: 'Una propuesta terrible',
            likes: 10,
            followers: 500,
            capturedAt: `${day}T20:00:00Z`,
          },
        ],
      })
      .expect(200);
    // One volunteer who worked that afternoon, one who never did: the day ends with one active.
    for (const [name, phone] of [
      ['Voluntaria activa', '3001112233'],
      ['Voluntario sin actividad', '3001112244'],
    ] as const) {
      const volunteer = await app.http.post('/api/volunteers').set(manager.auth).send({ name, phone }).expect(201);
      if (name === 'Voluntaria activa') {
        await app.http
          .post('/api/volunteers/activities')
          .set(manager.auth)
          .send({ activities: [{ volunteerId: volunteer.body.id, type: 'canvassing', occurredAt: `${day}T19:00:00Z`, quantity: 30, unit: 'doors' }] })
          .expect(201);
      }
    }
    const sibling = await app.sibling();
    const claims = await Promise.all([recordDailyMetrics(app.runtime.deps, day), recordDailyMetrics(sibling.runtime.deps, day)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await recordDailyMetrics(app.runtime.deps, day)).toBe(false);
    const rows = await app.runtime.deps.db.rows<{ competitor_id: string; metric: string; value: number }>(
      sql`select competitor_id, metric, value from popularity_metrics where date = ${day} and source = 'comando' order by metric`,
    );
    const value = (competitorId: string, metric: string) => rows.find((row) => row.competitor_id === competitorId && row.metric === metric)?.value;
    expect(value(ours, 'followers')).toBe(1000);
    expect(value(ours, 'share_of_voice')).toBe(90);
    expect(value(rivalA, 'share_of_voice')).toBe(10);
    expect(value(ours, 'engagement_rate')).toBe(9);
    expect(value(ours, 'leads')).toBe(0);
    expect(value(ours, 'volunteers')).toBe(1);
    expect(value(rivalA, 'volunteers')).toBeUndefined();
    expect(value(rivalA, 'leads')).toBeUndefined();
    expect(new Set(rows.map((row) => `${row.competitor_id}|${row.metric}`)).size).toBe(rows.length);
  });
});

describe('SWOT', () => {
  it('suggests from the data, lets staff accept a suggestion once, and drops it when the data changes', async () => {
    const first = await app.http.get(`${base}/swot`).set(viewer.auth).expect(200);
    const strength = first.body.strength.suggestions.find((row: { key: string }) => row.key === 'strength:metric:favourability');
    expect(strength).toMatchObject({ quadrant: 'strength', evidence: expect.arrayContaining([expect.objectContaining({ type: 'metric' })]) });
    const lowerIsBetter = first.body.strength.suggestions.find((row: { key: string }) => row.key === 'strength:metric:unfavourability');
    expect(lowerIsBetter).toBeDefined();

    const accepted = await app.http
      .post(`${base}/swot`)
      .set(manager.auth)
      .send({ quadrant: 'strength', text: strength.text, evidence: strength.evidence, suggestionKey: strength.key })
      .expect(201);
    expectProblem(await app.http.post(`${base}/swot`).set(manager.auth).send({ quadrant: 'strength', text: 'otra vez', suggestionKey: strength.key }), 409, 'suggestion_taken');
    const after = await app.http.get(`${base}/swot`).set(viewer.auth).expect(200);
    expect(after.body.strength.items.map((row: { id: string }) => row.id)).toContain(accepted.body.id);
    expect(after.body.strength.suggestions.map((row: { key: string }) => row.key)).not.toContain(strength.key);

    // A rival overtakes us on unfavourability (lower is better): the strength disappears, a weakness does not appear (B has none).
    await app.http
      .post(`${base}/metrics`)
      .set(manager.auth)
      .send({ date: daysAgo(0), competitorId: rivalA, metric: 'unfavourability', value: 20, source: 'invamer' })
      .expect(200);
    const changed = await app.http.get(`${base}/swot`).set(viewer.auth).expect(200);
    expect(changed.body.strength.suggestions.map((row: { key: string }) => row.key)).not.toContain('strength:metric:unfavourability');
    expect(changed.body.weakness.suggestions.map((row: { key: string }) => row.key)).toContain('weakness:metric:unfavourability');

    const patched = await app.http.patch(`${base}/swot/${accepted.body.id}`).set(manager.auth).send({ text: 'Mejor imagen que los rivales' }).expect(200);
    expect(patched.body.text).toBe('Mejor imagen que los rivales');
    expectProblem(await app.http.patch(`${base}/swot/${accepted.body.id}`).set(manager.auth).send({}), 400);
    expectProblem(await app.http.post(`${base}/swot`).set(manager.auth).send({ quadrant: 'luck', text: 'x' }), 400);
    await app.http.delete(`${base}/swot/${accepted.body.id}`).set(manager.auth).expect(204);
    expectProblem(await app.http.delete(`${base}/swot/${accepted.body.id}`).set(manager.auth), 404);
  });
});
