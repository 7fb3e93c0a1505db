import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addBusinessDays, businessDaysBetween } from '../../src/kernel/business-days';
import { sql } from '../../src/kernel/sql';
import { endOfLocalDay, latestExtension, localDateOf } from '../../src/modules/pqrs/pqrs.clock';
import { handleWebhookPayload } from '../../src/modules/whatsapp';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

// The API the PQRS desk screen is built on: the queue by legal deadline with its countdown and
// due state, the header's summary, what an answer and an extension tell, the link back to a
// WhatsApp conversation, and what the live room carries.

const base = '/api/pqrs';
const clock = { timeZone: 'America/Bogota', holidayCountry: 'CO' };
const today = () => localDateOf(new Date(), clock.timeZone);

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-pqrs-desk-'));
  app = await startTestApp({ DATA_DIR: dataDir, PQRS_MAX_PER_IP: '500' }, { workers: false });
  admin = await registerAdmin(app);
  [manager, viewer, volunteer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'volunteer')]);
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Request {
  id: string;
  number: string;
  status: string;
  dueDate: string;
  businessDaysLeft: number;
  dueState: string;
  latestExtensionDate: string | null;
  conversationId: string | null;
  personal: Record<string, unknown> | null;
}

let phone = 200;
async function file(overrides: Record<string, unknown> = {}): Promise<Request> {
  phone += 1;
  const response = await app.http
    .post(base)
    .send({
      type: 'peticion',
      subject: 'Zafiro: alumbrado del parque',
      description: 'El parque del barrio lleva un mes sin alumbrado.',
      name: 'Ana Pérez',
      phone: `300 777 ${String(phone).padStart(4, '0')}`,
      consent: true,
      ...overrides,
    })
    .expect(201);
  return (await app.http.get(`${base}/${response.body.id}`).set(manager.auth).expect(200)).body;
}

/** Moves a request's deadline to `day` (the clock itself is tested by hand in clock.unit.test.ts). */
async function dueOn(id: string, day: string): Promise<void> {
  await app.runtime.deps.db.write(sql`update pqrs_requests set due_date = ${day}, due_at = ${endOfLocalDay(day, clock.timeZone)} where id = ${id}::uuid`);
}

const get = (query: Record<string, string | number>, user: TestUser = manager) => app.http.get(base).set(user.auth).query(query);
const ids = async (query: Record<string, string | number>) => ((await get({ limit: 200, ...query }).expect(200)).body.data as Request[]).map((request) => request.id);

describe('the queue', () => {
  let overdue: Request, tomorrow: Request, third: Request, fourth: Request, answered: Request, closed: Request;

  beforeAll(async () => {
    [overdue, tomorrow, third, fourth, answered, closed] = [await file(), await file(), await file(), await file(), await file(), await file()];
    await dueOn(overdue.id, addBusinessDays(today(), -4, 'CO'));
    await dueOn(tomorrow.id, addBusinessDays(today(), 1, 'CO'));
    await dueOn(third.id, addBusinessDays(today(), 3, 'CO'));
    await dueOn(fourth.id, addBusinessDays(today(), 4, 'CO'));
    await app.http.post(`${base}/${answered.id}/answer`).set(manager.auth).send({ answer: 'El alumbrado se repara el lunes.' }).expect(200);
    await app.http.patch(`${base}/${closed.id}`).set(manager.auth).send({ status: 'closed', note: 'Duplicada' }).expect(200);
  });

  it('orders by the legal due date, soonest first, each with its business days left and its due state', async () => {
    const queue = (await get({ sort: 'due', q: 'zafiro', limit: 200 }).expect(200)).body.data as Request[];
    expect(queue.map((request) => request.id)).toEqual([overdue.id, tomorrow.id, third.id, fourth.id, answered.id, closed.id]);
    expect(queue.map((request) => [request.dueState, request.businessDaysLeft])).toEqual([
      ['overdue', -businessDaysBetween(addBusinessDays(today(), -4, 'CO'), today(), 'CO')],
      ['due_soon', 1],
      ['due_soon', 3],
      ['on_time', 4],
      ['answered', 15],
      ['closed', 15],
    ]);
    expect(queue[0]!.businessDaysLeft).toBeLessThanOrEqual(-3);
    const page1 = await get({ sort: 'due', q: 'zafiro', limit: 4 }).expect(200);
    const page2 = await get({ sort: 'due', q: 'zafiro', limit: 4, cursor: page1.body.nextCursor }).expect(200);
    expect([...page1.body.data, ...page2.body.data].map((request: Request) => request.id)).toEqual(queue.map((request) => request.id));
    expect(page2.body.nextCursor).toBeNull();
    // Each order's cursor belongs to it.
    expectProblem(await get({ sort: 'received', q: 'zafiro', cursor: page1.body.nextCursor }), 400);
    const newest = await get({ q: 'zafiro', limit: 4 }).expect(200);
    expectProblem(await get({ sort: 'due', q: 'zafiro', cursor: newest.body.nextCursor }), 400);
    expect(newest.body.data.map((request: Request) => request.id)).toEqual([closed.id, answered.id, fourth.id, third.id]);
  });

  it('filters by due state (one or several), by a word of the subject or the number, and with the other filters', async () => {
    expect(await ids({ q: 'zafiro', dueState: 'due_soon', sort: 'due' })).toEqual([tomorrow.id, third.id]);
    expect(await ids({ q: 'zafiro', dueState: 'overdue,due_soon,on_time', sort: 'due' })).toEqual([overdue.id, tomorrow.id, third.id, fourth.id]);
    expect(await ids({ q: 'ZAFIRO', dueState: 'answered' })).toEqual([answered.id]);
    expect(await ids({ q: 'zafiro', dueState: 'closed' })).toEqual([closed.id]);
    expect(await ids({ q: 'zafiro', dueState: 'on_time,on_time' })).toEqual([fourth.id]);
    expect(await ids({ q: tomorrow.number })).toEqual([tomorrow.id]);
    expect(await ids({ q: tomorrow.number.slice(-6) })).toEqual([tomorrow.id]);
    expect(await ids({ q: 'alumbrado del PARQUE', dueState: 'overdue' })).toEqual([overdue.id]);
    expect(await ids({ q: '100%_sin' })).toEqual([]);
    await app.http.patch(`${base}/${third.id}`).set(manager.auth).send({ assigneeId: manager.id }).expect(200);
    expect(await ids({ dueState: 'due_soon', assigneeId: manager.id })).toEqual([third.id]);
    expect(await ids({ q: 'zafiro', dueState: 'due_soon', unassigned: 'true' })).toEqual([tomorrow.id]);
    const asViewer = await get({ q: 'zafiro', dueState: 'due_soon' }, viewer).expect(200);
    expect(asViewer.body.data.map((request: Request) => [request.dueState, request.personal])).toEqual([
      ['due_soon', null],
      ['due_soon', null],
    ]);
  });

  it('summarises the queue by due state for the desk’s header, with the same filters', async () => {
    const summary = await app.http.get(`${base}/summary`).set(manager.auth).query({ q: 'zafiro' }).expect(200);
    expect(summary.body).toEqual({ overdue: 1, due_soon: 2, on_time: 1, answered: 1, closed: 1 });
    expect((await app.http.get(`${base}/summary`).set(viewer.auth).query({ q: 'zafiro', assigneeId: manager.id }).expect(200)).body).toEqual({
      overdue: 0,
      due_soon: 1,
      on_time: 0,
      answered: 0,
      closed: 0,
    });
    // Every request is in exactly one state.
    const everything = (await app.http.get(`${base}/summary`).set(manager.auth).expect(200)).body as Record<string, number>;
    const [total] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests`);
    expect(Object.values(everything).reduce((sum, n) => sum + n, 0)).toBe(total!.n);
    for (const query of [{ dueState: 'overdue' }, { status: 'received' }, { q: '' }, { assigneeId: 'x' }, { unassigned: 'maybe' }, { limit: '5' }]) {
      expectProblem(await app.http.get(`${base}/summary`).set(manager.auth).query(query), 400);
    }
    expectProblem(await app.http.get(`${base}/summary`).set(volunteer.auth), 403);
    expectProblem(await app.http.get(`${base}/summary`), 401);
  });

  it('answers 400 for a bad due state, sort, search or cursor', async () => {
    const queries: Record<string, string>[] = [
      { dueState: 'late' },
      { dueState: 'overdue,' },
      { dueState: 'overdue;due_soon' },
      { dueState: '' },
      { sort: 'asc' },
      { sort: '' },
      { q: '' },
      { q: 'x'.repeat(101) },
      { sort: 'due', cursor: 'bm9wZQ' },
    ];
    for (const query of queries) {
      expectProblem(await get(query), 400);
    }
  });
});

describe('answering and extending', () => {
  it('says on which channel the answer was sent to the citizen, or why it could not be', async () => {
    const byEmail = await file({ phone: undefined, email: 'rosa@example.org', emailOptIn: true });
    const answered = await app.http.post(`${base}/${byEmail.id}/answer`).set(manager.auth).send({ answer: 'La reparación quedó programada.' }).expect(200);
    expect(answered.body).toMatchObject({ dueState: 'answered', personal: { answerNotice: { status: 'queued', channel: 'email', noticeId: expect.any(String) } } });
    const anonymous = await app.http
      .post(base)
      .send({ type: 'denuncia', subject: 'Compra de votos', description: 'Ofrecen mercados a cambio del voto en la vereda.', anonymous: true })
      .expect(201);
    const answeredAnonymous = await app.http.post(`${base}/${anonymous.body.id}/answer`).set(manager.auth).send({ answer: 'Trasladamos la denuncia a la Fiscalía.' }).expect(200);
    expect(answeredAnonymous.body.personal).toMatchObject({
      citizen: null,
      receivedNotice: { status: 'unreachable', reason: 'anonymous', noticeId: null },
      answerNotice: { status: 'unreachable', reason: 'anonymous', noticeId: null },
    });
    const unreachable = await file({ whatsappOptIn: false });
    const noConsent = await app.http.post(`${base}/${unreachable.id}/answer`).set(manager.auth).send({ answer: 'Respuesta sin canal autorizado.' }).expect(200);
    expect(noConsent.body.personal.answerNotice).toMatchObject({ status: 'unreachable', reason: expect.any(String) });
  });

  it('shows the legal limit of the one extension while it may be asked for, and refuses it after the deadline', async () => {
    const fresh = await file();
    const limit = latestExtension(new Date(), 15, clock);
    expect(fresh.latestExtensionDate).toBe(limit);
    const beyond = expectProblem(
      await app.http
        .post(`${base}/${fresh.id}/extend`)
        .set(manager.auth)
        .send({ newDueDate: addBusinessDays(limit, 1, 'CO'), reason: 'Falta el concepto técnico.' }),
      400,
      'extension_beyond_double',
    );
    expect(beyond.detail).toContain(limit);
    expectProblem(await app.http.post(`${base}/${fresh.id}/extend`).set(manager.auth).send({ newDueDate: limit }), 400);
    expectProblem(await app.http.post(`${base}/${fresh.id}/extend`).set(manager.auth).send({ newDueDate: limit, reason: '   ' }), 400);
    const extended = await app.http.post(`${base}/${fresh.id}/extend`).set(manager.auth).send({ newDueDate: limit, reason: 'Falta el concepto técnico.' }).expect(200);
    expect(extended.body).toMatchObject({ dueDate: limit, latestExtensionDate: null, personal: { extensionNotice: { status: expect.any(String) } } });

    const late = await file();
    await dueOn(late.id, addBusinessDays(today(), -1, 'CO'));
    const overdue = (await app.http.get(`${base}/${late.id}`).set(manager.auth).expect(200)).body as Request;
    expect(overdue).toMatchObject({ dueState: 'overdue', latestExtensionDate: null });
    expectProblem(await app.http.post(`${base}/${late.id}/extend`).set(manager.auth).send({ newDueDate: limit, reason: 'Demasiado tarde ya.' }), 409, 'deadline_passed');
  });
});

describe('the team and the history', () => {
  it('lists whom a request may be assigned to (active managers and admins, by name) to managers and viewers', async () => {
    const zoe = await createUser(app, admin, 'manager', 'Zoe Zuluaga');
    const alba = await createUser(app, admin, 'manager', 'Alba Arango');
    const gone = await createUser(app, admin, 'manager', 'Beto Bernal');
    await app.http.patch(`/api/users/${gone.id}`).set(admin.auth).send({ active: false }).expect(200);
    const answer = await app.http.get(`${base}/assignees`).set(manager.auth).expect(200);
    const team = answer.body.data as { id: string; name: string; role: string }[];
    expect(team.map((member) => member.id)).toEqual(expect.arrayContaining([admin.id, manager.id, zoe.id, alba.id]));
    expect(team.map((member) => member.id)).not.toEqual(expect.arrayContaining([gone.id]));
    expect(team.some((member) => [viewer.id, volunteer.id].includes(member.id))).toBe(false);
    expect(team.findIndex((member) => member.id === alba.id)).toBeLessThan(team.findIndex((member) => member.id === zoe.id));
    expect(team.find((member) => member.id === alba.id)).toEqual({ id: alba.id, name: 'Alba Arango', role: 'manager' });
    // Every one of them may be given a request.
    const filed = await file();
    await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ assigneeId: alba.id }).expect(200);
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ assigneeId: gone.id }), 400, 'unknown_user');
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ assigneeId: viewer.id }), 400, 'assignee_cannot_handle');

    expect((await app.http.get(`${base}/assignees`).set(viewer.auth).expect(200)).body).toEqual(answer.body);
    expectProblem(await app.http.get(`${base}/assignees`).set(volunteer.auth), 403);
    expectProblem(await app.http.get(`${base}/assignees`), 401);
  });

  it('names who made each change in the history, and nobody for what the citizen or the system did', async () => {
    const filed = await file();
    await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ priority: 'high', note: 'Lo pidió la alcaldía' }).expect(200);
    const managerName = (await app.http.get('/api/auth/me').set(manager.auth).expect(200)).body.name as string;
    const history = (await app.http.get(`${base}/${filed.id}/history`).set(manager.auth).expect(200)).body.data as {
      action: string;
      actorName: string | null;
      note: string | null;
    }[];
    expect(history.find((line) => line.action === 'filed')).toMatchObject({ actorName: null });
    expect(history.find((line) => line.action === 'update')).toMatchObject({ actorName: managerName, note: 'Lo pidió la alcaldía' });
    const asViewer = (await app.http.get(`${base}/${filed.id}/history`).set(viewer.auth).expect(200)).body.data as {
      action: string;
      actorName: string | null;
      note: string | null;
    }[];
    expect(asViewer.find((line) => line.action === 'update')).toMatchObject({ actorName: managerName, note: null });
  });
});

describe('from a WhatsApp conversation', () => {
  it('links the request to the conversation both ways', async () => {
    await handleWebhookPayload(app.runtime.deps, {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                contacts: [{ wa_id: '573007770999', profile: { name: 'Rosa' } }],
                messages: [{ from: '573007770999', id: 'wamid.desk1', timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'La vía está destapada.' } }],
              },
            },
          ],
        },
      ],
    });
    const conversations = await app.http.get('/api/whatsapp/conversations').set(manager.auth).query({ q: '300 777 0999' }).expect(200);
    const conversation = conversations.body.data[0] as { id: string; contact: { id: string } };
    const filed = await app.http.post(`${base}/from-whatsapp`).set(manager.auth).send({ conversationId: conversation.id, type: 'reclamo', subject: 'Vía destapada' }).expect(201);
    expect(filed.body).toMatchObject({ channel: 'whatsapp', conversationId: conversation.id, dueState: 'on_time', personal: { citizen: { contactId: conversation.contact.id } } });
    // The request names its conversation; the inbox finds the person's requests by their contact.
    await app.http.get(`/api/whatsapp/conversations/${filed.body.conversationId}`).set(manager.auth).expect(200);
    expect(await ids({ contactId: conversation.contact.id })).toEqual([filed.body.id]);
  });
});

describe('the live room', () => {
  it('carries what a row needs (id, status, due date, days left, due state) and nothing personal, to viewers too', async () => {
    const socket = await connectSocket(app.url, viewer.token);
    const events: { action: string; id: string }[] = [];
    socket.on('pqrs:request', (event) => events.push(event));
    expect((await subscribe(socket, ['pqrs'])).joined).toEqual(['pqrs']);
    try {
      const filed = await file({ name: 'Marta Ríos', description: 'Mi vecino Julio vende votos en la tienda.' });
      await dueOn(filed.id, addBusinessDays(today(), 2, 'CO'));
      await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ assigneeId: manager.id, note: 'Lo atiende Marta' }).expect(200);
      const updated = await until(() => events.find((event) => event.id === filed.id && event.action === 'updated'));
      expect(updated).toEqual({
        action: 'updated',
        id: filed.id,
        number: filed.number,
        type: 'peticion',
        status: 'received',
        priority: 'normal',
        assigneeId: manager.id,
        dueDate: addBusinessDays(today(), 2, 'CO'),
        dueAt: endOfLocalDay(addBusinessDays(today(), 2, 'CO'), clock.timeZone).toISOString(),
        businessDaysLeft: 2,
        dueState: 'due_soon',
      });
      await app.http.post(`${base}/${filed.id}/answer`).set(manager.auth).send({ answer: 'Trasladamos su denuncia a la Registraduría.' }).expect(200);
      const answered = await until(() => events.find((event) => event.id === filed.id && event.action === 'answered'));
      expect(answered).toMatchObject({ status: 'answered', dueState: 'answered' });
      expect(JSON.stringify(events)).not.toMatch(/Marta|Julio|Ríos|Registraduría|300 ?777|alumbrado/);
    } finally {
      socket.close();
    }
  });
});
