import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let code: string;
let closedBoxCode: string;
let campaignId: string;

/** The landing form as a browser without JavaScript posts it: urlencoded strings, ticked boxes as "true". */
const formPost = (fields: Record<string, string | string[]>) => app.http.post('/api/qr-leads/capture').type('form').send(fields);

const prospects = () =>
  app.runtime.deps.db.rows(
    sql<{ id: string; status: string; source: string; source_ref: string; phone: string }>`
      select v.id, v.status, v.source, v.source_ref, c.phone from volunteers v join contacts c on c.id = v.contact_id order by v.created_at`,
  );

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  const campaign = await createCampaign(app, manager);
  campaignId = campaign.id;
  code = (await generateCodes(app, manager, campaign.id, { count: 1 }))[0]!.code;
  const quiet = await createCampaign(app, manager, { name: 'Sin voluntariado', landing: { ...campaignBody().landing, volunteerSignup: false } });
  closedBoxCode = (await generateCodes(app, manager, quiet.id, { count: 1 }))[0]!.code;
});
afterAll(() => app.close());

describe('"quiero ser voluntario" on the landing page', () => {
  it('offers the box on the page, which works as a plain form', async () => {
    const page = await app.http.get(`/q/${code}`).expect(200);
    expect(page.text).toMatch(/<input type="checkbox" id="f-volunteer" name="volunteer" value="true">/);
    expect(page.text).toContain('Quiero ser voluntario o voluntaria');
    const campaign = await app.http.get(`/api/poster-qr/campaigns/${campaignId}`).set(manager.auth).expect(200);
    expect(campaign.body.landing.volunteerSignup).toBe(true);
  });

  it('enrols who ticks it as a volunteer prospect, once, from a form post without JavaScript', async () => {
    const fields = { code, name: 'Vilma Voluntaria', phone: '300 765 4321', consent: 'true', volunteer: 'true' };
    const first = await formPost(fields).expect(303);
    expect(first.headers.location).toBe(`/q/${code}/gracias`);
    await formPost(fields).expect(303);
    // Ticking it again later, or not ticking it, changes nothing: the volunteer stays as they are.
    await formPost({ ...fields, volunteer: 'false' }).expect(303);
    const rows = await prospects();
    expect(rows).toEqual([{ id: expect.any(String), status: 'prospect', source: 'qr', source_ref: campaignId, phone: '+573007654321' }]);
    // The team promotes the prospect by changing their status; a later sign-up keeps it.
    await app.http.patch(`/api/volunteers/${rows[0]!.id}`).set(manager.auth).send({ status: 'active' }).expect(200);
    await formPost(fields).expect(303);
    expect((await prospects())[0]!.status).toBe('active');
  });

  it('does the same through the JSON post, and leaves people who did not tick it alone', async () => {
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(code, { name: 'Juan Json', phone: '301 000 1111', email: 'juan@example.org', volunteer: true }))
      .expect(201);
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(code, { name: 'Nadia No', phone: '301 000 2222', email: 'nadia@example.org' }))
      .expect(201);
    const phones = (await prospects()).map((row) => row.phone);
    expect(phones).toContain('+573010001111');
    expect(phones).not.toContain('+573010002222');
  });

  it('needs consent: without it nothing is recorded and the form comes back with the box still ticked', async () => {
    const before = (await prospects()).length;
    // Post/redirect/get: the 303 leads back to the page, which refills the form from a short-lived cookie.
    const redirect = await formPost({ code, name: 'Sin Consentimiento', phone: '302 111 2222', volunteer: 'true' }).expect(303);
    const cookie = ([redirect.headers['set-cookie']].flat() as string[]).find((line) => line.startsWith('qr_form='))!.split(';')[0]!;
    const answer = await app.http.get(redirect.headers.location!).set('Cookie', cookie).expect(200);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.text).toContain('id="err-consent"');
    expect(answer.text).toMatch(/name="volunteer" value="true" checked/);
    expect((await prospects()).length).toBe(before);
  });

  it('is not offered, nor acted on, when the campaign turned it off', async () => {
    const page = await app.http.get(`/q/${closedBoxCode}`).expect(200);
    expect(page.text).not.toContain('name="volunteer"');
    const before = (await prospects()).length;
    await formPost({ code: closedBoxCode, name: 'Otra Persona', phone: '303 222 3333', consent: 'true', volunteer: 'true' }).expect(303);
    expect((await prospects()).length).toBe(before);
  });
});
