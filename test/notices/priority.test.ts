import { sql } from '../../src/kernel/sql';
import { dispatchNotices } from '../../src/modules/notices';
import { FakeSmtp } from '../fakes/smtp';
import { campaignBody, createCampaign, createTemplate, emailEnv, seedContacts as seedEmailContacts } from '../email/helpers';
import { approvedTemplate, seedContacts, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { person, queueCommitted, reminder, REMINDER_TEMPLATE, rows } from './helpers';
import { until } from '../helpers/wait';

/**
 * A notice queued while a campaign is going out is sent next, not after the campaign's list: the
 * senders are slowed to a few messages a second so that the campaign is still far from done.
 */
describe('notices jump the campaign queue', () => {
  let t: WhatsAppTest;
  let smtp: FakeSmtp;

  beforeAll(async () => {
    smtp = await new FakeSmtp().start();
    t = await startWhatsAppTest({
      ...emailEnv(smtp.url, { EMAIL_RATE_PER_SECOND: '5', SMTP_MAX_CONNECTIONS: '1' }),
      WHATSAPP_RATE_PER_SECOND: '5',
      WHATSAPP_SEND_CONCURRENCY: '1',
    });
    await approvedTemplate(t, { name: REMINDER_TEMPLATE.name, category: 'UTILITY', body: REMINDER_TEMPLATE.body, examples: REMINDER_TEMPLATE.examples });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('on WhatsApp', async () => {
    await seedContacts(t.app, { count: 40, interests: ['lista'] });
    const template = await approvedTemplate(t, { body: 'Hola {{1}}', examples: ['Ana'] });
    const created = await t.app.http
      .post('/api/whatsapp/campaigns')
      .set(t.manager.auth)
      .send({ name: 'Lista larga', templateId: template.id, variables: ['contact.firstName'], segment: { interestsAny: ['lista'] } })
      .expect(201);
    await t.app.http.post(`/api/whatsapp/campaigns/${created.body.id}/send`).set(t.manager.auth).expect(202);
    await until(async () => t.fake.accepted.length >= 2, 20_000, 'the campaign to start');

    const to = '+573209990001';
    const contactId = await person(t.app, { phone: to, whatsapp: true });
    await queueCommitted(t.app, reminder(contactId, { channels: ['whatsapp'] }));
    await dispatchNotices(t.app.runtime.deps);
    await until(async () => t.fake.sendsTo(to.slice(1)).length === 1, 20_000, 'the notice');
    const [left] = await rows(t.app, sql<{ n: number }>`select count(*)::int as n from wa_messages where campaign_id = ${created.body.id}::uuid and status = 'queued'`);
    expect(left!.n).toBeGreaterThan(20);
  }, 60_000);

  it('by email', async () => {
    await seedEmailContacts(t.app, { prefix: 'lista', count: 40 });
    const template = await createTemplate(t.app, t.manager);
    const campaign = await createCampaign(t.app, t.manager, campaignBody(template.id, { segment: {} }));
    await t.app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(t.manager.auth).expect(202);
    await smtp.waitFor(2);

    const to = 'urgente@ejemplo.co';
    const contactId = await person(t.app, { email: to, emailConsent: true });
    await queueCommitted(t.app, reminder(contactId, { channels: ['email'] }));
    await dispatchNotices(t.app.runtime.deps);
    await until(async () => smtp.to(to).length === 1, 20_000, 'the notice');
    const [left] = await rows(t.app, sql<{ n: number }>`select count(*)::int as n from email_recipients where campaign_id = ${campaign.id}::uuid and status = 'queued'`);
    expect(left!.n).toBeGreaterThan(20);
  }, 60_000);
});
