import { sql } from '../../src/kernel/sql';
import { expectProblem } from '../helpers/users';
import { approvedTemplate, phoneDigits, seedContacts, startWhatsAppTest, statusCounts, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

let t: WhatsAppTest;
let templateId: string;
let territoryId: string;
beforeAll(async () => {
  t = await startWhatsAppTest();
  templateId = (await approvedTemplate(t)).id;
  territoryId = (await t.app.http.post('/api/territories').set(t.manager.auth).send({ name: 'Kennedy', type: 'commune' }).expect(201)).body.id;
  await seedContacts(t.app, { count: 40, interests: ['salud'], territoryId });
  await seedContacts(t.app, { count: 10, offset: 100, interests: ['empleo'] });
  await seedContacts(t.app, { count: 5, offset: 200, interests: ['salud'], optIn: false });
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>) =>
  t.app.http
    .post('/api/whatsapp/campaigns')
    .set(t.manager.auth)
    .send({ name: 'Salud', templateId, variables: ['contact.firstName', { literal: 'sábado 10:00' }], segment: { interestsAny: ['salud'] }, ...body });

describe('campaigns', () => {
  it('counts the audience (opted in, not opted out) and sends each recipient exactly one template with its variables', async () => {
    const created = await create({}).expect(201);
    expect(created.body).toMatchObject({ status: 'draft', audienceSize: 40, queued: 0, variables: ['contact.firstName', { literal: 'sábado 10:00' }] });
    const sent = await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/send`).set(t.manager.auth).expect(202);
    expect(sent.body).toEqual({ campaignId: created.body.id, status: 'sending', queued: 40, notice: null });
    await until(async () => (await t.app.http.get(`/api/whatsapp/campaigns/${created.body.id}`).set(t.manager.auth)).body.status === 'completed', 20_000, 'completion');
    await t.fake.webhooksDrained();
    await until(async () => (await statusCounts(t.app, created.body.id)).delivered === 40, 10_000, 'deliveries');
    const campaign = await t.app.http.get(`/api/whatsapp/campaigns/${created.body.id}`).set(t.manager.auth).expect(200);
    expect(campaign.body.progress).toMatchObject({ queued: 0, sending: 0, inDoubt: 0, sent: 40, delivered: 40, failed: 0 });
    expect(t.fake.duplicates()).toEqual([]);
    const first = t.fake.sendsTo(phoneDigits(1));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ type: 'template', template: { language: 'es', params: ['Persona', 'sábado 10:00'] } });
    expect(first[0]!.opaque).toMatch(/^[0-9a-f-]{36}$/);
    // Sending twice is a conflict.
    expectProblem(await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/send`).set(t.manager.auth), 409, 'already_sent');
  });

  it('selects by territory and combines conditions', async () => {
    expect((await create({ segment: { territoryIds: [territoryId] } }).expect(201)).body.audienceSize).toBe(40);
    expect((await create({ segment: { interestsAny: ['empleo'] } }).expect(201)).body.audienceSize).toBe(10);
    expect((await create({ segment: { all: true } }).expect(201)).body.audienceSize).toBe(50);
  });

  it('re-checks consent at send time: a contact who opted out after the campaign was written gets nothing', async () => {
    const created = await create({ segment: { interestsAny: ['empleo'] } }).expect(201);
    const db = t.app.runtime.deps.db;
    // A draft can only be paused once it is sending or scheduled.
    await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/pause`).set(t.manager.auth).expect(409);
    // The send list as `send` writes it, but paused before the workers reach it; then one person opts out.
    const before = t.fake.accepted.length;
    await db.write(sql`update wa_campaigns set status = 'paused', started_at = now() where id = ${created.body.id}::uuid`);
    await db.write(
      sql`insert into wa_messages (id, campaign_id, contact_id, phone, direction, kind, template_id, params, status, status_rank, priority, attempts, next_attempt_at, created_at)
          select gen_random_uuid(), ${created.body.id}::uuid, c.id, c.phone, 'out', 'template', ${templateId}::uuid, '["x","y"]', 'queued', 0, 1, 0, now(), now()
          from contacts c where 'empleo' = any(c.interests)`,
    );
    await db.write(sql`update contacts set whatsapp_opted_out_at = now() where phone = '+573000000101'`);
    await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/resume`).set(t.manager.auth).expect(200);
    await until(async () => (await t.app.http.get(`/api/whatsapp/campaigns/${created.body.id}`).set(t.manager.auth)).body.status === 'completed', 10_000, 'completion');
    expect(await statusCounts(t.app, created.body.id)).toMatchObject({ skipped: 1 });
    expect(t.fake.sendsTo(phoneDigits(101))).toHaveLength(0);
    expect(t.fake.accepted.length - before).toBe(9);
    await db.write(sql`update contacts set whatsapp_opted_out_at = null where phone = '+573000000101'`);
  });

  it('starts a scheduled campaign by itself when its time comes', async () => {
    const created = await create({ name: 'Programada', segment: { interestsAny: ['empleo'] }, scheduledAt: new Date(Date.now() + 1500).toISOString() }).expect(201);
    expect(created.body.status).toBe('scheduled');
    await until(
      async () => (await t.app.http.get(`/api/whatsapp/campaigns/${created.body.id}`).set(t.manager.auth)).body.status === 'completed',
      15_000,
      'the scheduled campaign to run',
    );
    expect((await statusCounts(t.app, created.body.id)).queued).toBeUndefined();
    expectProblem(await create({ scheduledAt: new Date(Date.now() - 60_000).toISOString() }), 400);
  });

  it('pauses, resumes and cancels', async () => {
    const created = await create({ segment: { interestsAny: ['empleo'] }, scheduledAt: new Date(Date.now() + 3600_000).toISOString() }).expect(201);
    expect(created.body.status).toBe('scheduled');
    expect((await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/pause`).set(t.manager.auth).expect(200)).body.status).toBe('paused');
    expect((await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/resume`).set(t.manager.auth).expect(200)).body.status).toBe('scheduled');
    const cancelled = await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/cancel`).set(t.manager.auth).expect(200);
    expect(cancelled.body.status).toBe('cancelled');
    expectProblem(await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/send`).set(t.manager.auth), 409);
    expectProblem(await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/cancel`).set(t.manager.auth), 409, 'invalid_transition');
  });

  it('refuses an unknown template, an unapproved one, a variable count that does not match, and an empty segment', async () => {
    const unknown = await create({ templateId: '0190a0a0-0000-7000-8000-000000000000' });
    expect(expectProblem(unknown, 400, 'unknown_template').errors).toEqual([expect.objectContaining({ path: 'body.templateId' })]);
    // Approved by the fake's review, then paused by Meta (quality): no longer sendable.
    const paused = await approvedTemplate(t, { name: 'pausada', category: 'UTILITY', body: 'Hola {{1}}', examples: ['Ana'] });
    t.fake.postWebhook(t.fake.envelope('message_template_status_update', { event: 'PAUSED', message_template_id: t.fake.templates.at(-1)!.id as string, reason: 'NONE' }));
    await t.fake.webhooksDrained();
    expectProblem(await create({ templateId: paused.id, variables: ['contact.firstName'] }), 409, 'template_not_approved');
    expect(expectProblem(await create({ variables: ['contact.firstName'] }), 400).errors).toEqual([expect.objectContaining({ path: 'body.variables' })]);
    expectProblem(await create({ variables: ['contact.shoeSize', 'x'] }), 400);
    expectProblem(await create({ segment: {} }), 400);
    expectProblem(await create({ segment: { interestsAny: ['astronomía'] } }), 400, 'empty_audience');
    expectProblem(await create({ segment: { territoryIds: ['not-a-uuid'] } }), 400);
    expectProblem(await t.app.http.get('/api/whatsapp/campaigns/not-a-uuid').set(t.manager.auth), 400);
    expectProblem(await t.app.http.get('/api/whatsapp/campaigns/0190a0a0-0000-7000-8000-000000000000').set(t.manager.auth), 404);
    expectProblem(await t.app.http.post('/api/whatsapp/campaigns/0190a0a0-0000-7000-8000-000000000000/send').set(t.manager.auth), 404);
  });
});
