import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { MJML, createTemplate, seedContacts, query, sql } from './helpers';

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
});
afterAll(() => app.close());

const post = (body: object, user: TestUser = manager) => app.http.post('/api/email-marketing/templates').set(user.auth).send(body);

describe('email templates', () => {
  it('compiles MJML, keeps the source, and generates a text version with the links and variables listed', async () => {
    const response = await post({ name: 'Boletín', subject: 'Hola {{contact.firstName}}', mjml: MJML }).expect(201);
    expect(response.body).toMatchObject({
      name: 'Boletín',
      sourceKind: 'mjml',
      source: MJML,
      variables: ['campaign.name', 'contact.firstName', 'unsubscribeUrl'],
      links: ['https://ejemplo.co/propuestas?utm=correo&x=1', 'https://ejemplo.co/agenda'],
    });
    expect(response.body.html).toMatch(/^<!doctype html>/i);
    expect(response.body.html).toContain('Hola {{contact.firstName}}');
    // No web fonts: every recipient's mail client would fetch them from a third party.
    expect(response.body.html).not.toContain('fonts.googleapis.com');
    expect(response.body.text).toContain('Hola {{contact.firstName}}');
    expect(response.body.text).toContain('https://ejemplo.co/agenda');
    const one = await app.http.get(`/api/email-marketing/templates/${response.body.id}`).set(viewer.auth).expect(200);
    expect(one.body.id).toBe(response.body.id);
    const list = await app.http.get('/api/email-marketing/templates').set(viewer.auth).expect(200);
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(response.body.id);
    expect(list.body.data[0].html).toBeUndefined();
  });

  it('accepts plain HTML too', async () => {
    const response = await post({ name: 'HTML', subject: 'Noticias', html: '<html><body><p>Hola {{contact.name}}</p><a href="https://ejemplo.co">Sitio</a></body></html>' }).expect(
      201,
    );
    expect(response.body).toMatchObject({ sourceKind: 'html', links: ['https://ejemplo.co'], variables: ['contact.name'] });
  });

  it('reports MJML errors one by one with their line', async () => {
    const bad =
      '<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-text color="blue" bogus="1">Hola</mj-text>\n<mj-image src="x.png" width="abc" />\n</mj-column>\n</mj-section>\n</mj-body>\n</mjml>';
    const body = expectProblem(await post({ name: 'Mal', subject: 'x', mjml: bad }), 400, 'invalid_mjml');
    const errors = body.errors as { path: string; message: string }[];
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toEqual({ path: 'body.mjml', message: expect.stringMatching(/^line 5: <mj-text> Attribute bogus is illegal/) });
    expect(errors.some((error) => /^line 6: <mj-image>/.test(error.message))).toBe(true);
    expect(JSON.stringify(body)).not.toContain('/work');
    expectProblem(await post({ name: 'Mal', subject: 'x', mjml: 'hola, esto no es MJML' }), 400, 'invalid_mjml');
  });

  it('refuses a tag closed by another, which MJML would pass and send empty', async () => {
    const swallowed = '<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-text>Hola {{contact.firstName}}</mj-txt>\n</mj-column>\n</mj-section>\n</mj-body>\n</mjml>';
    const body = expectProblem(await post({ name: 'Tragado', subject: 'x', mjml: swallowed }), 400, 'invalid_mjml');
    expect(body.errors).toEqual([{ path: 'body.mjml', message: 'line 5: </mj-txt> does not close <mj-text>, opened on line 5' }]);
    const draft = await app.http.post('/api/email-marketing/templates/render').set(manager.auth).send({ subject: 'x', mjml: swallowed }).expect(200);
    expect(draft.body.problems).toEqual([{ field: 'mjml', line: 5, message: '</mj-txt> does not close <mj-text>, opened on line 5' }]);
  });

  it('rejects unknown variables, raw output and partials instead of sending them blank', async () => {
    const unknown = expectProblem(await post({ name: 'x', subject: 'Hola {{contact.nombre}}', mjml: MJML.replace('{{campaign.name}}', '{{candidate}}') }), 400, 'invalid_template');
    const messages = (unknown.errors as { path: string; message: string }[]).map((error) => `${error.path} ${error.message}`);
    expect(messages).toEqual([
      expect.stringContaining('body.subject line 1: unknown variable {{contact.nombre}}'),
      expect.stringContaining('body.mjml line 6: unknown variable {{candidate}}'),
    ]);
    expectProblem(await post({ name: 'x', subject: 's', html: '<p>{{{contact.name}}}</p>' }), 400, 'invalid_template');
    expectProblem(await post({ name: 'x', subject: 's', html: '<p>{{> footer}}</p>' }), 400, 'invalid_template');
    expectProblem(await post({ name: 'x', subject: 's', html: '<p>{{#contact.name}}unclosed</p>' }), 400, 'invalid_template');
    expectProblem(await post({ name: 'x', subject: 's', html: '<a href="https://ejemplo.co/{{contact.email}}">x</a>' }), 400, 'invalid_template');
  });

  it('validates the body shape', async () => {
    expectProblem(await post({ name: 'x', subject: 's' }), 400, 'validation_failed');
    expectProblem(await post({ name: 'x', subject: 's', mjml: MJML, html: '<p>x</p>' }), 400, 'validation_failed');
    expectProblem(await post({ name: '', subject: 's', html: '<p>x</p>' }), 400, 'validation_failed');
    expectProblem(await app.http.post('/api/email-marketing/templates').set(manager.auth).set('Content-Type', 'application/json').send('{bad'), 400);
  });

  it('lets only managers create, and only staff read', async () => {
    expectProblem(await post({ name: 'x', subject: 's', html: '<p>x</p>' }, viewer), 403, 'forbidden');
    expectProblem(await app.http.post('/api/email-marketing/templates').send({ name: 'x', subject: 's', html: '<p>x</p>' }), 401, 'unauthorized');
    expectProblem(await app.http.get('/api/email-marketing/templates'), 401, 'unauthorized');
    expectProblem(await app.http.get('/api/email-marketing/templates/not-a-uuid').set(manager.auth), 400, 'validation_failed');
    expectProblem(await app.http.get('/api/email-marketing/templates/0190f2a4-7b8c-7def-8123-456789abcdef').set(manager.auth), 404, 'not_found');
  });

  it('previews for a sample contact or a real one, escaping what the contact typed', async () => {
    const template = await createTemplate(app, manager);
    const sample = await app.http.get(`/api/email-marketing/templates/${template.id}/preview`).set(viewer.auth).expect(200);
    expect(sample.body).toMatchObject({ subject: 'Hola Ana', sample: true });
    expect(sample.body.html).toContain('Hola Ana,');
    expect(sample.body.html).toContain('href="https://ejemplo.co/agenda"');
    expect(sample.body.text).toContain('Hola Ana,');
    await seedContacts(app, { prefix: 'preview', count: 1 });
    const [contact] = await query(app, sql<{ id: string }>`update contacts set name = '<b>Luz</b> & Co' where email = 'preview1@example.org' returning id`);
    const real = await app.http.get(`/api/email-marketing/templates/${template.id}/preview`).query({ contactId: contact!.id }).set(manager.auth).expect(200);
    expect(real.body.sample).toBe(false);
    expect(real.body.subject).toBe('Hola <b>Luz</b>');
    expect(real.body.html).toContain('Hola &lt;b&gt;Luz&lt;&#x2F;b&gt;,');
    expect(real.body.text).toContain('Hola <b>Luz</b>,');
    // A viewer sees the sample, never a real person's name and address (the leads list's rule).
    const refused = expectProblem(await app.http.get(`/api/email-marketing/templates/${template.id}/preview`).query({ contactId: contact!.id }).set(viewer.auth), 403, 'forbidden');
    expect(JSON.stringify(refused)).not.toContain('Luz');
    expectProblem(await app.http.get(`/api/email-marketing/templates/${template.id}/preview`).query({ contactId: 'x' }).set(manager.auth), 400);
    expectProblem(await app.http.get(`/api/email-marketing/templates/${template.id}/preview`).query({ contactId: '0190f2a4-7b8c-7def-8123-456789abcdef' }).set(manager.auth), 404);
  });
});
