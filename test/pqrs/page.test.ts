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

  it('says on the received page what will actually happen: the channel the number went by, or that nobody will write', async () => {
    const file = async (fields: Record<string, string>) => {
      const response = await app.http
        .post('/api/pqrs')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(form({ type: 'peticion', subject: 'Arreglo de la vía', description: 'La calle 45 tiene un hueco desde hace meses.', name: 'Luis Pérez', consent: 'true', ...fields }))
        .expect(303);
      return (await app.http.get(response.headers.location!).expect(200)).text;
    };
    const byEmail = await file({ email: 'luis@example.org', emailOptIn: 'true' });
    expect(byEmail).toContain('Te enviamos el número de radicado a tu correo y por ese medio te enviaremos la respuesta.');
    const noChannel = await file({ phone: '310 555 0199', email: 'luis.b@example.org' });
    expect(noChannel).toContain('No marcaste ninguna casilla para recibir la respuesta por WhatsApp o por correo, así que no te escribiremos.');
    expect(noChannel).not.toContain('por el medio que autorizaste');
    // WhatsApp ticked, but the desk has no WhatsApp template to send the number with: it is not promised.
    const whatsappOnly = await file({ phone: '310 555 0198', whatsappOptIn: 'true' });
    expect(whatsappOnly).toContain('Por ahora no podemos escribirte por el medio que autorizaste. Guarda el número de radicado');
    expect(await file({ consent: 'true' }).catch(() => 'refused')).toBe('refused'); // a phone or an email is required to file
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
    const jsonBot = await app.http
      .post('/api/pqrs')
      .send({ type: 'queja', subject: 'Oferta', description: 'Compre seguidores baratos aquí ya.', name: 'Bot', phone: '3105550998', consent: true, website: 'x' });
    expect(jsonBot.status).toBe(202);
    const [after] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests`);
    expect(after!.n).toBe(before!.n);
  });
});

describe('the public page with files (multipart, no JavaScript)', () => {
  const PDF = Buffer.from('%PDF-1.7\nfactura\n%%EOF\n');
  const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR foto')]);
  const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0x90)]);
  const fields = {
    type: 'reclamo',
    subject: 'Cobro doble',
    description: 'Me cobraron dos veces el servicio de aseo este mes.',
    name: 'Luz Ángela Ríos',
    phone: '310 555 0144',
    documentId: '52123456',
    consent: 'true',
  };
  const post = (values: Record<string, string>) => {
    const request = app.http.post('/api/pqrs');
    for (const [name, value] of Object.entries(values)) request.field(name, value);
    return request;
  };

  it('files the request with its attachments, typed and named by their bytes', async () => {
    const response = await post(fields).attach('attachments', PDF, { filename: 'factura.html', contentType: 'text/html' }).attach('attachments', PNG, 'foto.png');
    expect(response.status).toBe(303);
    const id = response.headers.location!.split('/').pop()!;
    const stored = await app.runtime.deps.db.rows(
      sql<{ file_name: string; type: string; size: number }>`select file_name, type, size from pqrs_attachments where request_id = ${id}::uuid order by file_name`,
    );
    expect(stored).toEqual([
      { file_name: 'factura.pdf', type: 'application/pdf', size: PDF.length },
      { file_name: 'foto.png', type: 'image/png', size: PNG.length },
    ]);
    const empty = await post({ ...fields, phone: '310 555 0145' }).attach('attachments', Buffer.alloc(0), { filename: '', contentType: 'application/octet-stream' });
    expect(empty.status).toBe(303);
  });

  it('refuses a program and a file of another type with every other error, storing nothing', async () => {
    const [before] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests`);
    const response = await post({ ...fields, consent: '' })
      .attach('attachments', EXE, 'factura.pdf.exe')
      .attach('attachments', Buffer.from('GIF89a'), 'foto.gif');
    expect(response.status).toBe(400);
    expect(response.text).toContain('id="err-attachments"');
    expect(response.text).toContain('«factura.pdf.exe» es un programa');
    expect(response.text).toContain('«foto.gif» no es un PDF');
    expect(response.text).toContain('id="err-consent"');
    expect(response.text).toContain('value="Cobro doble"');
    const onlyFiles = await post(fields).attach('attachments', EXE, 'setup.exe');
    expect(onlyFiles.status).toBe(415);
    expect(onlyFiles.text).toContain('«setup.exe» es un programa');
    const [after] = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests`);
    expect(after!.n).toBe(before!.n);
  });

  it('answers a 20 MB file or a fourth file with 413 and the form, keeping what was typed before it', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 0x20);
    Buffer.from('%PDF-1.7').copy(big);
    const response = await post(fields).attach('attachments', big, 'escaneo.pdf');
    expect(response.status).toBe(413);
    expect(response.text).toContain('Puedes adjuntar hasta 3 archivos de 10 MB cada uno.');
    expect(response.text).toContain('value="Cobro doble"');
    const four = post(fields);
    for (const name of ['a.pdf', 'b.pdf', 'c.pdf', 'd.pdf']) four.attach('attachments', PDF, name);
    expect((await four).status).toBe(413);
    const json = await app.http.post('/api/pqrs').set('Accept', 'application/json').field('type', 'queja').attach('attachments', big, 'x.pdf');
    expect(json.status).toBe(413);
    const nul = await post({ ...fields, subject: 'Cobro\u0000doble' }).attach('attachments', PDF, 'factura.pdf');
    expect(nul.status).toBe(400);
  });
});
