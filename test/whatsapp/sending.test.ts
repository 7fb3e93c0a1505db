import { sql } from '../../src/kernel/sql';
import { expireInDoubt } from '../../src/modules/whatsapp/whatsapp.background';
import { whatsapp } from '../../src/modules/whatsapp/whatsapp.context';
import { settled } from '../helpers/settle';
import { connectSocket, subscribe } from '../helpers/sockets';
import { approvedTemplate, phoneDigits, seedContacts, startWhatsAppTest, statusCounts, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

/** The send pipeline against a provider that pushes back: rate limits, permanent errors, tier, timeouts. */
async function campaign(t: WhatsAppTest, segment: Record<string, unknown>) {
  const template = await approvedTemplate(t, { body: 'Hola {{1}}', examples: ['Ana'] });
  const created = await t.app.http
    .post('/api/whatsapp/campaigns')
    .set(t.manager.auth)
    .send({ name: 'Envío', templateId: template.id, variables: ['contact.firstName'], segment })
    .expect(201);
  return created.body.id as string;
}

const done = async (t: WhatsAppTest, id: string) => (await t.app.http.get(`/api/whatsapp/campaigns/${id}`).set(t.manager.auth)).body;

/** What the once-a-second ticker does, done now: the sender looks for due work and drains it; then everything has settled. */
async function drainedAgain(t: WhatsAppTest): Promise<void> {
  await whatsapp(t.app.runtime.deps).sender.drain();
  await settled([t.app]);
}

describe('sending', () => {
  let t: WhatsAppTest;
  afterEach(() => t?.close());

  it('sends at the configured rate', async () => {
    t = await startWhatsAppTest({ WHATSAPP_RATE_PER_SECOND: '50', WHATSAPP_SEND_CONCURRENCY: '10' }, { statuses: [] });
    await seedContacts(t.app, { count: 100, interests: ['ritmo'] });
    const id = await campaign(t, { interestsAny: ['ritmo'] });
    await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
    await until(async () => (await done(t, id)).status === 'completed', 15_000, 'completion');
    const times = t.fake.accepted.map((send) => send.at).sort((a, b) => a - b);
    const seconds = (times.at(-1)! - times[0]!) / 1000;
    // 100 messages at 50/s with a 5-message burst: no faster than ~1.9 s. How much slower depends on
    // the machine, so no upper bound here: bench:whatsapp measures the throughput against the rate.
    expect(seconds).toBeGreaterThanOrEqual(1.7);
    // Never more than rate + burst in any one-second window.
    for (const start of times) expect(times.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(55);
  });

  it("sends from one process at a time when several run, so the rate is the number's, not per process", async () => {
    t = await startWhatsAppTest({ WHATSAPP_RATE_PER_SECOND: '100', WHATSAPP_SEND_CONCURRENCY: '10' }, { statuses: [] });
    await t.app.sibling();
    await seedContacts(t.app, { count: 200, interests: ['dos'] });
    const id = await campaign(t, { interestsAny: ['dos'] });
    await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
    await until(async () => (await done(t, id)).status === 'completed', 20_000, 'completion');
    const times = t.fake.accepted.map((send) => send.at).sort((a, b) => a - b);
    expect(times).toHaveLength(200);
    expect(t.fake.duplicates()).toEqual([]);
    // Two senders would have taken about 1 s; one takes about 2.
    expect((times.at(-1)! - times[0]!) / 1000).toBeGreaterThanOrEqual(1.8);
  });

  it('slows down on rate-limit answers (130429, 80007, 131056) and loses nothing; never retries permanent errors', async () => {
    t = await startWhatsAppTest({ WHATSAPP_SEND_CONCURRENCY: '5' }, { statuses: [] });
    await seedContacts(t.app, { count: 30, interests: ['presion'] });
    t.fake.failFor.set(phoneDigits(7), { code: 131030, message: 'Recipient phone number not in allowed list' });
    t.fake.failFor.set(phoneDigits(8), { code: 100, message: 'Invalid parameter' });
    const id = await campaign(t, { interestsAny: ['presion'] });
    t.fake.throttleNext(6, 130429);
    await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
    await until(async () => t.fake.rejected.filter((r) => r.code === 130429).length === 6, 10_000, 'throttling');
    t.fake.throttleNext(2, 131056);
    await until(async () => t.fake.rejected.filter((r) => r.code === 131056).length === 2, 10_000, 'pair limits');
    t.fake.throttleNext(3, 80007, 429);
    await until(async () => (await done(t, id)).status === 'completed', 60_000, 'completion');
    expect(await statusCounts(t.app, id)).toEqual({ accepted: 28, failed: 2 });
    expect(t.fake.accepted).toHaveLength(28);
    expect(t.fake.duplicates()).toEqual([]);
    // Permanent errors were tried once each.
    expect(t.fake.rejected.filter((r) => r.code === 131030 || r.code === 100)).toHaveLength(2);
    const failed = await t.app.runtime.deps.db.rows(
      sql<{ error_code: number }>`select error_code from wa_messages where campaign_id = ${id} and status = 'failed' order by error_code`,
    );
    expect(failed).toEqual([{ error_code: 100 }, { error_code: 131030 }]);
    // The pair-limited recipients waited (4^n s) and then got their one message.
    expect(t.fake.rejected.filter((r) => r.code === 80007)).toHaveLength(3);
  }, 90_000);

  it('waits for the messaging tier and says so', async () => {
    t = await startWhatsAppTest({ WHATSAPP_MESSAGING_TIER: '250' }, { statuses: [] });
    await seedContacts(t.app, { count: 260, interests: ['tier'] });
    const id = await campaign(t, { interestsAny: ['tier'] });
    const sent = await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
    expect(sent.body.queued).toBe(260);
    expect(sent.body.notice).toMatch(/messaging tier \(250 unique contacts per rolling 24 hours\).*250 of 260 can go out now/);
    await until(async () => t.fake.accepted.length === 250, 20_000, '250 sends');
    await drainedAgain(t);
    expect(t.fake.accepted).toHaveLength(250);
    const campaignView = await done(t, id);
    expect(campaignView).toMatchObject({ status: 'sending', progress: { queued: 10, sent: 250, simulated: 0 } });
    expect(campaignView.notice).toMatch(/messaging tier/);
    const dashboard = await t.app.http.get('/api/whatsapp/dashboard').set(t.manager.auth).expect(200);
    expect(dashboard.body.tier).toEqual({ limit: 250, usedLast24h: 250, remaining: 0 });
  }, 40_000);

  it('marks a send that timed out as in doubt, never resends it, and reconciles it from the webhook', async () => {
    t = await startWhatsAppTest({ WHATSAPP_SEND_TIMEOUT: '1' }, { statuses: [], latencyMs: 1500 });
    await seedContacts(t.app, { count: 2, interests: ['lento'] });
    const id = await campaign(t, { interestsAny: ['lento'] });
    await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
    await until(async () => (await statusCounts(t.app, id)).in_doubt === 2, 10_000, 'in doubt');
    await until(async () => t.fake.accepted.length === 2, 5000, 'the fake to take them');
    expect((await done(t, id)).status).toBe('completed');
    await drainedAgain(t);
    expect(t.fake.accepted).toHaveLength(2);
    // Meta's status webhooks carry our id back: the doubt is resolved.
    for (const send of t.fake.accepted) t.fake.postWebhook(t.fake.statusPayload(send, 'delivered'));
    await t.fake.webhooksDrained();
    expect(await statusCounts(t.app, id)).toEqual({ delivered: 2 });
  }, 30_000);

  it('closes in-doubt messages that never got a status after the expiry as failed, without resending them', async () => {
    t = await startWhatsAppTest({ WHATSAPP_SEND_TIMEOUT: '1', WHATSAPP_IN_DOUBT_EXPIRY: '1h' }, { statuses: [], latencyMs: 1500 });
    await seedContacts(t.app, { count: 1, interests: ['olvido'] });
    const id = await campaign(t, { interestsAny: ['olvido'] });
    await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
    await until(async () => (await statusCounts(t.app, id)).in_doubt === 1, 10_000, 'in doubt');
    expect(await expireInDoubt(t.app.runtime.deps)).toBe(0);
    await t.app.runtime.deps.db.write(sql`update wa_messages set claimed_at = now() - interval '2 hours' where campaign_id = ${id}`);
    expect(await expireInDoubt(t.app.runtime.deps)).toBe(1);
    const row = await t.app.runtime.deps.db.first(
      sql<{ status: string; error_title: string; attempts: number }>`select status, error_title, attempts from wa_messages where campaign_id = ${id}`,
    );
    expect(row).toMatchObject({ status: 'failed', error_title: expect.stringMatching(/^unconfirmed/), attempts: 1 });
  }, 30_000);

  it('pauses a campaign after consecutive provider errors, tells the war room why, and sends the rest once staff resume it', async () => {
    t = await startWhatsAppTest({ WHATSAPP_SEND_CONCURRENCY: '1', WHATSAPP_PAUSE_AFTER_ERRORS: '3' }, { statuses: [] });
    await seedContacts(t.app, { count: 10, interests: ['cuenta'] });
    const id = await campaign(t, { interestsAny: ['cuenta'] });
    const socket = await connectSocket(t.app.url, t.manager.token);
    const events: { name: string; payload: Record<string, unknown> }[] = [];
    socket.onAny((name: string, payload: Record<string, unknown>) => events.push({ name, payload }));
    try {
      expect(await subscribe(socket, ['whatsapp'])).toMatchObject({ joined: ['whatsapp'] });
      t.fake.failEverySend = { code: 131031, message: 'Business account locked' };
      await t.app.http.post(`/api/whatsapp/campaigns/${id}/send`).set(t.manager.auth).expect(202);
      const paused = await until(() => events.find((event) => event.name === 'outbound:paused'), 15_000);
      expect(paused.payload).toEqual({
        channel: 'whatsapp',
        campaignId: id,
        consecutiveErrors: 3,
        notice: expect.stringMatching(/^Paused: 3 sends in a row failed \(last: .*Business account locked\)/),
      });
      // Outcomes are written in batches beside the pause: the third failure may land just after the event.
      await until(async () => (await done(t, id)).progress.failed === 3, 5_000, 'outcomes written');
      const view = await done(t, id);
      expect(view).toMatchObject({ status: 'paused', notice: paused.payload.notice, progress: { failed: 3, queued: 7 } });
      // Nothing more goes out while it is paused, though the ticker asks the sender to look for work every second.
      await drainedAgain(t);
      expect(t.fake.rejected).toHaveLength(3);
      expect(await statusCounts(t.app, id)).toEqual({ failed: 3, queued: 7 });

      t.fake.failEverySend = undefined;
      await t.app.http.post(`/api/whatsapp/campaigns/${id}/resume`).set(t.manager.auth).expect(200);
      await until(async () => (await done(t, id)).status === 'completed', 15_000, 'completion');
      expect(await statusCounts(t.app, id)).toEqual({ accepted: 7, failed: 3 });
      expect((await done(t, id)).notice).toBeNull();
      expect(t.fake.duplicates()).toEqual([]);
    } finally {
      socket.close();
    }
  }, 40_000);
});
