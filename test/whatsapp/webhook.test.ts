import { sql } from '../../src/kernel/sql';
import * as whatsappRepository from '../../src/modules/whatsapp/whatsapp.repository';
import { applyPendingStatuses } from '../../src/modules/whatsapp/whatsapp.webhook';
import { expectProblem } from '../helpers/users';
import { signBody } from '../fakes/whatsapp-cloud';
import { approvedTemplate, CLOUD, phoneDigits, seedContacts, startWhatsAppTest, statusCounts, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

let t: WhatsAppTest;
let campaignId: string;
beforeAll(async () => {
  // No automatic statuses: each test posts the ones it needs.
  t = await startWhatsAppTest({}, { statuses: [] });
  const template = await approvedTemplate(t);
  await seedContacts(t.app, { count: 8, interests: ['salud'] });
  campaignId = (
    await t.app.http
      .post('/api/whatsapp/campaigns')
      .set(t.manager.auth)
      .send({ name: 'Hooks', templateId: template.id, variables: ['contact.firstName', 'el sábado'], segment: { interestsAny: ['salud'] } })
      .expect(201)
  ).body.id;
  await t.app.http.post(`/api/whatsapp/campaigns/${campaignId}/send`).set(t.manager.auth).expect(202);
  await until(async () => (await statusCounts(t.app, campaignId)).accepted === 8, 10_000, 'acceptance');
});
afterAll(() => t.close());

const post = (payload: unknown, signature?: string | null) => {
  const body = JSON.stringify(payload);
  const request = t.app.http.post('/api/whatsapp/webhook').set('Content-Type', 'application/json');
  if (signature !== null) request.set('X-Hub-Signature-256', signature ?? signBody(CLOUD.appSecret, body));
  return request.send(body);
};

async function messageOf(n: number) {
  const send = t.fake.sendsTo(phoneDigits(n))[0]!;
  const row = await t.app.runtime.deps.db.first(
    sql<{ status: string; sent_at: Date | null; delivered_at: Date | null; read_at: Date | null; error_code: number | null; error_title: string | null }>`
      select status, sent_at, delivered_at, read_at, error_code, error_title from wa_messages where id = ${send.opaque}::uuid`,
  );
  return { send, row: row! };
}

describe('webhook', () => {
  it('answers the verification handshake only with the right token', async () => {
    const ok = await t.app.http.get('/api/whatsapp/webhook').query({ 'hub.mode': 'subscribe', 'hub.verify_token': CLOUD.verifyToken, 'hub.challenge': '1158201444' }).expect(200);
    expect(ok.text).toBe('1158201444');
    expectProblem(await t.app.http.get('/api/whatsapp/webhook').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '1' }), 403);
  });

  it('refuses a missing or bad signature with 401 and stores nothing', async () => {
    const { send } = await messageOf(1);
    const payload = t.fake.statusPayload(send, 'read');
    expectProblem(await post(payload, null), 401);
    expectProblem(await post(payload, signBody('another-secret-0123456789', JSON.stringify(payload))), 401);
    expectProblem(await post(payload, 'sha256=zz'), 401);
    // Signed over different bytes (re-serialised with spaces): refused.
    expectProblem(await post(payload, signBody(CLOUD.appSecret, JSON.stringify(payload, null, 1))), 401);
    expect((await messageOf(1)).row.status).toBe('accepted');
  });

  it('moves statuses forward only, whatever order they arrive in, and a repeated delivery changes nothing', async () => {
    const { send } = await messageOf(1);
    await post(t.fake.statusPayload(send, 'read')).expect(200);
    const read = (await messageOf(1)).row;
    expect(read.status).toBe('read');
    expect(read.read_at).not.toBeNull();
    expect(read.delivered_at).not.toBeNull();
    const late = await post(t.fake.statusPayload(send, 'delivered')).expect(200);
    expect(late.body).toMatchObject({ applied: 0 });
    await post(t.fake.statusPayload(send, 'sent')).expect(200);
    expect((await messageOf(1)).row).toEqual(read);
    const again = await post(t.fake.statusPayload(send, 'read')).expect(200);
    expect(again.body.applied).toBe(0);
    expect((await messageOf(1)).row).toEqual(read);
  });

  it('records a failure with the provider error, and a delivery arriving after it wins', async () => {
    const { send } = await messageOf(2);
    await post(t.fake.statusPayload(send, 'failed', [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }])).expect(200);
    expect((await messageOf(2)).row).toMatchObject({ status: 'failed', error_code: 131026, error_title: 'Message undeliverable' });
    await post(t.fake.statusPayload(send, 'delivered')).expect(200);
    expect((await messageOf(2)).row.status).toBe('delivered');
  });

  it('finds a message by wamid when the callback data is absent', async () => {
    const { send } = await messageOf(3);
    await post(t.fake.statusPayload({ ...send, opaque: undefined }, 'delivered')).expect(200);
    expect((await messageOf(3)).row.status).toBe('delivered');
  });

  it('resolves statuses that reach one message by its id and by its wamid to the furthest, each stage at its own time', async () => {
    const { send } = await messageOf(4);
    type StatusPayload = { entry: { changes: { value: { statuses: { timestamp: string }[] } }[] }[] };
    const statusesOf = (payload: StatusPayload) => payload.entry[0]!.changes[0]!.value.statuses;
    const delivered = t.fake.statusPayload(send, 'delivered') as StatusPayload;
    const read = t.fake.statusPayload({ ...send, opaque: undefined }, 'read') as StatusPayload;
    // Delivered two minutes before it was read, both told in one webhook.
    const readAt = Math.floor(Date.now() / 1000);
    statusesOf(delivered)[0]!.timestamp = String(readAt - 120);
    statusesOf(read)[0]!.timestamp = String(readAt);
    statusesOf(delivered).push(...statusesOf(read));
    await post(delivered).expect(200);
    const { row } = await messageOf(4);
    expect(row.status).toBe('read');
    expect([row.sent_at, row.delivered_at, row.read_at].map((at) => at && at.getTime() / 1000)).toEqual([readAt - 120, readAt - 120, readAt]);
  });

  it('applies statuses posted at once, in separate webhooks, to the furthest, answering each', async () => {
    const { send } = await messageOf(6);
    const answers = await Promise.all(['sent', 'read', 'delivered', 'read'].map((status) => post(t.fake.statusPayload(send, status)).expect(200)));
    const applied = answers.reduce((sum, answer) => sum + (answer.body as { applied: number }).applied, 0);
    // However they fell into batches, the message moved forward at most once per status and ended read.
    expect(applied).toBeGreaterThanOrEqual(1);
    expect(applied).toBeLessThanOrEqual(3);
    expect((await messageOf(6)).row).toMatchObject({ status: 'read' });
    expect((await messageOf(6)).row.read_at).not.toBeNull();
  });

  it('answers a webhook only once all its statuses are settled, and stores an error code too large as none', async () => {
    const [first, second] = [(await messageOf(7)).send, (await messageOf(8)).send];
    // The second message's status fails in the database, wherever it is batched; the first, tried alone
    // after it, is slow to write: an answer sent on the first failure would come before it is written.
    const original = whatsappRepository.applyStatuses;
    const failing = jest.spyOn(whatsappRepository, 'applyStatuses').mockImplementation(async (q, list) => {
      if (list.some((update) => update.wamid === second.wamid)) throw new Error('the database refused the batch');
      await new Promise((resolve) => setTimeout(resolve, 300));
      return original(q, list);
    });
    try {
      const both = t.fake.envelope('messages', {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550783881', phone_number_id: CLOUD.phoneNumberId },
        statuses: [second, first].map((send) => ({
          id: send.wamid,
          status: 'delivered',
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: send.to,
          biz_opaque_callback_data: send.opaque,
        })),
      });
      expectProblem(await post(both), 500);
      // Answered after the other status was written, not before.
      expect((await messageOf(7)).row.status).toBe('delivered');
      expect((await messageOf(8)).row.status).toBe('accepted');
    } finally {
      failing.mockRestore();
    }
    const huge = await post(t.fake.statusPayload(second, 'failed', [{ code: 99_999_999_999, title: 'Desconocido' }])).expect(200);
    expect(huge.body.applied).toBe(1);
    expect((await messageOf(8)).row).toMatchObject({ status: 'failed', error_code: null, error_title: 'Desconocido' });
  });

  it('keeps a status that arrives before the message wamid is stored, and applies it when the wamid appears', async () => {
    const { send } = await messageOf(5);
    const db = t.app.runtime.deps.db;
    // As if Meta's webhook beat our send's HTTP answer (and omitted the callback data).
    await db.write(sql`update wa_messages set wamid = null where id = ${send.opaque}::uuid`);
    const early = await post(t.fake.statusPayload({ ...send, opaque: undefined }, 'delivered')).expect(200);
    expect(early.body.applied).toBe(0);
    expect((await messageOf(5)).row.status).toBe('accepted');
    await db.write(sql`update wa_messages set wamid = ${send.wamid} where id = ${send.opaque}::uuid`);
    // The worker's tick does the same once a second; whichever runs first applies it, once.
    await applyPendingStatuses(t.app.runtime.deps);
    expect((await messageOf(5)).row.status).toBe('delivered');
    expect(await db.first(sql<{ n: number }>`select count(*)::int as n from wa_pending_statuses`)).toEqual({ n: 0 });
  });

  it('keeps a parked status when applying it fails, and applies it on the next try', async () => {
    const { send } = await messageOf(2);
    const db = t.app.runtime.deps.db;
    const parked = async () => (await db.first(sql<{ n: number }>`select count(*)::int as n from wa_pending_statuses where wamid = ${send.wamid}`))!.n;
    await db.write(sql`update wa_messages set wamid = null where id = ${send.opaque}::uuid`);
    await post(t.fake.statusPayload({ ...send, opaque: undefined }, 'read')).expect(200);
    expect(await parked()).toBe(1);
    // Any change of the message's status fails (the database stopping mid-apply), the wamid's return does not.
    await db.write(sql`create function test_fail_status() returns trigger language plpgsql as $$ begin raise exception 'apply failed'; end $$`);
    await db.write(sql`
      create trigger test_fail_status before update of status on wa_messages for each row
      when (old.id = ${sql.raw(`'${send.opaque}'`)}) execute function test_fail_status()`);
    try {
      await db.write(sql`update wa_messages set wamid = ${send.wamid} where id = ${send.opaque}::uuid`);
      // The worker's tick tries too, once a second, and fails the same way.
      await expect(applyPendingStatuses(t.app.runtime.deps)).rejects.toThrow();
      expect(await parked()).toBe(1);
      expect((await messageOf(2)).row.status).toBe('delivered');
    } finally {
      await db.write(sql`drop trigger test_fail_status on wa_messages`);
      await db.write(sql`drop function test_fail_status()`);
    }
    await applyPendingStatuses(t.app.runtime.deps);
    expect((await messageOf(2)).row.status).toBe('read');
    expect(await parked()).toBe(0);
  });

  it('acknowledges JSON of an unknown shape with 200 and ignores it', async () => {
    for (const payload of [
      { hello: 'world' },
      { object: 'page', entry: [] },
      t.fake.envelope('account_update', { event: 'X' }),
      t.fake.envelope('messages', { messaging_product: 'whatsapp', statuses: [{ id: 1 }] }),
    ]) {
      const response = await post(payload).expect(200);
      expect(response.body).toMatchObject({ received: true, applied: 0, ignored: 1 });
    }
    expectProblem(await t.app.http.post('/api/whatsapp/webhook').set('Content-Type', 'application/json').send('{"broken":'), 400);
  });

  it('turns an inbound message into a conversation once, attributes the reply to the campaign, and opts out on BAJA', async () => {
    const { send } = await messageOf(1);
    const inbound = t.fake.inboundPayload(phoneDigits(1), { type: 'text', text: { body: 'Hola, ¿dónde es?' }, context: { from: '15550783881', id: send.wamid } });
    expect((await post(inbound).expect(200)).body.inbound).toBe(1);
    expect((await post(inbound).expect(200)).body.inbound).toBe(0);
    const list = await t.app.http.get('/api/whatsapp/conversations').set(t.manager.auth).expect(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      unreadCount: 1,
      windowOpen: true,
      lastMessage: { direction: 'in', text: 'Hola, ¿dónde es?' },
      contact: { phone: '+573000000001', optedOut: false },
    });
    const campaign = await t.app.http.get(`/api/whatsapp/campaigns/${campaignId}`).set(t.manager.auth).expect(200);
    expect(campaign.body.progress.replied).toBe(1);

    await post(t.fake.inboundPayload(phoneDigits(1), { type: 'button', button: { payload: 'BAJA', text: 'Baja' } })).expect(200);
    const after = await t.app.http.get('/api/whatsapp/conversations').set(t.manager.auth).expect(200);
    expect(after.body.data[0]).toMatchObject({ unreadCount: 2, contact: { optedOut: true } });
  });

  it('creates a contact without consent for an unknown number that writes first', async () => {
    await post(t.fake.inboundPayload('573009999999', { type: 'text', text: { body: 'Buenas' } }, 'Luz')).expect(200);
    const rows = await t.app.runtime.deps.db.rows(sql<{ name: string; whatsapp_opt_in: boolean }>`select name, whatsapp_opt_in from contacts where phone = '+573009999999'`);
    expect(rows).toEqual([{ name: 'Luz', whatsapp_opt_in: false }]);
  });

  it('stores a message whose text or sender name holds a NUL character, without it', async () => {
    await post(t.fake.inboundPayload('573009999998', { type: 'text', text: { body: 'Ho\u0000la' } }, 'Ma\u0000ría')).expect(200);
    const db = t.app.runtime.deps.db;
    expect(await db.rows(sql`select name from contacts where phone = '+573009999998'`)).toEqual([{ name: 'María' }]);
    expect(await db.rows(sql`select m.body from wa_messages m join contacts c on c.id = m.contact_id where c.phone = '+573009999998'`)).toEqual([{ body: 'Hola' }]);
  });

  it('writes no provider id back onto a message whose person was erased, when a late status comes', async () => {
    const { send } = await messageOf(3);
    const { contact_id: contactId } = (await t.app.runtime.deps.db.first(sql<{ contact_id: string }>`select contact_id from wa_messages where id = ${send.opaque}::uuid`))!;
    await t.app.http.delete(`/api/audience/contacts/${contactId}`).set(t.manager.auth).expect(200);
    await post(t.fake.statusPayload(send, 'delivered')).expect(200);
    const row = await t.app.runtime.deps.db.first(
      sql<{ status: string; wamid: string | null; phone: string }>`select status, wamid, phone from wa_messages where id = ${send.opaque}::uuid`,
    );
    // The figures move on (delivered counts), the number behind the provider id does not come back.
    expect(row).toEqual({ status: 'delivered', wamid: null, phone: '' });
  });
});
