import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/**
 * Supporters' files (POST /api/audience/contacts/import): a row creates a person or updates the
 * one it matches (by phone, else email) without duplicating them; every problem of a row is
 * reported on its line; consent needs the file's proof and is recorded with its exact text and
 * the import; a dry run writes nothing.
 */

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let territoryId: string;

const CONSENT =
  'Autorizo a la Campaña Ejemplo a tratar mis datos personales para informarme de sus actividades por WhatsApp y correo, según la Ley 1581 de 2012 y su política de tratamiento.';
const COLLECTION = 'Formulario en papel firmado en el evento del 12/10 en Kennedy';

const db = () => app.runtime.deps.db;
const upload = (csv: string, query: Record<string, string> = {}, user: TestUser = manager) =>
  app.http.post('/api/audience/contacts/import').query(query).set(user.auth).set('Content-Type', 'text/csv').send(csv);
const withProof = (extra: Record<string, string> = {}) => ({ consentText: CONSENT, consentCollection: COLLECTION, ...extra });

/** Every table an import writes, as it stands. */
async function tables() {
  return {
    contacts: await db().rows(sql`select * from contacts order by id`),
    origins: await db().rows(sql`select * from contact_origins order by contact_id, kind, ref_id`),
    consents: await db().rows(sql`select * from consents order by id`),
    texts: await db().rows(sql`select id from consent_texts order by id`),
    imports: await db().rows(sql`select * from contact_imports order by id`),
  };
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  territoryId = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Kennedy', type: 'commune', code: 'K-08' }).expect(201)).body.id;
});
afterAll(() => app.close());

describe('a supporters file', () => {
  let importId: string;

  it('creates people, with Spanish headers, consent recorded with the exact text and the import', async () => {
    const csv = [
      'Nombre,Teléfono,Correo,Cédula,codigo_territorio,Barrio,Intereses,Etiquetas,autoriza_whatsapp,autoriza_correo',
      'Ana María Rojas,300 123 4567,Ana.Rojas@Example.org,52.111.222,K-08,Patio Bonito,salud; Empleo,líder,sí,no',
      'Beto Díaz,(310) 555-0101,,,,,,evento-12-10,no,no',
      'Carla Ruiz,,carla@example.org,,,,seguridad,,no,si',
    ].join('\n');
    const response = await upload(csv, withProof()).expect(200);
    expect(response.body).toMatchObject({
      dryRun: false,
      importId: expect.any(String),
      created: 3,
      updated: 0,
      unchanged: 0,
      consentsRecorded: 2,
      consentTextId: expect.any(String),
      rejected: [],
      rejectedCount: 0,
      warnings: [],
      warningCount: 0,
      preview: [],
    });
    importId = response.body.importId;
    const ana = await db().first(sql<Record<string, unknown>>`
      select name, phone, email, document_id, territory_id, neighbourhood, interests, tags, whatsapp_opt_in, email_opt_in from contacts where phone = '+573001234567'`);
    expect(ana).toEqual({
      name: 'Ana María Rojas',
      phone: '+573001234567',
      email: 'ana.rojas@example.org',
      document_id: '52111222',
      territory_id: territoryId,
      neighbourhood: 'Patio Bonito',
      interests: ['salud', 'empleo'],
      tags: ['líder'],
      whatsapp_opt_in: true,
      email_opt_in: false,
    });
    const consents = await db().rows(sql<{
      source: string;
      source_ref: string;
      whatsapp_opt_in: boolean;
      email_opt_in: boolean;
      evidence: string;
      text: string;
      phone: string | null;
    }>`
      select k.source, k.source_ref, k.whatsapp_opt_in, k.email_opt_in, k.evidence, t.text, c.phone
      from consents k join consent_texts t on t.id = k.text_id join contacts c on c.id = k.contact_id order by c.name`);
    expect(consents).toEqual([
      { source: 'import', source_ref: importId, whatsapp_opt_in: true, email_opt_in: false, evidence: COLLECTION, text: CONSENT, phone: '+573001234567' },
      { source: 'import', source_ref: importId, whatsapp_opt_in: false, email_opt_in: true, evidence: COLLECTION, text: CONSENT, phone: null },
    ]);
    const origins = await db().rows(sql<{ n: number }>`select count(*)::int as n from contact_origins where kind = 'import' and ref_id = ${importId}::uuid`);
    expect(origins[0]!.n).toBe(3);
    const record = await db().first(
      sql`select imported_by, rows, created, updated, unchanged, rejected, consent_text_id, consent_collection, consents_recorded from contact_imports where id = ${importId}::uuid`,
    );
    expect(record).toEqual({
      imported_by: manager.id,
      rows: 3,
      created: 3,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      consent_text_id: response.body.consentTextId,
      consent_collection: COLLECTION,
      consents_recorded: 2,
    });
  });

  it('updates the matched person (phone typed differently, email-only person found by email) instead of duplicating them', async () => {
    const csv = [
      'name,phone,email,interests,tags,whatsappConsent',
      'Ana M. Rojas,+57 300-123-4567,,seguridad,,',
      'Carla Ruiz Pardo,3209998877,carla@example.org,,,',
      'Beto Díaz,310 555 0101,,,evento-12-10,',
    ].join('\n');
    const response = await upload(csv).expect(200);
    expect(response.body).toMatchObject({ created: 0, updated: 2, unchanged: 1, rejectedCount: 0, consentsRecorded: 0, consentTextId: null });
    expect((await db().first(sql<{ n: number }>`select count(*)::int as n from contacts`))!.n).toBe(3);
    const ana = await db().first(sql<{ name: string; interests: string[]; email: string }>`select name, interests, email from contacts where phone = '+573001234567'`);
    expect(ana).toEqual({ name: 'Ana M. Rojas', interests: ['salud', 'empleo', 'seguridad'], email: 'ana.rojas@example.org' });
    // The email-only contact took the phone: its identity is the phone now.
    const carla = await db().first(sql<{ identity_key: string; phone: string; name: string }>`select identity_key, phone, name from contacts where email = 'carla@example.org'`);
    expect(carla).toEqual({ identity_key: 'tel:+573209998877', phone: '+573209998877', name: 'Carla Ruiz Pardo' });
  });

  it('lists every problem of a bad row on its line, and imports the good rows', async () => {
    const csv = [
      'name,phone,email,documentId,territoryId,territoryCode,whatsappConsent,interests',
      'X,12,no-es-correo,12ab,not-a-uuid,,quizás,salud',
      'Dora Pinto,3015550202,,,,K-99,,',
      'Ester Mora,,,,,,,',
      'Fabio Luna,3015550303,,52111222,,,,',
      'Gina Sol,3015550404,,,,,,',
      'Gina Sol Bis,301 555 0404,,,,,,',
      `Hugo Paz,3015550505,,,${randomUUID()},,,`,
    ].join('\n');
    const response = await upload(csv).expect(200);
    expect(response.body).toMatchObject({ created: 1, rejectedCount: 6 });
    const byLine = Object.fromEntries(response.body.rejected.map((row: { line: number; message: string }) => [row.line, row.message]));
    expect(Object.keys(byLine).map(Number)).toEqual([2, 3, 4, 5, 7, 8]);
    for (const part of [
      'name:',
      'phone: not a valid phone number',
      'email: not an email address',
      'documentId: a cédula has 5 to 12 digits',
      'territoryId: not a territory id',
      'whatsappConsent:',
    ]) {
      expect(byLine[2]).toContain(part);
    }
    expect(byLine[3]).toContain('territoryCode: K-99 names no territory');
    expect(byLine[4]).toContain('phone or email: give one');
    expect(byLine[5]).toMatch(/documentId: this cédula belongs to another contact \([0-9a-f-]{36}\)/);
    expect(byLine[7]).toContain('the same person as line 6');
    expect(byLine[8]).toContain('territoryId: no territory has id');
    // Personal data of a rejected row is not echoed beyond what the manager sent: only fields and reasons.
    expect(byLine[2]).not.toContain('no-es-correo');
  });

  it('refuses a consent column saying yes without the file’s proof, and writes nothing', async () => {
    const before = await tables();
    const csv = ['name,phone,whatsappConsent', 'Iris Vega,3015550606,si'].join('\n');
    const problem = expectProblem(await upload(csv), 400, 'consent_proof_missing');
    expect(problem.detail).toContain('Line 2');
    expect(await tables()).toEqual(before);
    expectProblem(await upload(csv, { consentText: CONSENT }), 400, 'validation_failed');
  });

  it('does not re-open a channel the person withdrew from, and says so', async () => {
    const ana = await db().first(sql<{ id: string }>`select id from contacts where phone = '+573001234567'`);
    await app.http.post(`/api/audience/contacts/${ana!.id}/withdrawals`).set(manager.auth).send({ channel: 'whatsapp', note: 'Pidió la baja por teléfono' }).expect(200);
    const response = await upload(['name,phone,whatsappConsent', 'Ana M. Rojas,3001234567,si'].join('\n'), withProof()).expect(200);
    expect(response.body).toMatchObject({ unchanged: 1, consentsRecorded: 0, warningCount: 1 });
    expect(response.body.warnings[0]).toEqual({ line: 2, message: expect.stringContaining('withdrew from whatsapp') });
    const row = await db().first(sql<{ whatsapp_opted_out_at: Date | null }>`select whatsapp_opted_out_at from contacts where id = ${ana!.id}::uuid`);
    expect(row!.whatsapp_opted_out_at).not.toBeNull();
  });
});

describe('a dry run', () => {
  it('checks everything, previews the rows as they would be written, and writes nothing', async () => {
    const before = await tables();
    const rows = Array.from({ length: 12 }, (_, i) => `Persona ${i},31055510${String(i).padStart(2, '0')},,,no`);
    const csv = ['name,phone,email,tags,emailConsent', 'Beto Díaz,310 555 0101,beto@example.org,nuevo,si', 'Sin Datos,,,,', ...rows].join('\n');
    const response = await upload(csv, withProof({ dryRun: 'true' })).expect(200);
    expect(response.body).toMatchObject({ dryRun: true, importId: null, consentTextId: null, created: 12, updated: 1, unchanged: 0, rejectedCount: 1, consentsRecorded: 1 });
    expect(response.body.rejected).toEqual([{ line: 3, message: expect.stringContaining('phone or email') }]);
    expect(response.body.preview).toHaveLength(10);
    expect(response.body.preview[0]).toEqual({
      line: 2,
      action: 'update',
      contactId: expect.any(String),
      name: 'Beto Díaz',
      phone: '+573105550101',
      email: 'beto@example.org',
      documentId: null,
      territoryId: null,
      neighbourhood: null,
      interests: [],
      tags: ['evento-12-10', 'nuevo'],
      whatsappConsent: false,
      emailConsent: true,
    });
    expect(response.body.preview[1]).toMatchObject({ line: 4, action: 'create', contactId: null, phone: '+573105551000' });
    expect(await tables()).toEqual(before);
  });
});

describe('the file itself', () => {
  it('is refused for unknown, repeated or missing columns and malformed CSV, nothing written', async () => {
    const before = await tables();
    const unknown = expectProblem(await upload('name,phone,whatsap\nAna,3001234567,si'), 400, 'unknown_columns');
    expect(unknown.unknown).toEqual(['whatsap']);
    expect(unknown.detail).toContain('whatsappConsent');
    expectProblem(await upload('name,phone,telefono\nAna,3001234567,3001234567'), 400, 'repeated_columns');
    expect(expectProblem(await upload('name,cedula\nAna,52111222'), 400, 'missing_columns').missing).toEqual(['phone or email']);
    expectProblem(await upload('name,phone\n"Ana,3001234567\n'), 400, 'malformed_csv');
    expect(await tables()).toEqual(before);
  });

  it('is refused above 100,000 rows with 413', async () => {
    const rows = Array.from({ length: 100_001 }, (_, i) => `P ${i},3${String(i).padStart(9, '0')}`);
    expectProblem(await upload(['name,phone', ...rows].join('\n')), 413, 'too_many_rows');
  });

  it('answers bad query parameters, wrong media types and the wrong callers with problems', async () => {
    expectProblem(await upload('name,phone\nAna,3001234567', { dryRun: 'yes' }), 400, 'validation_failed');
    expectProblem(await upload('name,phone\nAna,3001234567', { consentText: 'corto', consentCollection: 'algo largo' }), 400, 'validation_failed');
    expectProblem(await upload('name,phone\nAna,3001234567', { sheet: '1' }), 400, 'validation_failed');
    expectProblem(await app.http.post('/api/audience/contacts/import').set(manager.auth).send({ name: 'Ana' }), 415);
    for (const role of ['viewer', 'volunteer', 'brigade', 'treasurer'] as const) {
      const user = await createUser(app, admin, role);
      expectProblem(await upload('name,phone\nAna,3001234567', {}, user), 403, 'forbidden');
    }
    expectProblem(await app.http.post('/api/audience/contacts/import').set('Content-Type', 'text/csv').send('name,phone\nAna,3001234567'), 401);
    await upload('name,phone\nJefa Admin,3001110000', {}, admin).expect(200);
  });
});
