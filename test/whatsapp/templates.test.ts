import { expectProblem } from '../helpers/users';
import { createUser } from '../helpers/users';
import { startWhatsAppTest, type WhatsAppTest } from './setup';
import { until } from '../helpers/wait';

let t: WhatsAppTest;
beforeAll(async () => {
  t = await startWhatsAppTest({}, { approveTemplatesAfterMs: undefined });
});
afterAll(() => t.close());

const valid = {
  name: 'evento_recordatorio',
  language: 'es_CO',
  category: 'MARKETING',
  body: 'Hola {{1}}, te esperamos el {{2}}.',
  examples: ['Ana', 'sábado 10:00'],
  footer: 'Responde BAJA para no recibir más',
  buttons: [{ type: 'QUICK_REPLY', text: 'BAJA' }],
};

describe('templates', () => {
  it('registers the template with the provider and answers its PENDING status; the review webhook approves it', async () => {
    const response = await t.app.http.post('/api/whatsapp/templates').set(t.manager.auth).send(valid).expect(201);
    expect(response.body).toMatchObject({ name: 'evento_recordatorio', language: 'es_CO', category: 'MARKETING', status: 'PENDING', placeholders: 2 });
    const sent = t.fake.templates.at(-1)!;
    expect(sent).toMatchObject({
      name: 'evento_recordatorio',
      language: 'es_CO',
      category: 'MARKETING',
      components: [
        { type: 'BODY', text: valid.body, example: { body_text: [['Ana', 'sábado 10:00']] } },
        { type: 'FOOTER', text: valid.footer },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'BAJA' }] },
      ],
    });
    t.fake.postWebhook(
      t.fake.envelope('message_template_status_update', {
        event: 'APPROVED',
        message_template_id: Number(sent.id),
        message_template_name: 'evento_recordatorio',
        message_template_language: 'es_CO',
        reason: 'NONE',
      }),
    );
    await until(async () => {
      const list = await t.app.http.get('/api/whatsapp/templates').set(t.manager.auth).expect(200);
      return list.body.data.find((template: { id: string }) => template.id === response.body.id)?.status === 'APPROVED';
    });
  });

  it('keeps the rejection reason from the review webhook', async () => {
    const response = await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'promo_rechazada' })
      .expect(201);
    const sent = t.fake.templates.at(-1)!;
    t.fake.postWebhook(t.fake.envelope('message_template_status_update', { event: 'REJECTED', message_template_id: sent.id, reason: 'PROMOTIONAL' }));
    await until(async () => {
      const list = await t.app.http.get('/api/whatsapp/templates?status=REJECTED').set(t.manager.auth).expect(200);
      return list.body.data.some((template: { id: string; rejectionReason: string }) => template.id === response.body.id && template.rejectionReason === 'PROMOTIONAL');
    });
  });

  it('refuses names with capitals or spaces', async () => {
    for (const name of ['Evento', 'evento recordatorio', '1evento', 'evento-x']) {
      const response = await t.app.http
        .post('/api/whatsapp/templates')
        .set(t.manager.auth)
        .send({ ...valid, name });
      expect(expectProblem(response, 400, 'validation_failed').errors).toEqual([expect.objectContaining({ path: 'body.name' })]);
    }
  });

  it('refuses placeholders with gaps or without numbers, and a body over 1024 characters', async () => {
    const gap = await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'gap', body: 'Hola {{1}} y {{3}}', examples: ['a', 'b'] });
    expect(expectProblem(gap, 400).errors).toEqual([expect.objectContaining({ path: 'body.body', message: expect.stringContaining('without gaps') })]);
    const named = await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'named', body: 'Hola {{nombre}}', examples: ['a'] });
    expectProblem(named, 400);
    const long = await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'long', body: 'x'.repeat(1025), examples: [] });
    expectProblem(long, 400);
    const examples = await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'examples', examples: ['only one'] });
    expect(expectProblem(examples, 400).errors).toEqual([expect.objectContaining({ path: 'body.examples' })]);
  });

  it('refuses unknown categories, a duplicate name and language, and non-managers', async () => {
    expectProblem(
      await t.app.http
        .post('/api/whatsapp/templates')
        .set(t.manager.auth)
        .send({ ...valid, name: 'cat', category: 'AUTHENTICATION' }),
      400,
    );
    await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'unico', language: 'es', body: 'Hola', examples: [] })
      .expect(201);
    expectProblem(
      await t.app.http
        .post('/api/whatsapp/templates')
        .set(t.manager.auth)
        .send({ ...valid, name: 'unico', language: 'es', body: 'Hola', examples: [] }),
      409,
      'template_exists',
    );
    const volunteer = await createUser(t.app, t.admin, 'volunteer');
    expectProblem(await t.app.http.post('/api/whatsapp/templates').set(volunteer.auth).send(valid), 403);
    expectProblem(await t.app.http.post('/api/whatsapp/templates').send(valid), 401);
  });

  it('answers 502 when the provider refuses the template', async () => {
    t.fake.rejectTemplatesWith = { code: 100, message: 'Invalid parameter' };
    try {
      const response = await t.app.http
        .post('/api/whatsapp/templates')
        .set(t.manager.auth)
        .send({ ...valid, name: 'refused_by_meta' });
      expectProblem(response, 502, 'provider_error');
    } finally {
      t.fake.rejectTemplatesWith = undefined;
    }
    // Nothing was kept: the same name can be registered once the provider takes it.
    await t.app.http
      .post('/api/whatsapp/templates')
      .set(t.manager.auth)
      .send({ ...valid, name: 'refused_by_meta' })
      .expect(201);
  });
});
