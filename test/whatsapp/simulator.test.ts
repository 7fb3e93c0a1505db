import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { seedContacts, statusCounts } from './setup';
import { until } from '../helpers/wait';

/**
 * The embedded default: no Cloud API credentials and no Redis (in-process jobs, in-memory sockets).
 * The simulator accepts messages and reports statuses through the webhook handler.
 */
let app: TestApp;
let manager: TestUser;
beforeAll(async () => {
  app = await startTestApp({ WHATSAPP_RATE_PER_SECOND: '200', REDIS_URL: undefined });
  manager = await createUser(app, await registerAdmin(app), 'manager');
});
afterAll(() => app.close());

it('runs the whole loop in the embedded default: template approval, sends, delivered statuses', async () => {
  expect(app.runtime.deps.config.whatsapp.provider).toBe('simulator');
  const template = await app.http
    .post('/api/whatsapp/templates')
    .set(manager.auth)
    .send({ name: 'demo', language: 'es', category: 'MARKETING', body: 'Hola {{1}}', examples: ['Ana'] })
    .expect(201);
  expect(template.body.status).toBe('PENDING');
  await until(async () => (await app.http.get('/api/whatsapp/templates').set(manager.auth)).body.data[0].status === 'APPROVED', 10_000, 'simulated approval');
  await seedContacts(app, { count: 30, interests: ['demo'] });
  const campaign = await app.http
    .post('/api/whatsapp/campaigns')
    .set(manager.auth)
    .send({ name: 'Demo', templateId: template.body.id, variables: ['contact.firstName'], segment: { interestsAny: ['demo'] } })
    .expect(201);
  await app.http.post(`/api/whatsapp/campaigns/${campaign.body.id}/send`).set(manager.auth).expect(202);
  await until(
    async () => {
      const counts = await statusCounts(app, campaign.body.id);
      return (counts.delivered ?? 0) + (counts.read ?? 0) + (counts.failed ?? 0) === 30;
    },
    15_000,
    'simulated deliveries',
  );
  const view = await app.http.get(`/api/whatsapp/campaigns/${campaign.body.id}`).set(manager.auth).expect(200);
  // Every message says the simulator took it: its "delivered" never reached WhatsApp.
  expect(view.body).toMatchObject({ status: 'completed', progress: { sent: 30, simulated: 30 } });
  expect(view.body.progress.delivered).toBeGreaterThan(20);
  // Staff screens say that nothing leaves for WhatsApp.
  expect((await app.http.get('/api/whatsapp/dashboard').set(manager.auth).expect(200)).body.provider).toBe('simulator');
  // Without an app secret nothing over HTTP is trusted.
  expectProblem(await app.http.post('/api/whatsapp/webhook').set('X-Hub-Signature-256', 'sha256=00').send({ object: 'whatsapp_business_account', entry: [] }), 401);
}, 30_000);
