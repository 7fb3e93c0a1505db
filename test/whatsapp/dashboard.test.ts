import { expectProblem, createUser } from '../helpers/users';
import { connectSocket, subscribe } from '../helpers/sockets';
import { approvedTemplate, seedContacts, startWhatsAppTest, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

let t: WhatsAppTest;
beforeAll(async () => {
  t = await startWhatsAppTest({}, { statuses: [] });
});
afterAll(() => t.close());

interface StatusPush {
  campaigns: { campaignId: string; status: string; progress: { sent: number; delivered: number; read: number } }[];
}

it('gives exact totals, rates, per-campaign progress, conversations and opt-outs, and pushes campaign progress coalesced', async () => {
  const template = await approvedTemplate(t, { body: 'Hola {{1}}', examples: ['Ana'] });
  await seedContacts(t.app, { count: 20, interests: ['tablero'] });
  const socket = await connectSocket(t.app.url, t.manager.token);
  const pushes: StatusPush[] = [];
  socket.on('whatsapp:status', (event: StatusPush) => pushes.push(event));
  await subscribe(socket, ['whatsapp']);
  try {
    const campaign = await t.app.http
      .post('/api/whatsapp/campaigns')
      .set(t.manager.auth)
      .send({ name: 'Tablero', templateId: template.id, variables: ['contact.firstName'], segment: { interestsAny: ['tablero'] } })
      .expect(201);
    await t.app.http.post(`/api/whatsapp/campaigns/${campaign.body.id}/send`).set(t.manager.auth).expect(202);
    await until(async () => (await t.app.http.get(`/api/whatsapp/campaigns/${campaign.body.id}`).set(t.manager.auth)).body.status === 'completed', 10_000, 'completion');
    expect(t.fake.accepted).toHaveLength(20);
    // 20 sent; 16 delivered, of which 8 read; 2 failed; 3 replies (one of them BAJA).
    t.fake.accepted.forEach((send, index) => {
      if (index < 16) t.fake.postWebhook(t.fake.statusPayload(send, index < 8 ? 'read' : 'delivered'));
      else if (index < 18) t.fake.postWebhook(t.fake.statusPayload(send, 'failed', [{ code: 131026, title: 'Message undeliverable' }]));
      else t.fake.postWebhook(t.fake.statusPayload(send, 'sent'));
    });
    for (const [index, text] of [
      [0, 'Gracias'],
      [1, '¿Cuándo?'],
      [2, 'BAJA'],
    ] as const) {
      t.fake.postWebhook(t.fake.inboundPayload(t.fake.accepted[index]!.to, { type: 'text', text: { body: text }, context: { id: t.fake.accepted[index]!.wamid } }));
    }
    await t.fake.webhooksDrained();
    const dashboard = await t.app.http.get('/api/whatsapp/dashboard').set(t.manager.auth).expect(200);
    expect(dashboard.body.totals).toMatchObject({ total: 20, sent: 20, delivered: 16, read: 8, failed: 2, replied: 3, queued: 0, inDoubt: 0 });
    expect(dashboard.body.rates).toEqual({ delivery: 0.8, read: 0.5, reply: 0.1875 });
    expect(dashboard.body.campaigns).toEqual([
      expect.objectContaining({ id: campaign.body.id, status: 'completed', audienceSize: 20, progress: expect.objectContaining({ sent: 20, delivered: 16 }) }),
    ]);
    expect(dashboard.body.conversations).toEqual({ open: 3, unread: 3, unreadMessages: 3, windowOpen: 3 });
    expect(dashboard.body.optOuts).toBe(1);
    expect(dashboard.body.last24h).toEqual({ inbound: 3, outbound: 20 });
    expect(dashboard.body.provider).toBe('cloud');
    // The room got the campaign's counters, coalesced: far fewer pushes than the 20+ status changes.
    const last = await until(() =>
      pushes.flatMap((push) => push.campaigns).find((entry) => entry.campaignId === campaign.body.id && entry.progress.read === 8 && entry.progress.delivered === 16),
    );
    expect(last.status).toBe('completed');
    expect(pushes.length).toBeLessThan(10);
  } finally {
    socket.close();
  }
});

it('lets viewers read the dashboard and keeps volunteers out', async () => {
  const viewer = await createUser(t.app, t.admin, 'viewer');
  await t.app.http.get('/api/whatsapp/dashboard').set(viewer.auth).expect(200);
  const volunteer = await createUser(t.app, t.admin, 'volunteer');
  expectProblem(await t.app.http.get('/api/whatsapp/dashboard').set(volunteer.auth), 403);
  const socket = await connectSocket(t.app.url, volunteer.token);
  try {
    expect((await subscribe(socket, ['whatsapp'])).denied).toEqual([{ room: 'whatsapp', code: 'forbidden' }]);
  } finally {
    socket.close();
  }
});
