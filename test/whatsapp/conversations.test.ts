import { sql } from '../../src/kernel/sql';
import { expectProblem, createUser } from '../helpers/users';
import { connectSocket, subscribe } from '../helpers/sockets';
import { approvedTemplate, phoneDigits, seedContacts, startWhatsAppTest, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

let t: WhatsAppTest;
let templateId: string;
beforeAll(async () => {
  t = await startWhatsAppTest({}, { statuses: ['sent', 'delivered', 'read'] });
  templateId = (await approvedTemplate(t, { category: 'UTILITY', body: 'Hola {{1}}, seguimos en contacto.', examples: ['Ana'] })).id;
  await seedContacts(t.app, { count: 3 });
});
afterAll(() => t.close());

async function conversationOf(n: number, text = 'Hola') {
  t.fake.postWebhook(t.fake.inboundPayload(phoneDigits(n), { type: 'text', text: { body: text } }));
  await t.fake.webhooksDrained();
  const list = await t.app.http
    .get('/api/whatsapp/conversations')
    .set(t.manager.auth)
    .query({ q: phoneDigits(n).slice(2) })
    .expect(200);
  return list.body.data[0] as { id: string; unreadCount: number; windowOpen: boolean };
}

describe('conversations', () => {
  it('replies with free text inside the 24-hour window and pushes the new messages to the inbox room', async () => {
    const socket = await connectSocket(t.app.url, t.manager.token);
    const events: { message: { direction: string; text: string | null } }[] = [];
    socket.on('whatsapp:message', (event) => events.push(event));
    const statuses: { messages: { id: string; status: string }[] }[] = [];
    socket.on('whatsapp:status', (event) => statuses.push(event));
    expect((await subscribe(socket, ['whatsapp:inbox'])).joined).toEqual(['whatsapp:inbox']);
    try {
      const conversation = await conversationOf(1, '¿Hay reunión hoy?');
      expect(conversation).toMatchObject({ unreadCount: 1, windowOpen: true });
      const reply = await t.app.http
        .post(`/api/whatsapp/conversations/${conversation.id}/messages`)
        .set(t.manager.auth)
        .send({ text: 'Sí, a las 6 pm en el salón comunal.' })
        .expect(202);
      expect(reply.body).toMatchObject({ direction: 'out', kind: 'text', status: 'queued', text: 'Sí, a las 6 pm en el salón comunal.', sentById: t.manager.id });
      await until(async () => t.fake.sendsTo(phoneDigits(1)).length === 1, 10_000, 'the reply to go out');
      expect(t.fake.sendsTo(phoneDigits(1))[0]).toMatchObject({ type: 'text', text: 'Sí, a las 6 pm en el salón comunal.', opaque: reply.body.id });
      await until(async () => events.some((event) => event.message.direction === 'in') && events.some((event) => event.message.direction === 'out'), 5000, 'message events');
      await until(async () => statuses.some((event) => event.messages.some((message) => message.id === reply.body.id && message.status === 'read')), 8000, 'the read status push');
      const thread = await t.app.http.get(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).expect(200);
      expect(thread.body.data.map((message: { direction: string; status: string; simulated: boolean }) => [message.direction, message.status, message.simulated])).toEqual([
        ['out', 'read', false], // taken by the Cloud API (here its local fake), not the simulator
        ['in', 'received', false],
      ]);
    } finally {
      socket.close();
    }
  });

  it('refuses free text outside the window (409 window_closed) and sends an approved template instead', async () => {
    const conversation = await conversationOf(2);
    await t.app.runtime.deps.db.write(sql`update wa_conversations set last_inbound_at = now() - interval '25 hours' where id = ${conversation.id}::uuid`);
    const closed = await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: '¿Sigues ahí?' });
    expectProblem(closed, 409, 'window_closed');
    const view = await t.app.http.get(`/api/whatsapp/conversations/${conversation.id}`).set(t.manager.auth).expect(200);
    expect(view.body.windowOpen).toBe(false);
    const template = await t.app.http
      .post(`/api/whatsapp/conversations/${conversation.id}/messages`)
      .set(t.manager.auth)
      .send({ templateId, variables: ['Persona'] })
      .expect(202);
    expect(template.body).toMatchObject({ kind: 'template', text: 'Hola Persona, seguimos en contacto.' });
    await until(async () => t.fake.sendsTo(phoneDigits(2)).length === 1, 10_000, 'the template to go out');
    expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ templateId, variables: [] }), 400);
    expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: '' }), 400);
    expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: 'a', templateId }), 400);
  });

  it('marks read, assigns to staff and filters by unread, status and assignee', async () => {
    const conversation = await conversationOf(3);
    expect((await t.app.http.get('/api/whatsapp/conversations?unread=true').set(t.manager.auth).expect(200)).body.data.map((c: { id: string }) => c.id)).toContain(conversation.id);
    const read = await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/read`).set(t.manager.auth).expect(200);
    expect(read.body.unreadCount).toBe(0);
    expect((await t.app.http.get('/api/whatsapp/conversations?unread=true').set(t.manager.auth).expect(200)).body.data.map((c: { id: string }) => c.id)).not.toContain(
      conversation.id,
    );
    const assigned = await t.app.http.patch(`/api/whatsapp/conversations/${conversation.id}`).set(t.manager.auth).send({ assignedToId: t.manager.id }).expect(200);
    expect(assigned.body.assignedToId).toBe(t.manager.id);
    expect((await t.app.http.get(`/api/whatsapp/conversations?assignee=${t.manager.id}`).set(t.manager.auth).expect(200)).body.data).toHaveLength(1);
    const volunteer = await createUser(t.app, t.admin, 'volunteer');
    expectProblem(
      await t.app.http.patch(`/api/whatsapp/conversations/${conversation.id}`).set(t.manager.auth).send({ assignedToId: volunteer.id }),
      400,
      'assignee_cannot_converse',
    );
    await t.app.http.patch(`/api/whatsapp/conversations/${conversation.id}`).set(t.manager.auth).send({ status: 'closed' }).expect(200);
    expect((await t.app.http.get('/api/whatsapp/conversations?status=closed').set(t.manager.auth).expect(200)).body.data).toHaveLength(1);
    expectProblem(await t.app.http.get('/api/whatsapp/conversations?unread=maybe').set(t.manager.auth), 400);
    expectProblem(await t.app.http.get('/api/whatsapp/conversations?status=archived').set(t.manager.auth), 400);
  });

  it('answers 404 for a reply to a conversation that does not exist, 400 for a bad id, 403 for viewers', async () => {
    const missing = '0190a0a0-0000-7000-8000-000000000000';
    expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${missing}/messages`).set(t.manager.auth).send({ text: 'Hola' }), 404);
    expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${missing}/read`).set(t.manager.auth), 404);
    expectProblem(await t.app.http.get(`/api/whatsapp/conversations/${missing}/messages`).set(t.manager.auth), 404);
    expectProblem(await t.app.http.post('/api/whatsapp/conversations/nope/messages').set(t.manager.auth).send({ text: 'Hola' }), 400);
    const viewer = await createUser(t.app, t.admin, 'viewer');
    expectProblem(await t.app.http.get('/api/whatsapp/conversations').set(viewer.auth), 403);
  });

  it('does not write to a contact who opted out', async () => {
    const conversation = await conversationOf(1, 'STOP');
    expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: 'Lamentamos verte partir' }), 409, 'opted_out');
  });

  it("records a STOP as a withdrawal of consent, with the person's words and the message as proof, once", async () => {
    t.fake.postWebhook(t.fake.inboundPayload(phoneDigits(3), { type: 'text', text: { body: 'Baja' } }));
    await t.fake.webhooksDrained();
    // A second STOP finds the contact already opted out: no second record.
    t.fake.postWebhook(t.fake.inboundPayload(phoneDigits(3), { type: 'text', text: { body: 'STOP' } }));
    await t.fake.webhooksDrained();
    const rows = await t.app.runtime.deps.db.rows(
      sql<Record<string, unknown>>`select k.action, k.source, k.evidence, k.whatsapp_opt_in, t.text, m.body as message
        from consents k join contacts c on c.id = k.contact_id join consent_texts t on t.id = k.text_id
        left join wa_messages m on m.id = k.source_ref
        where c.phone = ${'+' + phoneDigits(3)} and k.action = 'withdrawn'`,
    );
    expect(rows).toEqual([{ action: 'withdrawn', source: 'whatsapp_stop', evidence: 'Baja', whatsapp_opt_in: false, text: expect.stringContaining('WhatsApp'), message: 'Baja' }]);
  });
});
