import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;
let campaignId: string;
let codes: { id: string; code: string }[];
let barrio: string;
/** Taken right after seeding, before other tests add scans. */
let analysis: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const capture = (body: object, userAgent = 'Mozilla/5.0 (Linux; Android 12) Chrome/120 Mobile') => app.http.post('/api/qr-leads/capture').set('User-Agent', userAgent).send(body);
const scan = (code: string, userAgent: string, ip: string) => app.http.get(`/q/${code}`).set('User-Agent', userAgent).set('X-Forwarded-For', ip);

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: 'true', TIMEZONE: 'America/Bogota' });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  volunteer = await createUser(app, admin, 'volunteer');
  barrio = (await app.http.post('/api/territories').set(manager.auth).send({ name: 'Timiza', type: 'neighbourhood' }).expect(201)).body.id;
  campaignId = (await createCampaign(app, manager)).id;
  codes = await generateCodes(app, manager, campaignId, { count: 2, placements: [{ label: 'Parque' }, { label: 'Iglesia' }] });
  const phone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1';
  await scan(codes[0]!.code, phone, '10.0.0.1').expect(200);
  await scan(codes[0]!.code, phone, '10.0.0.1').expect(200);
  await scan(codes[0]!.code, phone, '10.0.0.2').expect(200);
  await scan(codes[1]!.code, phone, '10.0.0.3').expect(200);
  await scan(codes[1]!.code, 'WhatsApp/2.23.20.0 facebookexternalhit/1.1', '10.0.0.4').expect(200);
  await capture(
    lead(codes[0]!.code, { name: 'Luz Díaz', phone: '3001110001', email: 'luz@example.org', interests: ['salud', 'empleo'], territoryId: barrio, emailOptIn: true }),
  ).expect(201);
  await capture(lead(codes[0]!.code, { name: '=HYPERLINK("http://evil")', phone: '3001110002', email: undefined, interests: ['salud'] })).expect(201);
  await capture(lead(codes[1]!.code, { name: 'Jorge Ruiz', phone: '3001110003', interests: [], whatsappOptIn: false })).expect(201);
  await capture(lead(codes[1]!.code, { name: 'Jorge Ruiz', phone: '3001110003', interests: ['seguridad'], whatsappOptIn: false })).expect(200);
  await capture(lead(codes[1]!.code, { phone: '3001110004', website: 'bot' })).expect(201);
  analysis = (await app.http.get(`/api/qr-leads/campaign/${campaignId}/analysis`).set(viewer.auth).expect(200)).body;
});
afterAll(() => app.close());

describe('GET /q/:code', () => {
  it('serves the landing page with the consent text next to an unticked box', async () => {
    const page = await app.http.get(`/q/${codes[0]!.code}`).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('Súmate a la campaña');
    expect(page.text).toContain('Ley 1581 de 2012');
    expect(page.text).toMatch(/<input[^>]*name="consent"[^>]*>/);
    expect(page.text.match(/<input[^>]*name="consent"[^>]*>/)![0]).not.toContain('checked');
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('answers an unknown code with a 404 page and a closed campaign with a 410 page', async () => {
    const unknown = await app.http.get('/q/zzzzzzzzzz').expect(404);
    expect(unknown.headers['content-type']).toMatch(/text\/html/);
    await app.http.get('/q/not-even-a-code').expect(404);
    const draft = await createCampaign(app, manager, { status: 'draft' });
    const [poster] = await generateCodes(app, manager, draft.id, { count: 1 });
    const closed = await app.http.get(`/q/${poster!.code}`).expect(410);
    expect(closed.text).toContain('no está recibiendo');
  });

  it('serves its CSS and JS from this server', async () => {
    const css = await app.http.get('/static/landing.css').expect(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
    await app.http.get('/static/landing.js').expect(200);
    await app.http.get('/static/other.js').expect(400);
  });
});

describe('GET /api/qr-leads', () => {
  it('lists leads newest first with their contact', async () => {
    const page = await app.http.get(`/api/qr-leads?campaignId=${campaignId}`).set(manager.auth).expect(200);
    expect(page.body.data.map((row: { contact: { name: string } }) => row.contact.name)).toEqual(['Jorge Ruiz', '=HYPERLINK("http://evil")', 'Luz Díaz']);
    expect(page.body.data[0]).toMatchObject({ submissions: 2, interests: ['seguridad'], codeId: codes[1]!.id, contact: { phone: '+573001110003' } });
    // Campaign, poster and territory by name, as a person reads the list.
    const luz = page.body.data[2];
    expect(luz).toMatchObject({ campaignName: 'Afiches Kennedy', poster: `${codes[0]!.code} · Parque`, territoryId: barrio, territoryName: expect.any(String) });
    expect(luz.territoryName.length).toBeGreaterThan(0);
    expect(page.body.data[0]).toMatchObject({ territoryName: null });
  });

  it.each([
    ['interest=salud', ['=HYPERLINK("http://evil")', 'Luz Díaz']],
    ['optIn=email', ['Luz Díaz']],
    ['q=luz', ['Luz Díaz']],
    ['q=1110003', ['Jorge Ruiz']],
    ['q=%25', []],
  ])('filters by %s', async (filter, names) => {
    const page = await app.http.get(`/api/qr-leads?campaignId=${campaignId}&${filter}`).set(manager.auth).expect(200);
    expect(page.body.data.map((row: { contact: { name: string } }) => row.contact.name)).toEqual(names);
  });

  it('filters by code, territory and time', async () => {
    const byCode = await app.http.get(`/api/qr-leads?codeId=${codes[1]!.id}`).set(manager.auth).expect(200);
    expect(byCode.body.data).toHaveLength(1);
    const byTerritory = await app.http.get(`/api/qr-leads?territoryId=${barrio}`).set(manager.auth).expect(200);
    expect(byTerritory.body.data).toHaveLength(1);
    const future = await app.http
      .get(`/api/qr-leads?from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`)
      .set(manager.auth)
      .expect(200);
    expect(future.body.data).toHaveLength(0);
  });

  it('paginates with a cursor', async () => {
    const first = await app.http.get(`/api/qr-leads?campaignId=${campaignId}&limit=2`).set(manager.auth).expect(200);
    const second = await app.http.get(`/api/qr-leads?campaignId=${campaignId}&limit=2&cursor=${first.body.nextCursor}`).set(manager.auth).expect(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
  });

  it('exports CSV that spreadsheets cannot execute', async () => {
    const csv = await app.http.get(`/api/qr-leads?campaignId=${campaignId}&format=csv`).set(manager.auth).expect(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/attachment/);
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toBe(
      'id,createdAt,campaign,poster,name,phone,email,documentId,territory,neighbourhood,interests,whatsappOptIn,emailOptIn,submissions,campaignId,codeId,territoryId',
    );
    expect(lines).toHaveLength(4);
    expect(csv.text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    // Names where a person reads; a phone as it is (no apostrophe: it is not a formula).
    const luz = lines.find((line) => line.includes('Luz Díaz'))!.split(',');
    expect(luz.slice(2, 9)).toEqual(['Afiches Kennedy', `${codes[0]!.code} · Parque`, 'Luz Díaz', '+573001110001', 'luz@example.org', '', 'Timiza']);
    expect(luz.slice(-3)).toEqual([campaignId, codes[0]!.id, barrio]);
    expect(csv.text).toContain('salud;empleo');
  });

  it('is for managers only and validates its filters', async () => {
    expectProblem(await app.http.get('/api/qr-leads').set(viewer.auth), 403);
    expectProblem(await app.http.get('/api/qr-leads'), 401);
    expectProblem(await app.http.get('/api/qr-leads?optIn=sms').set(manager.auth), 400);
    expectProblem(await app.http.get('/api/qr-leads?campaignId=abc').set(manager.auth), 400);
    expectProblem(await app.http.get('/api/qr-leads?from=yesterday').set(manager.auth), 400);
  });
});

describe('GET /api/qr-leads/campaign/:id/analysis', () => {
  it('counts scans, unique scans, bots, leads, conversion, merges and spam', async () => {
    const body = analysis;
    expect(body.totals).toEqual({ scans: 4, uniqueScans: 3, botScans: 1, leads: 3, conversionRate: 1 });
    expect(body.byCode).toEqual([
      { codeId: codes[0]!.id, code: codes[0]!.code, label: 'Parque', scans: 3, uniqueScans: 2, leads: 2, conversionRate: 1 },
      { codeId: codes[1]!.id, code: codes[1]!.code, label: 'Iglesia', scans: 1, uniqueScans: 1, leads: 1, conversionRate: 1 },
    ]);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date());
    expect(body.byDay).toEqual([{ date: today, scans: 4, leads: 3 }]);
    expect(body.byHour).toHaveLength(1);
    expect(body.byInterest).toEqual([
      { interest: 'salud', leads: 2 },
      { interest: 'empleo', leads: 1 },
      { interest: 'seguridad', leads: 1 },
    ]);
    expect(body.byTerritory).toEqual(
      expect.arrayContaining([
        { territoryId: barrio, name: 'Timiza', leads: 1 },
        { territoryId: null, name: 'Sin territorio', leads: 2 },
      ]),
    );
    expect(body.optIns).toEqual({ whatsapp: 2, email: 1 });
    expect(body.duplicatesMerged).toBe(1);
    expect(body.spamBlocked).toBe(1);
  });

  it('answers 404 for an unknown campaign, 400 for a bad id, 403 for a volunteer', async () => {
    expectProblem(await app.http.get('/api/qr-leads/campaign/01960000-0000-7000-8000-000000000000/analysis').set(manager.auth), 404);
    expectProblem(await app.http.get('/api/qr-leads/campaign/xyz/analysis').set(manager.auth), 400);
    expectProblem(await app.http.get(`/api/qr-leads/campaign/${campaignId}/analysis`).set(volunteer.auth), 403);
  });
});
