import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, campaignBody, generateCodes } from '../helpers/qr';
import { signSheetLink } from '../../src/modules/qr/qr.sheet-link';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: 'https://comando.example.org' });
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  volunteer = await createUser(app, admin, 'volunteer');
});
afterAll(() => app.close());

function decodePng(bytes: Buffer): string | undefined {
  const png = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/** The path of one of the server's own absolute URLs (PUBLIC_BASE_URL is not where the test app listens). */
const pathOf = (url: string) => new URL(url).pathname;

describe('QR campaigns', () => {
  it('creates a campaign with its landing configuration and a stored consent text', async () => {
    const response = await app.http.post('/api/poster-qr/campaigns').set(manager.auth).send(campaignBody()).expect(201);
    expect(response.body).toMatchObject({
      name: 'Afiches Kennedy',
      status: 'active',
      landing: {
        title: 'Súmate a la campaña',
        interests: [
          { value: 'salud', label: 'Salud' },
          { value: 'seguridad', label: 'Seguridad' },
          { value: 'empleo', label: 'Empleo y emprendimiento' },
        ],
        fields: { phone: 'required', email: 'optional', documentId: 'hidden', neighbourhood: 'optional' },
      },
      consentTextId: expect.any(String),
    });
    const again = await app.http
      .post('/api/poster-qr/campaigns')
      .set(manager.auth)
      .send(campaignBody({ name: 'Otra' }))
      .expect(201);
    expect(again.body.consentTextId).toBe(response.body.consentTextId);
  });

  it('lists and reads campaigns for managers and viewers, not volunteers', async () => {
    await app.http.get('/api/poster-qr/campaigns').set(viewer.auth).expect(200);
    expectProblem(await app.http.get('/api/poster-qr/campaigns').set(volunteer.auth), 403);
    expectProblem(await app.http.post('/api/poster-qr/campaigns').set(viewer.auth).send(campaignBody()), 403);
    expectProblem(await app.http.post('/api/poster-qr/campaigns').send(campaignBody()), 401);
  });

  it('moves status forward only; ended is final; a new consent text is a new version', async () => {
    const campaign = await createCampaign(app, manager, { status: 'draft' });
    await app.http.patch(`/api/poster-qr/campaigns/${campaign.id}`).set(manager.auth).send({ status: 'active' }).expect(200);
    await app.http.patch(`/api/poster-qr/campaigns/${campaign.id}`).set(manager.auth).send({ status: 'paused' }).expect(200);
    const changed = await app.http
      .patch(`/api/poster-qr/campaigns/${campaign.id}`)
      .set(manager.auth)
      .send({ landing: { ...campaignBody().landing, consentText: `${campaignBody().landing.consentText} Versión 2.` } })
      .expect(200);
    expect(changed.body.consentTextId).not.toBe(campaign.consentTextId);
    await app.http.patch(`/api/poster-qr/campaigns/${campaign.id}`).set(manager.auth).send({ status: 'ended' }).expect(200);
    expectProblem(await app.http.patch(`/api/poster-qr/campaigns/${campaign.id}`).set(manager.auth).send({ status: 'active' }), 409, 'invalid_status_change');
  });

  it.each([
    [{ landing: { ...campaignBody().landing, consentText: 'corto' } }, 'body.landing.consentText'],
    [{ landing: { ...campaignBody().landing, privacyPolicyUrl: 'javascript:alert(1)' } }, 'body.landing.privacyPolicyUrl'],
    [{ landing: { ...campaignBody().landing, fields: { phone: 'hidden', email: 'hidden' } } }, 'body.landing.fields'],
    [{ landing: { ...campaignBody().landing, interests: ['salud', 'Salud'] } }, 'body.landing.interests'],
    [{ status: 'archived' }, 'body.status'],
    [{ startsAt: '2026-12-01T00:00:00Z', endsAt: '2026-11-01T00:00:00Z' }, 'body.endsAt'],
    [{ territoryId: '01960000-0000-7000-8000-000000000000' }, 'body.territoryId'],
  ])('rejects %j', async (overrides, path) => {
    const problem = expectProblem(await app.http.post('/api/poster-qr/campaigns').set(manager.auth).send(campaignBody(overrides)), 400);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });
});

describe('poster codes', () => {
  let campaignId: string;
  beforeAll(async () => {
    campaignId = (await createCampaign(app, manager)).id;
  });

  it('generates unguessable codes, linking their images (rendered on request) instead of rendering them', async () => {
    const codes = await generateCodes(app, manager, campaignId, { count: 3, labelPrefix: 'Poste' });
    expect(codes).toHaveLength(3);
    expect(new Set(codes.map((code) => code.code)).size).toBe(3);
    for (const code of codes) {
      expect(code.code).toMatch(/^[23456789abcdefghjkmnpqrstuvwxyz]{10}$/);
      expect(code.url).toBe(`https://comando.example.org/q/${code.code}`);
      expect(Object.keys(code).sort()).toEqual(['code', 'id', 'label', 'pngUrl', 'svgUrl', 'url']);
      expect(code.svgUrl).toBe(`https://comando.example.org/api/poster-qr/codes/${code.code}.svg`);
      expect(code.pngUrl).toBe(`https://comando.example.org/api/poster-qr/codes/${code.code}.png`);
      const svg = await app.http.get(pathOf(code.svgUrl)).buffer(true).expect(200);
      expect(svg.body.toString()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    }
    // The PNG is fetched and decoded in the next test: a 1024 px PNG takes seconds to encode under jest.
    expect(codes.map((code) => code.label)).toEqual(['Poste 1', 'Poste 2', 'Poste 3']);
  });

  it('serves stable image URLs and a printable sheet', async () => {
    const [code] = await generateCodes(app, manager, campaignId, { count: 1 });
    const svg = await app.http.get(`/api/poster-qr/codes/${code!.code}.svg`).buffer(true).expect(200);
    expect(svg.headers['content-type']).toMatch(/image\/svg\+xml/);
    const png = await app.http.get(`/api/poster-qr/codes/${code!.code}.png`).buffer(true).expect(200);
    expect(decodePng(png.body as Buffer)).toBe(code!.url);
    // Rendered once, then served the same from the cache.
    const again = await app.http.get(`/api/poster-qr/codes/${code!.code}.svg`).buffer(true).expect(200);
    expect(again.body.toString()).toBe(svg.body.toString());
    expectProblem(await app.http.get('/api/poster-qr/codes/zzzzzzzzzz.svg'), 404);
    expectProblem(await app.http.get(`/api/poster-qr/codes/${code!.code}.gif`), 400);
    const sheet = await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet`).set(manager.auth).expect(200);
    expect(sheet.text).toContain(code!.url);
    expect((sheet.text.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(4);
    expect(sheet.text.includes(svg.body.toString())).toBe(true); // the same rendering as the image
  });

  it('keeps placements and lists posters overdue for removal', async () => {
    const past = new Date(Date.now() - 86_400_000).toISOString();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const codes = await generateCodes(app, manager, campaignId, {
      count: 3,
      placements: [
        { label: 'Parque <Timiza>', address: 'Cra 72 # 40-10', lat: 4.6, lng: -74.15, authorisedSite: true, placedAt: past, removalDeadline: past },
        { label: 'Estación Banderas', removalDeadline: future },
      ],
    });
    expect(codes.map((code) => code.label)).toEqual(['Parque <Timiza>', 'Estación Banderas', expect.stringMatching(/^Afiche \d+$/)]);
    const overdue = await app.http.get(`/api/poster-qr/campaigns/${campaignId}/codes?overdue=true`).set(viewer.auth).expect(200);
    expect(overdue.body.data.map((code: { label: string }) => code.label)).toEqual(['Parque <Timiza>']);
    expect(overdue.body.data[0]).toMatchObject({ authorisedSite: true, address: 'Cra 72 # 40-10', lat: 4.6, lng: -74.15 });
    await app.http.patch(`/api/poster-qr/codes/${codes[0]!.id}`).set(manager.auth).send({ removedAt: new Date().toISOString() }).expect(200);
    const sheet = await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet`).set(manager.auth).expect(200);
    expect(sheet.text).toContain('Parque &lt;Timiza&gt;');
    expect(sheet.text).not.toContain('Parque <Timiza>');
    const after = await app.http.get(`/api/poster-qr/campaigns/${campaignId}/codes?overdue=true`).set(viewer.auth).expect(200);
    expect(after.body.data).toHaveLength(0);
    const all = await app.http.get(`/api/poster-qr/campaigns/${campaignId}/codes?limit=200`).set(viewer.auth).expect(200);
    expect(all.body.data.length).toBeGreaterThanOrEqual(7);
  });

  it.each([[{ count: 0 }], [{ count: 501 }], [{ count: 'ten' }], [{}], [{ count: 1, placements: [{ label: 'a' }, { label: 'b' }] }]])(
    'rejects generate-codes %j with 400',
    async (body) => {
      expectProblem(await app.http.post(`/api/poster-qr/campaigns/${campaignId}/generate-codes`).set(manager.auth).send(body), 400, 'validation_failed');
    },
  );

  it('refuses codes for an ended campaign (409) or an unknown one (404)', async () => {
    const ended = await createCampaign(app, manager);
    await app.http.patch(`/api/poster-qr/campaigns/${ended.id}`).set(manager.auth).send({ status: 'ended' }).expect(200);
    expectProblem(await app.http.post(`/api/poster-qr/campaigns/${ended.id}/generate-codes`).set(manager.auth).send({ count: 1 }), 409, 'campaign_ended');
    expectProblem(await app.http.post('/api/poster-qr/campaigns/01960000-0000-7000-8000-000000000000/generate-codes').set(manager.auth).send({ count: 1 }), 404);
    expectProblem(await app.http.post('/api/poster-qr/campaigns/nope/generate-codes').set(manager.auth).send({ count: 1 }), 400);
  });
});

describe('the printable sheet, a page at a time', () => {
  let campaignId: string;
  let codes: { code: string; url: string; label: string }[];
  const sheet = (query = '') => app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet${query}`).set(manager.auth);
  const figures = (html: string) => (html.match(/<figure>/g) ?? []).length;

  beforeAll(async () => {
    campaignId = (await createCampaign(app, manager)).id;
    codes = await generateCodes(app, manager, campaignId, { count: 245, labelPrefix: 'Hoja' });
  });

  it('prints 240 codes a page, oldest first, in A4 sheets of 24, with links to the other pages', async () => {
    const first = await sheet('?page=1').expect(200);
    expect(first.headers['content-type']).toMatch(/text\/html/);
    expect(figures(first.text)).toBe(240);
    expect((first.text.match(/<svg/g) ?? []).length).toBe(240);
    expect((first.text.match(/<section class="sheet">/g) ?? []).length).toBe(10);
    expect(first.text).toContain('página 1 de 2');
    expect(first.text).toContain('códigos 1–240 de 245');
    expect(first.text).toContain('<a href="?page=2" rel="next">');
    expect(first.text).not.toContain('rel="prev"');
    expect(first.text).toContain(codes[0]!.url);
    expect(first.text).toContain(codes[239]!.url);
    expect(first.text).not.toContain(codes[240]!.url);
    expect(/@page \{ size: A4/.test(first.text)).toBe(true);
    expect(/@media print \{\s*body \{ margin: 0; \}\s*h1, nav, \.screen-only \{ display: none; \}/.test(first.text)).toBe(true); // page links are not printed

    const second = await sheet('?page=2').expect(200);
    expect(figures(second.text)).toBe(5);
    expect(second.text).toContain('códigos 241–245 de 245');
    expect(second.text).toContain('<a href="?page=1" rel="prev">');
    expect(second.text).not.toContain('rel="next"');
    expect(codes.slice(240).every((code) => second.text.includes(code.url))).toBe(true);
    expect(second.text).toContain('Hoja 245');

    // No page asked: the first one.
    const plain = await sheet().expect(200);
    expect(figures(plain.text)).toBe(240);
    expect(plain.text).toContain(codes[0]!.url);
  });

  it('answers a page past the last with 404, and an empty campaign with one empty page', async () => {
    expectProblem(await sheet('?page=3'), 404);
    const empty = (await createCampaign(app, manager)).id;
    const page = await app.http.get(`/api/poster-qr/campaigns/${empty}/sheet`).set(manager.auth).expect(200);
    expect(figures(page.text)).toBe(0);
    expect(page.text).toContain('página 1 de 1');
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${empty}/sheet?page=2`).set(manager.auth), 404);
  });

  it.each(['0', '-1', 'abc', '1.5', '', '100001', '1e400', ['1', '2']])('refuses page=%j with 400', async (page) => {
    const query = new URLSearchParams();
    for (const value of [page].flat()) query.append('page', value);
    const problem = expectProblem(await sheet(`?${query.toString()}`), 400, 'validation_failed') as { errors?: { path: string }[] };
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'query.page' })]);
  });

  it('refuses unknown query parameters with 400', async () => {
    expectProblem(await sheet('?pagina=2'), 400);
  });
});

describe('the printable sheet opened from a browser, through a signed link', () => {
  let campaignId: string;
  let otherId: string;
  const link = (id: string, user = manager) => app.http.post(`/api/poster-qr/campaigns/${id}/sheet-link`).set(user.auth);
  /** The link's path and query: PUBLIC_BASE_URL is not where the test app listens. */
  const opened = (url: string) => {
    const parsed = new URL(url);
    return app.http.get(`${parsed.pathname}${parsed.search}`);
  };

  beforeAll(async () => {
    campaignId = (await createCampaign(app, manager)).id;
    otherId = (await createCampaign(app, manager)).id;
    await generateCodes(app, manager, campaignId, { count: 241, labelPrefix: 'Enlace' });
  });

  it('opens the sheet, every page of it, without the bearer header, for five minutes', async () => {
    const before = Date.now();
    const answer = await link(campaignId).expect(201);
    expect(answer.body.url).toMatch(new RegExp(`^https://comando\\.example\\.org/api/poster-qr/campaigns/${campaignId}/sheet\\?link=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    const expiresIn = Date.parse(answer.body.expiresAt) - before;
    expect(expiresIn).toBeGreaterThan(4 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(5 * 60_000);
    const first = await opened(answer.body.url).expect(200);
    expect(first.headers['content-type']).toMatch(/text\/html/);
    expect(first.headers['cache-control']).toBe('private, no-store');
    expect(first.text).toContain('Enlace 1');
    // Its page links keep the link, so the next page opens too.
    const token = new URL(answer.body.url).searchParams.get('link')!;
    expect(first.text).toContain(`<a href="?page=2&amp;link=${token}" rel="next">`);
    const second = await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?page=2&link=${token}`).expect(200);
    expect(second.text).toContain('Enlace 241');
  });

  it('refuses the link for another campaign, once expired, altered, or after its user signs out everywhere', async () => {
    const token = new URL((await link(campaignId).expect(201)).body.url).searchParams.get('link')!;
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${otherId}/sheet?link=${token}`), 403);
    const [body, mac] = token.split('.');
    const forged = Buffer.from(Buffer.from(body!, 'base64url').toString().replace(campaignId, otherId)).toString('base64url');
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${otherId}/sheet?link=${forged}.${mac}`), 401);
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?link=${body}.${mac!.slice(1)}A`), 401);
    // Signed six minutes ago: five minutes long, so over a minute expired.
    const stale = await signSheetLink(app.runtime.deps, { id: manager.id, role: 'manager' }, campaignId, new Date(Date.now() - 6 * 60_000));
    const expired = expectProblem(await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?link=${stale.token}`), 401) as { detail: string };
    expect(expired.detail).toMatch(/expired/);

    const leaving = await createUser(app, admin, 'manager');
    const theirs = new URL((await link(campaignId, leaving).expect(201)).body.url).searchParams.get('link')!;
    await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?link=${theirs}`).expect(200);
    await app.http.post('/api/auth/logout').set(leaving.auth).expect(204);
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?link=${theirs}`), 401);
  });

  it('is only for managers, of a campaign that exists; a malformed link is a 400', async () => {
    expectProblem(await link(campaignId, viewer), 403);
    expectProblem(await app.http.post(`/api/poster-qr/campaigns/${campaignId}/sheet-link`), 401);
    expectProblem(await link('01960000-0000-7000-8000-000000000000'), 404);
    expectProblem(await link('nope'), 400);
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?link=no%20es%20un%20enlace`), 400, 'validation_failed');
    expectProblem(await app.http.get(`/api/poster-qr/campaigns/${campaignId}/sheet?link=${'a'.repeat(300)}.${'b'.repeat(200)}`), 400, 'validation_failed');
  });
});

describe('access and bad input on every staff route', () => {
  let campaignId: string;
  let codeId: string;
  beforeAll(async () => {
    campaignId = (await createCampaign(app, manager)).id;
    codeId = (await generateCodes(app, manager, campaignId, { count: 1 }))[0]!.id;
  });

  it.each([
    ['get', () => `/api/poster-qr/campaigns/${campaignId}`],
    ['patch', () => `/api/poster-qr/campaigns/${campaignId}`],
    ['get', () => `/api/poster-qr/campaigns/${campaignId}/codes`],
    ['get', () => `/api/poster-qr/campaigns/${campaignId}/sheet`],
    ['patch', () => `/api/poster-qr/codes/${codeId}`],
    ['get', () => `/api/qr-leads/campaign/${campaignId}/analysis`],
  ] as const)('%s %s: 401 without a token, 403 for a volunteer', async (method, path) => {
    expectProblem(await app.http[method](path()).send({ label: 'x' }), 401);
    expectProblem(await app.http[method](path()).set(volunteer.auth).send({ label: 'x' }), 403);
  });

  it('reads one campaign; answers bad ids and unknown ones', async () => {
    const one = await app.http.get(`/api/poster-qr/campaigns/${campaignId}`).set(viewer.auth).expect(200);
    expect(one.body.id).toBe(campaignId);
    expectProblem(await app.http.get('/api/poster-qr/campaigns/nope').set(viewer.auth), 400);
    expectProblem(await app.http.get('/api/poster-qr/campaigns/01960000-0000-7000-8000-000000000000').set(viewer.auth), 404);
    expectProblem(await app.http.get('/api/poster-qr/campaigns/01960000-0000-7000-8000-000000000000/sheet').set(manager.auth), 404);
  });

  it('validates placement updates', async () => {
    expectProblem(await app.http.patch(`/api/poster-qr/codes/${codeId}`).set(manager.auth).send({ lat: 200 }), 400);
    expectProblem(await app.http.patch(`/api/poster-qr/codes/${codeId}`).set(manager.auth).send({}), 400);
    expectProblem(await app.http.patch(`/api/poster-qr/codes/${codeId}`).set(manager.auth).send({ territoryId: '01960000-0000-7000-8000-000000000000' }), 400);
    expectProblem(await app.http.patch('/api/poster-qr/codes/01960000-0000-7000-8000-000000000000').set(manager.auth).send({ label: 'x' }), 404);
    const moved = await app.http.patch(`/api/poster-qr/codes/${codeId}`).set(manager.auth).send({ label: 'Esquina', authorisedSite: true }).expect(200);
    expect(moved.body).toMatchObject({ label: 'Esquina', authorisedSite: true });
    expectProblem(await app.http.patch(`/api/poster-qr/campaigns/${campaignId}`).set(manager.auth).send({ status: 'archived' }), 400);
  });
});
