/** The public PQRS pages through plain HTTP: what a browser without JavaScript sends and gets. */
import { sql } from '../../src/kernel/sql';
import { addBusinessDays } from '../../src/kernel/business-days';
import { localDateOf } from '../../src/modules/pqrs/pqrs.clock';
import { spanishDate } from '../../src/modules/pqrs/pqrs.page';
import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
});

afterAll(() => app?.close());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('the public PQRS page', () => {
  it('serves the form in Spanish, with the page security headers and no inline script', async () => {
    const response = await app.http.get('/pqrs').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.text).toContain('<html lang="es">');
    expect(response.text).not.toMatch(/<script/i);
    expect(response.text).not.toMatch(/\son[a-z]+=/i); // no inline handlers either
    expect(response.text).toContain('action="/api/pqrs"');
    expect(response.text).toContain('Autorizo el tratamiento de mis datos personales');
    for (const field of ['type', 'subject', 'description', 'anonymous', 'name', 'phone', 'email', 'documentId', 'consent', 'whatsappOptIn', 'emailOptIn']) {
      expect(response.text).toMatch(new RegExp(`<label for="f-${field}">`));
    }
  });

  it('shows every error at once next to its field, keeping what was typed, and escapes it', async () => {
    const response = await app.http
      .post('/api/pqrs')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(form({ type: '', subject: 'x', description: '<b>x</b>', name: '', phone: '', email: '', website: '' }));
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const html = response.text;
    for (const field of ['type', 'subject', 'description', 'name', 'phone', 'consent']) expect(html).toContain(`id="err-${field}"`);
    expect(html).toContain('Elige el tipo de solicitud.');
    expect(html).toContain('>&lt;b&gt;x&lt;/b&gt;</textarea>');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('No pudimos radicar tu solicitud');

    const second = await app.http
      .post('/api/pqrs')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(form({ type: 'queja', subject: 'Ruido en el parque', description: 'Hay música a todo volumen hasta las 3 de la mañana.' }));
    expect(second.status).toBe(400);
    for (const field of ['name', 'phone', 'consent']) expect(second.text).toContain(`id="err-${field}"`);
    expect(second.text).toContain('<option value="queja" selected>');
    expect(second.text).toContain('Hay música a todo volumen');
  });

  it('answers a correct post with 303 to the received page, which shows the number and the due date', async () => {
    const response = await app.http
      .post('/api/pqrs')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(
        form({
          type: 'informacion',
          subject: 'Copia del contrato',
          description: 'Solicito copia del contrato de alumbrado del barrio.',
          name: 'Marta Gómez',
          phone: '310 555 0123',
          consent: 'true',
          emailOptIn: 'true',
        }),
      );
    expect(response.status).toBe(303);
    expect(response.headers.location).toMatch(/^\/pqrs\/recibida\/[0-9a-f-]{36}$/);
    const id = response.headers.location!.split('/').pop()!;
    const [stored] = await app.runtime.deps.db.rows(
      sql<{ number: string; due_date: string; channel: string }>`select number, due_date, channel from pqrs_requests where id = ${id}::uuid`,
    );
    expect(stored!.channel).toBe('web');
    expect(stored!.due_date).toBe(addBusinessDays(localDateOf(new Date(), 'America/Bogota'), 10, 'CO'));
    const received = await app.http.get(response.headers.location!).expect(200);
    expect(received.text).toContain(stored!.number);
    expect(received.text).toContain(spanishDate(stored!.due_date));
    expect(received.text).not.toContain('Marta');
    expect(spanishDate('2026-12-18')).toBe('viernes, 18 de diciembre de 2026');
  });

  it('answers unknown received pages and a tripped honeypot without storing anything', async () => {
    await app.http.get('/pqrs/recibida/nope').expect(404);
    await app.http.get('/pqrs/recibida/01960000-0000-7000-8000-000000000000').expect(404);
    const [before] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests`);
    const bot = await app.http
      .post('/api/pqrs')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(
        form({
          type: 'queja',
          subject: 'Oferta',
          description: 'Compre seguidores baratos aquí ya.',
          name: 'Bot',
          phone: '3105550999',
          consent: 'true',
          website: 'http://spam.example',
        }),
      );
    expect(bot.status).toBe(200);
    const [after] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests`);
    expect(after!.n).toBe(before!.n);
  });
});
