import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

/**
 * The duplicate finder (GET /api/audience/duplicates): pairs of held contacts that may be one
 * person, with every reason and a score, masked, paged; dismissed pairs and erased people never
 * appear. The pairs are kept as contacts change (migration DuplicatePairsKept): after each kind of
 * write, what is kept must be what computing every pair from scratch gives.
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
const pairsOf = async (id: string) => (await list(`?contactId=${id}`)).data;
const correct = (id: string, body: Record<string, unknown>) => app.http.patch(`/api/audience/contacts/${id}`).set(manager.auth).send(body).expect(200);
const importCsv = (lines: string[]) => app.http.post('/api/audience/contacts/import').set(manager.auth).set('Content-Type', 'text/csv').send(lines.join('\n')).expect(200);

type PairRow = { a: string; b: string; score: string; reasons: string[] };
const byIds = (rows: PairRow[]) => [...rows].sort((x, y) => (x.a + x.b < y.a + y.b ? -1 : 1));

/**
 * Every pair computed from scratch, as the finder did on each request before it kept them (its
 * statement then, with phones compared by their last ten digits whatever the format): the
 * reference the kept pairs must equal.
 */
const fromScratch = async () =>
  byIds(
    await db().rows(sql<PairRow>`
    with held as materialized (
      select id, name, phone, email, document_id, territory_id, contact_name_key(name) as name_key,
        nullif(right(regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g'), 10), '') as phone_digits, lower(email) as email_key
      from contacts where erased_at is null and merged_into_id is null
    ),
    candidates as (
      select a.id as a_id, b.id as b_id from held a join held b on b.document_id = a.document_id and a.id < b.id
      union select a.id, b.id from held a join held b on b.email_key = a.email_key and a.id < b.id
      union select a.id, b.id from held a join held b on b.phone_digits = a.phone_digits and a.id < b.id
      union select a.id, b.id from held a join held b on b.territory_id = a.territory_id and b.name_key = a.name_key and a.id < b.id
    ),
    judged as (
      select c.a_id, c.b_id, similarity(a.name_key, b.name_key) as similarity,
        coalesce(a.document_id = b.document_id, false) as same_document, coalesce(a.phone_digits = b.phone_digits, false) as same_phone_digits,
        coalesce(a.email_key = b.email_key, false) as same_email, coalesce(a.territory_id = b.territory_id and a.name_key = b.name_key, false) as same_name_territory
      from candidates c join held a on a.id = c.a_id join held b on b.id = c.b_id
      where not exists (select 1 from contact_duplicate_dismissals d where d.contact_a_id = c.a_id and d.contact_b_id = c.b_id)
    ),
    scored as (select j.*, j.similarity >= 0.6::real and not j.same_name_territory as similar_name from judged j)
    select s.a_id as a, s.b_id as b,
      round((1 - (1 - 0.9 * s.same_document::int) * (1 - 0.8 * s.same_phone_digits::int) * (1 - 0.6 * s.same_email::int)
        * (1 - 0.7 * s.same_name_territory::int) * (1 - 0.5 * s.similarity * s.similar_name::int))::numeric, 3)::text as score,
      array_remove(array[case when s.same_document then 'same_document' end, case when s.same_phone_digits then 'same_phone_digits' end,
        case when s.same_email then 'same_email' end, case when s.same_name_territory then 'same_name_territory' end,
        case when s.similar_name then 'similar_name' end], null) as reasons
    from scored s`),
  );
const kept = async () => byIds(await db().rows(sql<PairRow>`select contact_a_id as a, contact_b_id as b, score::text as score, reasons from contact_duplicate_pairs`));
/** After a list request (which takes in every committed write first), the kept pairs are exactly those computed from scratch. */
const expectKeptRight = async () => {
  await list();
  expect(await kept()).toEqual(await fromScratch());
};

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

describe('the kept pairs, after each kind of write', () => {
  let tomas: string;
  let julio: string;
  let julia: string;
  let namesake: string;
  let mergeId: string;

  beforeAll(async () => {
    await importCsv([
      'name,phone,email,documentId,territoryCode',
      'Tomás Quintero,3003000001,,79333444,S-11',
      'Julio Bedoya,3003000002,julio.bedoya@example.org,,S-11',
      // Another number with Julio's inbox, and a namesake in his territory.
      'Julia Bedoya,3003000003,julio.bedoya@example.org,,K-08',
      'JULIO BEDOYA,3003000004,,,S-11',
    ]);
    [tomas, julio, julia, namesake] = (await Promise.all(['+573003000001', '+573003000002', '+573003000003', '+573003000004'].map(idOf))) as [string, string, string, string];
  });

  it('has the pairs an import made', async () => {
    const reasons = Object.fromEntries((await pairsOf(julio)).map((pair) => [pair.contacts.find((c) => c.id !== julio)!.id, pair.reasons]));
    expect(reasons).toEqual({ [namesake]: ['same_name_territory'], [julia]: expect.arrayContaining(['same_email']) });
    expect(await pairsOf(tomas)).toEqual([]);
    await expectKeptRight();
  });

  it('a correction that gives two people one cédula makes their pair; correcting it back removes it', async () => {
    await correct(julio, { documentId: '79.333.444' });
    const [pair] = (await pairsOf(tomas)).filter((p) => p.contacts.some((c) => c.id === julio));
    expect(pair).toMatchObject({ reasons: ['same_document'], score: 0.9 });
    await expectKeptRight();
    await correct(julio, { documentId: null });
    expect(await pairsOf(tomas)).toEqual([]);
    await expectKeptRight();
    await correct(julio, { documentId: '79333444' });
    await expectKeptRight();
  });

  it('a merge removes the pair of the two, and the survivor takes the other record’s pairs with the fields it fills', async () => {
    const response = await app.http.post(`/api/audience/contacts/${tomas}/merge`).set(manager.auth).send({ from: julio }).expect(201);
    mergeId = response.body.id;
    // Julio is no longer anyone; Tomás took his email (he had none), so Julia's inbox is now Tomás's.
    expect(await pairsOf(julio)).toEqual([]);
    const tomasPairs = await pairsOf(tomas);
    expect(tomasPairs.map((pair) => [pair.contacts.map((c) => c.id).sort(), pair.reasons])).toEqual([[[tomas, julia].sort(), ['same_email']]]);
    expect((await pairsOf(namesake)).map((pair) => pair.reasons)).toEqual([]);
    await expectKeptRight();
  });

  it('an undo of the merge brings the pairs back', async () => {
    await app.http.post(`/api/audience/merges/${mergeId}/undo`).set(manager.auth).expect(200);
    const ids = (pairs: Pair[]) => pairs.map((pair) => pair.contacts.map((c) => c.id).sort());
    expect(ids(await pairsOf(julio))).toEqual(expect.arrayContaining([[tomas, julio].sort(), [julio, julia].sort(), [julio, namesake].sort()]));
    expect(ids(await pairsOf(tomas))).toEqual([[tomas, julio].sort()]);
    await expectKeptRight();
  });

  it('a dismissal removes the pair, and it stays away when either person changes', async () => {
    await dismiss([julio, namesake]).expect(201);
    expect((await pairsOf(namesake)).map((pair) => pair.contacts.map((c) => c.id).sort())).toEqual([]);
    await correct(namesake, { name: 'Julio Bedoya' });
    await correct(julio, { email: 'julio.b@example.org' });
    expect(await pairsOf(namesake)).toEqual([]);
    // The email correction took Julia's pair away with it.
    expect((await pairsOf(julia)).length).toBe(0);
    await expectKeptRight();
  });

  it('an erasure removes the person’s pairs', async () => {
    await app.http.delete(`/api/audience/contacts/${tomas}`).set(manager.auth).expect(200);
    expect(await pairsOf(julio)).toEqual([]);
    expect(JSON.stringify((await list()).data)).not.toContain(tomas);
    await expectKeptRight();
  });

  it('finds the pair of two people written at once by two transactions, neither seeing the other', async () => {
    const insert = (phone: string) => sql`
      insert into contacts (id, identity_key, name, phone, document_id, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (${randomUUID()}, ${`tel:${phone}`}, 'Marta Lucía Ospina', ${phone}, '43555666', '{}', false, false, now(), now())`;
    let release!: () => void;
    const bothWritten = new Promise<void>((resolve) => (release = resolve));
    let written = 0;
    const writer = (phone: string) =>
      db().transaction(async (tx) => {
        await tx.write(insert(phone));
        if (++written === 2) release();
        await bothWritten;
      });
    await Promise.all([writer('+573003000011'), writer('+573003000012')]);
    const [x, y] = await Promise.all([idOf('+573003000011'), idOf('+573003000012')]);
    expect((await pairsOf(x)).map((pair) => [pair.contacts.map((c) => c.id).sort(), pair.reasons])).toEqual([[[x, y].sort(), ['same_document', 'similar_name']]]);
    await expectKeptRight();
  });

  it('is kept by the workers without anyone asking', async () => {
    await db().write(sql`
      insert into contacts (id, identity_key, name, phone, document_id, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (${randomUUID()}, 'tel:+573003000013', 'Marta L. Ospina', '+573003000013', '43555666', '{}', false, false, now(), now())`);
    const id = await idOf('+573003000013');
    const queued = async () => (await db().first(sql<{ n: number }>`select count(*)::int as n from contact_duplicate_queue`))!.n;
    await until(async () => (await queued()) === 0, 10_000, 'the duplicate queue to empty');
    expect(await queued()).toBe(0);
    expect((await db().rows(sql`select 1 from contact_duplicate_pairs where contact_a_id = ${id}::uuid or contact_b_id = ${id}::uuid`)).length).toBe(2);
    await expectKeptRight();
  });
});
