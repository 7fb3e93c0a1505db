import { createHash, randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { eventWriter } from '../../src/modules/email/email.tracking';
import { FakeSmtp } from '../fakes/smtp';
import { campaignBody as emailCampaignBody, createCampaign as createEmailCampaign, createTemplate, emailEnv, pathOf, waitForCampaign } from '../email/helpers';
import { campaignBody as qrCampaignBody, createCampaign as createQrCampaign, generateCodes, lead } from '../helpers/qr';
import { tracesLeft as findTraces } from '../helpers/traces';
import { createUser, expectProblem, type TestUser } from '../helpers/users';
import { approvedTemplate, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { until } from '../helpers/wait';

/**
 * A person's rights over their data (Ley 1581 de 2012, art. 8), answered across every module:
 * the person is built through the public API (a poster capture, a WhatsApp campaign message and
 * their reply, two email campaigns, one of which bounces, a GOTV voter linked to them), then
 * exported, then erased. Afterwards no column of any table holds their name, phone, email or
 * cédula, and every campaign figure reads as before.
 */

const PERSON = {
  name: 'Zenobia Quimbayá Ortegón',
  phoneLocal: '311 987 6543',
  phone: '+573119876543',
  waId: '573119876543',
  email: 'zenobia.quimbaya@example.org',
  cedula: '1079865432',
};
const OTHER = { name: 'Bruno Ejemplo Pardo', phoneLocal: '311 555 0199', email: 'bruno.pardo@example.org', cedula: '1012345678' };

/** What must be gone after erasure, as case-insensitive substrings of any stored text. */
const TRACES = ['Zenobia', 'Quimbay', 'Ortegón', '3119876543', 'zenobia.quimbaya', PERSON.cedula];

const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

let t: WhatsAppTest;
let smtp: FakeSmtp;
let manager: TestUser;
let viewer: TestUser;
let contactId: string;
let otherContactId: string;
let qrCampaignId: string;
let waCampaignId: string;
let emailCampaignIds: string[];
let voterId: string;

const http = () => t.app.http;
const db = () => t.app.runtime.deps.db;

async function waCampaignSettled(id: string, expected: number): Promise<void> {
  await until(
    async () => {
      const campaign = (await http().get(`/api/whatsapp/campaigns/${id}`).set(manager.auth).expect(200)).body;
      return campaign.progress.delivered === expected;
    },
    20_000,
    'WhatsApp deliveries',
  );
}

beforeAll(async () => {
  smtp = await new FakeSmtp().start();
  t = await startWhatsAppTest(emailEnv(smtp.url));
  manager = t.manager;
  viewer = await createUser(t.app, t.admin, 'viewer');

  // A poster capture: the person and a neighbour, with cédula and both channels' consent.
  const landing = { ...qrCampaignBody().landing, fields: { phone: 'required', email: 'optional', documentId: 'optional', neighbourhood: 'optional' } };
  const qrCampaign = await createQrCampaign(t.app, manager, { landing });
  qrCampaignId = qrCampaign.id;
  const [code] = await generateCodes(t.app, manager, qrCampaignId, { count: 1 });
  const capture = (person: typeof OTHER, neighbourhood: string) =>
    http()
      .post('/api/qr-leads/capture')
      .send(lead(code!.code, { name: person.name, phone: person.phoneLocal, email: person.email, documentId: person.cedula, neighbourhood, emailOptIn: true, whatsappOptIn: true }))
      .expect(201);
  await capture(PERSON, 'Villa Zenobia');
  await capture(OTHER, 'Kennedy Central');
  const ids = await db().rows(sql<{ id: string; phone: string }>`select id, phone from contacts order by created_at`);
  contactId = ids.find((row) => row.phone === PERSON.phone)!.id;
  otherContactId = ids.find((row) => row.phone !== PERSON.phone)!.id;

  // Both volunteer, the neighbour leading the person, who logs a canvass with a note naming them and where it was.
  const promote = async (id: string, extra: Record<string, unknown>) =>
    (
      await http()
        .post('/api/volunteers')
        .set(manager.auth)
        .send({ contactId: id, ...extra })
        .expect(201)
    ).body.id as string;
  const leaderId = await promote(otherContactId, {});
  const volunteerId = await promote(contactId, { leaderId, locationConsent: true });
  await http()
    .post('/api/volunteers/activities')
    .set(manager.auth)
    .send({
      activities: [
        { volunteerId, type: 'canvassing', occurredAt: new Date().toISOString(), quantity: 30, unit: 'doors', notes: `Recorrido de ${PERSON.name}`, lat: 4.63, lng: -74.15 },
      ],
    })
    .expect(201);

  // A WhatsApp campaign greets both by name; the person answers it with their cédula.
  const template = await approvedTemplate(t);
  waCampaignId = (
    await http()
      .post('/api/whatsapp/campaigns')
      .set(manager.auth)
      .send({ name: 'Saludo', templateId: template.id, variables: ['contact.firstName', 'el sábado'], segment: { qrCampaignIds: [qrCampaignId] } })
      .expect(201)
  ).body.id;
  await http().post(`/api/whatsapp/campaigns/${waCampaignId}/send`).set(manager.auth).expect(202);
  await waCampaignSettled(waCampaignId, 2);
  const sent = t.fake.sendsTo(PERSON.waId)[0]!;
  const reply = t.fake.inboundPayload(
    PERSON.waId,
    { type: 'text', text: { body: `Hola, soy ${PERSON.name}, cédula ${PERSON.cedula}` }, context: { from: '15550783881', id: sent.wamid } },
    PERSON.name,
  );
  t.fake.postWebhook(reply);
  await t.fake.webhooksDrained();
  await until(async () => (await http().get(`/api/whatsapp/campaigns/${waCampaignId}`).set(manager.auth).expect(200)).body.progress.replied === 1, 10_000, 'the reply');

  // Two email campaigns: the person opens the first; the second bounces at their address.
  const templateId = (await createTemplate(t.app, manager)).id;
  emailCampaignIds = [];
  for (const name of ['Boletín uno', 'Boletín dos']) {
    if (name === 'Boletín dos') smtp.reject(PERSON.email, 550);
    const campaign = await createEmailCampaign(t.app, manager, emailCampaignBody(templateId, { name, segment: { qrCampaignIds: [qrCampaignId] } }));
    emailCampaignIds.push(campaign.id);
    await http().post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    await waitForCampaign(t.app, campaign.id, (row) => row.status === 'sent');
  }
  await until(async () => (await db().rows(sql`select 1 from email_suppressions where email = ${PERSON.email}`)).length === 1, 10_000, 'the bounce');
  const message = smtp.to(PERSON.email)[0]!;
  const pixel = pathOf(/<img src="([^"]+\/e\/o\/[^"]+)"/.exec(message.parsed!.html as string)![1]!);
  await http().get(pixel).set('User-Agent', HUMAN).expect(200);
  await eventWriter(t.app.runtime.deps).flush();

  // A confirmed voter linked to the person, called (the caller's note names them) and voted.
  const station = await http()
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code: 'HAB-1', name: 'Colegio Habeas', lat: 4.6, lng: -74.1, tables: 8, registeredVoters: 3000 })
    .expect(201);
  const voter = (person: typeof OTHER, linked: string) =>
    http()
      .post('/api/gotv/voters')
      .set(manager.auth)
      .send({ name: person.name, documentId: person.cedula, phone: person.phoneLocal, pollingStationId: station.body.id, tableNumber: 2, contactId: linked })
      .expect(201);
  voterId = (await voter(PERSON, contactId)).body.id;
  await voter(OTHER, otherContactId);
  await http()
    .post(`/api/gotv/voters/${voterId}/contacts`)
    .set(manager.auth)
    .send({ outcome: 'reached', note: `${PERSON.name} pide transporte al ${PERSON.phoneLocal}` })
    .expect(201);
  await http().post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId: randomUUID(), voterId }).expect(201);
  // A PQRS request naming them in its text, with an attachment sent with the filing's token.
  const filed = await http()
    .post('/api/pqrs')
    .send({
      type: 'queja',
      subject: 'Alumbrado',
      description: `Soy ${PERSON.name}, cédula ${PERSON.cedula}: la calle sigue sin luz.`,
      name: PERSON.name,
      phone: PERSON.phoneLocal,
      consent: true,
    })
    .expect(201);
  await http()
    .post(`/api/pqrs/${filed.body.id}/attachments`)
    .set('X-Upload-Token', filed.body.uploadToken)
    .set('Content-Type', 'application/pdf')
    .send(Buffer.from(`%PDF-1.7 ${PERSON.name}`))
    .expect(201);
}, 60_000);

afterAll(async () => {
  await t.close();
  await smtp.stop();
});

describe('a staff-recorded withdrawal', () => {
  const withdraw = (body: object, user: TestUser = manager, id = contactId) => http().post(`/api/audience/contacts/${id}/withdrawals`).set(user.auth).send(body);

  it('opts the person out with proof, once: a second call changes nothing', async () => {
    const first = await withdraw({ channel: 'whatsapp', note: 'Llamó a la sede y pidió no recibir más mensajes' }).expect(200);
    expect(first.body).toEqual({ contactId, channel: 'whatsapp', changed: true, optedOutAt: expect.any(String) });
    const second = await withdraw({ channel: 'whatsapp', note: 'Lo repitió por correo' }).expect(200);
    expect(second.body).toEqual({ ...first.body, changed: false });
    const records = await db().rows(sql<{ source: string; source_ref: string; evidence: string; whatsapp_opt_in: boolean; email_opt_in: boolean }>`
      select source, source_ref, evidence, whatsapp_opt_in, email_opt_in from consents where contact_id = ${contactId} and action = 'withdrawn'`);
    expect(records).toEqual([{ source: 'staff', source_ref: manager.id, evidence: 'Llamó a la sede y pidió no recibir más mensajes', whatsapp_opt_in: false, email_opt_in: true }]);
  });

  it('answers bad input, unknown people and the wrong callers with problems', async () => {
    expectProblem(await withdraw({ channel: 'sms', note: 'x' }), 400, 'validation_failed');
    expectProblem(await withdraw({ channel: 'email' }), 400, 'validation_failed');
    expectProblem(await withdraw({ channel: 'email', note: '   ' }), 400, 'validation_failed');
    expectProblem(await withdraw({ channel: 'email', note: 'x'.repeat(501) }), 400, 'validation_failed');
    expectProblem(await withdraw({ channel: 'email', note: 'x' }, manager, 'not-a-uuid'), 400, 'validation_failed');
    expectProblem(await withdraw({ channel: 'email', note: 'x' }, manager, randomUUID()), 404, 'not_found');
    expectProblem(await withdraw({ channel: 'email', note: 'x' }, viewer), 403, 'forbidden');
    expectProblem(await http().post(`/api/audience/contacts/${contactId}/withdrawals`).send({ channel: 'email', note: 'x' }), 401);
    const emailOptOut = await db().first(sql<{ email_opted_out_at: Date | null }>`select email_opted_out_at from contacts where id = ${contactId}`);
    expect(emailOptOut!.email_opted_out_at).toBeNull();
  });
});

describe('the export', () => {
  it('gives everything held about the person, from every module, as an attachment', async () => {
    const response = await http().get(`/api/audience/contacts/${contactId}/export`).set(manager.auth).expect(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="personal-data-${contactId}.json"`);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const data = response.body;
    expect(data.contact).toMatchObject({
      id: contactId,
      name: PERSON.name,
      phone: PERSON.phone,
      email: PERSON.email,
      documentId: PERSON.cedula,
      neighbourhood: 'Villa Zenobia',
      whatsappOptIn: true,
      whatsappOptedOutAt: expect.any(String),
      emailOptIn: true,
      emailOptedOutAt: null,
    });
    expect(data.origins).toEqual([
      { kind: 'qr_campaign', refId: qrCampaignId, firstSeenAt: expect.any(String) },
      { kind: 'pqrs', refId: expect.any(String), firstSeenAt: expect.any(String) },
    ]);
    expect(data.consents.map((consent: { action: string; source: string }) => [consent.action, consent.source])).toEqual([
      ['given', 'qr'],
      ['given', 'pqrs'],
      ['withdrawn', 'staff'],
    ]);
    expect(data.consents[0].text.text).toContain('Ley 1581 de 2012');
    expect(data.consents[2]).toMatchObject({
      sourceRef: manager.id,
      evidence: 'Llamó a la sede y pidió no recibir más mensajes',
      text: { text: expect.stringContaining('Baja registrada') },
    });

    const { qr, whatsapp, email, gotv, pqrs } = data.modules;
    expect(pqrs.requests).toEqual([
      expect.objectContaining({
        type: 'queja',
        description: expect.stringContaining(PERSON.cedula),
        attachments: [expect.objectContaining({ type: 'application/pdf' })],
      }),
    ]);
    expect(qr.leads).toEqual([expect.objectContaining({ campaignId: qrCampaignId, neighbourhood: 'Villa Zenobia', whatsappOptIn: true, emailOptIn: true, submissions: 1 })]);
    expect(whatsapp.conversation).toMatchObject({ status: 'open', unreadCount: 1 });
    expect(whatsapp.messages).toEqual([
      expect.objectContaining({ direction: 'out', campaignId: waCampaignId, phone: PERSON.phone, templateValues: ['Zenobia', 'el sábado'], status: 'delivered' }),
      expect.objectContaining({ direction: 'in', phone: PERSON.phone, text: `Hola, soy ${PERSON.name}, cédula ${PERSON.cedula}` }),
    ]);
    expect(whatsapp.messages[0].repliedAt).not.toBeNull();
    expect(email.recipients).toEqual([
      expect.objectContaining({ campaignId: emailCampaignIds[0], campaignName: 'Boletín uno', email: PERSON.email, status: 'sent' }),
      expect.objectContaining({ campaignId: emailCampaignIds[1], campaignName: 'Boletín dos', email: PERSON.email, status: 'bounced' }),
    ]);
    expect(email.events).toEqual([expect.objectContaining({ campaignId: emailCampaignIds[0], kind: 'open', machine: false })]);
    expect(email.suppressions).toEqual([expect.objectContaining({ email: PERSON.email, reason: 'bounce', campaignId: emailCampaignIds[1] })]);
    expect(gotv.voters).toEqual([expect.objectContaining({ id: voterId, name: PERSON.name, documentId: PERSON.cedula, phone: PERSON.phone, tableNumber: 2, status: 'voted' })]);
    expect(gotv.contactAttempts).toEqual([expect.objectContaining({ voterId, outcome: 'reached', note: expect.stringContaining(PERSON.name) })]);
    expect(gotv.turnoutReports).toEqual([expect.objectContaining({ voterId, rehearsal: false })]);
    // Nothing of the neighbour's.
    expect(JSON.stringify(data)).not.toContain(OTHER.name);
  });

  it('answers bad ids, unknown people and the wrong callers with problems', async () => {
    expectProblem(await http().get('/api/audience/contacts/123/export').set(manager.auth), 400, 'validation_failed');
    expectProblem(await http().get(`/api/audience/contacts/${randomUUID()}/export`).set(manager.auth), 404, 'not_found');
    expectProblem(await http().get(`/api/audience/contacts/${contactId}/export`).set(viewer.auth), 403, 'forbidden');
    expectProblem(await http().get(`/api/audience/contacts/${contactId}/export`), 401);
  });
});

/** The answers of every endpoint whose figures an erasure must leave as they are. */
async function figures() {
  const get = async (path: string) => (await http().get(path).set(manager.auth).expect(200)).body;
  const gotvDashboard = await get('/api/gotv/dashboard');
  return {
    qrAnalysis: await get(`/api/qr-leads/campaign/${qrCampaignId}/analysis`),
    waCampaign: await get(`/api/whatsapp/campaigns/${waCampaignId}`),
    waDashboard: await get('/api/whatsapp/dashboard'),
    emailStats: await Promise.all(emailCampaignIds.map((id) => get(`/api/email-marketing/campaigns/${id}/stats`))),
    emailDashboard: await get('/api/email-marketing/dashboard'),
    liveMap: await get('/api/gotv/live-map'),
    // The projection inside follows the clock; its figures are compared through the live map and tallies.
    gotvDashboard: { ...gotvDashboard, projection: undefined },
    volunteerActivities: (await get('/api/volunteers/activities')).totals,
    tallies: await db().rows(sql`select station_id, confirmed_voters, confirmed_voted from gotv_station_tallies order by station_id`),
  };
}

/** Where any of the person's traces is stored: `table.column`, once per column. */
const tracesLeft = () => findTraces(db(), TRACES);

describe('the erasure', () => {
  let before: Awaited<ReturnType<typeof figures>>;
  let consentsBefore: { id: string; text_id: string; action: string; source: string; given_at: Date }[];

  it('finds the person everywhere before (the scan sees what it looks for)', async () => {
    const found = await tracesLeft();
    expect(found).toEqual(
      expect.arrayContaining([
        'contacts.name',
        'contacts.phone',
        'contacts.email',
        'contacts.document_id',
        'wa_messages.phone',
        'wa_messages.body',
        'wa_messages.params',
        'email_recipients.email',
        'email_suppressions.email',
        'gotv_voters.name',
        'volunteer_activities.notes',
        'gotv_voters.document_id',
        'gotv_voters.phone',
        'gotv_voter_contacts.note',
      ]),
    );
    before = await figures();
    consentsBefore = await db().rows(sql`select id, text_id, action, source, given_at from consents where contact_id = ${contactId} order by id`);
  });

  it('refuses the wrong callers and bad ids, changing nothing', async () => {
    expectProblem(await http().delete(`/api/audience/contacts/${contactId}`).set(viewer.auth), 403, 'forbidden');
    expectProblem(await http().delete(`/api/audience/contacts/${contactId}`), 401);
    expectProblem(await http().delete('/api/audience/contacts/nope').set(manager.auth), 400, 'validation_failed');
    expectProblem(await http().delete(`/api/audience/contacts/${randomUUID()}`).set(manager.auth), 404, 'not_found');
    expect(await tracesLeft()).toContain('contacts.name');
  });

  it('leaves no trace of their name, phone, email or cédula in any table', async () => {
    const response = await http().delete(`/api/audience/contacts/${contactId}`).set(manager.auth).expect(200);
    expect(response.body).toEqual({
      contactId,
      erasedAt: expect.any(String),
      counts: {
        qr: { leads: 1 },
        gotv: { voters: 1, notesRemoved: 1, phonesRemoved: 0 },
        whatsapp: { messages: 2, unsentSkipped: 0 },
        email: { recipients: 2, unsentSkipped: 0, notices: 0, suppressionsHashed: 1 },
        notices: { notices: 1 },
        agenda: { upcomingRsvps: 0, upcomingShiftSignups: 0, accountLinks: 0 },
        volunteers: { volunteers: 1, activitiesCleared: 1 },
        pqrs: { requests: 1, attachments: 1, historyNotes: 0 },
        auth: { accounts: 0 },
        finance: {},
        audience: { notes: 0, contacts: 1, consentsAnonymised: 3, mergedRecordsErased: 0, mergeSnapshotsCleared: 0, identifiersHashed: 3 },
      },
      retained: [],
      mentions: [],
    });
    expect(await tracesLeft()).toEqual([]);
  });

  it('keeps every campaign figure as it was', async () => {
    expect(await figures()).toEqual(before);
  });

  it('keeps the consent proof without what pointed back at the person', async () => {
    const after = await db().rows(sql`select id, text_id, action, source, given_at from consents where contact_id = ${contactId} order by id`);
    expect(after).toEqual(consentsBefore);
    const identifying = await db().first(
      sql<{ n: number }>`select count(*)::int as n from consents where contact_id = ${contactId} and (ip_hash is not null or user_agent is not null or evidence is not null)`,
    );
    expect(identifying!.n).toBe(0);
  });

  it('keeps the bounced address suppressed as its hash, leaves the neighbour whole', async () => {
    const hashed = `sha256:${createHash('sha256').update(PERSON.email).digest('hex')}`;
    const suppression = await db().first(sql<{ reason: string }>`select reason from email_suppressions where email = ${hashed}`);
    expect(suppression).toEqual({ reason: 'bounce' });
    const neighbour = await db().first(sql<{ name: string; document_id: string }>`select name, document_id from contacts where id = ${otherContactId}`);
    expect(neighbour).toEqual({ name: OTHER.name, document_id: OTHER.cedula });
    const voter = await db().first(sql<{ n: number }>`select count(*)::int as n from gotv_voters where name = ${OTHER.name} and document_id = ${OTHER.cedula}`);
    expect(voter!.n).toBe(1);
  });

  it('still answers the lists that showed the person, showing no one', async () => {
    const leads = (await http().get(`/api/qr-leads?campaignId=${qrCampaignId}`).set(manager.auth).expect(200)).body.data;
    expect(leads.find((row: { contact: { id: string } }) => row.contact.id === contactId).contact).toEqual({
      id: contactId,
      name: '(datos suprimidos)',
      phone: null,
      email: null,
      documentId: null,
    });
    const conversations = (await http().get('/api/whatsapp/conversations').set(manager.auth).expect(200)).body.data;
    expect(conversations).toHaveLength(1);
    expect(conversations[0].contact).toMatchObject({ id: contactId, name: '(datos suprimidos)', phone: null });
    const messages = (await http().get(`/api/whatsapp/conversations/${conversations[0].id}/messages`).set(manager.auth).expect(200)).body.data;
    expect(messages.length).toBeGreaterThan(0);
    expectProblem(await http().post(`/api/whatsapp/conversations/${conversations[0].id}/messages`).set(manager.auth).send({ text: 'Hola' }), 409);
    const voter = (await http().get(`/api/gotv/voters/${voterId}`).set(manager.auth).expect(200)).body;
    expect(voter).toMatchObject({ name: '(datos suprimidos)', phone: null, status: 'voted', tableNumber: 2 });
    expect(voter.documentId).not.toMatch(/^\d+$/);
  });

  it('treats the erased person as unknown from then on', async () => {
    expectProblem(await http().get(`/api/audience/contacts/${contactId}/export`).set(manager.auth), 404, 'not_found');
    expectProblem(await http().delete(`/api/audience/contacts/${contactId}`).set(manager.auth), 404, 'not_found');
    expectProblem(await http().post(`/api/audience/contacts/${contactId}/withdrawals`).set(manager.auth).send({ channel: 'email', note: 'x' }), 404, 'not_found');
  });

  it('lets the same phone arrive again as a new person', async () => {
    const [code] = await generateCodes(t.app, manager, qrCampaignId, { count: 1 });
    await http()
      .post('/api/qr-leads/capture')
      .send(lead(code!.code, { name: 'Nueva Persona', phone: PERSON.phoneLocal, email: undefined }))
      .expect(201);
    const rows = await db().rows(sql<{ id: string }>`select id from contacts where phone = ${PERSON.phone}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).not.toBe(contactId);
  });
});

describe('the audit', () => {
  type Entry = { id: string; at: string; actorId: string; action: string; contactId: string; detail: string | null; counts: Record<string, Record<string, number>> };
  const audit = (query = '', user: TestUser = t.admin) => http().get(`/api/audience/audit${query}`).set(user.auth);

  it('lists who exported, erased and withdrew, when, for which contact, with counts and no personal data', async () => {
    const response = await audit(`?contactId=${contactId}`).expect(200);
    const entries = response.body.data as Entry[];
    expect(entries.map((entry) => entry.action)).toEqual(['erasure', 'export', 'withdrawal', 'withdrawal']);
    expect(entries.every((entry) => entry.actorId === manager.id && entry.contactId === contactId)).toBe(true);
    const [erasure, exported, second, first] = entries;
    expect(erasure!.counts.qr).toEqual({ leads: 1 });
    expect(exported!.counts).toMatchObject({
      audience: { contacts: 1, origins: 2, consents: 3 },
      qr: { leads: 1 },
      whatsapp: { conversation: 1, messages: 2 },
      email: { recipients: 2, events: 1, suppressions: 1 },
      gotv: { voters: 1, contactAttempts: 1, turnoutReports: 1 },
    });
    expect([first!.detail, first!.counts, second!.counts]).toEqual(['whatsapp', { audience: { consentRecords: 1 } }, { audience: { consentRecords: 0 } }]);
    const text = JSON.stringify(response.body).toLowerCase();
    for (const trace of TRACES) expect(text).not.toContain(trace.toLowerCase());
    // The audit itself cannot be rewritten.
    await expect(db().write(sql`delete from audience_audit where contact_id = ${contactId}`)).rejects.toThrow(/append-only/);
    await expect(db().write(sql`update audience_audit set actor_id = ${randomUUID()}`)).rejects.toThrow(/append-only/);
  });

  it('pages newest first and filters by action', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { body: { data: Entry[]; nextCursor: string | null } } = await audit(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).expect(200);
      seen.push(...page.body.data.map((entry) => entry.action));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(['erasure', 'export', 'withdrawal', 'withdrawal']);
    const erasures = await audit('?action=erasure').expect(200);
    expect(erasures.body.data).toHaveLength(1);
  });

  it('is for admins only, and answers bad queries with problems', async () => {
    expectProblem(await audit('', manager), 403, 'forbidden');
    expectProblem(await http().get('/api/audience/audit'), 401);
    expectProblem(await audit('?action=delete'), 400, 'validation_failed');
    expectProblem(await audit('?contactId=x'), 400, 'validation_failed');
    expectProblem(await audit('?cursor=garbage'), 400, 'validation_failed');
  });
});
