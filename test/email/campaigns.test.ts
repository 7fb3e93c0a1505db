import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp } from '../fakes/smtp';
import { connectSocket, subscribe } from '../helpers/sockets';
import { PUBLIC_BASE, campaignBody, createCampaign, createTemplate, emailEnv, linksIn, seedContacts, query, sql, waitForCampaign } from './helpers';
import { until } from '../helpers/wait';

let smtp: FakeSmtp;
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let admin: TestUser;
let templateId: string;

beforeAll(async () => {
  smtp = await new FakeSmtp().start();
  app = await startTestApp(emailEnv(smtp.url, { EMAIL_MAX_ATTEMPTS: '3' }));
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  templateId = (await createTemplate(app, manager)).id;
  await seedContacts(app, { prefix: 'news', count: 6, interests: ['salud'] });
  await seedContacts(app, { prefix: 'noconsent', count: 2, interests: ['salud'], emailOptIn: false });
  await seedContacts(app, { prefix: 'gone', count: 2, interests: ['salud'], optedOut: true });
  // A later contact sharing news1's inbox (upper case): one message, not two; the older contact stands for the address.
  await query(
    app,
    sql`insert into contacts (id, identity_key, name, phone, email, interests, email_opt_in, created_at, updated_at)
                  values ('ffffffff-ffff-7fff-bfff-ffffffffffff', 'tel:+573001112233', 'Gemela Uno', '+573001112233', 'NEWS1@example.org', '{salud}', true, now(), now())`,
  );
});
afterAll(async () => {
  await app.close();
  await smtp.stop();
});

const post = (body: object, user: TestUser = manager) => app.http.post('/api/email-marketing/campaigns').set(user.auth).send(body);

describe('creating campaigns', () => {
  it('answers 201 with the audience: opted in, not unsubscribed, one per address', async () => {
    const response = await post(campaignBody(templateId, { segment: { interestsAny: ['salud'] } })).expect(201);
    expect(response.body).toMatchObject({ status: 'draft', audienceSize: 6, abPhase: 'none', abTest: null, variants: [{ name: 'A', templateId }] });
    const read = await app.http.get(`/api/email-marketing/campaigns/${response.body.id}`).set(viewer.auth).expect(200);
    expect(read.body.id).toBe(response.body.id);
    const list = await app.http.get('/api/email-marketing/campaigns').set(viewer.auth).expect(200);
    expect(list.body.data[0].id).toBe(response.body.id);
  });

  it('rejects bad input with problems', async () => {
    const ab = (
      abTest: object,
      variants = [
        { name: 'A', subject: 's', templateId },
        { name: 'B', subject: 't', templateId },
      ],
    ) => campaignBody(templateId, { variants, abTest });
    expectProblem(await post(campaignBody(templateId, { fromEmail: 'no-es-un-correo' })), 400, 'validation_failed');
    expectProblem(await post(campaignBody(templateId, { replyTo: 'x@' })), 400, 'validation_failed');
    expectProblem(await post(ab({ testPercent: 0, metric: 'click', waitMinutes: 60 })), 400, 'validation_failed');
    expectProblem(await post(ab({ testPercent: 60, metric: 'click', waitMinutes: 60 })), 400, 'validation_failed');
    expectProblem(await post(ab({ testPercent: 20, metric: 'click', waitMinutes: 5 })), 400, 'validation_failed');
    expectProblem(await post(ab({ testPercent: 20, metric: 'views', waitMinutes: 60 })), 400, 'validation_failed');
    const oneVariant = expectProblem(await post(ab({ testPercent: 20, waitMinutes: 60 }, [{ name: 'A', subject: 's', templateId }])), 400, 'validation_failed');
    expect(JSON.stringify(oneVariant.errors)).toContain('at least two variants');
    expectProblem(await post(campaignBody(templateId, { variants: [] })), 400, 'validation_failed');
    const five = Array.from({ length: 5 }, (_, index) => ({ name: `V${index}`, subject: 's', templateId }));
    expectProblem(await post(ab({ testPercent: 20, waitMinutes: 60 }, five)), 400, 'validation_failed');
    expectProblem(
      await post(
        ab({ testPercent: 20, waitMinutes: 60 }, [
          { name: 'A', subject: 's', templateId },
          { name: 'a', subject: 's', templateId },
        ]),
      ),
      400,
      'validation_failed',
    );
    const empty = expectProblem(await post(campaignBody(templateId, { segment: { interestsAny: ['nadie-tiene-esto'] } })), 400, 'empty_audience');
    expect(empty.errors).toEqual([{ path: 'body.segment', message: expect.stringContaining('reaches nobody') }]);
    expectProblem(await post(campaignBody(templateId, { segment: { territoryIds: ['x'] } })), 400, 'validation_failed');
    const unknownTemplate = expectProblem(await post(campaignBody('0190f2a4-7b8c-7def-8123-456789abcdef')), 400, 'validation_failed');
    expect(unknownTemplate.errors).toEqual([{ path: 'body.variants.0.templateId', message: 'No such template' }]);
    expectProblem(await post(campaignBody(templateId, { variants: [{ name: 'A', subject: 'Hola {{nombre}}', templateId }] })), 400, 'validation_failed');
    expectProblem(await post(campaignBody(templateId, { scheduledAt: '2020-01-01T00:00:00Z' })), 400, 'validation_failed');
    expectProblem(await post(campaignBody(templateId), viewer), 403, 'forbidden');
    expectProblem(await app.http.post('/api/email-marketing/campaigns').send(campaignBody(templateId)), 401);
    expectProblem(await app.http.get('/api/email-marketing/campaigns/123').set(manager.auth), 400);
    expectProblem(await app.http.get('/api/email-marketing/campaigns/0190f2a4-7b8c-7def-8123-456789abcdef').set(manager.auth), 404);
  });
});

describe('sending', () => {
  it('sends each recipient one personalised message with text part, one-click unsubscribe headers and tracking', async () => {
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['salud'] } }));
    const before = smtp.accepted;
    const accepted = await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    expect(accepted.body).toEqual({ id: campaign.id, status: 'sending', recipients: 6, abPhase: 'none' });
    await waitForCampaign(app, campaign.id, (row) => row.status === 'sent');
    expect(smtp.accepted - before).toBe(6);
    const messages = smtp.messages.slice(-6);
    expect(new Set(messages.map((message) => message.to[0])).size).toBe(6);
    expect(messages.map((message) => message.to[0]).sort()).toEqual([1, 2, 3, 4, 5, 6].map((n) => `news${n}@example.org`).sort());
    const ids = new Set<string>();
    for (const message of messages) {
      const parsed = message.parsed!;
      const n = /news(\d)@/.exec(message.to[0]!)![1];
      expect(parsed.subject).toBe(`Hola Persona${n}`);
      expect(parsed.from?.value).toEqual([{ name: 'Campaña Ejemplo', address: 'boletin@ejemplo.co' }]);
      expect(parsed.replyTo?.text).toBe('equipo@ejemplo.co');
      expect(parsed.text).toContain(`Hola Persona${n},`);
      expect(parsed.text).toContain('Boletín de junio');
      expect(parsed.html).toContain(`Hola Persona${n},`);
      const [listUnsubscribe] = message.header('List-Unsubscribe');
      expect(listUnsubscribe).toMatch(new RegExp(`^<${PUBLIC_BASE}/e/u/[A-Za-z0-9_-]{38}>, <mailto:baja@ejemplo.co\\?subject=unsubscribe>$`));
      expect(message.header('List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
      const [messageId] = message.header('Message-ID');
      expect(messageId).toMatch(/^<[0-9a-f-]{36}@ejemplo\.co>$/);
      ids.add(messageId!);
      const links = linksIn(parsed.html as string);
      const tracked = links.filter((link) => link.startsWith(`${PUBLIC_BASE}/e/c/`));
      expect(tracked).toHaveLength(2);
      expect(links).not.toContain('https://ejemplo.co/agenda');
      expect(links.filter((link) => link.startsWith(`${PUBLIC_BASE}/e/u/`))).toHaveLength(1);
      expect(parsed.html).toMatch(new RegExp(`<img src="${PUBLIC_BASE}/e/o/[A-Za-z0-9_-]{38}" width="1" height="1"`));
      expect(parsed.text).toMatch(/\/e\/c\/[A-Za-z0-9_-]{38}/);
      expect(message.raw).not.toMatch(/\{\{/);
    }
    expect(ids.size).toBe(6);
    const rows = await query(app, sql<{ status: string; n: number }>`select status, count(*)::int as n from email_recipients where campaign_id = ${campaign.id} group by status`);
    expect(rows).toEqual([{ status: 'sent', n: 6 }]);
    const again = expectProblem(await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth), 409, 'already_sent');
    expect(again.detail).toMatch(/already/);
    expect(smtp.accepted - before).toBe(6);
  });

  it('refuses sends by non-managers and for unknown campaigns', async () => {
    const campaign = await createCampaign(app, manager, campaignBody(templateId));
    expectProblem(await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(viewer.auth), 403);
    expectProblem(await app.http.post('/api/email-marketing/campaigns/0190f2a4-7b8c-7def-8123-456789abcdef/send').set(manager.auth), 404);
    expectProblem(await app.http.post('/api/email-marketing/campaigns/nope/send').set(manager.auth), 400);
  });

  it('marks 5xx answers bounced and suppresses them later; retries 4xx with backoff until delivered', async () => {
    await seedContacts(app, { prefix: 'bounce', count: 4, interests: ['rebote'] });
    smtp.reject('bounce1@example.org', 550);
    smtp.reject('bounce2@example.org', 452, 1);
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['rebote'] } }));
    expect(campaign.audienceSize).toBe(4);
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    await waitForCampaign(app, campaign.id, (row) => row.status === 'sent');
    const rows = await query(
      app,
      sql<{
        email: string;
        status: string;
        attempts: number;
        last_error: string | null;
      }>`select email, status, attempts, last_error from email_recipients where campaign_id = ${campaign.id} order by email`,
    );
    expect(rows).toEqual([
      { email: 'bounce1@example.org', status: 'bounced', attempts: 1, last_error: expect.stringContaining('550') },
      { email: 'bounce2@example.org', status: 'sent', attempts: 2, last_error: null },
      { email: 'bounce3@example.org', status: 'sent', attempts: 1, last_error: null },
      { email: 'bounce4@example.org', status: 'sent', attempts: 1, last_error: null },
    ]);
    expect(rows[0]!.last_error).not.toContain('bounce1');
    expect(smtp.rejectedAttempts.get('bounce2@example.org')).toBe(1);
    expect(smtp.to('bounce2@example.org')).toHaveLength(1);
    expect(await query(app, sql`select reason from email_suppressions where email = 'bounce1@example.org'`)).toEqual([{ reason: 'bounce' }]);
    const later = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['rebote'] } }));
    expect(later.audienceSize).toBe(3);
    const stats = await app.http.get(`/api/email-marketing/campaigns/${campaign.id}/stats`).set(viewer.auth).expect(200);
    // bounce2's 4xx before its delivery is a soft bounce; bounce1's 550 a hard one.
    expect(stats.body).toMatchObject({ sent: 3, bounced: 1, softBounced: 1, retrying: 0, failed: 0, audienceSize: 4, status: 'sent' });
  });

  it('gives up on an address that keeps answering 4xx after EMAIL_MAX_ATTEMPTS, without suppressing it', async () => {
    await seedContacts(app, { prefix: 'full', count: 2, interests: ['lleno'] });
    smtp.reject('full1@example.org', 451);
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['lleno'] } }));
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    await waitForCampaign(app, campaign.id, (row) => row.status === 'sent', 20_000);
    const rows = await query(app, sql`select email, status, attempts from email_recipients where campaign_id = ${campaign.id} order by email`);
    expect(rows).toEqual([
      { email: 'full1@example.org', status: 'failed', attempts: 3 },
      { email: 'full2@example.org', status: 'sent', attempts: 1 },
    ]);
    expect(smtp.rejectedAttempts.get('full1@example.org')).toBe(3);
    expect(await query(app, sql`select 1 from email_suppressions where email = 'full1@example.org'`)).toEqual([]);
    const stats = await app.http.get(`/api/email-marketing/campaigns/${campaign.id}/stats`).set(viewer.auth).expect(200);
    // A soft bounce that ran out of retries: failed, not a hard bounce.
    expect(stats.body).toMatchObject({ sent: 1, failed: 1, bounced: 0, softBounced: 1, retrying: 0 });
  });

  it('starts a scheduled campaign by itself, and send starts it early only once', async () => {
    const scheduledAt = new Date(Date.now() + 1500).toISOString();
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['rebote'] }, scheduledAt }));
    expect(campaign.status).toBe('scheduled');
    await waitForCampaign(app, campaign.id, (row) => row.status === 'sent', 15_000);
    expectProblem(await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth), 409, 'already_sent');
  });
});

describe('live progress', () => {
  it('pushes per-chunk progress and state changes to the email room, for staff only', async () => {
    await seedContacts(app, { prefix: 'live', count: 5, interests: ['envivo'] });
    const socket = await connectSocket(app.url, viewer.token);
    const events: { name: string; payload: Record<string, unknown> }[] = [];
    socket.onAny((name: string, payload: Record<string, unknown>) => events.push({ name, payload }));
    try {
      expect(await subscribe(socket, ['email'])).toMatchObject({ ok: true, joined: ['email'] });
      const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['envivo'] } }));
      await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
      await until(() => events.find((event) => event.name === 'email:campaign' && event.payload.status === 'sent'), 10_000);
      const mine = events.filter((event) => event.payload.campaignId === campaign.id);
      expect(mine[0]).toEqual({ name: 'email:campaign', payload: { campaignId: campaign.id, status: 'sending', abPhase: 'none', winner: null } });
      const progress = mine.filter((event) => event.name === 'email:progress');
      expect(progress.reduce((sum, event) => sum + (event.payload.sent as number), 0)).toBe(5);
      expect(JSON.stringify(events)).not.toContain('@example.org');
    } finally {
      socket.close();
    }
    const volunteer = await createUser(app, admin, 'volunteer');
    const other = await connectSocket(app.url, volunteer.token);
    try {
      expect(await subscribe(other, ['email'])).toMatchObject({ joined: [], denied: [{ room: 'email', code: 'forbidden' }] });
    } finally {
      other.close();
    }
  });
});
