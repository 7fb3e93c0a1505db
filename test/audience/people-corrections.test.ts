import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/**
 * Staff correct people's data and write notes about them (`PATCH /api/audience/contacts/:id`,
 * `…/notes`): the identity key follows, a phone or email someone else has is a 409 naming them,
 * each change is audited without its values and shows in the timeline, and notes are part of the
 * person's data (exported, erased).
 */

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let otherManager: TestUser;
const ids = { ana: '', beto: '', carla: '' };
let volunteerId: string;

const http = () => app.http;
const db = () => app.runtime.deps.db;
const patch = (id: string, body: unknown, user: TestUser = manager) =>
  http()
    .patch(`/api/audience/contacts/${id}`)
    .set(user.auth)
    .send(body as object);
const stored = async (id: string) =>
  (await db().first(sql<{ identity_key: string; name: string; phone: string | null; email: string | null; document_id: string | null; tags: string[] }>`
    select identity_key, name, phone, email, document_id, tags from contacts where id = ${id}::uuid`))!;

interface AuditEntry {
  action: string;
  contactId: string;
  actorId: string;
  detail: string | null;
  counts: Record<string, Record<string, number>>;
}
const audit = async (id: string, action: string) =>
  (await http().get('/api/audience/audit').query({ contactId: id, action }).set(admin.auth).expect(200)).body.data as AuditEntry[];

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  [manager, otherManager] = await Promise.all([createUser(app, admin, 'manager', 'Marta Gestora'), createUser(app, admin, 'manager', 'Otro Gestor')]);
  const landing = { ...campaignBody().landing, fields: { phone: 'optional', email: 'optional', documentId: 'optional', neighbourhood: 'optional' } };
  const campaign = await createCampaign(app, manager, { landing });
  const [code] = await generateCodes(app, manager, campaign.id, { count: 1 });
  const capture = async (person: Record<string, unknown>) => {
    await http().post('/api/qr-leads/capture').send(lead(code!.code, person)).expect(201);
    return (await db().first(sql<{ id: string }>`select id from contacts where name = ${person.name as string}`))!.id;
  };
  ids.ana = await capture({ name: 'Ana Ruiz', phone: '300 111 2233', email: 'ana.ruiz@example.org', documentId: '39111222' });
  ids.beto = await capture({ name: 'Beto Díaz', phone: '300 444 5566', email: 'Beto.Diaz@Example.org' });
  ids.carla = await capture({ name: 'Carla Solo Correo', phone: undefined, email: 'carla@example.org' });
  volunteerId = (await http().post('/api/volunteers').set(manager.auth).send({ contactId: ids.ana }).expect(201)).body.id;
}, 60_000);

afterAll(() => app?.close());

describe('corrections', () => {
  it('takes a phone typed any way, keeps it in E.164 and moves the identity key with it', async () => {
    const response = await patch(ids.ana, { phone: '+57 (301) 999-8877' }).expect(200);
    expect(response.body).toMatchObject({ id: ids.ana, name: 'Ana Ruiz', phone: '+573019998877', email: 'ana.ruiz@example.org', documentId: '39111222' });
    expect(await stored(ids.ana)).toMatchObject({ identity_key: 'tel:+573019998877', phone: '+573019998877' });
    const search = async (q: string) => (await http().get('/api/audience/contacts').query({ q }).set(manager.auth).expect(200)).body.data.map((row: { id: string }) => row.id);
    expect(await search('301 999 8877')).toEqual([ids.ana]);
    expect(await search('300 111 2233')).toEqual([]);
  });

  it('reaches the volunteer, whose record points at the person', async () => {
    const volunteer = await http().get(`/api/volunteers/${volunteerId}`).set(manager.auth).expect(200);
    expect(volunteer.body).toMatchObject({ contactId: ids.ana, phone: '+573019998877', name: 'Ana Ruiz' });
  });

  it('corrects name, email and cédula together, audited by field names only', async () => {
    const response = await patch(ids.ana, { name: '  Ana María Ruiz ', email: 'ANA.M.RUIZ@example.org', documentId: '39.111.223' }).expect(200);
    expect(response.body).toMatchObject({ name: 'Ana María Ruiz', email: 'ana.m.ruiz@example.org', documentId: '39111223' });
    const entries = await audit(ids.ana, 'correction');
    expect(entries.map((entry) => [entry.detail, entry.counts, entry.actorId])).toEqual([
      ['name,email,documentId', { audience: { fields: 3 } }, manager.id],
      ['phone', { audience: { fields: 1 } }, manager.id],
    ]);
    const text = JSON.stringify(entries);
    for (const value of ['Ana', '9998877', 'ruiz@', '39111223']) expect(text).not.toContain(value);
  });

  it('changes nothing and audits nothing when the values are the ones held', async () => {
    await patch(ids.ana, { name: 'Ana María Ruiz', phone: '3019998877', tags: [] }).expect(200);
    expect(await audit(ids.ana, 'correction')).toHaveLength(2);
    expect(await audit(ids.ana, 'tags')).toHaveLength(0);
  });

  it('answers 409 naming the other person when the phone or email is theirs, and changes nothing', async () => {
    const before = await stored(ids.ana);
    const phone = expectProblem(await patch(ids.ana, { phone: '3004445566' }), 409, 'phone_held');
    expect(phone).toMatchObject({ contactId: ids.beto, field: 'phone' });
    expect(phone.detail).toContain(ids.beto);
    const email = expectProblem(await patch(ids.ana, { email: 'beto.diaz@EXAMPLE.org' }), 409, 'email_held');
    expect(email).toMatchObject({ contactId: ids.beto, field: 'email' });
    expect(await stored(ids.ana)).toEqual(before);
    expect(await audit(ids.ana, 'correction')).toHaveLength(2);
  });

  it('keys a person without a phone by their email, and by the phone once they have one', async () => {
    expect((await stored(ids.carla)).identity_key).toBe('mail:carla@example.org');
    await patch(ids.carla, { email: 'carla.solo@example.org' }).expect(200);
    expect((await stored(ids.carla)).identity_key).toBe('mail:carla.solo@example.org');
    await patch(ids.carla, { phone: '310 777 8899' }).expect(200);
    expect((await stored(ids.carla)).identity_key).toBe('tel:+573107778899');
    await patch(ids.carla, { phone: null }).expect(200);
    expect(await stored(ids.carla)).toMatchObject({ identity_key: 'mail:carla.solo@example.org', phone: null });
    expectProblem(await patch(ids.carla, { email: null }), 400, 'identity_required');
    expectProblem(await patch(ids.carla, { email: null, phone: null }), 400, 'identity_required');
    // The identity a phone gives is unique: another person's phone stays theirs.
    expectProblem(await patch(ids.carla, { phone: '+57 301 999 8877' }), 409, 'phone_held');
  });

  it('replaces tags, trimmed, lower-cased and counted once, audited with how many came and went', async () => {
    const first = await patch(ids.beto, { tags: [' Líder ', 'transporte', 'LÍDER', 'mesa  de   trabajo'] }).expect(200);
    expect(first.body.tags).toEqual(['líder', 'transporte', 'mesa de trabajo']);
    const second = await patch(ids.beto, { tags: ['transporte', 'testigo'] }).expect(200);
    expect(second.body.tags).toEqual(['transporte', 'testigo']);
    expect((await audit(ids.beto, 'tags')).map((entry) => entry.counts.audience)).toEqual([
      { added: 1, removed: 2, tags: 2 },
      { added: 3, removed: 0, tags: 3 },
    ]);
    expect(await audit(ids.beto, 'correction')).toHaveLength(0);
  });

  it('shows corrections and tag changes in the timeline, with who made them', async () => {
    const page = (await http().get(`/api/audience/contacts/${ids.ana}`).set(manager.auth).expect(200)).body;
    const corrections = page.timeline.data.filter((item: { kind: string }) => item.kind === 'correction');
    expect(corrections).toEqual([
      expect.objectContaining({
        module: 'audience',
        title: 'Datos corregidos: nombre, correo, cédula',
        detail: expect.objectContaining({ fields: ['name', 'email', 'documentId'], actorName: 'Marta Gestora' }),
      }),
      expect.objectContaining({ title: 'Datos corregidos: teléfono' }),
    ]);
    const beto = (await http().get(`/api/audience/contacts/${ids.beto}`).set(manager.auth).expect(200)).body;
    expect(beto.timeline.data.filter((item: { kind: string }) => item.kind === 'tags_changed')).toHaveLength(2);
  });

  it('refuses bad bodies, unknown people and the wrong callers', async () => {
    const bad: [unknown, string][] = [
      [{}, 'body'],
      [{ nickname: 'Anita' }, 'body'],
      [{ name: '' }, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(161) }, 'body.name'],
      [{ name: 42 }, 'body.name'],
      [{ phone: 'llámame' }, 'body.phone'],
      [{ phone: '123' }, 'body.phone'],
      [{ email: 'ana-at-example.org' }, 'body.email'],
      [{ documentId: '12' }, 'body.documentId'],
      [{ documentId: '12AB3456' }, 'body.documentId'],
      [{ tags: 'líder' }, 'body.tags'],
      [{ tags: [''] }, 'body.tags.0'],
      [{ tags: ['x'.repeat(41)] }, 'body.tags.0'],
      [{ tags: Array.from({ length: 31 }, (_, i) => `t${i}`) }, 'body.tags'],
    ];
    for (const [body, path] of bad) {
      const problem = expectProblem(await patch(ids.beto, body), 400, 'validation_failed');
      expect((problem.errors as { path: string }[]).map((error) => error.path)).toContain(path);
    }
    expectProblem(await patch('not-a-uuid', { name: 'X' }), 400, 'validation_failed');
    expectProblem(await patch('01960000-0000-7000-8000-000000000000', { name: 'X' }), 404, 'not_found');
    expectProblem(await http().patch(`/api/audience/contacts/${ids.beto}`).set(manager.auth).set('Content-Type', 'text/plain').send('name=X'), 415);
    for (const role of ['viewer', 'volunteer', 'treasurer'] as const) {
      expectProblem(await patch(ids.beto, { name: 'X' }, await createUser(app, admin, role)), 403, 'forbidden');
    }
    expectProblem(await http().patch(`/api/audience/contacts/${ids.beto}`).send({ name: 'X' }), 401);
    expect((await stored(ids.beto)).name).toBe('Beto Díaz');
  });
});

describe('notes', () => {
  const notes = (id: string) => `/api/audience/contacts/${id}/notes`;
  let mine: string;
  let theirs: string;

  it('are written by staff, trimmed, and shown on the page with author and time, newest first', async () => {
    const created = await http().post(notes(ids.beto)).set(manager.auth).send({ text: '  Pidió transporte para el día de la elección.  ' }).expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      text: 'Pidió transporte para el día de la elección.',
      author: { id: manager.id, name: 'Marta Gestora' },
      createdAt: expect.any(String),
    });
    mine = created.body.id;
    theirs = (await http().post(notes(ids.beto)).set(otherManager.auth).send({ text: 'Llamado: confirma asistencia.' }).expect(201)).body.id;
    const page = (await http().get(`/api/audience/contacts/${ids.beto}`).set(manager.auth).expect(200)).body;
    expect(page.notes.map((note: { id: string }) => note.id)).toEqual([theirs, mine]);
    expect(page.timeline.data.filter((item: { kind: string }) => item.kind === 'note').map((item: { title: string }) => item.title)).toEqual([
      'Nota de Otro Gestor',
      'Nota de Marta Gestora',
    ]);
  });

  it('refuse empty, too long or unknown bodies, unknown people and the wrong callers', async () => {
    for (const body of [{}, { text: '' }, { text: '   ' }, { text: 'x'.repeat(2001) }, { text: 'ok', pinned: true }, { text: 7 }]) {
      expectProblem(await http().post(notes(ids.beto)).set(manager.auth).send(body), 400, 'validation_failed');
    }
    await http()
      .post(notes(ids.beto))
      .set(manager.auth)
      .send({ text: 'x'.repeat(2000) })
      .expect(201);
    expectProblem(await http().post(notes('01960000-0000-7000-8000-000000000000')).set(manager.auth).send({ text: 'Hola' }), 404, 'not_found');
    expectProblem(await http().post(notes('nope')).set(manager.auth).send({ text: 'Hola' }), 400, 'validation_failed');
    const viewer = await createUser(app, admin, 'viewer');
    expectProblem(await http().post(notes(ids.beto)).set(viewer.auth).send({ text: 'Hola' }), 403, 'forbidden');
  });

  it('are deleted by their author or an admin only', async () => {
    expectProblem(
      await http()
        .delete(`${notes(ids.beto)}/${mine}`)
        .set(otherManager.auth),
      403,
      'forbidden',
    );
    expectProblem(
      await http()
        .delete(`${notes(ids.ana)}/${mine}`)
        .set(manager.auth),
      404,
      'not_found',
    );
    expectProblem(
      await http()
        .delete(`${notes(ids.beto)}/01960000-0000-7000-8000-000000000000`)
        .set(manager.auth),
      404,
      'not_found',
    );
    expectProblem(
      await http()
        .delete(`${notes(ids.beto)}/not-a-uuid`)
        .set(manager.auth),
      400,
      'validation_failed',
    );
    await http()
      .delete(`${notes(ids.beto)}/${mine}`)
      .set(manager.auth)
      .expect(204);
    await http()
      .delete(`${notes(ids.beto)}/${theirs}`)
      .set(admin.auth)
      .expect(204);
    expectProblem(
      await http()
        .delete(`${notes(ids.beto)}/${mine}`)
        .set(manager.auth),
      404,
      'not_found',
    );
  });

  it('are in the person’s export, and gone with their erasure', async () => {
    await http().post(notes(ids.carla)).set(manager.auth).send({ text: 'Carla prefiere que la llamen en la tarde.' }).expect(201);
    await http().post(notes(ids.carla)).set(otherManager.auth).send({ text: 'Vive cerca del puesto de votación.' }).expect(201);
    const exported = (await http().get(`/api/audience/contacts/${ids.carla}/export`).set(manager.auth).expect(200)).body;
    expect(exported.modules.audience.notes).toEqual([
      { id: expect.any(String), text: 'Carla prefiere que la llamen en la tarde.', authorName: 'Marta Gestora', createdAt: expect.any(String) },
      { id: expect.any(String), text: 'Vive cerca del puesto de votación.', authorName: 'Otro Gestor', createdAt: expect.any(String) },
    ]);
    const erased = await http().delete(`/api/audience/contacts/${ids.carla}`).set(manager.auth).expect(200);
    expect(erased.body.counts.audience).toEqual({ notes: 2, contacts: 1, consentsAnonymised: 1, identifiersHashed: 1, mergedRecordsErased: 0, mergeSnapshotsCleared: 0 });
    const left = await db().first(sql<{ n: number }>`select count(*)::int as n from contact_notes where contact_id = ${ids.carla}::uuid`);
    expect(left!.n).toBe(0);
    expectProblem(await http().get(`/api/audience/contacts/${ids.carla}`).set(manager.auth), 404, 'not_found');
    expectProblem(await http().get(`/api/audience/contacts/${ids.carla}/timeline`).set(manager.auth), 404, 'not_found');
    expectProblem(await http().post(notes(ids.carla)).set(manager.auth).send({ text: 'Hola' }), 404, 'not_found');
    expectProblem(await patch(ids.carla, { name: 'Otra' }), 404, 'not_found');
  });
});
