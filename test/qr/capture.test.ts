import { sql, type Sql } from '../../src/kernel/sql';
import { loadForm, saveForm } from '../../src/modules/qr/qr.form-return';
import { recordCapturedLead } from '../../src/modules/qr/qr.repository';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let campaignId: string;
let consentTextId: string;
let code: string;

beforeAll(async () => {
  app = await startTestApp({ CAPTURE_MAX_PER_PERSON: '5' });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  const campaign = await createCampaign(app, manager);
  campaignId = campaign.id;
  consentTextId = campaign.consentTextId;
  code = (await generateCodes(app, manager, campaignId, { count: 1 }))[0]!.code;
});
afterAll(() => app.close());

function query<T = Record<string, unknown>>(statement: Sql<T>): Promise<T[]> {
  return app.runtime.deps.db.rows(statement);
}

const capture = (body: unknown) => app.http.post('/api/qr-leads/capture').send(body as object);

describe('capture (JSON)', () => {
  it('stores a lead with its contact and consent proof, echoing no personal data', async () => {
    const response = await capture(lead(code, { phone: '+57 (300) 555-0101', email: 'Luz@Example.ORG', whatsappOptIn: true, emailOptIn: false }));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.any(String), campaignId, status: 'captured' });
    const [row] = await query(
      sql`select l.id, l.interests, l.whatsapp_opt_in, c.name, c.phone, c.email, c.whatsapp_opt_in as contact_wa,
              k.text_id, k.source, k.ip_hash, k.given_at, k.whatsapp_opt_in as consent_wa
       from qr_leads l join contacts c on c.id = l.contact_id join consents k on k.contact_id = c.id where l.id = ${response.body.id}`,
    );
    expect(row).toMatchObject({
      name: 'Ana María Rojas',
      phone: '+573005550101',
      email: 'luz@example.org',
      interests: ['salud'],
      whatsapp_opt_in: true,
      contact_wa: true,
      text_id: consentTextId,
      source: 'qr',
      consent_wa: true,
    });
    expect(row!.ip_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(row)).not.toContain('127.0.0.1');
  });

  it('updates the same person instead of duplicating, and says so with 200 and the same id', async () => {
    const first = await capture(lead(code, { phone: '3015550102', interests: ['salud'] })).expect(201);
    const second = await capture(lead(code, { phone: '+573015550102', name: 'Ana M. Rojas', interests: ['empleo'] })).expect(200);
    expect(second.body.id).toBe(first.body.id);
    const rows = await query(
      sql<{
        submissions: number;
        interests: string[];
        name: string;
      }>`select l.submissions, l.interests, c.name from qr_leads l join contacts c on c.id = l.contact_id where l.id = ${first.body.id}`,
    );
    expect(rows).toEqual([{ submissions: 2, interests: ['empleo'], name: 'Ana M. Rojas' }]);
    const consents = await query(sql`select 1 from consents k join contacts c on c.id = k.contact_id where c.phone = ${'+573015550102'}`);
    expect(consents).toHaveLength(2);
  });

  it('keeps one lead when the same person submits many times at once', async () => {
    const responses = await Promise.all(Array.from({ length: 5 }, () => capture(lead(code, { phone: '3025550103', email: undefined }))));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    const [count] = await query(sql<{ n: number }>`select count(*)::int as n from contacts where phone = '+573025550103'`);
    expect(count!.n).toBe(1);
  });

  it('matches a person by email when there is no phone', async () => {
    const emailFirst = await createCampaign(app, manager, {
      landing: { ...campaignBody().landing, fields: { phone: 'optional', email: 'required' } },
    });
    const [poster] = await generateCodes(app, manager, emailFirst.id, { count: 1 });
    const first = await capture(lead(poster!.code, { phone: undefined, email: 'solo.email@example.org', whatsappOptIn: false })).expect(201);
    const again = await capture(lead(poster!.code, { phone: undefined, email: 'SOLO.EMAIL@example.org', whatsappOptIn: false })).expect(200);
    expect(again.body.id).toBe(first.body.id);
  });

  it('publishes qr:lead to the dashboard without personal data', async () => {
    const viewer = await createUser(app, admin, 'viewer');
    const socket = await connectSocket(app.url, viewer.token);
    try {
      await subscribe(socket, ['dashboard']);
      // Collect from the start: the lead may travel with others, in any message after subscribing.
      const received: { items: Record<string, unknown>[] }[] = [];
      socket.on('qr:lead', (message: { items: Record<string, unknown>[] }) => received.push(message));
      const response = await capture(lead(code, { phone: '3035550104' })).expect(201);
      const payload = await until(() => received.find((message) => message.items.some((item) => item.id === response.body.id)));
      expect(payload.items).toContainEqual({ id: response.body.id, campaignId, codeId: expect.any(String), created: true });
      expect(JSON.stringify(payload)).not.toMatch(/3035550104|Ana/);

      // A burst travels in a few messages, not one per lead.
      const messages: { items: unknown[] }[] = [];
      socket.on('qr:lead', (message: { items: unknown[] }) => messages.push(message));
      const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => capture(lead(code, { phone: `31655501${String(i).padStart(2, '0')}` })).expect(201)));
      const burstIds = new Set(burst.map((response) => response.body.id as string));
      const carrying = () => messages.filter((message) => message.items.some((item) => burstIds.has((item as { id: string }).id)));
      await until(() =>
        carrying()
          .flatMap((message) => message.items)
          .filter((item) => burstIds.has((item as { id: string }).id)).length === 20
          ? true
          : undefined,
      );
      expect(carrying().length).toBeLessThan(10);
    } finally {
      socket.close();
    }
  });

  it('answers a filled honeypot like a success but stores nothing', async () => {
    const before = await query(sql<{ n: number }>`select count(*)::int as n from qr_leads`);
    const response = await capture(lead(code, { phone: '3045550105', website: 'http://spam.example' })).expect(201);
    expect(response.body.status).toBe('captured');
    const after = await query(sql<{ n: number }>`select count(*)::int as n from qr_leads`);
    expect(after[0]!.n).toBe(before[0]!.n);
    const [campaign] = await query(sql<{ spam_blocked: number }>`select spam_blocked from qr_campaigns where id = ${campaignId}`);
    expect(campaign!.spam_blocked).toBe(1);
  });

  it('rate-limits one person with 429 and Retry-After', async () => {
    const person = lead(code, { phone: '3055550106' });
    for (let i = 0; i < 5; i++) await capture(person).expect(i === 0 ? 201 : 200);
    const blocked = await capture(person);
    expectProblem(blocked, 429, 'rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('capture: bad input gets a 4xx and stores nothing', () => {
  async function leadCount(): Promise<number> {
    return (await query(sql<{ n: number }>`select count(*)::int as n from qr_leads`))[0]!.n;
  }

  it.each([
    ['missing consent', { consent: undefined }, 'consent_required', 'body.consent'],
    ['consent "yes"', { consent: 'yes' }, 'consent_required', 'body.consent'],
    ['consent false', { consent: false }, 'consent_required', 'body.consent'],
    ['a 10,000-character name', { name: 'x'.repeat(10_000) }, 'validation_failed', 'body.name'],
    ['an invalid phone', { phone: '12345' }, 'validation_failed', 'body.phone'],
    ['an email with spaces', { email: 'ana maria@example.org' }, 'validation_failed', 'body.email'],
    ['interests not offered', { interests: ['salud', 'impuestos'] }, 'validation_failed', 'body.interests'],
    ['neither phone nor email', { phone: undefined, email: undefined }, 'validation_failed', 'body.phone'],
    ['no phone when the campaign requires it', { phone: undefined, email: 'x@example.org' }, 'validation_failed', 'body.phone'],
    ['a malformed code', { code: 'DROP TABLE' }, 'validation_failed', 'body.code'],
    ['interests as a string', { interests: 'salud' }, 'validation_failed', 'body.interests'],
    ['an unknown territory', { territoryId: '01960000-0000-7000-8000-000000000000' }, 'validation_failed', 'body.territoryId'],
  ])('%s', async (_name, overrides, errorCode, path) => {
    const before = await leadCount();
    const problem = expectProblem(await capture({ ...lead(code, { phone: '3115550107' }), ...overrides }), 400, errorCode);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await leadCount()).toBe(before);
  });

  it('a 5 MB body gets 413', async () => {
    expectProblem(await capture({ ...lead(code), name: 'x'.repeat(5 * 1024 * 1024) }), 413, 'payload_too_large');
  });

  it('an unknown code gets 404; a paused or ended campaign 409', async () => {
    expectProblem(await capture(lead('zzzzzzzzzz')), 404, 'not_found');
    const closing = await createCampaign(app, manager);
    const [closingCode] = await generateCodes(app, manager, closing.id, { count: 1 });
    await app.http.patch(`/api/poster-qr/campaigns/${closing.id}`).set(manager.auth).send({ status: 'paused' }).expect(200);
    expectProblem(await capture(lead(closingCode!.code)), 409, 'campaign_closed');
    await app.http.patch(`/api/poster-qr/campaigns/${closing.id}`).set(manager.auth).send({ status: 'ended' }).expect(200);
    expectProblem(await capture(lead(closingCode!.code)), 409, 'campaign_closed');
  });

  it('stores HTML in fields as plain text', async () => {
    const name = '<script>alert("x")</script> Pérez';
    const response = await capture(lead(code, { phone: '3125550108', name })).expect(201);
    const [row] = await query(sql<{ name: string }>`select c.name from qr_leads l join contacts c on c.id = l.contact_id where l.id = ${response.body.id}`);
    expect(row!.name).toBe(name);
  });
});

describe('capture (form post, no JavaScript)', () => {
  const leadCount = async () => (await query(sql<{ n: number }>`select count(*)::int as n from qr_leads`))[0]!.n;
  const form = (fields: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(key, item);
    return app.http.post('/api/qr-leads/capture').type('form').send(body.toString());
  };

  it('redirects to the thank-you page', async () => {
    const response = await form({ code, name: 'Pedro Gómez', phone: '3105550109', interests: ['salud', 'empleo'], consent: 'true', whatsappOptIn: 'true' });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe(`/q/${code}/gracias`);
    const [row] = await query(
      sql<{
        interests: string[];
        whatsapp_opt_in: boolean;
      }>`select l.interests, l.whatsapp_opt_in from qr_leads l join contacts c on c.id = l.contact_id where c.phone = '+573105550109'`,
    );
    expect(row).toEqual({ interests: ['salud', 'empleo'], whatsapp_opt_in: true });
    const thanks = await app.http.get(response.headers.location!).expect(200);
    expect(thanks.text).toContain('Gracias');
  });

  /** The cookie pair (`name=value`) a 303 set, as a browser would send it back. */
  const cookieFrom = (response: { headers: Record<string, unknown> }) => {
    const header = ([response.headers['set-cookie']].flat() as string[]).find((line) => line?.startsWith('qr_form='));
    return header?.split(';')[0];
  };
  const scans = async () => (await query(sql<{ n: number }>`select count(*)::int as n from qr_scans s join qr_codes c on c.id = s.code_id where c.code = ${code}`))[0]!.n;

  it('answers errors with a 303 back to the page (no personal data in the URL), which shows every error at once with the values kept and escaped', async () => {
    const before = await leadCount();
    const response = await form({ code, name: '<b>Pedro</b>', phone: '12345', email: 'pedro en correo', interests: ['salud'] });
    expect(response.status).toBe(303);
    const location = response.headers.location!;
    expect(location).toMatch(new RegExp(`^/q/${code}\\?e=[A-Za-z0-9_-]{22}$`));
    const setCookie = ([response.headers['set-cookie']].flat() as string[]).find((line) => line.startsWith('qr_form='))!;
    expect(setCookie).toMatch(new RegExp(`; Path=/q/${code}; Max-Age=600; HttpOnly; SameSite=Lax`));
    // Sealed: nothing the citizen typed can be read from the cookie.
    expect(setCookie).not.toMatch(/Pedro|12345|correo/i);
    const cookie = cookieFrom(response)!;

    const scansBefore = await scans();
    const page = await app.http.get(location).set('Cookie', cookie).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    for (const field of ['phone', 'email', 'consent']) expect(page.text).toContain(`id="err-${field}"`);
    expect(page.text).toContain('Revisa el número');
    expect(page.text).toContain('Escribe un correo como ana@ejemplo.com');
    expect(page.text).toContain('debes autorizar');
    expect(page.text).not.toMatch(/Entrada inválida|se esperaba|recibido/);
    expect(page.text).toContain('&lt;b&gt;Pedro&lt;/b&gt;');
    expect(page.text).not.toContain('<b>Pedro</b>');
    expect(page.text).toContain('value="12345"');
    expect(page.text).toMatch(/value="salud" checked/);

    // A refresh shows the same page and submits nothing; the return visit is not a new scan.
    const again = await app.http.get(location).set('Cookie', cookie).expect(200);
    expect(again.text).toContain('id="err-consent"');
    expect(await leadCount()).toBe(before);
    expect(await scans()).toBe(scansBefore);
  });

  it('reports a missing name, a bad phone and a missing consent in one answer, in the same words as the JSON path', async () => {
    const response = await form({ code, name: '', phone: '12', email: '' });
    const page = await app.http.get(response.headers.location!).set('Cookie', cookieFrom(response)!).expect(200);
    const json = expectProblem(await capture({ code, phone: '12' }), 400, 'consent_required') as { errors?: { path: string; message: string }[] };
    expect(json.errors!.map((error) => error.path)).toEqual(['body.name', 'body.phone', 'body.consent']);
    for (const { message } of json.errors!) expect(page.text).toContain(message.replace(/"/g, '&quot;'));
    expect(json.errors![0]!.message).toBe('Escribe tu nombre.');
  });

  it('shows a fresh form when the saved errors are missing, forged, expired or for another redirect; refuses a malformed id', async () => {
    const response = await form({ code, name: 'Lina Mora', phone: '12' });
    const cookie = cookieFrom(response)!;
    const fresh = async (path: string, cookieHeader?: string) => {
      const request = app.http.get(path);
      const page = await (cookieHeader ? request.set('Cookie', cookieHeader) : request).expect(200);
      expect(page.text).not.toContain('field-error');
      expect(page.text).not.toContain('Lina Mora');
    };
    await fresh(response.headers.location!);
    await fresh(`/q/${code}?e=${'a'.repeat(22)}`, cookie);
    // Not an id the page gives out: a 400, like any malformed input.
    for (const query of [`e=${'x'.repeat(500)}`, 'e=a&e=b', 'e=%3Cscript%3E'])
      expectProblem(await app.http.get(`/q/${code}?${query}`).set('Cookie', cookie), 400, 'validation_failed');
    const [name, value] = cookie.split('=') as [string, string];
    await fresh(response.headers.location!, `${name}=${value.slice(0, -4)}AAAA`);
    // Ten minutes on, the same cookie opens no more.
    const key = app.runtime.deps.secrets.ipHashKey;
    const saved = saveForm(key, code, { name: 'Lina Mora' }, [{ field: 'consent', message: 'x' }], 1_000_000);
    expect(loadForm(key, saved.cookie, code, saved.id, 1_000_000 + 599_000)).toEqual({ values: { name: 'Lina Mora' }, errors: [{ field: 'consent', message: 'x' }] });
    expect(loadForm(key, saved.cookie, code, saved.id, 1_000_000 + 600_000)).toBeUndefined();
    expect(loadForm(key, saved.cookie, 'zzzzzzzzzz', saved.id, 1_000_000)).toBeUndefined();
  });

  it('a successful form post clears the saved errors', async () => {
    const response = await form({ code, name: 'Pedro Gómez', phone: '3105550113', consent: 'true' });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe(`/q/${code}/gracias`);
    const cleared = ([response.headers['set-cookie']].flat() as string[]).find((line) => line.startsWith('qr_form='));
    expect(cleared).toMatch(new RegExp(`^qr_form=; Path=/q/${code}; Max-Age=0`));
  });

  it('answers an unknown code with the 404 page', async () => {
    const response = await form({ code: 'zzzzzzzzzz', name: 'X Y', phone: '3105550111', consent: 'true' });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('the capture statement', () => {
  it('records the contact, its origin, the lead and the consent proof in one prepared statement', async () => {
    const [poster] = await query(sql<{ id: string }>`select id from qr_codes where code = ${code}`);
    const phone = '+573135550112';
    const captured = {
      campaignId,
      codeId: poster!.id,
      person: { name: 'Rosa Díaz', phone, email: null, documentId: null, territoryId: null, neighbourhood: null, interests: ['salud'], whatsappOptIn: true, emailOptIn: false },
      proof: { textId: consentTextId, source: 'qr', sourceRef: poster!.id, ipHash: null, userAgent: null },
    };
    const [first, again, prepared] = await app.runtime.deps.db.session(
      async (connection) =>
        [
          await recordCapturedLead(connection, captured),
          await recordCapturedLead(connection, { ...captured, person: { ...captured.person, interests: ['empleo'] } }),
          await connection.rows(sql<{ name: string }>`select name from pg_prepared_statements where name = 'qr_capture_lead'`),
        ] as const,
    );
    expect(first).toEqual({ id: expect.any(String), created: true, contactId: expect.any(String), territoryId: null });
    expect(again).toEqual({ id: first.id, created: false, contactId: first.contactId, territoryId: null });
    expect(prepared).toEqual([{ name: 'qr_capture_lead' }]);
    const [stored] = await query(
      sql<{ submissions: number; interests: string[]; origins: number; consents: number }>`select l.submissions, l.interests,
        (select count(*)::int from contact_origins o where o.contact_id = l.contact_id and o.ref_id = ${campaignId}) as origins,
        (select count(*)::int from consents k where k.contact_id = l.contact_id) as consents
       from qr_leads l where l.id = ${first.id}`,
    );
    expect(stored).toEqual({ submissions: 2, interests: ['empleo'], origins: 1, consents: 2 });
  });
});
