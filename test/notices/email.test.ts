import { sql } from '../../src/kernel/sql';
import { erasedSuppressionKey } from '../../src/modules/email/email.personal-data';
import { dispatchNotices } from '../../src/modules/notices';
import { FakeSmtp } from '../fakes/smtp';
import { emailEnv, pathOf } from '../email/helpers';
import { settled } from '../helpers/settle';
import { approvedTemplate, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { person, queueCommitted, reminder, REMINDER_TEMPLATE, rows } from './helpers';
import { until } from '../helpers/wait';

/** Notices by email: the fallback, the SMTP fake receiving them, suppression, bounces, unsubscribe, retries. */
describe('notices by email', () => {
  let t: WhatsAppTest;
  let smtp: FakeSmtp;
  let people = 0;
  const address = () => `vecina${++people}@ejemplo.co`;
  const phone = () => `+5731${String(6_000_000 + people).padStart(8, '0')}`;

  beforeAll(async () => {
    smtp = await new FakeSmtp().start();
    t = await startWhatsAppTest({ ...emailEnv(smtp.url), EMAIL_FROM: 'avisos@ejemplo.co', EMAIL_FROM_NAME: 'Campaña Ejemplo' });
    await approvedTemplate(t, { name: REMINDER_TEMPLATE.name, category: 'UTILITY', body: REMINDER_TEMPLATE.body, examples: REMINDER_TEMPLATE.examples });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const delivery = async (contactId: string) => {
    const page = await t.app.http.get('/api/notices').query({ contactId }).set(t.manager.auth).expect(200);
    return page.body.data[0]?.delivery as { status: string; channelStatus: string; error: string | null } | null;
  };
  const emailRows = (contactId: string) => rows(t.app, sql<{ status: string }>`select status from email_notices where contact_id = ${contactId}::uuid`);

  it('falls back to email when WhatsApp consent is missing, and the message goes out through SMTP from EMAIL_FROM', async () => {
    const to = address();
    const contactId = await person(t.app, { phone: phone(), email: to, whatsapp: false, emailConsent: true });
    const result = await queueCommitted(t.app, reminder(contactId));
    expect(result).toMatchObject({ status: 'queued', channel: 'email' });
    const [notice] = await rows(t.app, sql<{ passed_over: unknown }>`select passed_over from notices where id = ${result.noticeId}::uuid`);
    expect(notice!.passed_over).toEqual([{ channel: 'whatsapp', reason: 'no_consent' }]);
    expect(await rows(t.app, sql`select 1 from wa_messages where contact_id = ${contactId}::uuid`)).toHaveLength(0);

    await dispatchNotices(t.app.runtime.deps);
    await until(async () => smtp.to(to).length === 1, 20_000, 'the email');
    const mail = smtp.to(to)[0]!;
    expect(mail.parsed!.from!.value).toEqual([{ address: 'avisos@ejemplo.co', name: 'Campaña Ejemplo' }]);
    expect(mail.parsed!.subject).toBe('Recordatorio: encuentro en el barrio');
    expect(mail.parsed!.text).toContain('Hola Ana, te esperamos mañana a las 6 p. m.');
    expect(mail.parsed!.html).toContain('te esperamos <b>mañana</b>');
    // One-click unsubscribe in the header and a footer link in both parts.
    const unsubscribe = /<(https:[^>]+)>/.exec(mail.header('List-Unsubscribe')[0]!)![1]!;
    expect(mail.parsed!.text).toContain(unsubscribe);
    expect(mail.parsed!.html).toContain(unsubscribe);
    expect(mail.header('X-Comando-Campaign')).toEqual([]);
    await until(async () => (await delivery(contactId))?.status === 'sent', 10_000, 'the sent status');
    expect(await delivery(contactId)).toEqual({ status: 'sent', channelStatus: 'sent', at: expect.any(String), error: null });

    // The link opts the person out of email (through audience, with proof); their next notice is refused.
    await t.app.http.post(pathOf(unsubscribe)).type('form').send('List-Unsubscribe=One-Click').expect(200);
    const [contact] = await rows(t.app, sql<{ out: boolean }>`select email_opted_out_at is not null as out from contacts where id = ${contactId}::uuid`);
    expect(contact!.out).toBe(true);
    const records = await rows(t.app, sql<{ action: string; source: string }>`select action, source from consents where contact_id = ${contactId}::uuid order by given_at`);
    expect(records).toEqual([
      { action: 'given', source: 'test_factory' },
      { action: 'withdrawn', source: 'email_unsubscribe' },
    ]);
    expect(await queueCommitted(t.app, reminder(contactId))).toMatchObject({ status: 'unreachable', reason: 'no_consent' });
  });

  it('sends a text-only notice when no HTML is given', async () => {
    const to = address();
    const contactId = await person(t.app, { email: to, emailConsent: true });
    const request = reminder(contactId, { channels: ['email'], email: { subject: 'Recibimos su solicitud', text: 'Su radicado es PQRS-2026-000123.' } });
    expect(await queueCommitted(t.app, request)).toMatchObject({ status: 'queued', channel: 'email' });
    await dispatchNotices(t.app.runtime.deps);
    await until(async () => smtp.to(to).length === 1, 20_000, 'the email');
    expect(smtp.to(to)[0]!.parsed!.html).toBe(false);
    expect(smtp.to(to)[0]!.parsed!.text).toContain('PQRS-2026-000123');
  });

  it('never mails a suppressed address, in the clear or by the hash an erasure left', async () => {
    const plain = address();
    const hashed = address();
    const first = await person(t.app, { phone: phone(), email: plain.toUpperCase(), emailConsent: true });
    const second = await person(t.app, { email: hashed, emailConsent: true });
    await t.app.runtime.deps.db.write(
      sql`insert into email_suppressions (email, reason, created_at) values (${plain}, 'bounce', now()), (${erasedSuppressionKey(hashed)}, 'bounce', now())`,
    );
    // WhatsApp has no consent either: the reason given is the one nearer to sending.
    expect(await queueCommitted(t.app, reminder(first))).toMatchObject({ status: 'unreachable', reason: 'suppressed' });
    expect(await queueCommitted(t.app, reminder(second, { channels: ['email'] }))).toMatchObject({ status: 'unreachable', reason: 'suppressed' });
    expect(await emailRows(first)).toEqual([]);
    expect(await emailRows(second)).toEqual([]);
  });

  it('a hard bounce fails the notice and suppresses the address; a soft one is retried and delivered', async () => {
    const bouncing = address();
    const hard = await person(t.app, { email: bouncing, emailConsent: true });
    smtp.reject(bouncing, 550);
    const soft = address();
    const later = await person(t.app, { email: soft, emailConsent: true });
    smtp.reject(soft, 452, 1);
    await queueCommitted(t.app, reminder(hard, { channels: ['email'] }));
    await queueCommitted(t.app, reminder(later, { channels: ['email'] }));
    await dispatchNotices(t.app.runtime.deps);
    await until(async () => (await delivery(hard))?.channelStatus === 'bounced', 20_000, 'the bounce');
    expect(await delivery(hard)).toMatchObject({ status: 'failed', channelStatus: 'bounced', error: expect.any(String) });
    expect(await rows(t.app, sql`select 1 from email_suppressions where email = ${bouncing}`)).toHaveLength(1);
    expect(await queueCommitted(t.app, reminder(hard, { channels: ['email'] }))).toMatchObject({ status: 'unreachable', reason: 'suppressed' });
    // The 452 came back with a retry after EMAIL_RETRY_BASE (1 s), woken by a delayed job.
    await until(async () => smtp.to(soft).length === 1, 20_000, 'the retried email');
    expect(smtp.rejectedAttempts.get(soft)).toBe(1);
    await until(async () => (await delivery(later))?.status === 'sent', 10_000, 'the sent status');
  });

  it('re-reads consent when sending: an opt-out after queueing skips the notice', async () => {
    const to = address();
    const contactId = await person(t.app, { email: to, emailConsent: true });
    expect(await queueCommitted(t.app, reminder(contactId, { channels: ['email'] }))).toMatchObject({ status: 'queued' });
    await t.app.runtime.deps.db.write(sql`update contacts set email_opted_out_at = now() where id = ${contactId}::uuid`);
    await dispatchNotices(t.app.runtime.deps);
    await until(async () => (await delivery(contactId))?.status === 'skipped', 20_000, 'the skip');
    expect(smtp.to(to)).toEqual([]);
  });

  it('sends once when two processes queue the same key and both dispatch', async () => {
    const sibling = await t.app.sibling();
    const to = address();
    const contactId = await person(t.app, { email: to, emailConsent: true });
    const request = reminder(contactId, { channels: ['email'] });
    const results = await Promise.all([queueCommitted(t.app, request), queueCommitted(sibling, request)]);
    expect(results.map((result) => result.status).sort()).toEqual(['duplicate', 'queued']);
    await Promise.all([dispatchNotices(t.app.runtime.deps), dispatchNotices(sibling.runtime.deps)]);
    await until(async () => smtp.to(to).length >= 1, 20_000, 'the email');
    await settled([t.app, sibling]);
    expect(smtp.to(to)).toHaveLength(1);
    expect(await emailRows(contactId)).toEqual([{ status: 'sent' }]);
  });

  it('goes out even when the caller never dispatched (it stopped right after its commit)', async () => {
    const to = address();
    const byEmail = await person(t.app, { email: to, emailConsent: true });
    const mobile = `+5731${String(7_000_000 + people).padStart(8, '0')}`;
    const byWhatsApp = await person(t.app, { phone: mobile, whatsapp: true });
    await queueCommitted(t.app, reminder(byEmail, { channels: ['email'] }));
    await queueCommitted(t.app, reminder(byWhatsApp, { channels: ['whatsapp'] }));
    // No dispatchNotices: each channel's own periodic check finds them.
    await until(async () => smtp.to(to).length === 1 && t.fake.sendsTo(mobile.slice(1)).length === 1, 30_000, 'both messages');
  }, 40_000);

  it('exports a person’s notices and erases what identifies them, keeping the rows', async () => {
    const to = address();
    const contactId = await person(t.app, { email: to, emailConsent: true });
    const request = reminder(contactId, { channels: ['email'] });
    await queueCommitted(t.app, request);
    await dispatchNotices(t.app.runtime.deps);
    await until(async () => smtp.to(to).length === 1, 20_000, 'the email');
    // The server accepted it; the sender records the outcome just after: wait for it to be done.
    await settled([t.app]);
    const exported = await t.app.http.get(`/api/audience/contacts/${contactId}/export`).set(t.manager.auth).expect(200);
    expect(exported.body.modules.notices.notices).toEqual([
      { id: expect.any(String), purpose: 'agenda.reminder', status: 'queued', channel: 'email', reason: null, delivery: 'sent', createdAt: expect.any(String) },
    ]);
    expect(exported.body.modules.email.notices).toEqual([expect.objectContaining({ email: to, subject: request.email!.subject, text: request.email!.text, status: 'sent' })]);

    const erased = await t.app.http.delete(`/api/audience/contacts/${contactId}`).set(t.manager.auth).expect(200);
    expect(erased.body.counts.notices).toEqual({ notices: 1 });
    expect(erased.body.counts.email).toMatchObject({ notices: 1 });
    const [notice] = await rows(t.app, sql<{ key: string; purpose: string; status: string }>`select key, purpose, status from notices where contact_id = ${contactId}::uuid`);
    expect(notice).toEqual({ key: expect.stringMatching(/^erased:/), purpose: 'agenda.reminder', status: 'queued' });
    expect(notice!.key).not.toContain(contactId);
    const [message] = await rows(
      t.app,
      sql<{ email: string; subject: string; text: string; status: string }>`select email, subject, text, status from email_notices where contact_id = ${contactId}::uuid`,
    );
    expect(message).toEqual({ email: expect.stringMatching(/^erased:/), subject: '', text: '', status: 'sent' });
    // The same key again finds an erased person.
    expect(await queueCommitted(t.app, request)).toMatchObject({ status: 'unreachable', reason: 'erased' });
  });
});
