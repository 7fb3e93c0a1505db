/**
 * What the console's template editor calls besides creation: a draft rendered for the live preview
 * (nothing saved, problems by line) and a test send through the configured SMTP, received by the fake
 * server. Their refusals (standard problems) and who may call them.
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp } from '../fakes/smtp';
import { MJML, createTemplate, emailEnv, query, sql } from './helpers';

let smtp: FakeSmtp;
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;

beforeAll(async () => {
  smtp = await new FakeSmtp().start();
  app = await startTestApp(emailEnv(smtp.url, { EMAIL_FROM: 'pruebas@ejemplo.co' }));
  const admin = await registerAdmin(app);
  [manager, viewer, volunteer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'volunteer')]);
});
afterAll(async () => {
  await app?.close();
  await smtp?.stop();
});

const render = (body: object, user: TestUser | null = manager) => {
  const request = app.http.post('/api/email-marketing/templates/render');
  return (user ? request.set(user.auth) : request).send(body);
};

describe('rendering a draft for the live preview', () => {
  it('fills a valid draft in for the sample person, links as written, and saves nothing', async () => {
    const before = await query<{ n: number }>(app, sql`select count(*)::int as n from email_templates`);
    const response = await render({ subject: 'Hola {{contact.firstName}}', mjml: MJML }).expect(200);
    expect(response.body.problems).toEqual([]);
    expect(response.body.subject).toBe('Hola Ana');
    expect(response.body.html).toMatch(/^<!doctype html>/i);
    expect(response.body.html).toContain('Hola Ana,');
    expect(response.body.html).toContain('href="https://ejemplo.co/agenda"');
    expect(response.body.text).toContain('Hola Ana');
    const after = await query<{ n: number }>(app, sql`select count(*)::int as n from email_templates`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('lists MJML errors with their line and still renders what it can', async () => {
    const bad =
      '<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-text bogus="1">Hola {{contact.firstName}}</mj-text>\n<mj-foo />\n</mj-column>\n</mj-section>\n</mj-body>\n</mjml>';
    const response = await render({ subject: 'Asunto', mjml: bad }).expect(200);
    expect(response.body.problems).toEqual([
      { field: 'mjml', line: 5, message: '<mj-text> Attribute bogus is illegal' },
      { field: 'mjml', line: 6, message: expect.stringMatching(/^<mj-foo> Element mj-foo doesn't exist/) },
    ]);
    expect(response.body.html).toContain('Hola Ana');
    expect(JSON.stringify(response.body)).not.toContain('/work');
    // The same draft is what creation refuses.
    expectProblem(await app.http.post('/api/email-marketing/templates').set(manager.auth).send({ name: 'x', subject: 'Asunto', mjml: bad }), 400, 'invalid_mjml');
  });

  it('reports unknown variables on their line (subject first) and text that is not MJML on line 1', async () => {
    const response = await render({ subject: 'Hola {{nombre}}', mjml: MJML.replace('{{campaign.name}}', '{{{campaign.name}}}') }).expect(200);
    expect(response.body.problems).toEqual([
      { field: 'subject', line: 1, message: expect.stringMatching(/unknown variable \{\{nombre\}\}/) },
      { field: 'mjml', line: 6, message: expect.stringMatching(/unescaped output/) },
    ]);
    expect(response.body.subject).toBe('Hola {{nombre}}');
    const notMjml = await render({ subject: 'x', mjml: 'hola, esto no es MJML' }).expect(200);
    expect(notMjml.body).toMatchObject({ html: '', text: '', problems: [{ field: 'mjml', line: 1, message: expect.stringMatching(/not MJML/) }] });
    const html = await render({ subject: 'x', html: '<p>Hola {{contact.name}}</p>' }).expect(200);
    expect(html.body).toMatchObject({ html: '<p>Hola Ana María Rojas</p>', problems: [] });
  });

  it('refuses bodies that break the schema with the standard problem, never a 500', async () => {
    for (const body of [
      {},
      { subject: 'x' },
      { subject: 'x', mjml: MJML, html: '<p>x</p>' },
      { subject: 'x', mjml: '' },
      { subject: 'x'.repeat(301), mjml: MJML },
      { subject: 1, mjml: MJML },
    ]) {
      expectProblem(await render(body), 400);
    }
    const bad = await app.http.post('/api/email-marketing/templates/render').set(manager.auth).set('content-type', 'application/json').send('{"subject":');
    expectProblem(bad, 400);
  });

  it('is for those who write templates', async () => {
    expectProblem(await render({ subject: 'x', mjml: MJML }, null), 401);
    expectProblem(await render({ subject: 'x', mjml: MJML }, viewer), 403);
    expectProblem(await render({ subject: 'x', mjml: MJML }, volunteer), 403);
  });
});

describe('a test send', () => {
  const send = (id: string, body: object, user: TestUser | null = manager) => {
    const request = app.http.post(`/api/email-marketing/templates/${id}/test`);
    return (user ? request.set(user.auth) : request).send(body);
  };

  it('goes out through the SMTP server once, marked as a test, without tracking or List-Unsubscribe', async () => {
    const template = await createTemplate(app, manager, { subject: 'Boletín para {{contact.firstName}}' });
    const before = smtp.accepted;
    const response = await send(template.id, { to: 'Revisora@Ejemplo.co' }).expect(200);
    expect(response.body).toEqual({ subject: '[Prueba] Boletín para Ana', messageId: expect.stringMatching(/^<.+@ejemplo\.co>$/) });
    expect(smtp.accepted).toBe(before + 1);
    const [message] = smtp.to('revisora@ejemplo.co');
    expect(message!.parsed!.subject).toBe('[Prueba] Boletín para Ana');
    expect(message!.parsed!.from!.text).toContain('pruebas@ejemplo.co');
    expect(message!.header('List-Unsubscribe')).toEqual([]);
    const html = message!.parsed!.html as string;
    expect(html).toContain('href="https://ejemplo.co/agenda"');
    expect(html).not.toContain('/e/c/');
    expect(html).not.toContain('/e/o/');
    // Nothing about it in the send lists.
    expect(await query(app, sql`select 1 from email_recipients where email = 'revisora@ejemplo.co'`)).toEqual([]);
  });

  it('says when the server refuses the address or cannot take it now', async () => {
    const template = await createTemplate(app, manager);
    smtp.reject('nadie@ejemplo.co', 550);
    expectProblem(await send(template.id, { to: 'nadie@ejemplo.co' }), 502, 'smtp_refused');
    smtp.reject('lleno@ejemplo.co', 452);
    expectProblem(await send(template.id, { to: 'lleno@ejemplo.co' }), 503, 'smtp_unavailable');
  });

  it('refuses bad input and unknown templates with the standard problem', async () => {
    const template = await createTemplate(app, manager);
    expectProblem(await send(template.id, {}), 400);
    expectProblem(await send(template.id, { to: 'no es un correo' }), 400);
    expectProblem(await send(template.id, { to: ['a@b.co'] }), 400);
    expectProblem(await send('no-es-un-id', { to: 'a@b.co' }), 400);
    expectProblem(await send('0196f0b5-0000-7000-8000-000000000000', { to: 'a@b.co' }), 404);
  });

  it('is for those who write templates, and limited per person', async () => {
    const template = await createTemplate(app, manager);
    expectProblem(await send(template.id, { to: 'a@ejemplo.co' }, null), 401);
    expectProblem(await send(template.id, { to: 'a@ejemplo.co' }, viewer), 403);
    expectProblem(await send(template.id, { to: 'a@ejemplo.co' }, volunteer), 403);
    let status = 200;
    for (let sent = 0; sent < 40 && status === 200; sent++) status = (await send(template.id, { to: 'limite@ejemplo.co' })).status;
    expect(status).toBe(429);
    expectProblem(await send(template.id, { to: 'limite@ejemplo.co' }), 429, 'rate_limited');
  });
});
