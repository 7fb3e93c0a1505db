import { randomUUID } from 'node:crypto';
import { IDENTIFIER_REDACTED, identifierPatterns, redactIdentifiers, searchableName } from '../../src/kernel/free-text';
import { NO_PERSON_KEYS } from '../../src/kernel/module';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { contact, station } from '../helpers/factories';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';
import { approvedTemplate, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';

/**
 * What an erasure does to text other people wrote about the person (Ley 1581 de 2012, art. 8 e):
 * their phone, email and cédula are cut out however they were typed, a number that merely contains
 * their digits is left alone, and a text that still names them in full is reported for staff to read,
 * since the name may be someone else's.
 */

const PERSON = { name: 'Eufemia Caicedo Ñañez', phone: '+573157771234', email: 'eufemia.caicedo@example.org', documentId: '1098765432' };
const KEYS = { ...NO_PERSON_KEYS, phones: [PERSON.phone], emails: [PERSON.email], documentIds: [PERSON.documentId] };
const X = IDENTIFIER_REDACTED;

describe('identifiers cut out of free text', () => {
  const patterns = identifierPatterns(KEYS);
  it.each([
    ['Su celular: 315 777 1234.', `Su celular: ${X}.`],
    ['Llamar al +57 (315) 777-1234 o al 57 3157771234', `Llamar al ${X} o al ${X}`],
    ['cc 1.098.765.432 expedida en Cali', `cc ${X} expedida en Cali`],
    ['Escribió desde EUFEMIA.Caicedo@Example.org ayer', `Escribió desde ${X} ayer`],
  ])('%s', (text, expected) => {
    expect(redactIdentifiers(text, patterns)).toBe(expected);
  });

  it('leaves a longer number that only contains the digits, and text without them', () => {
    for (const text of ['Pedido 99315777123450', 'Radicado 110987654321', 'Nada que ver: 315 777 12']) expect(redactIdentifiers(text, patterns)).toBe(text);
  });

  it('searches a full name only, without accents or case', () => {
    expect(searchableName('  Eufemia   Caicedo Ñañez ')).toBe('eufemia caicedo nanez');
    expect(searchableName('Eufemia')).toBeNull();
    expect(searchableName(null)).toBeNull();
  });
});

describe('erasing a person others wrote about', () => {
  let app: TestApp;
  let manager: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
  });

  afterAll(async () => {
    await app.close();
  });

  it('cuts their identifiers out of notes and incidents, leaves other numbers, and reports who names them in full', async () => {
    const person = await contact(app, { name: PERSON.name, phone: PERSON.phone, email: PERSON.email, documentId: PERSON.documentId });
    const neighbour = await contact(app, { name: 'Aurelio Vecino Mora' });
    const notes = `/api/audience/contacts/${neighbour.id}/notes`;
    const naming = (
      await app.http
        .post(notes)
        .set(manager.auth)
        .send({ text: 'Vecino de EUFEMIA CAICEDO ÑAÑEZ; su celular es 315 777-1234 y su correo eufemia.caicedo@example.org.' })
        .expect(201)
    ).body.id as string;
    const called = (await app.http.post(notes).set(manager.auth).send({ text: 'Llamó desde +57 (315) 777-1234.' }).expect(201)).body.id as string;
    // A note at its column's 2,000 characters: the longer marker still fits.
    const full = `Teléfono 3157771234. ${'x'.repeat(2000 - 'Teléfono 3157771234. '.length)}`;
    const atLimit = (await app.http.post(notes).set(manager.auth).send({ text: full }).expect(201)).body.id as string;
    const unrelated = (await app.http.post(notes).set(manager.auth).send({ text: 'Pedido 99315777123450, sin relación.' }).expect(201)).body.id as string;
    const pollingStation = await station(app, manager);
    const incident = (
      await app.http
        .post('/api/gotv/incidents')
        .set(manager.auth)
        .send({
          pollingStationId: pollingStation.id,
          type: 'vote_buying',
          severity: 'high',
          description: 'Eufemia Caicedo (cc 1.098.765.432) vio la compra de votos.',
          clientId: randomUUID(),
        })
        .expect(201)
    ).body.id as string;

    // Another citizen's petition, naming her in full with her number.
    const petition = (
      await app.http
        .post('/api/pqrs')
        .send({
          type: 'peticion',
          subject: 'Alumbrado público',
          description: 'Mi vecina Eufemia Caicedo Ñañez (tel. 3157771234) también lo reportó.',
          name: 'Aurelio Vecino Mora',
          phone: '300 555 0101',
          consent: true,
        })
        .expect(201)
    ).body.id as string;

    // Another citizen's petition answered by email, the answer naming her with her number: the answer
    // and the notice that carried it to that citizen both hold it.
    const answered = (
      await app.http
        .post('/api/pqrs')
        .send({
          type: 'queja',
          subject: 'Ruido en la cuadra',
          description: 'Hay fiestas hasta la madrugada.',
          name: 'Rosa Testigo',
          email: 'rosa.testigo@example.org',
          emailOptIn: true,
          consent: true,
        })
        .expect(201)
    ).body.id as string;
    const answer = 'Hablamos con la señora Eufemia Caicedo Ñañez, tel. 315 777 1234, y se comprometió a bajar el volumen.';
    await app.http.post(`/api/pqrs/${answered}/answer`).set(manager.auth).send({ answer }).expect(200);
    const noticeOf = async () =>
      (
        await app.runtime.deps.db.rows(
          sql<{
            id: string;
            contactId: string;
            text: string;
          }>`select id::text as id, contact_id::text as "contactId", text from email_notices where text like ${'%señora Eufemia%'}`,
        )
      )[0];
    const notice = (await noticeOf())!;
    expect(notice.text).toContain('315 777 1234');

    const erasure = (await app.http.delete(`/api/audience/contacts/${person.id}`).set(manager.auth).expect(200)).body;
    expect(erasure.counts.audience).toMatchObject({ staffNotesRedacted: 3 });
    expect(erasure.counts.gotv).toMatchObject({ incidentDescriptionsRedacted: 1 });
    expect(erasure.counts.pqrs).toMatchObject({ requestDescriptionsRedacted: 1, answersRedacted: 1 });
    expect(erasure.counts.email).toMatchObject({ noticeTextsRedacted: 1 });
    // The note, the petitions and the notice still name her in full: reported, a row once though two of
    // its columns name her. The incident names her by two of three words: not.
    expect(erasure.mentions).toEqual(
      expect.arrayContaining([
        { module: 'audience', kind: 'staffNotes', id: naming, recordId: neighbour.id },
        { module: 'pqrs', kind: 'requestDescriptions', id: petition, recordId: petition },
        { module: 'pqrs', kind: 'answers', id: answered, recordId: answered },
        { module: 'email', kind: 'noticeTexts', id: notice.id, recordId: notice.contactId },
      ]),
    );
    expect(erasure.mentions).toHaveLength(4);
    expect((await noticeOf())!.text).toContain(`señora Eufemia Caicedo Ñañez, tel. ${X}, y se comprometió`);

    const texts = new Map(
      (await app.runtime.deps.db.rows(sql<{ id: string; text: string }>`select id::text as id, text from contact_notes where contact_id = ${neighbour.id}`)).map((row) => [
        row.id,
        row.text,
      ]),
    );
    expect(texts.get(naming)).toBe(`Vecino de EUFEMIA CAICEDO ÑAÑEZ; su celular es ${X} y su correo ${X}.`);
    expect(texts.get(called)).toBe(`Llamó desde ${X}.`);
    expect(texts.get(atLimit)).toBe(`Teléfono ${X}. ${'x'.repeat(2000 - `Teléfono ${X}. `.length)}`);
    expect(texts.get(unrelated)).toBe('Pedido 99315777123450, sin relación.');
    const [described] = await app.runtime.deps.db.rows(sql<{ description: string }>`select description from gotv_incidents where id = ${incident}`);
    expect(described!.description).toBe(`Eufemia Caicedo (cc ${X}) vio la compra de votos.`);
    const [filed] = await app.runtime.deps.db.rows(sql<{ description: string }>`select description from pqrs_requests where id = ${petition}`);
    expect(filed!.description).toBe(`Mi vecina Eufemia Caicedo Ñañez (tel. ${X}) también lo reportó.`);
  });
});

describe('erasing a person named in WhatsApp messages with other people', () => {
  let t: WhatsAppTest;

  beforeAll(async () => {
    t = await startWhatsAppTest({}, { statuses: [] });
  });

  afterAll(async () => {
    await t.close();
  });

  it('cuts their number out of a neighbour’s message and of a PQRS answer sent as a template’s values', async () => {
    const person = await contact(t.app, { name: PERSON.name, phone: PERSON.phone, email: PERSON.email, documentId: PERSON.documentId });
    const neighbourPhone = '573005550199';
    t.fake.postWebhook(t.fake.inboundPayload(neighbourPhone, { type: 'text', text: { body: 'Mi vecina Eufemia Caicedo Ñañez no tiene agua, llámela al 3157771234.' } }, 'Aurelio'));
    await t.fake.webhooksDrained();
    const inbound = async () =>
      (
        await t.app.runtime.deps.db.rows(
          sql<{ id: string; contactId: string; body: string }>`select id::text as id, contact_id::text as "contactId", body from wa_messages where direction = 'in'`,
        )
      )[0];
    await until(async () => (await inbound()) !== undefined, 10_000, 'the neighbour’s message stored');
    const message = (await inbound())!;

    // The desk answers another citizen's petition on WhatsApp: the answer travels as the template's second value.
    await approvedTemplate(t, { name: 'pqrs_respuesta', category: 'UTILITY', body: 'Su solicitud {{1}}: {{2}}', examples: ['PQRS-2026-000001', 'respuesta'] });
    const settings = (await t.app.http.get('/api/pqrs/settings').set(t.manager.auth).expect(200)).body as Record<string, unknown>;
    const { consentText, privacyPolicyUrl, receivedTemplate, extendedTemplate, templateLanguage } = settings;
    await t.app.http
      .put('/api/pqrs/settings')
      .set(t.manager.auth)
      .send({ consentText, privacyPolicyUrl, receivedTemplate, extendedTemplate, templateLanguage, answeredTemplate: 'pqrs_respuesta' })
      .expect(200);
    const petition = (
      await t.app.http
        .post('/api/pqrs')
        .send({
          type: 'peticion',
          subject: 'Agua en la cuadra',
          description: 'No llega el agua desde el lunes.',
          name: 'Rosa Testigo',
          phone: '300 555 0188',
          whatsappOptIn: true,
          consent: true,
        })
        .expect(201)
    ).body.id as string;
    await t.app.http
      .post(`/api/pqrs/${petition}/answer`)
      .set(t.manager.auth)
      .send({ answer: 'El acueducto visitó a su vecina (cc 1.098.765.432) y restableció el servicio.' })
      .expect(200);
    const templated = async () =>
      (await t.app.runtime.deps.db.rows(sql<{ id: string; params: string[] }>`select id::text as id, params from wa_messages where params::text like ${'%acueducto%'}`))[0];
    expect((await templated())!.params[1]).toContain('1.098.765.432');
    // A value that is not a text (as a template's values could hold) is kept as it is, not a failed erasure.
    await t.app.runtime.deps.db.write(sql`update wa_messages set params = params || '[7]'::jsonb where id = ${(await templated())!.id}::uuid`);

    const erasure = (await t.app.http.delete(`/api/audience/contacts/${person.id}`).set(t.manager.auth).expect(200)).body;
    expect(erasure.counts.whatsapp).toMatchObject({ messageTextsRedacted: 1, templateValuesRedacted: 1 });
    expect(erasure.mentions).toEqual([{ module: 'whatsapp', kind: 'messageTexts', id: message.id, recordId: message.contactId }]);
    expect((await inbound())!.body).toBe(`Mi vecina Eufemia Caicedo Ñañez no tiene agua, llámela al ${X}.`);
    expect((await templated())!.params.slice(1)).toEqual([`El acueducto visitó a su vecina (cc ${X}) y restableció el servicio.`, 7]);
  });
});
