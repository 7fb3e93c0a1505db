import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { seedContacts } from './setup';
import { until } from '../helpers/wait';

/**
 * What the console's campaign screens need from the API: `POST /api/whatsapp/campaigns/preview`, the
 * reachable count a campaign form shows before anything is written (counted as the campaign's
 * `audienceSize` is, with the tier and rate it would be sent at), and staff's own moves of a
 * campaign heard live by every screen following it.
 */
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let territoryId: string;
let templateId: string;

beforeAll(async () => {
  app = await startTestApp({ WHATSAPP_MESSAGING_TIER: '250', WHATSAPP_RATE_PER_SECOND: '40' });
  const admin = await registerAdmin(app);
  [manager, viewer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer')]);
  territoryId = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Suba', type: 'commune' }).expect(201)).body.id;
  await seedContacts(app, { count: 12, interests: ['salud'], territoryId });
  await seedContacts(app, { count: 5, offset: 100, interests: ['empleo'] });
  // Never opted in: not reachable by a template, whatever the segment.
  await seedContacts(app, { count: 3, offset: 200, interests: ['salud'], optIn: false });
  // Opted out after opting in.
  await seedContacts(app, { count: 2, offset: 300, interests: ['salud'] });
  await app.runtime.deps.db.write(sql`update contacts set whatsapp_opted_out_at = now() where phone in ('+573000000301', '+573000000302')`);
  const template = await app.http
    .post('/api/whatsapp/templates')
    .set(manager.auth)
    .send({ name: 'vista_previa', language: 'es', category: 'MARKETING', body: 'Hola {{1}}', examples: ['Ana'] })
    .expect(201);
  templateId = template.body.id;
  await app.runtime.deps.db.write(sql`update wa_templates set status = 'APPROVED' where id = ${templateId}::uuid`);
});
afterAll(() => app.close());

const preview = (segment: unknown, user: TestUser = manager) => app.http.post('/api/whatsapp/campaigns/preview').set(user.auth).send({ segment });

describe('campaign preview', () => {
  it('counts whom the segment reaches on WhatsApp (consent and opt-outs applied), as the campaign then counts it, writing nothing', async () => {
    const campaignsBefore = await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from wa_campaigns`);
    const answer = await preview({ interestsAny: ['salud'] }).expect(200);
    expect(answer.body).toEqual({ reachable: 12, tier: { limit: 250, usedLast24h: 0, remaining: 250 }, ratePerSecond: 40, provider: 'simulator' });
    expect((await preview({ territoryIds: [territoryId] }).expect(200)).body.reachable).toBe(12);
    expect((await preview({ territoryIds: [territoryId], interestsAny: ['empleo'] }).expect(200)).body.reachable).toBe(0);
    expect((await preview({ all: true }).expect(200)).body.reachable).toBe(17);
    expect(await app.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from wa_campaigns`)).toEqual(campaignsBefore);

    const created = await app.http
      .post('/api/whatsapp/campaigns')
      .set(manager.auth)
      .send({ name: 'Salud', templateId, variables: ['contact.firstName'], segment: { interestsAny: ['SALUD '] } })
      .expect(201);
    expect(created.body.audienceSize).toBe(answer.body.reachable);
  });

  it('refuses a segment the campaign would refuse, with the field it names', async () => {
    const names = (body: Record<string, unknown>) => (body.errors as { path: string }[]).map((error) => error.path);
    expect(names(expectProblem(await preview({}), 400))).toEqual(['body.segment']);
    expect(names(expectProblem(await preview({ territoryIds: ['no-es-un-id'] }), 400))).toEqual(['body.segment.territoryIds.0']);
    expect(names(expectProblem(await preview({ interestsAny: [] }), 400))).toEqual(['body.segment.interestsAny']);
    expect(names(expectProblem(await preview({ createdFrom: '2026-11-02T00:00:00-05:00', createdTo: '2026-11-01T00:00:00-05:00' }), 400))).toEqual(['body.segment.createdTo']);
    // A time without its offset, and a year the API's dates do not take.
    expectProblem(await preview({ createdFrom: '2026-11-01T00:00:00' }), 400);
    expectProblem(await preview({ createdFrom: '0999-11-01T00:00:00-05:00' }), 400);
    expectProblem(await app.http.post('/api/whatsapp/campaigns/preview').set(manager.auth).send({}), 400);
    expectProblem(
      await app.http
        .post('/api/whatsapp/campaigns/preview')
        .set(manager.auth)
        .send({ segment: { all: true }, extra: 1 }),
      400,
    );
    expectProblem(await app.http.post('/api/whatsapp/campaigns/preview').set(manager.auth).set('Content-Type', 'application/json').send('{"segment":'), 400);
  });

  it('is for those who create campaigns', async () => {
    expectProblem(await preview({ all: true }, viewer), 403);
    expectProblem(await app.http.post('/api/whatsapp/campaigns/preview').send({ segment: { all: true } }), 401);
  });
});

describe('staff moving a campaign', () => {
  it("is heard in the whatsapp room with its status and counters, as the sender's changes are", async () => {
    const created = await app.http
      .post('/api/whatsapp/campaigns')
      .set(manager.auth)
      .send({
        name: 'Programada',
        templateId,
        variables: ['contact.firstName'],
        segment: { interestsAny: ['empleo'] },
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      })
      .expect(201);
    const id = created.body.id as string;
    const socket = await connectSocket(app.url, viewer.token);
    const heard: string[] = [];
    socket.on('whatsapp:status', (event: { campaigns: { campaignId: string; status: string; progress: { queued: number } }[] }) => {
      for (const item of event.campaigns) if (item.campaignId === id) heard.push(item.status);
    });
    try {
      expect((await subscribe(socket, ['whatsapp'])).joined).toEqual(['whatsapp']);
      await app.http.post(`/api/whatsapp/campaigns/${id}/pause`).set(manager.auth).expect(200);
      await until(() => (heard.includes('paused') ? true : undefined));
      await app.http.post(`/api/whatsapp/campaigns/${id}/resume`).set(manager.auth).expect(200);
      await until(() => (heard.includes('scheduled') ? true : undefined));
      await app.http.post(`/api/whatsapp/campaigns/${id}/cancel`).set(manager.auth).expect(200);
      await until(() => (heard.includes('cancelled') ? true : undefined));
    } finally {
      socket.disconnect();
    }
  });
});
