import { sql } from '../../src/kernel/sql';
import { dispatchNotices, queueNotice, type NoticeResult } from '../../src/modules/notices';
import { erase, withdraw } from '../helpers/factories';
import { settled } from '../helpers/settle';
import { approvedTemplate, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { person, queueCommitted, reminder, REMINDER_TEMPLATE, rows } from './helpers';
import { until } from '../helpers/wait';

/** Notices on WhatsApp: exactly once, consent, the real Cloud API client against the fake, webhooks. */
describe('notices on WhatsApp', () => {
  let t: WhatsAppTest;
  let phones = 0;
  const phone = () => `+5731${String(5_000_000 + ++phones).padStart(8, '0')}`;
  const digits = (e164: string) => e164.slice(1);

  beforeAll(async () => {
    t = await startWhatsAppTest();
    await approvedTemplate(t, { name: REMINDER_TEMPLATE.name, category: 'UTILITY', body: REMINDER_TEMPLATE.body, examples: REMINDER_TEMPLATE.examples });
  }, 60_000);
  afterAll(() => t?.close());

  const messagesTo = (contactId: string) =>
    rows(
      t.app,
      sql<{
        id: string;
        campaign_id: string | null;
        priority: number;
        status: string;
      }>`select id, campaign_id, priority, status from wa_messages where contact_id = ${contactId}::uuid`,
    );

  it('goes out once through the Cloud API, ahead of campaigns, and its delivery shows in GET /api/notices', async () => {
    const to = phone();
    const contactId = await person(t.app, { phone: to, whatsapp: true });
    const request = reminder(contactId);
    const result = await queueCommitted(t.app, request);
    expect(result).toEqual({ status: 'queued', channel: 'whatsapp', noticeId: expect.any(String) });
    const [message] = await messagesTo(contactId);
    expect(message).toMatchObject({ campaign_id: null, priority: 0, status: 'queued' });

    await dispatchNotices(t.app.runtime.deps);
    await until(async () => t.fake.sendsTo(digits(to)).length === 1, 20_000, 'the send');
    expect(t.fake.sendsTo(digits(to))[0]).toMatchObject({ type: 'template', template: { name: REMINDER_TEMPLATE.name, language: 'es', params: ['Ana', 'sábado 14 de marzo'] } });

    // The fake posts `sent` then `delivered`; the notice reads its message's status through the WhatsApp module.
    const noticeId = (result as Extract<NoticeResult, { status: 'queued' }>).noticeId;
    await until(
      async () => {
        const page = await t.app.http.get('/api/notices').query({ contactId }).set(t.manager.auth).expect(200);
        return page.body.data[0]?.delivery?.status === 'delivered';
      },
      20_000,
      'the delivered status',
    );
    const page = await t.app.http.get('/api/notices').query({ contactId }).set(t.manager.auth).expect(200);
    expect(page.body.data).toEqual([
      {
        id: noticeId,
        key: request.key,
        contactId,
        purpose: 'agenda.reminder',
        status: 'queued',
        channel: 'whatsapp',
        reason: null,
        passedOver: [],
        messageId: message!.id,
        delivery: { status: 'delivered', channelStatus: 'delivered', at: expect.any(String), error: null },
        createdAt: expect.any(String),
      },
    ]);

    // The same key again, later: nothing new.
    expect(await queueCommitted(t.app, request)).toEqual({ status: 'duplicate', noticeId });
    await dispatchNotices(t.app.runtime.deps);
    expect(await messagesTo(contactId)).toHaveLength(1);
  });

  it('two transactions with the same key at the same time: one queues, the other waits for it and gets duplicate', async () => {
    const to = phone();
    const contactId = await person(t.app, { phone: to, whatsapp: true });
    const request = reminder(contactId);
    const { db } = t.app.runtime.deps;
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstQueued!: () => void;
    const firstHasKey = new Promise<void>((resolve) => (firstQueued = resolve));
    const first = db.transaction(async (tx) => {
      const result = await queueNotice(tx, request);
      firstQueued();
      // Held open until the second transaction is seen waiting on the key.
      await firstMayCommit;
      return result;
    });
    await firstHasKey;
    const second = db.transaction((tx) => queueNotice(tx, request));
    await until(
      async () => {
        const row = await db.first(sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
        return (row?.n ?? 0) > 0;
      },
      10_000,
      'the second transaction to wait on the key',
    );
    releaseFirst();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe('queued');
    expect(b).toEqual({ status: 'duplicate', noticeId: a.noticeId });
    expect(await messagesTo(contactId)).toHaveLength(1);
    expect(await rows(t.app, sql<{ n: number }>`select count(*)::int as n from notices where key = ${request.key}`)).toEqual([{ n: 1 }]);
  });

  it('a key whose transaction rolled back is free again; nothing of the rolled-back notice remains', async () => {
    const contactId = await person(t.app, { phone: phone(), whatsapp: true });
    const request = reminder(contactId);
    await expect(
      t.app.runtime.deps.db.transaction(async (tx) => {
        await queueNotice(tx, request);
        throw new Error('the caller changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect(await messagesTo(contactId)).toHaveLength(0);
    expect((await queueCommitted(t.app, request)).status).toBe('queued');
    expect(await messagesTo(contactId)).toHaveLength(1);
  });

  it('exactly once across two processes queueing the same keys at once', async () => {
    const sibling = await t.app.sibling();
    const people = await Promise.all(Array.from({ length: 8 }, async () => ({ to: phone(), id: '' })));
    for (const entry of people) entry.id = await person(t.app, { phone: entry.to, whatsapp: true });
    const requests = people.map((entry) => reminder(entry.id));
    const results = await Promise.all([...requests.map((request) => queueCommitted(t.app, request)), ...requests.map((request) => queueCommitted(sibling, request))]);
    for (let index = 0; index < requests.length; index++) {
      const pair = [results[index]!, results[index + requests.length]!].map((result) => result.status).sort();
      expect(pair).toEqual(['duplicate', 'queued']);
      expect(results[index]!.noticeId).toBe(results[index + requests.length]!.noticeId);
    }
    await Promise.all([dispatchNotices(t.app.runtime.deps), dispatchNotices(sibling.runtime.deps)]);
    await until(async () => people.every((entry) => t.fake.sendsTo(digits(entry.to)).length >= 1), 20_000, 'every send');
    // A second send, had one been coming, would come from work both processes have finished by now.
    await settled([t.app, sibling]);
    for (const entry of people) expect(t.fake.sendsTo(digits(entry.to))).toHaveLength(1);
  });

  it('takes the first channel in the caller’s order the person can be reached on, and says why the others were passed over', async () => {
    // WhatsApp consent but no email consent: email first in the order, WhatsApp used.
    const contactId = await person(t.app, { phone: phone(), email: 'sin.consentimiento@example.org', whatsapp: true, emailConsent: false });
    const result = await queueCommitted(t.app, reminder(contactId, { channels: ['email', 'whatsapp'] }));
    expect(result).toMatchObject({ status: 'queued', channel: 'whatsapp' });
    const [notice] = await rows(t.app, sql<{ passed_over: unknown }>`select passed_over from notices where id = ${result.noticeId}::uuid`);
    expect(notice!.passed_over).toEqual([{ channel: 'email', reason: 'no_consent' }]);
  });

  it('nobody to send to: no consent, no phone, an erased person or a missing template are recorded and nothing is queued', async () => {
    const noConsent = await person(t.app, { phone: phone(), email: 'nada@example.org' });
    expect(await queueCommitted(t.app, reminder(noConsent))).toMatchObject({ status: 'unreachable', reason: 'no_consent' });
    const withdrawn = await person(t.app, { phone: phone(), whatsapp: true });
    await withdraw(t.app, t.manager, withdrawn, 'whatsapp');
    expect(await queueCommitted(t.app, reminder(withdrawn, { channels: ['whatsapp'] }))).toMatchObject({ status: 'unreachable', reason: 'no_consent' });
    // WhatsApp consent without a phone: audience never records it (registerContact opens the
    // channel only with a phone), so it is written here; notices must still cope with it.
    const noPhone = await person(t.app, { email: 'solo.correo@example.org' });
    await t.app.runtime.deps.db.write(sql`update contacts set whatsapp_opt_in = true where id = ${noPhone}::uuid`);
    expect(await queueCommitted(t.app, reminder(noPhone, { channels: ['whatsapp'] }))).toMatchObject({ status: 'unreachable', reason: 'no_address' });
    const erased = await person(t.app, { phone: phone(), whatsapp: true });
    await erase(t.app, t.manager, erased);
    expect(await queueCommitted(t.app, reminder(erased))).toMatchObject({ status: 'unreachable', reason: 'erased' });
    const reachable = await person(t.app, { phone: phone(), whatsapp: true });
    const wrongTemplate = reminder(reachable, { channels: ['whatsapp'], whatsapp: { template: 'no_existe', language: 'es', params: [] } });
    expect(await queueCommitted(t.app, wrongTemplate)).toMatchObject({ status: 'unreachable', reason: 'template_missing' });
    const wrongCount = reminder(reachable, { channels: ['whatsapp'], whatsapp: { template: REMINDER_TEMPLATE.name, language: 'es', params: ['solo uno'] } });
    expect(await queueCommitted(t.app, wrongCount)).toMatchObject({ status: 'unreachable', reason: 'template_missing' });
    for (const id of [noConsent, withdrawn, noPhone, erased, reachable]) expect(await messagesTo(id)).toHaveLength(0);
    expect(await rows(t.app, sql`select 1 from email_notices where contact_id = ${noConsent}::uuid`)).toHaveLength(0);

    const page = await t.app.http.get('/api/notices').query({ contactId: noConsent, status: 'unreachable' }).set(t.manager.auth).expect(200);
    expect(page.body.data).toEqual([
      expect.objectContaining({
        status: 'unreachable',
        channel: null,
        reason: 'no_consent',
        messageId: null,
        delivery: null,
        passedOver: [
          { channel: 'whatsapp', reason: 'no_consent' },
          { channel: 'email', reason: 'no_consent' },
        ],
      }),
    ]);
  });

  it('records a person who chose WhatsApp, when the sender has no template for it, as template_missing', async () => {
    const contactId = await person(t.app, { phone: phone(), whatsapp: true });
    expect(await queueCommitted(t.app, reminder(contactId, { whatsapp: undefined, channels: ['whatsapp'] }))).toMatchObject({ status: 'unreachable', reason: 'template_missing' });
  });

  it('refuses a malformed request as the caller’s bug, recording nothing', async () => {
    const contactId = await person(t.app, { phone: phone(), whatsapp: true });
    await expect(queueCommitted(t.app, reminder(contactId, { channels: [] }))).rejects.toThrow(/channels/);
    await expect(queueCommitted(t.app, reminder(contactId, { channels: ['email'], email: undefined }))).rejects.toThrow(/email/);
    expect(await rows(t.app, sql<{ n: number }>`select count(*)::int as n from notices where contact_id = ${contactId}::uuid`)).toEqual([{ n: 0 }]);
  });
});
