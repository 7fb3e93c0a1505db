import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/**
 * The duplicate finder (GET /api/audience/duplicates): pairs of held contacts that may be one
 * person, with every reason and a score, masked, paged; dismissed pairs and erased people never
 * appear.
 */

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let erased: string;

type Pair = {
  contacts: { id: string; name: string; phone: string | null; email: string | null; territoryId: string | null; createdAt: string }[];
  reasons: string[];
  score: number;
  nameSimilarity: number;
};

const db = () => app.runtime.deps.db;
const list = async (query = '') => (await app.http.get(`/api/audience/duplicates${query}`).set(manager.auth).expect(200)).body as { data: Pair[]; nextCursor: string | null };
const idOf = async (phone: string) => (await db().first(sql<{ id: string }>`select id from contacts where phone = ${phone}`))!.id;
const names = (pair: Pair) => pair.contacts.map((contact) => contact.name).sort();
const dismiss = (contactIds: unknown, user: TestUser = manager) => app.http.post('/api/audience/duplicates/dismissals').set(user.auth).send({ contactIds });

beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  await app.http.post('/api/territories').set(manager.auth).send({ name: 'Kennedy', type: 'commune', code: 'K-08' }).expect(201);
  await app.http.post('/api/territories').set(manager.auth).send({ name: 'Suba', type: 'commune', code: 'S-11' }).expect(201);

  // Poster captures: two numbers with one cédula; two numbers sharing an inbox.
  const landing = { ...campaignBody().landing, fields: { phone: 'required', email: 'optional', documentId: 'optional' } };
  const campaign = await createCampaign(app, manager, { landing });
  const [code] = await generateCodes(app, manager, campaign.id, { count: 1 });
  const capture = (person: Record<string, unknown>) => app.http.post('/api/qr-leads/capture').send(lead(code!.code, person)).expect(201);
  await capture({ name: 'Luis Fernando Arango', phone: '300 200 0001', email: undefined, documentId: '80123456' });
  await capture({ name: 'Luis F. Arango', phone: '300 200 0002', email: undefined, documentId: '80.123.456' });
  await capture({ name: 'Nubia Castro', phone: '300 200 0003', email: 'familia.castro@example.org' });
  await capture({ name: 'Andrés Castro', phone: '300 200 0004', email: 'Familia.Castro@example.org' });
  // Similar names sharing an identifier: one typed without accents and with a typo, from another number.
  await capture({ name: 'José Pérez Gómez', phone: '300 200 0008', email: 'jose.perez@example.org' });
  await capture({ name: 'Jose Peres Gomez', phone: '300 200 0009', email: 'jose.perez@example.org' });

  // A file: the same name in one territory, and people who are not duplicates (one name in two territories, two names in one).
  const csv = [
    'name,phone,territoryCode,barrio',
    'María López,3002000005,K-08,',
    'MARIA  LOPEZ,3002000006,K-08,',
    'María López,3002000007,S-11,',
    'José Pérez Gómez,3002000015,S-11,Tibabuyes',
    'José Pérez Gómez,3002000010,K-08,Timiza',
    'Elena Ruiz,3002000011,K-08,',
    'Elena Ruíz,3002000012,K-08,',
    'Pedro Ramírez,3002000013,K-08,',
    'Pablo Rojas,3002000014,K-08,',
  ].join('\n');
  await app.http.post('/api/audience/contacts/import').set(manager.auth).set('Content-Type', 'text/csv').send(csv).expect(200);
});
afterAll(() => app.close());

describe('the duplicate finder', () => {
  it('finds the pairs, each with every reason that holds and a score, best first', async () => {
    const { data, nextCursor } = await list();
    expect(nextCursor).toBeNull();
    expect(data.map((pair) => [names(pair), pair.reasons])).toEqual([
      [['Luis F. Arango', 'Luis Fernando Arango'], ['same_document']],
      [
        ['Jose Peres Gomez', 'José Pérez Gómez'],
        ['same_email', 'similar_name'],
      ],
      [['MARIA  LOPEZ', 'María López'], ['same_name_territory']],
      [['Elena Ruiz', 'Elena Ruíz'], ['same_name_territory']],
      [['Andrés Castro', 'Nubia Castro'], ['same_email']],
    ]);
    const scores = data.map((pair) => pair.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(data[0]!.score).toBe(0.9);
    // Same email and similar names outrank the same email alone: 1 − 0.4 × (1 − 0.5 × similarity).
    const jose = data[1]!;
    expect(jose.nameSimilarity).toBeGreaterThanOrEqual(0.6);
    expect(jose.nameSimilarity).toBeLessThan(1);
    expect(jose.score).toBeCloseTo(1 - 0.4 * (1 - 0.5 * jose.nameSimilarity), 2);
    expect(data[4]!.score).toBe(0.6);
  });

  it('masks phones and emails, and shows ids, names, territories and created dates', async () => {
    const { data } = await list();
    const castro = data.find((pair) => pair.contacts[0]!.name.endsWith('Castro'))!;
    for (const contact of castro.contacts) {
      expect(contact).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        phone: expect.stringMatching(/^\+57•••••000[34]$/),
        email: 'f•••@example.org',
        territoryId: null,
        createdAt: expect.any(String),
      });
    }
    expect(JSON.stringify(data)).not.toMatch(/3002000\d{3}|familia\.castro/);
  });

  it('pages with a cursor, and lists one contact’s pairs', async () => {
    const all = (await list()).data;
    const seen: Pair[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { data: Pair[]; nextCursor: string | null } = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all);
    const luis = await idOf('+573002000001');
    expect((await list(`?contactId=${luis}`)).data.map(names)).toEqual([['Luis F. Arango', 'Luis Fernando Arango']]);
    expect((await list(`?contactId=${randomUUID()}`)).data).toEqual([]);
  });

  it('stops offering a pair marked as different people', async () => {
    const [x, y] = await Promise.all([idOf('+573002000003'), idOf('+573002000004')]);
    const first = await dismiss([y, x]).expect(201);
    expect(first.body).toEqual({ contactIds: [x, y].sort(), dismissedBy: manager.id, dismissedAt: expect.any(String) });
    // Again: nothing changes.
    expect((await dismiss([x, y]).expect(201)).body).toEqual(first.body);
    expect((await list()).data.map(names)).not.toContainEqual(['Andrés Castro', 'Nubia Castro']);
  });

  it('never shows an erased person', async () => {
    erased = await idOf('+573002000011');
    await app.http.delete(`/api/audience/contacts/${erased}`).set(manager.auth).expect(200);
    const { data } = await list();
    expect(data.map(names)).not.toContainEqual(['Elena Ruiz', 'Elena Ruíz']);
    expect(JSON.stringify(data)).not.toContain(erased);
  });

  it('answers bad input, unknown people and the wrong callers with problems', async () => {
    const [x, y] = await Promise.all([idOf('+573002000005'), idOf('+573002000006')]);
    expectProblem(await dismiss([x]), 400, 'validation_failed');
    expectProblem(await dismiss([x, x]), 400, 'validation_failed');
    expectProblem(await dismiss([x, 'nope']), 400, 'validation_failed');
    expectProblem(await dismiss('both'), 400, 'validation_failed');
    expectProblem(await dismiss([x, randomUUID()]), 404, 'not_found');
    expectProblem(await dismiss([x, erased]), 404, 'not_found');
    expectProblem(await app.http.get('/api/audience/duplicates?cursor=zzz').set(manager.auth), 400, 'validation_failed');
    expectProblem(await app.http.get('/api/audience/duplicates?limit=0').set(manager.auth), 400, 'validation_failed');
    expectProblem(await app.http.get('/api/audience/duplicates?contactId=1').set(manager.auth), 400, 'validation_failed');
    expectProblem(await app.http.get('/api/audience/duplicates?reason=x').set(manager.auth), 400, 'validation_failed');
    for (const role of ['viewer', 'volunteer', 'brigade'] as const) {
      const user = await createUser(app, admin, role);
      expectProblem(await app.http.get('/api/audience/duplicates').set(user.auth), 403, 'forbidden');
      expectProblem(await dismiss([x, y], user), 403, 'forbidden');
    }
    expectProblem(await app.http.get('/api/audience/duplicates'), 401);
    expect((await app.http.get('/api/audience/duplicates').set(admin.auth).expect(200)).body.data.length).toBeGreaterThan(0);
  });
});
