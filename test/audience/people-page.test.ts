import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { financeModule } from '../../src/modules/finance';
import { todayIn } from '../../src/kernel/calendar';
import { personDetail } from '../../src/modules/audience/audience.people';
import { signBody } from '../fakes/whatsapp-cloud';
import { createUser, expectProblem, type TestUser } from '../helpers/users';
import { CLOUD, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';

/**
 * The person's page (`GET /api/audience/contacts/:id`): one citizen files a PQRS on the public
 * form, writes to the campaign's WhatsApp (through the signed webhook), gives a donation the
 * treasurer records with their cédula and joins the volunteers; staff write a note. The page shows
 * all of it, newest first, each fact from the module that holds it, and donations only to roles
 * that may read the books.
 */

const PERSON = { name: 'Lucía Fernández Ríos', phone: '311 222 3344', waId: '573112223344', email: 'lucia.fernandez@example.org', cedula: '1.098.765.432' };

let t: WhatsAppTest;
let dataDir: string;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;
let treasurer: TestUser;
let contactId: string;
let request: { id: string; number: string };

const http = () => t.app.http;

interface Item {
  at: string;
  module: string;
  kind: string;
  title: string;
  refId: string | null;
  detail: Record<string, unknown> | null;
}

async function postWebhook(payload: unknown): Promise<void> {
  const body = JSON.stringify(payload);
  await http().post('/api/whatsapp/webhook').set('Content-Type', 'application/json').set('X-Hub-Signature-256', signBody(CLOUD.appSecret, body)).send(body).expect(200);
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-people-page-'));
  t = await startWhatsAppTest({ DATA_DIR: dataDir });
  manager = t.manager;
  [viewer, volunteer, treasurer] = await Promise.all([createUser(t.app, t.admin, 'viewer'), createUser(t.app, t.admin, 'volunteer'), createUser(t.app, t.admin, 'treasurer')]);

  // The citizen files a request on the public form.
  const filed = await http()
    .post('/api/pqrs')
    .send({
      type: 'peticion',
      subject: 'Alumbrado en el parque',
      description: 'El parque del barrio lleva un mes sin luz en las noches.',
      name: PERSON.name,
      phone: PERSON.phone,
      email: PERSON.email,
      documentId: PERSON.cedula,
      consent: true,
    })
    .expect(201);
  request = { id: filed.body.id, number: filed.body.number };
  const search = await http().get('/api/audience/contacts').query({ q: PERSON.phone }).set(manager.auth).expect(200);
  expect(search.body.data).toHaveLength(1);
  contactId = search.body.data[0].id;

  // Then writes to the campaign's WhatsApp number.
  await postWebhook(t.fake.inboundPayload(PERSON.waId, { type: 'text', text: { body: '¿Ya vieron lo del parque?' } }, 'Lucía'));

  // The treasurer records a donation under the person's cédula, typed another way.
  await http()
    .post('/api/finance/entries')
    .set(treasurer.auth)
    .send({
      kind: 'income',
      // The campaign's own day: between midnight UTC and midnight in Bogotá the UTC date is tomorrow there.
      date: todayIn(t.app.runtime.deps.config.timeZone),
      amount: 250_000,
      code: 'I-103',
      donorType: 'person',
      counterparty: { name: 'Lucía Fernández', idNumber: '1098765432' },
    })
    .expect(201);

  // The person joins the volunteers, and a manager writes a note.
  await http().post('/api/volunteers').set(manager.auth).send({ contactId }).expect(201);
  await http().post(`/api/audience/contacts/${contactId}/notes`).set(manager.auth).send({ text: 'Ofreció su casa para una reunión de vecinos.' }).expect(201);
}, 60_000);

afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const page = (user: TestUser = manager, id = contactId) => http().get(`/api/audience/contacts/${id}`).set(user.auth);

describe('the person’s page', () => {
  it('shows the person, their origins named, their consents with texts, and staff notes', async () => {
    const body = (await page().expect(200)).body;
    expect(body).toMatchObject({
      id: contactId,
      name: PERSON.name,
      phone: '+573112223344',
      email: PERSON.email,
      documentId: '1098765432',
      territory: null,
      neighbourhood: null,
      interests: [],
      consent: { whatsapp: 'no_consent', email: 'no_consent' },
      whatsappOptedOutAt: null,
      origins: [{ kind: 'pqrs', refId: request.id, name: `PQRS ${request.number}`, firstSeenAt: expect.any(String) }],
      originCount: 1,
    });
    expect(body.consents).toEqual([
      expect.objectContaining({
        action: 'given',
        source: 'pqrs',
        whatsappOptIn: false,
        emailOptIn: false,
        text: expect.objectContaining({ text: expect.stringContaining('Ley 1581') }),
      }),
    ]);
    expect(body.notes).toEqual([
      { id: expect.any(String), text: 'Ofreció su casa para una reunión de vecinos.', author: { id: manager.id, name: 'A manager' }, createdAt: expect.any(String) },
    ]);
  });

  it('has a timeline across modules, newest first: the PQRS filed, the WhatsApp message received, the donation, the volunteering, the note', async () => {
    const { timeline } = (await page().expect(200)).body as { timeline: { data: Item[]; nextCursor: string | null } };
    const times = timeline.data.map((item) => Date.parse(item.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(timeline.nextCursor).toBeNull();
    const find = (module: string, kind: string) => timeline.data.filter((item) => item.module === module && item.kind === kind);
    expect(find('pqrs', 'request_filed')).toEqual([
      expect.objectContaining({
        title: `PQRS ${request.number} radicada (petición): Alumbrado en el parque`,
        refId: request.id,
        detail: expect.objectContaining({ number: request.number, subject: 'Alumbrado en el parque', status: 'received' }),
      }),
    ]);
    expect(find('whatsapp', 'message_in')).toEqual([
      expect.objectContaining({ title: 'Mensaje de WhatsApp recibido', detail: expect.objectContaining({ direction: 'in', text: '¿Ya vieron lo del parque?' }) }),
    ]);
    expect(find('finance', 'donation')).toEqual([
      expect.objectContaining({ title: expect.stringMatching(/^Donación: \$\s?250\.000$/), detail: expect.objectContaining({ amount: 250_000 }) }),
    ]);
    expect(find('volunteers', 'volunteer_joined')).toHaveLength(1);
    expect(find('audience', 'note')).toEqual([
      expect.objectContaining({ title: 'Nota de A manager', detail: expect.objectContaining({ text: 'Ofreció su casa para una reunión de vecinos.' }) }),
    ]);
    expect(find('audience', 'contact_created')).toHaveLength(1);
    expect(find('audience', 'consent_given')).toHaveLength(1);
    // The person entered the base and consented in the statement that filed the request: one instant.
    expect(find('audience', 'contact_created')[0]!.at).toBe(find('audience', 'consent_given')[0]!.at);
  });

  it('leaves donations out for a role that may not read the books', async () => {
    const asViewer = { id: viewer.id, role: 'viewer' as const };
    const request = { contactId, origins: [], before: null, limit: 50 };
    expect(await financeModule.personTimeline!.items(t.app.runtime.deps.db, { ...request, actor: asViewer })).toEqual([]);
    expect(await financeModule.personTimeline!.items(t.app.runtime.deps.db, { ...request, actor: { id: manager.id, role: 'manager' } })).toHaveLength(1);
    const seenByViewer = await personDetail(t.app.runtime.deps, asViewer, contactId);
    const modules = new Set(seenByViewer.timeline.data.map((item) => item.module));
    expect(modules.has('finance')).toBe(false);
    expect(modules.has('pqrs') && modules.has('whatsapp')).toBe(true);
    // Admins read the books: they see it.
    const asAdmin = (await page(t.admin).expect(200)).body as { timeline: { data: Item[] } };
    expect(asAdmin.timeline.data.some((item) => item.module === 'finance')).toBe(true);
  });

  it('pages further back with the cursor, each fact once, in the same order', async () => {
    const whole = ((await page().expect(200)).body.timeline.data as Item[]).map((item) => `${item.module}:${item.kind}:${item.refId}`);
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const response: { body: { data: Item[]; nextCursor: string | null } } = await http()
        .get(`/api/audience/contacts/${contactId}/timeline`)
        .query({ limit: 2, ...(before ? { before } : {}) })
        .set(manager.auth)
        .expect(200);
      seen.push(...(response.body.data as Item[]).map((item) => `${item.module}:${item.kind}:${item.refId}`));
      before = response.body.nextCursor;
      pages++;
    } while (before && pages < 50);
    expect(seen).toEqual(whole);
  });
});

describe('refusals', () => {
  it('admits managers and admins only', async () => {
    for (const user of [viewer, volunteer, treasurer]) {
      expectProblem(await page(user), 403, 'forbidden');
      expectProblem(await http().get(`/api/audience/contacts/${contactId}/timeline`).set(user.auth), 403, 'forbidden');
    }
    expectProblem(await http().get(`/api/audience/contacts/${contactId}`), 401);
  });

  it('answers bad ids, unknown people, unknown parameters and bad cursors with problems', async () => {
    expectProblem(await page(manager, 'not-a-uuid'), 400, 'validation_failed');
    expectProblem(await page(manager, '01960000-0000-7000-8000-000000000000'), 404, 'not_found');
    expectProblem(await http().get(`/api/audience/contacts/${contactId}?timeline=all`).set(manager.auth), 400, 'validation_failed');
    const timeline = (query: Record<string, string | number>, id = contactId) => http().get(`/api/audience/contacts/${id}/timeline`).query(query).set(manager.auth);
    expectProblem(await timeline({ limit: 0 }), 400, 'validation_failed');
    expectProblem(await timeline({ limit: 201 }), 400, 'validation_failed');
    expectProblem(await timeline({ before: 'not a cursor' }), 400, 'validation_failed');
    expectProblem(await timeline({ before: Buffer.from('["yesterday","x"]').toString('base64url') }), 400, 'validation_failed');
    expectProblem(await timeline({ after: 'x' }), 400, 'validation_failed');
    expectProblem(await timeline({}, '01960000-0000-7000-8000-000000000000'), 404, 'not_found');
  });
});
