import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { sql } from '../../src/kernel/sql';
import { todayIn } from '../../src/kernel/calendar';
import { campaignBody as emailCampaignBody, createCampaign as createEmailCampaign, createTemplate, PUBLIC_BASE, waitForCampaign } from '../email/helpers';
import { testRedisUrl } from '../helpers/database';
import { campaignBody as qrCampaignBody, createCampaign as createQrCampaign, generateCodes, lead } from '../helpers/qr';
import { tracesLeft } from '../helpers/traces';
import { expectProblem, type TestUser } from '../helpers/users';

import { startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { until } from '../helpers/wait';

/**
 * The right to be forgotten, complete (Ley 1581 de 2012, art. 8 e): one person reaches the
 * campaign through every door, several of which do not point at their contact (a voter list
 * imported by cédula with the phone typed another way, a login under their email, a donation under
 * their cédula), then is erased. Afterwards no text column of any table holds their name, phone,
 * email or cédula except the campaign's books, which the law keeps (and the answer says so); their
 * login no longer works; the outbox keeps no message to them; no Redis key names them; and lists
 * imported later cannot bring them back.
 */

const PERSON = {
  name: 'Eufrasia Tumbaco Quiñones',
  phoneLocal: '315 888 4422',
  phone: '+573158884422',
  waId: '573158884422',
  email: 'eufrasia.tumbaco@example.org',
  cedula: '52987123',
  password: 'una clave larga de verdad 123',
};
const TRACES = ['Eufrasia', 'Tumbaco', 'Quiñones', '3158884422', 'eufrasia.tumbaco', PERSON.cedula];
/** What the campaign's books keep by law (docs/finance.md, "Personal data"): the donation's donor, in the entry and its audit. */
const RETAINED = ['finance_audit.changes', 'finance_entries.counterparty_id_number', 'finance_entries.counterparty_name'];

let t: WhatsAppTest;
let dir: string;
let manager: TestUser;
let contactId: string;
let qrCampaignId: string;
let voterId: string;
let personToken: string;

const http = () => t.app.http;
const db = () => t.app.runtime.deps.db;
const outbox = () => path.join(dir, 'outbox');
const outboxTexts = () => readdirSync(outbox()).map((file) => readFileSync(path.join(outbox(), file), 'utf8'));
const importVoters = (csv: string) => http().post('/api/gotv/voters/import').set(manager.auth).set('Content-Type', 'text/csv').send(csv);

/** Redis keys of this process that name the person (rate limits are keyed by phone, email and IP). */
async function redisKeysNamingThem(): Promise<string[]> {
  const redis = new Redis(testRedisUrl);
  try {
    const keys = await redis.keys(`${t.app.config.redisKeyPrefix}:*`);
    return keys.filter((key) => TRACES.some((trace) => key.toLowerCase().includes(trace.toLowerCase())));
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'comando-erasure-'));
  // No SMTP_URL: every message sent is kept as a file in the outbox.
  t = await startWhatsAppTest({ DATA_DIR: dir, PUBLIC_BASE_URL: PUBLIC_BASE });
  manager = t.manager;

  // A poster capture with cédula and both channels' consent: the contact.
  const landing = { ...qrCampaignBody().landing, fields: { phone: 'required', email: 'optional', documentId: 'optional' } };
  qrCampaignId = (await createQrCampaign(t.app, manager, { landing })).id;
  const [code] = await generateCodes(t.app, manager, qrCampaignId, { count: 1 });
  await http()
    .post('/api/qr-leads/capture')
    .send(lead(code!.code, { name: PERSON.name, phone: PERSON.phoneLocal, email: PERSON.email, documentId: PERSON.cedula, emailOptIn: true, whatsappOptIn: true }))
    .expect(201);
  contactId = (await db().first(sql<{ id: string }>`select id from contacts where phone = ${PERSON.phone}`))!.id;

  // A login under the same email (linked to nothing), used once, and a wrong password tried once.
  await http().post('/api/auth/register').set(t.admin.auth).send({ email: PERSON.email, password: PERSON.password, name: PERSON.name, role: 'volunteer' }).expect(201);
  personToken = (await http().post('/api/auth/login').send({ email: PERSON.email, password: PERSON.password }).expect(200)).body.token;
  await http().post('/api/auth/login').send({ email: PERSON.email, password: 'not the password at all' }).expect(401);

  // A voter list imported by CSV, unlinked: the cédula with dots, the phone typed another way; her son shares her phone.
  await http()
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code: 'ERA-1', name: 'Colegio Olvido', lat: 4.6, lng: -74.1, tables: 8, registeredVoters: 3000 })
    .expect(201);
  const imported = await importVoters(
    `name,documentId,phone,pollingStationCode,tableNumber\n${PERSON.name},52.987.123,(315) 888-4422,ERA-1,3\nMarcos Pardo,41222333,+57 315 888 4422,ERA-1,3\n`,
  ).expect(200);
  expect(imported.body).toMatchObject({ created: 2, rejectedCount: 0 });
  const voter = await db().first(sql<{ id: string; contact_id: string | null; phone: string }>`select id, contact_id, phone from gotv_voters where document_id = ${PERSON.cedula}`);
  expect(voter).toMatchObject({ contact_id: null, phone: PERSON.phone });
  voterId = voter!.id;
  await http()
    .post(`/api/gotv/voters/${voterId}/contacts`)
    .set(manager.auth)
    .send({ outcome: 'reached', note: `Eufrasia confirma; llamar al ${PERSON.phoneLocal}` })
    .expect(201);

  // A PQRS request from the same phone, with a staff note about her in its history.
  const filed = await http()
    .post('/api/pqrs')
    .send({ type: 'peticion', subject: 'Alumbrado', description: 'La calle sigue sin luz.', name: PERSON.name, phone: PERSON.phoneLocal, consent: true })
    .expect(201);
  await http()
    .patch(`/api/pqrs/${filed.body.id}`)
    .set(manager.auth)
    .send({ priority: 'high', note: `Eufrasia Tumbaco pide respuesta al ${PERSON.email}` })
    .expect(200);

  // A donation under her cédula (typed with dots).
  await http()
    .post('/api/finance/entries')
    .set(manager.auth)
    .send({ kind: 'income', date: todayIn('America/Bogota'), amount: 50_000, code: 'I-103', donorType: 'person', counterparty: { name: PERSON.name, idNumber: '52.987.123' } })
    .expect(201);

  // An email campaign to the poster's people, sent without SMTP: a file in the outbox.
  const templateId = (await createTemplate(t.app, manager)).id;
  const campaign = await createEmailCampaign(t.app, manager, emailCampaignBody(templateId, { segment: { qrCampaignIds: [qrCampaignId] } }));
  await http().post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
  await waitForCampaign(t.app, campaign.id, (row) => row.status === 'sent');

  // She writes on WhatsApp.
  t.fake.postWebhook(t.fake.inboundPayload(PERSON.waId, { type: 'text', text: { body: `Hola, soy ${PERSON.name}` } }, PERSON.name));
  await t.fake.webhooksDrained();
  await until(async () => (await db().rows(sql`select 1 from wa_messages where contact_id = ${contactId}::uuid`)).length === 1, 10_000, 'the inbound message');
}, 60_000);

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('before the erasure', () => {
  it('the export gives what is held under her identifiers too: the imported voter, the login, the donation', async () => {
    const data = (await http().get(`/api/audience/contacts/${contactId}/export`).set(manager.auth).expect(200)).body;
    const { gotv, auth, finance, pqrs } = data.modules;
    // Her voter row, found by her cédula; not her son's, which only shares her phone.
    expect(gotv.voters).toEqual([expect.objectContaining({ id: voterId, documentId: PERSON.cedula, phone: PERSON.phone })]);
    expect(gotv.contactAttempts).toEqual([expect.objectContaining({ voterId, note: expect.stringContaining('Eufrasia') })]);
    expect(auth.accounts).toEqual([expect.objectContaining({ email: PERSON.email, name: PERSON.name, role: 'volunteer', active: true })]);
    expect(JSON.stringify(auth)).not.toMatch(/argon2/);
    expect(finance.entries).toEqual([
      expect.objectContaining({
        kind: 'income',
        code: 'I-103',
        amount: 50_000,
        counterpartyName: PERSON.name,
        counterpartyIdNumber: PERSON.cedula,
        history: [expect.objectContaining({ action: 'create' })],
      }),
    ]);
    expect(finance.retentionBasis).toContain('Ley 1475 de 2011');
    expect(pqrs.requests[0].history).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'update', note: expect.stringContaining('Eufrasia') })]));
  });

  it('the scan finds her where this test put her, and the outbox holds her messages', async () => {
    expect(await tracesLeft(db(), TRACES)).toEqual(
      expect.arrayContaining([
        'contacts.name',
        'gotv_voters.document_id',
        'gotv_voters.phone',
        'gotv_voter_contacts.note',
        'users.email',
        'users.name',
        'pqrs_history.note',
        'email_recipients.email',
        'wa_messages.body',
        ...RETAINED,
      ]),
    );
    // The request's acknowledgement (a notice) and the campaign.
    expect(outboxTexts().filter((text) => text.includes(PERSON.email))).toHaveLength(2);
  });

  it('no Redis key names her: rate limits keyed by her phone and email are stored as hashes', async () => {
    expect(await redisKeysNamingThem()).toEqual([]);
  });
});

describe('the erasure', () => {
  it('leaves nothing of her in any table but the books, and says what was kept and why', async () => {
    const response = await http().delete(`/api/audience/contacts/${contactId}`).set(manager.auth).expect(200);
    expect(response.body.counts).toMatchObject({
      gotv: { voters: 1, notesRemoved: 1, phonesRemoved: 1 },
      auth: { accounts: 1 },
      pqrs: { requests: 1, historyNotes: 1 },
      audience: { contacts: 1, identifiersHashed: 3 },
    });
    expect(response.body.retained).toEqual([{ module: 'finance', kind: 'entries', count: 1, basis: expect.stringContaining('Ley 962 de 2005, art. 28') }]);
    expect((await tracesLeft(db(), TRACES)).sort()).toEqual(RETAINED);
  });

  it("her son's voter row keeps his name and cédula and loses only her phone", async () => {
    expect(await db().first(sql`select name, phone from gotv_voters where document_id = '41222333'`)).toEqual({ name: 'Marcos Pardo', phone: null });
  });

  it('her login no longer signs in, and the token she held is void', async () => {
    expectProblem(await http().post('/api/auth/login').send({ email: PERSON.email, password: PERSON.password }), 401);
    expectProblem(await http().get('/api/auth/me').set('Authorization', `Bearer ${personToken}`), 401);
  });

  it('the outbox keeps no message to her', async () => {
    expect(outboxTexts().filter((text) => text.toLowerCase().includes(PERSON.email))).toEqual([]);
  });

  it('no Redis key names her', async () => {
    expect(await redisKeysNamingThem()).toEqual([]);
  });
});

describe('after the erasure', () => {
  it('a voter list naming her again is refused by her cédula, and her phone is dropped from another voter', async () => {
    const answer = await importVoters(`name,documentId,phone,pollingStationCode\nE. Tumbaco,52 987 123,,ERA-1\nOtra Persona,10203040,+57 315 888 4422,ERA-1\n`).expect(200);
    expect(answer.body).toMatchObject({ created: 1, rejectedCount: 1, rejected: [{ line: 2, message: expect.stringMatching(/erased/) }] });
    const other = await db().first(sql<{ phone: string | null }>`select phone from gotv_voters where document_id = '10203040'`);
    expect(other).toEqual({ phone: null });
    expect((await tracesLeft(db(), TRACES)).sort()).toEqual(RETAINED);
  });

  it("a supporters' list naming her again is refused", async () => {
    const answer = await http()
      .post('/api/audience/contacts/import')
      .set(manager.auth)
      .set('Content-Type', 'text/csv')
      .send(`name,phone,email\nE. Tumbaco,${PERSON.phoneLocal},\nOtra Vez,,${PERSON.email}\nAlguien Más,300 111 2233,\n`)
      .expect(200);
    expect(answer.body).toMatchObject({ created: 1, rejectedCount: 2 });
    expect(answer.body.rejected.map((row: { line: number; message: string }) => [row.line, /erased/.test(row.message)])).toEqual([
      [2, true],
      [3, true],
    ]);
    expect((await tracesLeft(db(), TRACES)).sort()).toEqual(RETAINED);
  });
});

describe('a person whose login is the last admin', () => {
  it('is not erased: 409 last_admin, and nothing changes', async () => {
    const [code] = await generateCodes(t.app, manager, qrCampaignId, { count: 1 });
    await http()
      .post('/api/qr-leads/capture')
      .send(lead(code!.code, { name: 'Admin Única', phone: '316 000 1111', email: t.admin.email }))
      .expect(201);
    const id = (await db().first(sql<{ id: string }>`select id from contacts where phone = '+573160001111'`))!.id;
    expectProblem(await http().delete(`/api/audience/contacts/${id}`).set(manager.auth), 409, 'last_admin');
    expect(await db().first(sql<{ name: string }>`select name from contacts where id = ${id}::uuid`)).toEqual({ name: 'Admin Única' });
    await http().get('/api/auth/me').set(t.admin.auth).expect(200);
  });
});
