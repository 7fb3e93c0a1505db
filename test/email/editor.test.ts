/**
 * What the console's editors call besides creation: a template draft rendered for the live preview
 * (nothing saved, problems by line), a test send through the configured SMTP received by the fake
 * server, and a campaign changed before it starts (rescheduled: the old start does nothing). Their
 * refusals (standard problems) and who may call them.
 */
import { Queue } from 'bullmq';
import { startTestApp, type TestApp } from '../helpers/app';
import { testRedisUrl } from '../helpers/database';
import { until } from '../helpers/wait';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp } from '../fakes/smtp';
import { MJML, campaignBody, createCampaign, createTemplate, emailEnv, query, seedContacts, sql, waitForCampaign } from './helpers';

let smtp: FakeSmtp;
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;

beforeAll(async () => {
  smtp = await new FakeSmtp().start();
  app = await startTestApp(emailEnv(smtp.url, { EMAIL_FROM: 'pruebas@ejemplo.co' }));
  const admin = await registerAdmin(app);
  [manager, viewer, volunteer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'volunteer')]);
});
afterAll(async () => {
  await app?.close();
  await smtp?.stop();
});

const render = (body: object, user: TestUser | null = manager) => {
  const request = app.http.post('/api/email-marketing/templates/render');
  return (user ? request.set(user.auth) : request).send(body);
};

describe('rendering a draft for the live preview', () => {
  it('fills a valid draft in for the sample person, links as written, and saves nothing', async () => {
    const before = await query<{ n: number }>(app, sql`select count(*)::int as n from email_templates`);
    const response = await render({ subject: 'Hola {{contact.firstName}}', mjml: MJML }).expect(200);
    expect(response.body.problems).toEqual([]);
    expect(response.body.subject).toBe('Hola Ana');
    expect(response.body.html).toMatch(/^<!doctype html>/i);
    expect(response.body.html).toContain('Hola Ana,');
    expect(response.body.html).toContain('href="https://ejemplo.co/agenda"');
    expect(response.body.text).toContain('Hola Ana');
    const after = await query<{ n: number }>(app, sql`select count(*)::int as n from email_templates`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('lists MJML errors with their line and still renders what it can', async () => {
    const bad =
      '<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-text bogus="1">Hola {{contact.firstName}}</mj-text>\n<mj-foo />\n</mj-column>\n</mj-section>\n</mj-body>\n</mjml>';
    const response = await render({ subject: 'Asunto', mjml: bad }).expect(200);
    expect(response.body.problems).toEqual([
      { field: 'mjml', line: 5, message: '<mj-text> Attribute bogus is illegal' },
      { field: 'mjml', line: 6, message: expect.stringMatching(/^<mj-foo> Element mj-foo doesn't exist/) },
    ]);
    expect(response.body.html).toContain('Hola Ana');
    expect(JSON.stringify(response.body)).not.toContain('/work');
    // The same draft is what creation refuses.
    expectProblem(await app.http.post('/api/email-marketing/templates').set(manager.auth).send({ name: 'x', subject: 'Asunto', mjml: bad }), 400, 'invalid_mjml');
  });

  it('reports unknown variables on their line (subject first) and text that is not MJML on line 1', async () => {
    const response = await render({ subject: 'Hola {{nombre}}', mjml: MJML.replace('{{campaign.name}}', '{{{campaign.name}}}') }).expect(200);
    expect(response.body.problems).toEqual([
      { field: 'subject', line: 1, message: expect.stringMatching(/unknown variable \{\{nombre\}\}/) },
      { field: 'mjml', line: 6, message: expect.stringMatching(/unescaped output/) },
    ]);
    expect(response.body.subject).toBe('Hola {{nombre}}');
    const notMjml = await render({ subject: 'x', mjml: 'hola, esto no es MJML' }).expect(200);
    expect(notMjml.body).toMatchObject({ html: '', text: '', problems: [{ field: 'mjml', line: 1, message: expect.stringMatching(/not MJML/) }] });
    const html = await render({ subject: 'x', html: '<p>Hola {{contact.name}}</p>' }).expect(200);
    expect(html.body).toMatchObject({ html: '<p>Hola Ana María Rojas</p>', problems: [] });
  });

  it('refuses bodies that break the schema with the standard problem, never a 500', async () => {
    for (const body of [
      {},
      { subject: 'x' },
      { subject: 'x', mjml: MJML, html: '<p>x</p>' },
      { subject: 'x', mjml: '' },
      { subject: 'x'.repeat(301), mjml: MJML },
      { subject: 1, mjml: MJML },
    ]) {
      expectProblem(await render(body), 400);
    }
    const bad = await app.http.post('/api/email-marketing/templates/render').set(manager.auth).set('content-type', 'application/json').send('{"subject":');
    expectProblem(bad, 400);
  });

  it('is for those who write templates', async () => {
    expectProblem(await render({ subject: 'x', mjml: MJML }, null), 401);
    expectProblem(await render({ subject: 'x', mjml: MJML }, viewer), 403);
    expectProblem(await render({ subject: 'x', mjml: MJML }, volunteer), 403);
  });
});

describe('a test send', () => {
  const send = (id: string, body: object, user: TestUser | null = manager) => {
    const request = app.http.post(`/api/email-marketing/templates/${id}/test`);
    return (user ? request.set(user.auth) : request).send(body);
  };

  it('goes out through the SMTP server once, marked as a test, without tracking or List-Unsubscribe', async () => {
    const template = await createTemplate(app, manager, { subject: 'Boletín para {{contact.firstName}}' });
    const before = smtp.accepted;
    const response = await send(template.id, { to: 'Revisora@Ejemplo.co' }).expect(200);
    expect(response.body).toEqual({ subject: '[Prueba] Boletín para Ana', messageId: expect.stringMatching(/^<.+@ejemplo\.co>$/) });
    expect(smtp.accepted).toBe(before + 1);
    const [message] = smtp.to('revisora@ejemplo.co');
    expect(message!.parsed!.subject).toBe('[Prueba] Boletín para Ana');
    expect(message!.parsed!.from!.text).toContain('pruebas@ejemplo.co');
    expect(message!.header('List-Unsubscribe')).toEqual([]);
    const html = message!.parsed!.html as string;
    expect(html).toContain('href="https://ejemplo.co/agenda"');
    expect(html).not.toContain('/e/c/');
    expect(html).not.toContain('/e/o/');
    // Nothing about it in the send lists.
    expect(await query(app, sql`select 1 from email_recipients where email = 'revisora@ejemplo.co'`)).toEqual([]);
  });

  it('says when the server refuses the address or cannot take it now', async () => {
    const template = await createTemplate(app, manager);
    smtp.reject('nadie@ejemplo.co', 550);
    expectProblem(await send(template.id, { to: 'nadie@ejemplo.co' }), 502, 'smtp_refused');
    smtp.reject('lleno@ejemplo.co', 452);
    expectProblem(await send(template.id, { to: 'lleno@ejemplo.co' }), 503, 'smtp_unavailable');
  });

  it('refuses bad input and unknown templates with the standard problem', async () => {
    const template = await createTemplate(app, manager);
    expectProblem(await send(template.id, {}), 400);
    expectProblem(await send(template.id, { to: 'no es un correo' }), 400);
    expectProblem(await send(template.id, { to: ['a@b.co'] }), 400);
    expectProblem(await send('no-es-un-id', { to: 'a@b.co' }), 400);
    expectProblem(await send('0196f0b5-0000-7000-8000-000000000000', { to: 'a@b.co' }), 404);
  });

  it('is for those who write templates, and limited per person', async () => {
    const template = await createTemplate(app, manager);
    expectProblem(await send(template.id, { to: 'a@ejemplo.co' }, null), 401);
    expectProblem(await send(template.id, { to: 'a@ejemplo.co' }, viewer), 403);
    expectProblem(await send(template.id, { to: 'a@ejemplo.co' }, volunteer), 403);
    let status = 200;
    for (let sent = 0; sent < 40 && status === 200; sent++) status = (await send(template.id, { to: 'limite@ejemplo.co' })).status;
    expect(status).toBe(429);
    expectProblem(await send(template.id, { to: 'limite@ejemplo.co' }), 429, 'rate_limited');
  });
});

describe('changing a campaign before it starts', () => {
  let templateId: string;
  let otherTemplateId: string;
  const put = (id: string, body: object, user: TestUser | null = manager) => {
    const request = app.http.put(`/api/email-marketing/campaigns/${id}`);
    return (user ? request.set(user.auth) : request).send(body);
  };

  beforeAll(async () => {
    await seedContacts(app, { prefix: 'cambio', count: 8, interests: ['cambio'] });
    await seedContacts(app, { prefix: 'otro', count: 3, interests: ['otro'] });
    templateId = (await createTemplate(app, manager)).id;
    otherTemplateId = (await createTemplate(app, manager, { name: 'Otra' })).id;
  });

  it('rewrites a draft with the creation rules: audience counted again, variants replaced, an A/B test added', async () => {
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['otro'] } }));
    expect(campaign.audienceSize).toBe(3);
    const changed = await put(
      campaign.id,
      campaignBody(templateId, {
        name: 'Boletín corregido',
        replyTo: undefined,
        segment: { interestsAny: ['cambio'] },
        variants: [
          { name: 'A', subject: 'Uno {{contact.firstName}}', templateId },
          { name: 'B', subject: 'Dos', templateId: otherTemplateId },
        ],
        abTest: { testPercent: 50, metric: 'open', waitMinutes: 30 },
      }),
    ).expect(200);
    expect(changed.body).toMatchObject({
      id: campaign.id,
      name: 'Boletín corregido',
      replyTo: null,
      status: 'draft',
      audienceSize: 8,
      segment: { interestsAny: ['cambio'] },
      abTest: { testPercent: 50, metric: 'open', waitMinutes: 30 },
      variants: [
        { name: 'A', subject: 'Uno {{contact.firstName}}', templateId },
        { name: 'B', subject: 'Dos', templateId: otherTemplateId },
      ],
    });
    const read = await app.http.get(`/api/email-marketing/campaigns/${campaign.id}`).set(viewer.auth).expect(200);
    expect(read.body).toEqual(changed.body);
    // Back to one variant: the A/B test goes with it.
    const single = await put(campaign.id, campaignBody(otherTemplateId, { segment: { interestsAny: ['cambio'] } })).expect(200);
    expect(single.body).toMatchObject({ abTest: null, variants: [{ name: 'A', templateId: otherTemplateId }] });
  });

  it('moves a scheduled start: the old start job does nothing, the new one starts it', async () => {
    const first = new Date(Date.now() + 1500);
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['otro'] }, scheduledAt: first.toISOString() }));
    const later = new Date(Date.now() + 3_600_000);
    const moved = await put(campaign.id, campaignBody(templateId, { segment: { interestsAny: ['otro'] }, scheduledAt: later.toISOString() })).expect(200);
    expect(moved.body).toMatchObject({ status: 'scheduled', scheduledAt: later.toISOString() });
    const queue = new Queue('email.start', { connection: { url: testRedisUrl }, prefix: `${app.config.redisKeyPrefix}:jobs` });
    try {
      const oldJob = `email-start-${campaign.id}-${first.getTime()}`;
      expect(await queue.getJobState(`email-start-${campaign.id}-${later.getTime()}`)).toBe('delayed');
      await until(async () => (await queue.getJobState(oldJob)) === 'completed', 15_000, 'the first start job run');
      expect((await app.http.get(`/api/email-marketing/campaigns/${campaign.id}`).set(viewer.auth).expect(200)).body.status).toBe('scheduled');
      // Brought forward again, it starts at the new time; unscheduled, it is a draft.
      await put(campaign.id, campaignBody(templateId, { segment: { interestsAny: ['otro'] }, scheduledAt: new Date(Date.now() + 1000).toISOString() })).expect(200);
      await waitForCampaign(app, campaign.id, (row) => row.status === 'sent', 15_000);
    } finally {
      await queue.close();
    }
    const draft = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['otro'] }, scheduledAt: later.toISOString() }));
    expect((await put(draft.id, campaignBody(templateId, { segment: { interestsAny: ['otro'] } })).expect(200)).body).toMatchObject({ status: 'draft', scheduledAt: null });
  });

  it('refuses a campaign that started, bad bodies and unknown ids with the standard problem', async () => {
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['otro'] } }));
    expectProblem(await put(campaign.id, campaignBody(templateId, { segment: { interestsAny: ['nadie'] } })), 400, 'empty_audience');
    expectProblem(await put(campaign.id, campaignBody('0196f0b5-0000-7000-8000-000000000000')), 400, 'validation_failed');
    expectProblem(await put(campaign.id, campaignBody(templateId, { variants: [] })), 400);
    expectProblem(await put(campaign.id, campaignBody(templateId, { abTest: { testPercent: 20, waitMinutes: 30 } })), 400);
    expectProblem(await put(campaign.id, campaignBody(templateId, { scheduledAt: '2020-01-01T00:00:00Z' })), 400);
    expectProblem(await put(campaign.id, { name: 'x' }), 400);
    expectProblem(await put('no-es-un-id', campaignBody(templateId)), 400);
    expectProblem(await put('0196f0b5-0000-7000-8000-000000000000', campaignBody(templateId)), 404);
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    expectProblem(await put(campaign.id, campaignBody(templateId, { name: 'Tarde' })), 409, 'not_editable');
    expect((await app.http.get(`/api/email-marketing/campaigns/${campaign.id}`).set(viewer.auth).expect(200)).body.name).toBe('Boletín de junio');
  });

  it('is for those who run campaigns', async () => {
    const campaign = await createCampaign(app, manager, campaignBody(templateId, { segment: { interestsAny: ['otro'] } }));
    expectProblem(await put(campaign.id, campaignBody(templateId), null), 401);
    expectProblem(await put(campaign.id, campaignBody(templateId), viewer), 403);
    expectProblem(await put(campaign.id, campaignBody(templateId), volunteer), 403);
  });
});

describe('the reach of a segment before a campaign is written', () => {
  const preview = (body: object, user: TestUser | null = manager) => {
    const request = app.http.post('/api/email-marketing/campaigns/preview');
    return (user ? request.set(user.auth) : request).send(body);
  };

  it('counts the addresses a campaign would reach now, and writes nothing', async () => {
    await seedContacts(app, { prefix: 'alcance', count: 4, interests: ['alcance'] });
    await seedContacts(app, { prefix: 'sinpermiso', count: 2, interests: ['alcance'], emailOptIn: false });
    await seedContacts(app, { prefix: 'baja', count: 1, interests: ['alcance'], optedOut: true });
    const before = await query<{ n: number }>(app, sql`select count(*)::int as n from email_campaigns`);
    expect((await preview({ segment: { interestsAny: ['alcance'] } }).expect(200)).body).toEqual({ reachable: 4 });
    expect((await preview({ segment: { interestsAny: ['nadie'] } }).expect(200)).body).toEqual({ reachable: 0 });
    const after = await query<{ n: number }>(app, sql`select count(*)::int as n from email_campaigns`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('refuses a bad segment with the standard problem, and is for those who run campaigns', async () => {
    for (const body of [
      {},
      { segment: { interestsAny: [] } },
      { segment: { territoryIds: ['x'] } },
      { segment: {}, extra: 1 },
      { segment: { createdFrom: '2026-02-01T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' } },
    ]) {
      expectProblem(await preview(body), 400);
    }
    expectProblem(await preview({ segment: {} }, null), 401);
    expectProblem(await preview({ segment: {} }, viewer), 403);
    expectProblem(await preview({ segment: {} }, volunteer), 403);
  });
});
