import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/**
 * The people database staff search (`GET /api/audience/contacts`): people arrive the way they do
 * in a campaign (poster captures, through the public endpoint), staff tag, correct and erase them
 * through the API, and the search finds them however their phone, name, email or cédula is typed.
 */

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
const ids = { jose: '', maria: '', pedro: '', formula: '', erased: '' };
const places = { kennedy: '', timiza: '', castilla: '', suba: '', rincon: '' };
let campaignA = '';
let campaignB = '';
/** People seeded straight into the table, all created in the same instant and all named alike: ties for the keyset. */
const TWINS = 5;

const http = () => app.http;
const list = (query: Record<string, string | number>, user: TestUser = manager) => http().get('/api/audience/contacts').query(query).set(user.auth);

interface Row {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
  documentId: string | null;
  territory: { id: string; name: string } | null;
  tags: string[];
  consent: { whatsapp: string; email: string };
  origins: { kind: string; refId: string; name: string | null }[];
  originCount: number;
}

async function found(query: Record<string, string | number>): Promise<string[]> {
  const response = await list({ limit: 200, ...query }).expect(200);
  return (response.body.data as Row[]).map((row) => row.id);
}

async function territory(body: Record<string, unknown>): Promise<string> {
  return (await http().post('/api/territories').set(admin.auth).send(body).expect(201)).body.id;
}

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');

  const city = await territory({ name: 'Bogotá', type: 'municipality', code: '11001' });
  places.kennedy = await territory({ name: 'Kennedy', type: 'commune', code: '08', parentId: city });
  places.timiza = await territory({ name: 'Timiza', type: 'neighbourhood', parentId: places.kennedy });
  places.castilla = await territory({ name: 'Castilla', type: 'neighbourhood', parentId: places.kennedy });
  places.suba = await territory({ name: 'Suba', type: 'commune', code: '11', parentId: city });
  places.rincon = await territory({ name: 'El Rincón', type: 'neighbourhood', parentId: places.suba });

  const landing = { ...campaignBody().landing, fields: { phone: 'required', email: 'optional', documentId: 'optional', neighbourhood: 'optional' } };
  campaignA = (await createCampaign(app, manager, { name: 'Afiches Kennedy', territoryId: places.kennedy, landing })).id;
  campaignB = (await createCampaign(app, manager, { name: 'Afiches Suba', territoryId: places.suba, landing })).id;
  const [codeA] = await generateCodes(app, manager, campaignA, { count: 1 });
  const [codeB] = await generateCodes(app, manager, campaignB, { count: 1 });
  const capture = async (code: string, person: Record<string, unknown>) => {
    await http().post('/api/qr-leads/capture').send(lead(code, person)).expect(201);
    const phone = person.phone as string;
    const digits = phone.replace(/\D/g, '').slice(-10);
    return (await app.runtime.deps.db.first(sql<{ id: string }>`select id from contacts where phone = ${`+57${digits}`}`))!.id;
  };
  ids.jose = await capture(codeA!.code, {
    name: 'José Pérez Núñez',
    phone: '300 123 4567',
    email: 'Jose.Perez@Example.org',
    documentId: '1.020.304.050',
    territoryId: places.timiza,
    whatsappOptIn: true,
    emailOptIn: true,
  });
  ids.maria = await capture(codeA!.code, {
    name: 'María José Gómez',
    phone: '+57 310 555 0001',
    email: 'mjgomez@example.org',
    documentId: '52123456',
    territoryId: places.castilla,
    whatsappOptIn: true,
  });
  ids.pedro = await capture(codeB!.code, { name: 'Pedro Perea', phone: '3205550002', email: undefined, territoryId: places.rincon, whatsappOptIn: false });
  ids.formula = await capture(codeB!.code, { name: 'Cruz Díaz', phone: '3205550003', email: undefined, whatsappOptIn: false });
  ids.erased = await capture(codeB!.code, { name: 'Erasmo Borrado', phone: '3205550099', email: 'erasmo@example.org', documentId: '80999888' });

  // Staff at work: tags, a withdrawal the person asked for, a name a spreadsheet would run, an erasure.
  await http()
    .patch(`/api/audience/contacts/${ids.jose}`)
    .set(manager.auth)
    .send({ tags: ['Líder', '  transporte  '] })
    .expect(200);
  await http().post(`/api/audience/contacts/${ids.maria}/withdrawals`).set(manager.auth).send({ channel: 'whatsapp', note: 'Pidió por teléfono no recibir WhatsApp' }).expect(200);
  await http().patch(`/api/audience/contacts/${ids.formula}`).set(manager.auth).send({ name: '=HIPERVINCULO("http://malo.example";"clic") Cruz' }).expect(200);
  await http().delete(`/api/audience/contacts/${ids.erased}`).set(manager.auth).expect(200);

  // Twins: the same instant of creation and the same name, so only the id orders them.
  await app.runtime.deps.db.write(sql`
    insert into contacts (id, identity_key, name, phone, interests, created_at, updated_at)
    select gen_random_uuid(), 'tel:+57301000000' || n, 'Persona Igual', '+57301000000' || n, '{}', '2026-01-15T12:00:00.123456Z', now()
    from generate_series(1, ${TWINS}::int) n`);
}, 60_000);

afterAll(() => app?.close());

describe('search', () => {
  it('finds a person by a phone typed however it was typed, and by its last digits', async () => {
    for (const typed of ['300 123 4567', '+57 300-123-4567', '3001234567', '(300) 123 45 67', '573001234567']) expect(await found({ q: typed })).toEqual([ids.jose]);
    expect(await found({ q: '4567' })).toEqual([ids.jose]);
    expect(await found({ q: '555 0001' })).toEqual([ids.maria]);
  });

  it('finds a name without its accents, in any case, by fragments of its words in any order', async () => {
    expect(await found({ q: 'jose per' })).toEqual([ids.jose]);
    expect(await found({ q: 'PER JOSÉ' })).toEqual([ids.jose]);
    expect(await found({ q: 'nunez' })).toEqual([ids.jose]);
    expect((await found({ q: 'jose', sort: 'name' })).sort()).toEqual([ids.jose, ids.maria].sort());
    expect((await found({ q: 'pere' })).sort()).toEqual([ids.jose, ids.pedro].sort());
    // A short word narrows what a longer one found.
    expect(await found({ q: 'jo gom' })).toEqual([ids.maria]);
    expect(await found({ q: 'zzyzx' })).toEqual([]);
  });

  it('finds a cédula typed with dots or spaces, and an email in another case or by its beginning', async () => {
    expect(await found({ q: '1.020.304.050' })).toEqual([ids.jose]);
    expect(await found({ q: '52 123 456' })).toEqual([ids.maria]);
    expect(await found({ q: 'JOSE.PEREZ@EXAMPLE.ORG' })).toEqual([ids.jose]);
    expect(await found({ q: 'MJGomez@' })).toEqual([ids.maria]);
  });

  it('takes % and _ literally', async () => {
    expect(await found({ q: 'jos%' })).toEqual([]);
    expect(await found({ q: 'p_dro' })).toEqual([]);
  });

  it('answers each row with the territory’s name, tags, consent per channel and named origins', async () => {
    const [jose] = (await list({ q: '3001234567' }).expect(200)).body.data as Row[];
    expect(jose).toEqual({
      id: ids.jose,
      name: 'José Pérez Núñez',
      phone: '+573001234567',
      email: 'jose.perez@example.org',
      documentId: '1020304050',
      territory: { id: places.timiza, name: 'Timiza' },
      tags: ['líder', 'transporte'],
      consent: { whatsapp: 'reachable', email: 'reachable' },
      origins: [{ kind: 'qr_campaign', refId: campaignA, name: 'Afiches Kennedy', firstSeenAt: expect.any(String) }],
      originCount: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });
});

describe('filters', () => {
  it('a territory includes everything inside it', async () => {
    expect((await found({ territoryId: places.kennedy })).sort()).toEqual([ids.jose, ids.maria].sort());
    expect(await found({ territoryId: places.timiza })).toEqual([ids.jose]);
    // Cruz Díaz named no barrio on a Suba poster: counted in Suba, where the poster was.
    expect((await found({ territoryId: places.suba })).sort()).toEqual([ids.pedro, ids.formula].sort());
  });

  it('an origin: a kind, or one source of it', async () => {
    expect((await found({ originKind: 'qr_campaign', originRef: campaignB })).sort()).toEqual([ids.pedro, ids.formula].sort());
    expect((await found({ originKind: 'qr_campaign' })).sort()).toEqual([ids.jose, ids.maria, ids.pedro, ids.formula].sort());
    expect(await found({ originKind: 'pqrs' })).toEqual([]);
  });

  it('consent per channel: reachable, opted out, never given', async () => {
    expect(await found({ whatsapp: 'reachable' })).toEqual([ids.jose]);
    expect(await found({ whatsapp: 'opted_out' })).toEqual([ids.maria]);
    const none = await found({ whatsapp: 'no_consent' });
    expect(none).toEqual(expect.arrayContaining([ids.pedro, ids.formula]));
    expect(none).toHaveLength(2 + TWINS);
    expect(await found({ email: 'reachable' })).toEqual([ids.jose]);
    expect(await found({ email: 'reachable', whatsapp: 'opted_out' })).toEqual([]);
  });

  it('a tag, however it is typed', async () => {
    expect(await found({ tag: 'LÍDER' })).toEqual([ids.jose]);
    expect(await found({ tag: 'transporte', q: 'jose' })).toEqual([ids.jose]);
    expect(await found({ tag: 'nadie' })).toEqual([]);
  });

  it('the time of creation', async () => {
    expect(await found({ createdFrom: '2026-01-15T12:00:00.123Z', createdTo: '2026-01-15T12:00:00.124Z' })).toHaveLength(TWINS);
    expect(await found({ createdTo: '2026-01-15T12:00:00Z' })).toEqual([]);
    expect(await found({ createdFrom: new Date(Date.now() + 3_600_000).toISOString() })).toEqual([]);
    expect(await found({ createdFrom: '2026-01-16T00:00:00-05:00', q: 'jose' })).toHaveLength(2);
  });
});

describe('paging', () => {
  it('returns every person once, in order, whatever the sort, ties included', async () => {
    const everyone = await found({});
    expect(everyone).toHaveLength(4 + TWINS);
    for (const sort of ['-createdAt', 'createdAt', 'name', '-name']) {
      const seen: Row[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { limit: 2, sort };
        if (cursor) query.cursor = cursor;
        const response: { body: { data: Row[]; nextCursor: string | null } } = await list(query).expect(200);
        seen.push(...(response.body.data as Row[]));
        cursor = response.body.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(Math.ceil(everyone.length / 2));
      expect(seen.map((row) => row.id).sort()).toEqual([...everyone].sort());
      expect(new Set(seen.map((row) => row.id)).size).toBe(seen.length);
      if (sort === 'name') {
        const folded = seen.map((row) => row.name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
        expect(folded.slice(0, 4)).toEqual(['=hipervinculo("http://malo.example";"clic") cruz', 'jose perez nunez', 'maria jose gomez', 'pedro perea']);
      }
    }
  });

  it('pages through a search too', async () => {
    const first = await list({ q: 'persona igual', limit: 3 }).expect(200);
    expect(first.body.data).toHaveLength(3);
    const second = await list({ q: 'persona igual', limit: 3, cursor: first.body.nextCursor }).expect(200);
    expect(second.body.data).toHaveLength(TWINS - 3);
    expect(second.body.nextCursor).toBeNull();
  });
});

describe('CSV', () => {
  it('streams the selection with names, not ids, every cell formula-safe', async () => {
    const response = await list({ format: 'csv', sort: 'name' }).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="personas-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = response.text.replace(/^\uFEFF/, '');
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('id,name,phone,email,documentId,territory,tags,whatsapp,emailConsent,origins,createdAt,updatedAt');
    expect(lines).toHaveLength(1 + 4 + TWINS);
    const jose = lines.find((line) => line.startsWith(ids.jose))!;
    // A phone is only digits: no apostrophe (it cannot run as a formula).
    expect(jose).toContain(',José Pérez Núñez,+573001234567,jose.perez@example.org,1020304050,Timiza,líder; transporte,reachable,reachable,Afiches Kennedy,');
    expect(jose).not.toContain(places.timiza);
    const formula = lines.find((line) => line.startsWith(ids.formula))!;
    expect(formula).toContain(`,"'=HIPERVINCULO(""http://malo.example"";""clic"") Cruz",`);
    expect(text).not.toContain('Erasmo');
  });

  it('honours the search and filters, and refuses a bad search before any byte', async () => {
    const response = await list({ format: 'csv', q: 'jose per' }).expect(200);
    expect(response.text.trim().split('\n')).toHaveLength(2);
    expectProblem(await list({ format: 'csv', q: 'jo' }), 400, 'search_too_short');
  });
});

describe('erased people', () => {
  it('never appear, by any search', async () => {
    for (const q of ['3205550099', 'erasmo', 'erasmo@example.org', '80999888']) expect(await found({ q })).toEqual([]);
    expect(await found({})).not.toContain(ids.erased);
    expectProblem(await http().get(`/api/audience/contacts/${ids.erased}`).set(manager.auth), 404, 'not_found');
  });
});

describe('refusals', () => {
  it('admits managers and admins only', async () => {
    await list({}, admin).expect(200);
    for (const role of ['viewer', 'volunteer', 'treasurer', 'brigade'] as const) {
      const user = await createUser(app, admin, role);
      expectProblem(await list({}, user), 403, 'forbidden');
      expectProblem(await list({ format: 'csv' }, user), 403, 'forbidden');
    }
    expectProblem(await http().get('/api/audience/contacts'), 401);
  });

  it('answers bad input with a 400 problem naming the parameter', async () => {
    const cases: [Record<string, string | number>, string, string?][] = [
      [{ colour: 'red' }, 'query.colour'],
      [{ territoryId: 'kennedy' }, 'query.territoryId'],
      [{ originRef: campaignA }, 'query.originRef'],
      [{ originKind: 'QR Campaign' }, 'query.originKind'],
      [{ createdFrom: 'ayer' }, 'query.createdFrom'],
      [{ createdFrom: '2026-02-30' }, 'query.createdFrom'],
      [{ createdFrom: '1899-12-31T23:59:59Z' }, 'query.createdFrom'],
      [{ createdTo: '2202-01-01T00:00:00Z' }, 'query.createdTo'],
      [{ createdFrom: '2026-03-01T00:00:00Z', createdTo: '2026-02-01T00:00:00Z' }, 'query.createdTo'],
      [{ limit: 0 }, 'query.limit'],
      [{ limit: 500 }, 'query.limit'],
      [{ limit: 'many' }, 'query.limit'],
      [{ sort: 'age' }, 'query.sort'],
      [{ sort: 'name:desc' }, 'query.sort'],
      [{ whatsapp: 'maybe' }, 'query.whatsapp'],
      [{ email: 'yes' }, 'query.email'],
      [{ format: 'xlsx' }, 'query.format'],
      [{ tag: '   ' }, 'query.tag'],
      [{ tag: 'x'.repeat(41) }, 'query.tag'],
      [{ q: 'x'.repeat(101) }, 'query.q'],
      [{ q: 'jo' }, 'query.q', 'search_too_short'],
      [{ q: 'a b' }, 'query.q', 'search_too_short'],
      [{ q: '123' }, 'query.q', 'search_too_short'],
      [{ q: '+57' }, 'query.q', 'search_too_short'],
      [{ cursor: 'not a cursor!' }, 'query.cursor'],
      [{ cursor: Buffer.from('["x"]').toString('base64url') }, 'query.cursor'],
      [{ cursor: Buffer.from(JSON.stringify(['2026-13-45 99:00:00+00', ids.jose])).toString('base64url') }, 'query.cursor'],
      [{ cursor: Buffer.from(JSON.stringify(['ayer', ids.jose])).toString('base64url') }, 'query.cursor'],
    ];
    for (const [query, path, code] of cases) {
      const body = expectProblem(await list(query), 400, code ?? 'validation_failed');
      expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    // A parameter given twice is not one value.
    expectProblem(await http().get('/api/audience/contacts?tag=a&tag=b').set(manager.auth), 400, 'validation_failed');
  });
});
