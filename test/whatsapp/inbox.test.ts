import type { Socket } from 'socket.io-client';
import { sql } from '../../src/kernel/sql';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, type TestUser } from '../helpers/users';
import { approvedTemplate, phoneDigits, seedContacts, startWhatsAppTest, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

// The API the WhatsApp inbox screen is built on: the list and its filters, the unread badge,
// assignment, resolving, read and unread, quick replies, and what each role hears by socket.

const UNKNOWN = '0190a0a0-0000-7000-8000-000000000000';

interface Row {
  id: string;
  status: string;
  unreadCount: number;
  assignedToId: string | null;
  assignee: { id: string; name: string } | null;
  contact: { id: string; name: string; phone: string };
  lastMessage: { id: string; text: string | null; direction: string } | null;
  lastMessageAt: string;
  windowOpen: boolean;
  windowExpiresAt: string | null;
}

let t: WhatsAppTest;
let other: TestUser;
let viewer: TestUser;
let volunteer: TestUser;

beforeAll(async () => {
  t = await startWhatsAppTest({}, { statuses: ['sent', 'delivered'] });
  await seedContacts(t.app, { count: 9 });
  [other, viewer, volunteer] = await Promise.all([
    createUser(t.app, t.admin, 'manager', 'Beatriz Gómez'),
    createUser(t.app, t.admin, 'viewer'),
    createUser(t.app, t.admin, 'volunteer'),
  ]);
});
afterAll(() => t.close());

const list = async (query: Record<string, string | number> = {}, user: TestUser = t.manager) =>
  (await t.app.http.get('/api/whatsapp/conversations').set(user.auth).query(query).expect(200)).body as { data: Row[]; nextCursor: string | null };

/** Contact n writes `text`; their conversation as the list shows it. */
async function inbound(n: number, text = 'Hola'): Promise<Row> {
  t.fake.postWebhook(t.fake.inboundPayload(phoneDigits(n), { type: 'text', text: { body: text } }));
  await t.fake.webhooksDrained();
  const [row] = (await list({ q: phoneDigits(n) })).data;
  return row!;
}

const patch = (id: string, body: Record<string, unknown>) => t.app.http.patch(`/api/whatsapp/conversations/${id}`).set(t.manager.auth).send(body);

/** Every event a socket hears, by name. */
function recorder(socket: Socket): { name: string; payload: unknown }[] {
  const events: { name: string; payload: unknown }[] = [];
  socket.onAny((name: string, payload: unknown) => events.push({ name, payload }));
  return events;
}

describe('the conversation list', () => {
  it('filters by status, assignee (me, none, someone), unread and a name or a phone typed in any format, newest activity first, paged', async () => {
    const first = await inbound(1, 'Buenos días');
    const second = await inbound(2);
    const third = await inbound(3, '¿A qué hora es la reunión?');
    expect(third).toMatchObject({
      status: 'open',
      unreadCount: 1,
      assignedToId: null,
      assignee: null,
      contact: { name: 'Persona 3', phone: `+${phoneDigits(3)}` },
      lastMessage: { direction: 'in', text: '¿A qué hora es la reunión?' },
      windowOpen: true,
      windowExpiresAt: expect.any(String),
    });
    expect(Date.parse(third.windowExpiresAt!) - Date.parse(third.lastMessageAt)).toBe(24 * 3600_000);
    await patch(second.id, { assignedToId: t.manager.id }).expect(200);
    const assigned = await patch(third.id, { assignedToId: other.id }).expect(200);
    expect(assigned.body).toMatchObject({ assignedToId: other.id, assignee: { id: other.id, name: 'Beatriz Gómez' } });

    const ids = async (query: Record<string, string | number>) => (await list({ limit: 200, ...query })).data.map((row) => row.id);
    expect(await ids({ assignee: 'me' })).toEqual([second.id]);
    expect(await ids({ assignee: other.id })).toEqual([third.id]);
    const unassigned = await ids({ assignee: 'none' });
    expect(unassigned).toContain(first.id);
    expect(unassigned).not.toContain(second.id);
    expect(unassigned).not.toContain(third.id);
    expect((await list({ assignee: other.id })).data[0]!.assignee).toEqual({ id: other.id, name: 'Beatriz Gómez' });

    for (const typed of ['300 000 0002', '+57 (300) 000-0002', '0057 300 000 0002', '3000000002', '0000002']) expect(await ids({ q: typed })).toEqual([second.id]);
    expect(await ids({ q: 'persona 1' })).toEqual([first.id]);
    expect(await ids({ q: 'Nadie Así' })).toEqual([]);

    await t.app.http.post(`/api/whatsapp/conversations/${first.id}/read`).set(t.manager.auth).expect(200);
    const unread = await ids({ unread: 'true' });
    expect(unread).toEqual(expect.arrayContaining([second.id, third.id]));
    expect(unread).not.toContain(first.id);
    expect(await ids({ unread: 'false' })).toContain(first.id);
    await patch(first.id, { status: 'closed' }).expect(200);
    expect(await ids({ status: 'closed' })).toEqual([first.id]);
    expect(await ids({ status: 'open', assignee: 'none' })).not.toContain(first.id);

    const all = (await list({ limit: 200 })).data;
    const times = all.map((row) => row.lastMessageAt);
    expect([...times].sort().reverse()).toEqual(times);
    const page1 = await list({ limit: 2 });
    const page2 = await list({ limit: 2, cursor: page1.nextCursor! });
    expect([...page1.data, ...page2.data].map((row) => row.id)).toEqual(all.slice(0, 4).map((row) => row.id));
  });

  it('answers 400 for a bad or unknown filter, 403 to roles that may not hold conversations', async () => {
    for (const query of [
      { assignee: 'someone' },
      { assignee: '' },
      { assignedToId: t.manager.id },
      { q: '' },
      { q: 'x'.repeat(101) },
      { status: 'archived' },
      { unread: 'yes' },
      { limit: '0' },
      { cursor: 'bm9wZQ' },
      { cursor: 'not a cursor!' },
    ]) {
      expectProblem(await t.app.http.get('/api/whatsapp/conversations').set(t.manager.auth).query(query), 400);
    }
    for (const user of [viewer, volunteer]) {
      expectProblem(await t.app.http.get('/api/whatsapp/conversations').set(user.auth), 403);
      expectProblem(await t.app.http.get('/api/whatsapp/conversations/unread').set(user.auth), 403);
    }
    expectProblem(await t.app.http.get('/api/whatsapp/conversations/unread'), 401);
    expectProblem(await t.app.http.get('/api/whatsapp/conversations/unread').set(t.manager.auth).query({ all: 'true' }), 400);
  });
});

describe('the unread badge', () => {
  const recount = async () =>
    (await t.app.runtime.deps.db.first(
      sql<{ conversations: number; messages: number }>`select count(*)::int as conversations, coalesce(sum(unread_count), 0)::int as messages
        from wa_conversations where status = 'open' and unread_count > 0`,
    ))!;
  const badge = async () => (await t.app.http.get('/api/whatsapp/conversations/unread').set(t.manager.auth).expect(200)).body as { conversations: number; messages: number };

  it('counts unread messages of open conversations, and pushes the same to both rooms at most once a second', async () => {
    const socket = await connectSocket(t.app.url, viewer.token);
    const events = recorder(socket);
    expect((await subscribe(socket, ['whatsapp'])).joined).toEqual(['whatsapp']);
    try {
      const conversation = await inbound(4);
      await inbound(4, 'Otra vez yo');
      const before = await badge();
      expect(before).toEqual(await recount());
      expect(before.messages).toBeGreaterThanOrEqual(2);
      await until(() => events.find((event) => event.name === 'whatsapp:unread' && JSON.stringify(event.payload) === JSON.stringify(before)));
      // Resolving takes it out of the badge; its unread messages stay for when it reopens.
      const closed = await patch(conversation.id, { status: 'closed' }).expect(200);
      expect(closed.body.unreadCount).toBe(2);
      const after = await badge();
      expect(after).toEqual({ conversations: before.conversations - 1, messages: before.messages - 2 });
      await until(() => events.find((event) => event.name === 'whatsapp:unread' && JSON.stringify(event.payload) === JSON.stringify(after)), 5000);
    } finally {
      socket.close();
    }
  });
});

describe('assignment', () => {
  it('assigns only to active users who may converse, answers and tells the inbox with the assignee’s name, and unassigns', async () => {
    const conversation = await inbound(5);
    const socket = await connectSocket(t.app.url, t.manager.token);
    const events = recorder(socket);
    expect((await subscribe(socket, ['whatsapp:inbox'])).joined).toEqual(['whatsapp:inbox']);
    try {
      const assigned = await patch(conversation.id, { assignedToId: other.id }).expect(200);
      expect(assigned.body).toMatchObject({ id: conversation.id, assignee: { id: other.id, name: 'Beatriz Gómez' } });
      const event = await until(() => events.find((candidate) => candidate.name === 'whatsapp:conversation'));
      expect(event.payload).toEqual({ conversation: assigned.body, changes: ['assignee'], actorId: t.manager.id });

      expectProblem(await patch(conversation.id, { assignedToId: viewer.id }), 400, 'assignee_cannot_converse');
      expectProblem(await patch(conversation.id, { assignedToId: volunteer.id }), 400, 'assignee_cannot_converse');
      expectProblem(await patch(conversation.id, { assignedToId: UNKNOWN }), 400, 'unknown_user');
      const gone = await createUser(t.app, t.admin, 'manager');
      await t.app.runtime.deps.db.write(sql`update users set active = false where id = ${gone.id}::uuid`);
      expectProblem(await patch(conversation.id, { assignedToId: gone.id }), 400, 'assignee_cannot_converse');
      expect((await t.app.http.get(`/api/whatsapp/conversations/${conversation.id}`).set(t.manager.auth).expect(200)).body.assignee.id).toBe(other.id);
      await patch(conversation.id, { assignedToId: t.admin.id }).expect(200);

      const unassigned = await patch(conversation.id, { assignedToId: null }).expect(200);
      expect(unassigned.body).toMatchObject({ assignedToId: null, assignee: null });
      for (const body of [{}, { assignedToId: 'x' }, { status: 'archived' }, { status: null }]) expectProblem(await patch(conversation.id, body), 400);
      expectProblem(await patch(UNKNOWN, { status: 'closed' }), 404);
      expectProblem(await t.app.http.patch(`/api/whatsapp/conversations/${conversation.id}`).set(viewer.auth).send({ status: 'closed' }), 403);
    } finally {
      socket.close();
    }
  });
});

describe('who may be assigned', () => {
  it('lists active staff whose role may converse, by name, searchable and paged, to the roles that converse only', async () => {
    const gone = await createUser(t.app, t.admin, 'manager', 'Zacarías Retirado');
    await t.app.runtime.deps.db.write(sql`update users set active = false where id = ${gone.id}::uuid`);
    const assignees = async (query: Record<string, string | number> = {}) =>
      (await t.app.http.get('/api/whatsapp/assignees').set(t.manager.auth).query(query).expect(200)).body as {
        data: { id: string; name: string; role: string }[];
        nextCursor: string | null;
      };
    const all = (await assignees({ limit: 200 })).data;
    const ids = all.map((user) => user.id);
    // Admins and managers, whoever may be handed a conversation; never a viewer, a volunteer or a deactivated account.
    expect(ids).toEqual(expect.arrayContaining([t.admin.id, t.manager.id, other.id]));
    for (const excluded of [viewer.id, volunteer.id, gone.id]) expect(ids).not.toContain(excluded);
    expect(all.find((user) => user.id === other.id)).toEqual({ id: other.id, name: 'Beatriz Gómez', role: 'manager' });
    // Each one listed is one the conversation accepts.
    const conversation = await inbound(9);
    for (const user of all) await patch(conversation.id, { assignedToId: user.id }).expect(200);

    expect((await assignees({ q: 'beatriz' })).data.map((user) => user.id)).toEqual([other.id]);
    const first = await assignees({ limit: 1 });
    const second = await assignees({ limit: 1, cursor: first.nextCursor! });
    expect([...first.data, ...second.data].map((user) => user.id)).toEqual(ids.slice(0, 2));

    expectProblem(await t.app.http.get('/api/whatsapp/assignees').set(viewer.auth), 403);
    expectProblem(await t.app.http.get('/api/whatsapp/assignees').set(volunteer.auth), 403);
    expectProblem(await t.app.http.get('/api/whatsapp/assignees'), 401);
    expectProblem(await t.app.http.get('/api/whatsapp/assignees').set(t.manager.auth).query({ role: 'viewer' }), 400);
  });
});

describe('resolving, reading and marking unread', () => {
  it('closes, reopens on the next message from the person, reads to zero and marks unread again, each told live', async () => {
    const socket = await connectSocket(t.app.url, t.manager.token);
    const events = recorder(socket);
    await subscribe(socket, ['whatsapp:inbox']);
    try {
      const conversation = await inbound(6);
      const closed = await patch(conversation.id, { status: 'closed' }).expect(200);
      expect(closed.body).toMatchObject({ status: 'closed', unreadCount: 1 });
      await until(() => events.find((event) => event.name === 'whatsapp:conversation' && (event.payload as { changes: string[] }).changes.includes('status')));

      await inbound(6, 'Una pregunta más');
      const reopened = await until(() =>
        events.find((event) => event.name === 'whatsapp:message' && (event.payload as { message: { text: string } }).message.text === 'Una pregunta más'),
      );
      expect(reopened.payload).toMatchObject({
        message: { direction: 'in', kind: 'text', status: 'received', conversationId: conversation.id },
        conversation: { id: conversation.id, status: 'open', unreadCount: 2, lastMessage: { text: 'Una pregunta más' }, windowOpen: true },
      });

      const read = await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/read`).set(t.manager.auth).expect(200);
      expect(read.body.unreadCount).toBe(0);
      const readEvent = await until(() =>
        events.find((event) => event.name === 'whatsapp:conversation' && (event.payload as { conversation: Row }).conversation.unreadCount === 0),
      );
      expect(readEvent.payload).toMatchObject({ changes: ['unreadCount'], actorId: t.manager.id });
      const unread = await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/unread`).set(t.manager.auth).expect(200);
      expect(unread.body.unreadCount).toBe(1);
      expect((await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/unread`).set(t.manager.auth).expect(200)).body.unreadCount).toBe(1);
      expect((await list({ unread: 'true', q: phoneDigits(6) })).data.map((row) => row.id)).toEqual([conversation.id]);

      const reply = await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: 'Con gusto le ayudo.' }).expect(202);
      const out = await until(() => events.find((event) => event.name === 'whatsapp:message' && (event.payload as { message: { id: string } }).message.id === reply.body.id));
      expect(out.payload).toMatchObject({ message: { direction: 'out', status: 'queued', sentById: t.manager.id }, conversation: { lastMessage: { id: reply.body.id } } });
      // The ticks of the reply reach the inbox.
      await until(
        () =>
          events.find(
            (event) =>
              event.name === 'whatsapp:status' &&
              (event.payload as { messages: { id: string; status: string }[] }).messages.some((m) => m.id === reply.body.id && m.status === 'delivered'),
          ),
        8000,
      );

      for (const path of ['read', 'unread']) {
        expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${UNKNOWN}/${path}`).set(t.manager.auth), 404);
        expectProblem(await t.app.http.post(`/api/whatsapp/conversations/nope/${path}`).set(t.manager.auth), 400);
        expectProblem(await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/${path}`).set(viewer.auth), 403);
      }
    } finally {
      socket.close();
    }
  });
});

describe('who hears what by socket', () => {
  it('gives the inbox room to the roles that may converse, and viewers in the figures room never a text, a number or a name', async () => {
    const manager = await connectSocket(t.app.url, t.manager.token);
    const watcher = await connectSocket(t.app.url, viewer.token);
    const outsider = await connectSocket(t.app.url, volunteer.token);
    const managerEvents = recorder(manager);
    const viewerEvents = recorder(watcher);
    try {
      expect(await subscribe(manager, ['whatsapp', 'whatsapp:inbox'])).toMatchObject({ joined: ['whatsapp', 'whatsapp:inbox'], denied: [] });
      expect(await subscribe(watcher, ['whatsapp', 'whatsapp:inbox'])).toMatchObject({ joined: ['whatsapp'], denied: [{ room: 'whatsapp:inbox', code: 'forbidden' }] });
      expect((await subscribe(outsider, ['whatsapp', 'whatsapp:inbox'])).denied.map((denial) => denial.code)).toEqual(['forbidden', 'forbidden']);

      const secret = 'Mi cédula es 1020304050 y vivo en la calle 5 # 10-20';
      const conversation = await inbound(7, secret);
      const answer = 'Gracias, la registramos con la cédula que nos dio.';
      const reply = await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: answer }).expect(202);
      await patch(conversation.id, { assignedToId: t.manager.id, status: 'closed' }).expect(200);
      await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/read`).set(t.manager.auth).expect(200);

      // The manager hears everything, texts included; by then the viewer has heard what it will.
      await until(() => managerEvents.find((event) => event.name === 'whatsapp:message' && (event.payload as { message: { text: string } }).message.text === secret));
      await until(() => managerEvents.find((event) => event.name === 'whatsapp:message' && (event.payload as { message: { text: string } }).message.text === answer));
      await until(
        () =>
          managerEvents.find(
            (event) =>
              event.name === 'whatsapp:status' &&
              (event.payload as { messages: { id: string; status: string }[] }).messages.some((m) => m.id === reply.body.id && m.status === 'delivered'),
          ),
        8000,
      );
      await until(() => viewerEvents.find((event) => event.name === 'whatsapp:activity' && (event.payload as { id: string }).id === reply.body.id));
      await until(() => viewerEvents.find((event) => event.name === 'whatsapp:unread'), 3000);
      // `whatsapp:unread` is throttled to one push a second: the wait outlasts the window, so its
      // trailing push (after the read) is here too if one was due.
      await new Promise((resolve) => setTimeout(resolve, 1200));

      const activity = viewerEvents.filter((event) => event.name === 'whatsapp:activity').map((event) => event.payload);
      expect(activity).toEqual(
        expect.arrayContaining([
          { id: expect.any(String), direction: 'in', kind: 'text', createdAt: expect.any(String) },
          { id: reply.body.id, direction: 'out', kind: 'text', createdAt: reply.body.createdAt },
        ]),
      );
      expect(new Set(viewerEvents.map((event) => event.name))).toEqual(new Set(['whatsapp:activity', 'whatsapp:unread']));
      const heard = JSON.stringify(viewerEvents);
      for (const leak of ['1020304050', 'cédula', 'calle 5', phoneDigits(7), 'Persona 7', conversation.id, conversation.contact.id]) expect(heard).not.toContain(leak);
      // The manager in both rooms hears each message once, in full.
      expect(managerEvents.filter((event) => event.name === 'whatsapp:message' && (event.payload as { message: { id: string } }).message.id === reply.body.id)).toHaveLength(1);
    } finally {
      for (const socket of [manager, watcher, outsider]) socket.close();
    }
  });
});

describe('quick replies', () => {
  const base = '/api/whatsapp/quick-replies';
  const text = 'Hola {{primer_nombre}}, atendemos de lunes a viernes de 8 a 5. Le escribe {{agente}}, de la sede de {{ barrio }}.';

  it('keeps the team’s canned answers by unique shortcut, paged, and fills their variables for a conversation', async () => {
    const created = await t.app.http.post(base).set(t.manager.auth).send({ shortcut: ' /Horario ', title: 'Horario de atención', text }).expect(201);
    expect(created.body).toMatchObject({
      shortcut: '/horario',
      title: 'Horario de atención',
      text,
      variables: ['primer_nombre', 'agente', 'barrio'],
      rendered: null,
      createdById: t.manager.id,
      updatedById: t.manager.id,
    });
    expectProblem(await t.app.http.post(base).set(other.auth).send({ shortcut: '/horario', title: 'Otro', text: 'Otro texto' }), 409, 'shortcut_taken');
    await t.app.http.post(base).set(other.auth).send({ shortcut: '/bienvenida', title: 'Bienvenida', text: 'Bienvenido, {{nombre}}.' }).expect(201);
    await t.app.http.post(base).set(t.admin.auth).send({ shortcut: '/adios', title: 'Despedida', text: 'Gracias por escribirnos.' }).expect(201);

    const all = await t.app.http.get(base).set(t.manager.auth).expect(200);
    expect(all.body.data.map((reply: { shortcut: string }) => reply.shortcut)).toEqual(['/adios', '/bienvenida', '/horario']);
    const first = await t.app.http.get(base).set(t.manager.auth).query({ limit: 2 }).expect(200);
    const rest = await t.app.http.get(base).set(t.manager.auth).query({ limit: 2, cursor: first.body.nextCursor }).expect(200);
    expect([...first.body.data, ...rest.body.data].map((reply: { shortcut: string }) => reply.shortcut)).toEqual(['/adios', '/bienvenida', '/horario']);
    expect(rest.body.nextCursor).toBeNull();
    for (const q of ['/hor', 'HOR', 'atención']) {
      expect((await t.app.http.get(base).set(t.manager.auth).query({ q }).expect(200)).body.data.map((reply: { shortcut: string }) => reply.shortcut)).toEqual(['/horario']);
    }
    expect((await t.app.http.get(base).set(t.manager.auth).query({ q: '%' }).expect(200)).body.data).toEqual([]);

    const conversation = await inbound(8);
    const forConversation = async () =>
      (await t.app.http.get(base).set(t.manager.auth).query({ conversationId: conversation.id, q: '/hor' }).expect(200)).body.data[0].rendered as {
        text: string;
        missing: string[];
      };
    expect(await forConversation()).toEqual({ text: 'Hola Persona, atendemos de lunes a viernes de 8 a 5. Le escribe A manager, de la sede de .', missing: ['barrio'] });
    await t.app.runtime.deps.db.write(sql`update contacts set name = 'María José Ruiz', neighbourhood = 'Aranjuez' where id = ${conversation.contact.id}::uuid`);
    expect(await forConversation()).toEqual({ text: 'Hola María, atendemos de lunes a viernes de 8 a 5. Le escribe A manager, de la sede de Aranjuez.', missing: [] });
    // A person who wrote without a profile name is not greeted as "WhatsApp".
    await t.app.runtime.deps.db.write(sql`update contacts set name = 'WhatsApp' where id = ${conversation.contact.id}::uuid`);
    expect((await forConversation()).missing).toEqual(['primer_nombre']);

    const changed = await t.app.http.patch(`${base}/${created.body.id}`).set(other.auth).send({ text: 'Atendemos de 8 a 5, {{nombre}}.' }).expect(200);
    expect(changed.body).toMatchObject({ shortcut: '/horario', text: 'Atendemos de 8 a 5, {{nombre}}.', variables: ['nombre'], createdById: t.manager.id, updatedById: other.id });
    expectProblem(await t.app.http.patch(`${base}/${created.body.id}`).set(t.manager.auth).send({ shortcut: '/adios' }), 409, 'shortcut_taken');
    await t.app.http.delete(`${base}/${created.body.id}`).set(t.manager.auth).expect(204);
    expectProblem(await t.app.http.delete(`${base}/${created.body.id}`).set(t.manager.auth), 404);
    expectProblem(await t.app.http.patch(`${base}/${created.body.id}`).set(t.manager.auth).send({ title: 'Nada' }), 404);
  });

  it('refuses bad input with 400 and other roles with 401 and 403', async () => {
    const good = { shortcut: '/datos', title: 'Tratamiento de datos', text: 'Sus datos se tratan según la Ley 1581.' };
    for (const body of [
      { ...good, shortcut: 'datos' },
      { ...good, shortcut: '/con espacio' },
      { ...good, shortcut: '/' },
      { ...good, shortcut: `/${'a'.repeat(31)}` },
      { ...good, title: '' },
      { ...good, title: 'x'.repeat(81) },
      { ...good, text: '' },
      { ...good, text: 'x'.repeat(1025) },
      { ...good, text: 'Su cédula {{cedula}} quedó registrada.' },
      { ...good, extra: true },
      { shortcut: '/datos', title: 'Sin texto' },
    ]) {
      expectProblem(await t.app.http.post(base).set(t.manager.auth).send(body), 400);
    }
    const unknownVariable = expectProblem(
      await t.app.http
        .post(base)
        .set(t.manager.auth)
        .send({ ...good, text: 'Hola {{cedula}}' }),
      400,
    );
    expect(JSON.stringify(unknownVariable.errors)).toMatch(/unknown variable \{\{cedula\}\}; use \{\{nombre\}\}, \{\{primer_nombre\}\}, \{\{barrio\}\}, \{\{agente\}\}/);
    await t.app.http
      .post(base)
      .set(t.manager.auth)
      .send({ ...good, text: 'x'.repeat(1024) })
      .expect(201);
    const [stored] = (await t.app.http.get(base).set(t.manager.auth).query({ q: '/datos' }).expect(200)).body.data;
    for (const body of [{}, { shortcut: 'datos' }, { text: '' }, { other: 1 }]) expectProblem(await t.app.http.patch(`${base}/${stored.id}`).set(t.manager.auth).send(body), 400);
    for (const query of [{ conversationId: UNKNOWN }, { conversationId: 'x' }, { q: '' }, { limit: '500' }, { sort: 'title' }, { cursor: 'bm9wZQ' }]) {
      expectProblem(await t.app.http.get(base).set(t.manager.auth).query(query), 400);
    }
    expectProblem(await t.app.http.get(base).set(t.manager.auth).query({ conversationId: UNKNOWN }), 400, 'unknown_conversation');
    expectProblem(await t.app.http.patch(`${base}/nope`).set(t.manager.auth).send({ title: 'x' }), 400);
    expectProblem(await t.app.http.delete(`${base}/nope`).set(t.manager.auth), 400);
    for (const user of [viewer, volunteer]) {
      expectProblem(await t.app.http.get(base).set(user.auth), 403);
      expectProblem(await t.app.http.post(base).set(user.auth).send(good), 403);
      expectProblem(await t.app.http.patch(`${base}/${stored.id}`).set(user.auth).send({ title: 'x' }), 403);
      expectProblem(await t.app.http.delete(`${base}/${stored.id}`).set(user.auth), 403);
    }
    expectProblem(await t.app.http.get(base), 401);
  });
});

describe('templates for a reply outside the window', () => {
  it('lists the approved templates, with their placeholders and examples, to the roles that converse', async () => {
    const template = await approvedTemplate(t, { category: 'UTILITY', body: 'Hola {{1}}, su solicitud {{2}} sigue abierta.', examples: ['Ana', 'PQRS-2026-000001'] });
    const approved = await t.app.http.get('/api/whatsapp/templates').set(t.manager.auth).query({ status: 'APPROVED' }).expect(200);
    expect(approved.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: template.id, status: 'APPROVED', placeholders: 2, examples: ['Ana', 'PQRS-2026-000001'] })]),
    );
    expect(approved.body.data.every((row: { status: string }) => row.status === 'APPROVED')).toBe(true);
    expectProblem(await t.app.http.get('/api/whatsapp/templates').set(t.manager.auth).query({ status: 'whatever' }), 400);
  });
});

describe('the text-free activity list', () => {
  it('lists conversation messages newest first without their words or numbers, to the roles that follow the figures', async () => {
    const conversation = await inbound(11, 'Mi vecina también quiere votar');
    await t.app.http.post(`/api/whatsapp/conversations/${conversation.id}/messages`).set(t.manager.auth).send({ text: 'Gracias por escribir.' }).expect(202);
    await inbound(12, 'Otro mensaje');
    const all = (await t.app.http.get('/api/whatsapp/activity').set(viewer.auth).query({ limit: 3 }).expect(200)).body as {
      data: { id: string; direction: string; kind: string; createdAt: string }[];
      nextCursor: string | null;
    };
    expect(all.data.map((message) => message.direction)).toEqual(['in', 'out', 'in']);
    expect(all.nextCursor).toEqual(expect.any(String));
    for (const message of all.data) expect(Object.keys(message).sort()).toEqual(['createdAt', 'direction', 'id', 'kind']);
    const text = JSON.stringify(all);
    expect(text).not.toContain('vecina');
    expect(text).not.toContain(phoneDigits(12).slice(2));
    const replies = (await t.app.http.get('/api/whatsapp/activity').set(t.manager.auth).query({ direction: 'in', limit: 2 }).expect(200)).body as {
      data: { id: string; direction: string }[];
    };
    expect(replies.data.map((message) => message.id)).toEqual([all.data[0]!.id, all.data[2]!.id]);
    expectProblem(await t.app.http.get('/api/whatsapp/activity').set(viewer.auth).query({ direction: 'sideways' }), 400);
    expectProblem(await t.app.http.get('/api/whatsapp/activity').set(viewer.auth).query({ cursor: 'abc' }), 400);
    expectProblem(await t.app.http.get('/api/whatsapp/activity').set(volunteer.auth), 403);
    expectProblem(await t.app.http.get('/api/whatsapp/activity'), 401);
  });
});
