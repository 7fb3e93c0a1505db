/**
 * The console's PQRS desk in headless Chromium against a listening test app, with requests filed
 * through the public endpoint: the queue by legal due date with its countdown in words and
 * colours, the header's counts as filters, the "vencen pronto" view, a filing appearing live; a
 * request's page answering (and the notice queued for the citizen), assigning and moving it by
 * keyboard, the one extension with its legal limit and the server's refusals in Spanish, an
 * attachment up and down; a viewer's desk without citizens or actions; axe on both screens.
 * Leaves screenshots in test-artifacts/ (console-pqrs.png, console-pqrs-request.png).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { addBusinessDays, businessDaysBetween } from '../../src/kernel/business-days';
import { sql } from '../../src/kernel/sql';
import { endOfLocalDay, latestExtension, localDateOf } from '../../src/modules/pqrs/pqrs.clock';
import { handleWebhookPayload } from '../../src/modules/whatsapp';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole, untilPageHolds } from './console';

const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');
const clock = { timeZone: 'America/Bogota', holidayCountry: 'CO' };
const today = () => localDateOf(new Date(), clock.timeZone);
const PDF = Buffer.from(
  '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n% Acta de la junta de acción comunal, barrio Las Flores\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

let app: TestApp;
let browser: Browser;
let dataDir: string;
let admin: TestUser;
let manager: TestUser;
let colleague: TestUser;
let viewer: TestUser;

jest.setTimeout(90_000);

interface Filed {
  id: string;
  number: string;
  subject: string;
}

let phone = 0;
async function file(type: string, subject: string, description: string, citizen: Record<string, unknown> = {}): Promise<Filed> {
  phone += 1;
  const answer = await app.http
    .post('/api/pqrs')
    .send({ type, subject, description, name: 'Ana Pérez', phone: `310 444 ${String(phone).padStart(4, '0')}`, consent: true, whatsappOptIn: true, ...citizen })
    .expect(201);
  return { id: answer.body.id, number: answer.body.number, subject };
}

/** Moves a request's deadline to `day` rather than waiting for it (the clock itself is tested in clock.unit.test.ts). */
async function dueOn(id: string, day: string): Promise<void> {
  await app.runtime.deps.db.write(sql`update pqrs_requests set due_date = ${day}, due_at = ${endOfLocalDay(day, clock.timeZone)} where id = ${id}::uuid`);
}

const read = async (id: string) => (await app.http.get(`/api/pqrs/${id}`).set(manager.auth).expect(200)).body;

/** Presses Enter on a control reached by focus, as someone on the keyboard would. */
async function pressOn(locator: ReturnType<Page['getByRole']>): Promise<void> {
  await locator.focus();
  await locator.page().keyboard.press('Enter');
}

/** How late the overdue request is, in business days, as the API counts it. */
let lateBy = 0;
const lateText = () => `vencida hace ${lateBy} ${lateBy === 1 ? 'día hábil' : 'días hábiles'}`;

const requests: Record<'overdue' | 'soon' | 'info' | 'consult' | 'suggestion' | 'garbage' | 'trees' | 'anonymous', Filed> = {} as never;

beforeAll(async () => {
  assertBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-pqrs-screens-'));
  app = await startTestApp({ DATA_DIR: dataDir, PQRS_MAX_PER_IP: '500' }, { workers: false });
  admin = await registerAdmin(app);
  [manager, colleague, viewer] = await Promise.all([
    createUser(app, admin, 'manager', 'Marta Gestora'),
    createUser(app, admin, 'manager', 'Julián Ríos'),
    createUser(app, admin, 'viewer', 'Vera Lectora'),
  ]);
  requests.overdue = await file(
    'peticion',
    'Alumbrado público apagado en la calle 10',
    'Desde hace tres semanas los postes de la calle 10 entre carreras 4 y 6 están apagados; en la noche es peligroso.',
  );
  requests.soon = await file('reclamo', 'Hueco en la vía principal del barrio Las Flores', 'Hay un hueco de casi un metro frente al colegio; ya se cayeron dos motos.', {
    name: 'Carlos Gómez',
  });
  requests.info = await file(
    'informacion',
    'Copia del acta de la junta de acción comunal',
    'Solicito copia del acta de la última asamblea de la junta de acción comunal del barrio.',
    {
      name: 'Luz Marina Torres',
    },
  );
  requests.consult = await file(
    'consulta',
    'Requisitos del programa de becas para jóvenes',
    '¿Qué requisitos piden para el programa de becas universitarias que anunció la campaña?',
    {
      name: 'Jorge Castaño',
    },
  );
  requests.suggestion = await file('sugerencia', 'Ciclovía los domingos en la avenida Santander', 'Proponemos cerrar la avenida los domingos en la mañana para una ciclovía.', {
    name: 'Paola Rendón',
  });
  requests.garbage = await file('queja', 'Recolección de basuras suspendida en la carrera 5', 'El camión de la basura no pasa hace dos semanas por la carrera 5 con calle 12.', {
    name: 'Rosa Mejía',
    phone: undefined,
    email: 'rosa.mejia@example.org',
    emailOptIn: true,
    whatsappOptIn: false,
  });
  requests.trees = await file('peticion', 'Poda de árboles en el parque central', 'Las ramas de los árboles del parque tapan las luminarias y rozan los cables.', {
    name: 'Hernán Quintero',
  });
  const anonymous = await app.http
    .post('/api/pqrs')
    .send({
      type: 'denuncia',
      subject: 'Ofrecen mercados a cambio de votos en la vereda El Salado',
      description: 'Un grupo reparte mercados a cambio de la cédula.',
      anonymous: true,
    })
    .expect(201);
  requests.anonymous = { id: anonymous.body.id, number: anonymous.body.number, subject: 'Ofrecen mercados a cambio de votos en la vereda El Salado' };
  await dueOn(requests.overdue.id, addBusinessDays(today(), -3, clock.holidayCountry));
  // Three business days back from a weekend or a holiday is two business days late.
  lateBy = businessDaysBetween(addBusinessDays(today(), -3, clock.holidayCountry), today(), clock.holidayCountry);
  await dueOn(requests.soon.id, addBusinessDays(today(), 2, clock.holidayCountry));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The queue's request numbers, top to bottom, once its rows are there. */
async function queueNumbers(page: Page): Promise<string[]> {
  const table = page.getByRole('table', { name: /Solicitudes PQRS/ });
  await table
    .getByRole('link', { name: /^PQRS-/ })
    .first()
    .waitFor();
  return (await table.getByRole('link', { name: /^PQRS-/ }).allTextContents()).map((text) => text.trim());
}

/** Waits for the queue to show exactly these requests, in this order (a filter's answer replaces the last one's rows when it arrives). */
async function expectQueue(page: Page, numbers: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  let shown = await queueNumbers(page);
  while (JSON.stringify(shown) !== JSON.stringify(numbers) && Date.now() < deadline) {
    await page.waitForTimeout(100);
    shown = await queueNumbers(page);
  }
  expect(shown).toEqual(numbers);
}

describe('the queue', () => {
  it('lists requests by legal due date, the overdue one marked "vencida" and the due-soon one in words, and counts them in the header', async () => {
    // From the menu: /pqrs itself is the citizens' public form on the server, so the queue lives at /pqrs/cola.
    const page = await openConsole(browser, app, manager, '/');
    await page.getByRole('navigation', { name: 'Módulos' }).getByRole('link', { name: 'PQRS' }).click();
    await page.waitForURL(/\/pqrs\/cola$/);
    await page.getByRole('heading', { name: 'PQRS', level: 1 }).waitFor();
    // Away from the menu: a hovered link is not what axe should judge.
    await page.mouse.move(700, 10);
    const api = (await app.http.get('/api/pqrs').set(manager.auth).query({ sort: 'due', limit: 25 }).expect(200)).body.data as { number: string; dueAt: string }[];
    const shown = await queueNumbers(page);
    expect(shown).toEqual(api.map((request) => request.number));
    expect(shown.slice(0, 2)).toEqual([requests.overdue.number, requests.soon.number]);
    expect(api.map((request) => request.dueAt)).toEqual([...api.map((request) => request.dueAt)].sort());

    const overdueRow = page.getByRole('row').filter({ hasText: requests.overdue.number });
    await overdueRow.getByText(lateText()).waitFor();
    await page.getByRole('row').filter({ hasText: requests.soon.number }).getByText('vence en 2 días hábiles').waitFor();
    // Managers see who filed; an anonymous denuncia says so.
    await page.getByRole('columnheader', { name: 'Ciudadano' }).waitFor();
    await overdueRow.getByText('Ana Pérez').waitFor();
    await page.getByRole('row').filter({ hasText: requests.anonymous.number }).getByText('Anónima').waitFor();

    const summary = (await app.http.get('/api/pqrs/summary').set(manager.auth).expect(200)).body as Record<string, number>;
    expect(summary).toMatchObject({ overdue: 1, due_soon: 1 });
    await page.getByRole('button', { name: 'Vencidas 1' }).waitFor();
    await page.getByRole('button', { name: `A tiempo ${summary.on_time}` }).waitFor();
    expect(await axeSettled(page)).toEqual([]);

    // The header's counts filter the list, from the keyboard too, and the address keeps the filter.
    await pressOn(page.getByRole('button', { name: /^Vencidas/ }));
    await page.waitForURL(/dueState=overdue/);
    await expectQueue(page, [requests.overdue.number]);
    expect(await page.getByRole('button', { name: /^Vencidas/ }).getAttribute('aria-pressed')).toBe('true');
    await pressOn(page.getByRole('button', { name: /^Vencidas/ }));
    await page.waitForURL((url) => !url.search.includes('dueState'));

    // "Vencen pronto": the day's view, overdue included (a radio group: the arrow keys move it).
    await page.getByRole('radio', { name: 'Toda la cola' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/dueState=overdue%2Cdue_soon|dueState=overdue,due_soon/);
    await page.getByText('Vencidas y las que vencen en 3 días hábiles o menos: lo que hay que responder primero.').waitFor();
    expect(await page.getByRole('radio', { name: 'Vencen pronto' }).isChecked()).toBe(true);
    await expectQueue(page, [requests.overdue.number, requests.soon.number]);
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL((url) => !url.search.includes('dueState'));

    // A word of the subject, kept in the address.
    await page.getByLabel('Buscar').fill('becas');
    await page.waitForURL(/q=becas/);
    await page.getByRole('row').filter({ hasText: requests.consult.number }).waitFor();
    await expectQueue(page, [requests.consult.number]);
    await page.reload();
    await expectQueue(page, [requests.consult.number]);
    expect(await page.getByLabel('Buscar').inputValue()).toBe('becas');
    await page.getByRole('button', { name: 'Quitar filtros' }).click();
    await page.waitForURL((url) => url.search === '');
    await page.context().close();
  });

  it('shows a request filed elsewhere without a reload, and moves the counts', async () => {
    const page = await openConsole(browser, app, manager, '/pqrs/cola');
    await queueNumbers(page);
    const before = (await app.http.get('/api/pqrs/summary').set(manager.auth).expect(200)).body as { on_time: number };
    await page.getByRole('button', { name: `A tiempo ${before.on_time}` }).waitFor();
    const filed = await file('queja', 'Semáforo dañado en la calle 45 con carrera 20', 'El semáforo lleva una semana en amarillo intermitente y hay choques.', {
      name: 'Diana Ospina',
    });
    await page.getByRole('row').filter({ hasText: filed.number }).getByText('Semáforo dañado en la calle 45 con carrera 20').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: `A tiempo ${before.on_time + 1}` }).waitFor({ timeout: 15_000 });
    // Answered elsewhere: its row says so without a reload.
    await app.http.post(`/api/pqrs/${filed.id}/answer`).set(colleague.auth).send({ answer: 'La Secretaría de Movilidad reparó el semáforo esta mañana.' }).expect(200);
    await page.getByRole('row').filter({ hasText: filed.number }).getByText('respondida a tiempo').waitFor({ timeout: 15_000 });
    await page.context().close();
  });
});

describe('a request’s page', () => {
  it('answers a request by keyboard, queues the citizen’s notice and says on which channel', async () => {
    const page = await openConsole(browser, app, manager, `/pqrs/${requests.garbage.id}`);
    await page.getByRole('heading', { name: requests.garbage.number, level: 1 }).waitFor();
    await page.getByText('rosa.mejia@example.org').waitFor();
    expect(await page.getByRole('link', { name: /Ver la ficha de Rosa Mejía/ }).getAttribute('href')).toMatch(/^\/personas\/[0-9a-f-]{36}$/);
    expect(await axeSettled(page)).toEqual([]);

    const answer = 'Cordial saludo. La empresa de aseo retomará la recolección en la carrera 5 desde el lunes, con ruta martes, jueves y sábado.';
    // The server's rule, checked before sending: too short.
    await page.getByLabel('Respuesta al ciudadano').focus();
    await page.keyboard.type('Listo.');
    await pressOn(page.getByRole('button', { name: 'Enviar respuesta' }));
    await page.getByText(/Escriba al menos/).waitFor();
    await page.getByLabel('Respuesta al ciudadano').fill('');
    await page.getByLabel('Respuesta al ciudadano').focus();
    await page.keyboard.type(answer);
    await pressOn(page.getByRole('button', { name: 'Enviar respuesta' }));
    const confirm = page.getByRole('dialog', { name: '¿Enviar la respuesta?' });
    await confirm.waitFor();
    // The dialog puts the keyboard on its action.
    await untilPageHolds(page, "document.activeElement && document.activeElement.textContent === 'Enviar al ciudadano'");
    await page.keyboard.press('Enter');
    await page.getByText('El aviso al ciudadano quedó en cola para enviarse por correo electrónico.').waitFor();
    await page.getByRole('heading', { name: 'Respuesta', exact: true }).waitFor();
    await page.getByText(answer).waitFor();
    expect(await page.getByRole('button', { name: 'Enviar respuesta' }).count()).toBe(0);

    const stored = await read(requests.garbage.id);
    expect(stored).toMatchObject({ status: 'answered', dueState: 'answered', personal: { answer, answerNotice: { status: 'queued', channel: 'email' } } });
    const notices = await app.runtime.deps.db.rows(
      sql<{ channel: string; status: string }>`select channel, status from notices where key = ${`pqrs:answered:${requests.garbage.id}`}`,
    );
    expect(notices).toEqual([{ channel: 'email', status: 'queued' }]);
    await page.getByText(/Marta Gestora respondió la solicitud a tiempo/).waitFor();
    await page.getByText(/Aviso de respuesta al ciudadano: en cola por correo electrónico/).waitFor();
    await page.context().close();
  });

  it('links a request that came from a WhatsApp conversation to it', async () => {
    await handleWebhookPayload(app.runtime.deps, {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                contacts: [{ wa_id: '573104449999', profile: { name: 'Rubén Álvarez' } }],
                messages: [
                  {
                    from: '573104449999',
                    id: 'wamid.desk-ui',
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: 'La quebrada se desbordó otra vez.' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const conversations = await app.http.get('/api/whatsapp/conversations').set(manager.auth).query({ q: '310 444 9999' }).expect(200);
    const conversationId = conversations.body.data[0].id as string;
    const filed = await app.http
      .post('/api/pqrs/from-whatsapp')
      .set(manager.auth)
      .send({ conversationId, type: 'reclamo', subject: 'Quebrada desbordada en la vereda' })
      .expect(201);
    const page = await openConsole(browser, app, manager, `/pqrs/${filed.body.id}`);
    await page.getByText('Llegó por una conversación de WhatsApp.').waitFor();
    expect(await page.getByRole('link', { name: 'Abrir la conversación' }).getAttribute('href')).toBe(`/whatsapp/${conversationId}`);
    await page.getByText('La quebrada se desbordó otra vez.').waitFor();
    await page.context().close();
  });

  it('assigns, prioritises and moves a request by keyboard, each change in the history with who did it', async () => {
    const page = await openConsole(browser, app, manager, `/pqrs/${requests.soon.id}`);
    await page.getByRole('heading', { name: requests.soon.number, level: 1 }).waitFor();
    await pressOn(page.getByRole('button', { name: 'Asignármela' }));
    await page.getByText('Ahora la solicitud es suya.').waitFor();
    expect((await read(requests.soon.id)).assigneeId).toBe(manager.id);

    // Then to a colleague, with its priority and status, in one change.
    await page.getByLabel('Responsable').selectOption({ label: 'Julián Ríos' });
    await page.getByLabel('Prioridad').selectOption({ label: 'Urgente' });
    await page.getByLabel('Estado').selectOption({ label: 'En trámite' });
    await page.getByLabel('Nota (queda en el historial)').fill('La Secretaría de Infraestructura ya tiene la solicitud.');
    await pressOn(page.getByRole('button', { name: 'Guardar cambios' }));
    await page.getByText('Cambios guardados.').waitFor();
    expect(await read(requests.soon.id)).toMatchObject({ assigneeId: colleague.id, priority: 'urgent', status: 'in_progress' });
    const history = page.getByRole('region', { name: 'Historial' });
    await history.getByText('Marta Gestora asignó la solicitud a Marta Gestora.').waitFor();
    await history.getByText('Marta Gestora cambió el estado de Recibida a En trámite; asignó la solicitud a Julián Ríos; cambió la prioridad de Normal a Urgente.').waitFor();
    await history.getByText('Nota: La Secretaría de Infraestructura ya tiene la solicitud.').waitFor();
    await history.getByText(/El ciudadano radicó la solicitud/).waitFor();

    // Closing without an answer needs a reason, as the API says.
    await page.getByLabel('Estado').selectOption({ label: 'Cerrada' });
    await pressOn(page.getByRole('button', { name: 'Guardar cambios' }));
    await page.getByText('Para cerrar sin respuesta escriba en la nota por qué (retirada, duplicada…).').waitFor();
    expect((await read(requests.soon.id)).status).toBe('in_progress');

    // The queue filters by who handles it.
    await page.goto(`${app.url}/pqrs/cola`);
    await page.getByLabel('Responsable').selectOption({ label: 'Julián Ríos' });
    await page.waitForURL(new RegExp(`assigneeId=${colleague.id}`));
    await expectQueue(page, [requests.soon.number]);
    await page.context().close();
  });

  it('extends the deadline once, showing the legal limit, and says in Spanish why a second extension or a late one is refused', async () => {
    const latest = latestExtension(new Date(), 15, clock);
    // A second screen already has the dialog open when the first extends.
    const late = await openConsole(browser, app, colleague, `/pqrs/${requests.trees.id}`);
    await late.getByRole('button', { name: 'Prorrogar el plazo' }).click();
    const lateDialog = late.getByRole('dialog', { name: 'Prorrogar el plazo' });
    await lateDialog.waitFor();

    const page = await openConsole(browser, app, manager, `/pqrs/${requests.trees.id}`);
    const deadline = page.getByRole('region', { name: 'Plazo legal' });
    await deadline.getByText(/Se puede prorrogar una sola vez, antes del .*, hasta el doble del término: a más tardar el/).waitFor();
    await pressOn(deadline.getByRole('button', { name: 'Prorrogar el plazo' }));
    const dialog = page.getByRole('dialog', { name: 'Prorrogar el plazo' });
    await dialog.getByText(/no puede pasar del doble del término inicial \(15 días hábiles de petición, 30 días hábiles en total\)/).waitFor();
    const date = dialog.getByLabel('Nuevo vencimiento');
    // The legal limit is proposed and is the picker's bound.
    expect(await date.inputValue()).toBe(latest);
    expect(await date.getAttribute('max')).toBe(latest);
    expect(await axeSettled(page)).toEqual([]);
    await pressOn(dialog.getByRole('button', { name: 'Prorrogar' }));
    await dialog.getByText(/Escriba al menos/).waitFor();
    await dialog.getByLabel('Motivo de la prórroga').fill('Esperamos el concepto técnico de la Secretaría de Ambiente sobre los árboles del parque.');
    await pressOn(dialog.getByRole('button', { name: 'Prorrogar' }));
    await page.getByText(/^Plazo prorrogado hasta el .*El aviso al ciudadano quedó en cola|^Plazo prorrogado hasta el .*No se pudo avisar/).waitFor();
    await deadline.getByText(/El límite legal era el doble del término \(30 días hábiles\)/).waitFor();
    await deadline.getByText('Motivo: Esperamos el concepto técnico de la Secretaría de Ambiente sobre los árboles del parque.').waitFor();
    expect(await deadline.getByRole('button', { name: 'Prorrogar el plazo' }).count()).toBe(0);
    const extended = await read(requests.trees.id);
    expect(extended).toMatchObject({ dueDate: latest, latestExtensionDate: null, extension: { reason: expect.stringContaining('Secretaría de Ambiente') } });

    // The other screen's dialog stayed open; the server refuses a second extension, said in Spanish.
    await lateDialog.getByLabel('Motivo de la prórroga').fill('Falta la visita del ingeniero forestal.');
    await pressOn(lateDialog.getByRole('button', { name: 'Prorrogar' }));
    await lateDialog.getByText('Esta solicitud ya tuvo su prórroga: la ley permite una sola.').waitFor();
    await late.context().close();

    // Past the deadline under an open dialog: 409 deadline_passed.
    await page.goto(`${app.url}/pqrs/${requests.info.id}`);
    await pressOn(page.getByRole('button', { name: 'Prorrogar el plazo' }));
    await dialog.getByLabel('Motivo de la prórroga').fill('Estamos reuniendo las actas en el archivo de la junta.');
    await dueOn(requests.info.id, addBusinessDays(today(), -1, clock.holidayCountry));
    await pressOn(dialog.getByRole('button', { name: 'Prorrogar' }));
    await dialog.getByText(/^El plazo ya venció \(.+\): la prórroga debía anunciarse al ciudadano antes del vencimiento\.$/).waitFor();
    await page.keyboard.press('Escape');
    await page.getByText('El plazo venció sin prórroga: ya no se puede prorrogar (debía anunciarse antes del vencimiento).').waitFor();

    // The term shrank under an open dialog (a colleague reclassified the consultation): 400 extension_beyond_double.
    await page.goto(`${app.url}/pqrs/${requests.consult.id}`);
    await pressOn(page.getByRole('button', { name: 'Prorrogar el plazo' }));
    await dialog.getByLabel('Motivo de la prórroga').fill('La consulta necesita el concepto de la oficina jurídica.');
    await app.http.patch(`/api/pqrs/${requests.consult.id}`).set(colleague.auth).send({ type: 'informacion', note: 'Es una solicitud de información' }).expect(200);
    await pressOn(dialog.getByRole('button', { name: 'Prorrogar' }));
    await dialog.getByText(/^La nueva fecha supera el doble del término inicial \(20 días hábiles\): la ley permite a más tardar el .+\.$/).waitFor();
    expect((await read(requests.consult.id)).extension).toBeNull();
    await page.context().close();
  });

  it('uploads an attachment, lists it and downloads the same bytes with the session’s token', async () => {
    const page = await openConsole(browser, app, manager, `/pqrs/${requests.info.id}`);
    const attachments = page.getByRole('region', { name: 'Adjuntos' });
    await attachments.getByText('Sin adjuntos.').waitFor();
    await attachments.locator('input[type="file"]').setInputFiles({ name: 'acta-junta-comunal.pdf', mimeType: 'application/pdf', buffer: PDF });
    await pressOn(attachments.getByRole('button', { name: 'Subir' }));
    await attachments.getByText('Se adjuntó acta-junta-comunal.pdf.').waitFor();
    const link = attachments.getByRole('button', { name: 'Descargar acta-junta-comunal.pdf' });
    await link.waitFor();
    await attachments.getByText(/^PDF · /).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), pressOn(link)]);
    expect(download.suggestedFilename()).toBe('acta-junta-comunal.pdf');
    expect(fs.readFileSync((await download.path())!)).toEqual(PDF);
    // Never a token in an address: the file came through fetch with the Authorization header.
    expect(download.url()).toMatch(/^blob:/);
    await page
      .getByRole('region', { name: 'Historial' })
      .getByText(/Marta Gestora adjuntó un archivo \(PDF, /)
      .waitFor();
    // A program is refused, in Spanish.
    await attachments
      .locator('input[type="file"]')
      .setInputFiles({ name: 'factura.pdf', mimeType: 'application/pdf', buffer: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]) });
    await attachments.getByRole('button', { name: 'Subir' }).click();
    await attachments.getByText('Los programas y scripts nunca se aceptan como adjuntos.').waitFor();
    await page.context().close();
  });
});

describe('a viewer', () => {
  it('sees the queue and a request’s page without citizens’ data and without actions', async () => {
    const page = await openConsole(browser, app, viewer, '/pqrs/cola');
    await page.getByRole('navigation', { name: 'Módulos' }).getByRole('link', { name: 'PQRS' }).waitFor();
    const shown = await queueNumbers(page);
    expect(shown).toContain(requests.overdue.number);
    await page.getByRole('row').filter({ hasText: requests.overdue.number }).getByText(lateText()).waitFor();
    expect(await page.getByRole('columnheader', { name: 'Ciudadano' }).count()).toBe(0);
    const text = await page.locator('main').innerText();
    for (const name of ['Ana Pérez', 'Carlos Gómez', 'Rosa Mejía', 'Luz Marina Torres', 'Anónima']) expect(text).not.toContain(name);
    expect(await axeSettled(page)).toEqual([]);

    await page.getByRole('link', { name: requests.trees.number }).click();
    await page.getByRole('heading', { name: requests.trees.number, level: 1 }).waitFor();
    await page.getByText(/solo los ve el equipo que atiende las PQRS/).waitFor();
    await page
      .getByRole('region', { name: 'Historial' })
      .getByText(/Marta Gestora prorrogó el plazo/)
      .waitFor();
    const main = await page.locator('main').innerText();
    for (const hidden of ['Hernán Quintero', 'Las ramas de los árboles', 'Secretaría de Ambiente']) expect(main).not.toContain(hidden);
    for (const action of ['Prorrogar el plazo', 'Enviar respuesta', 'Guardar cambios', 'Asignármela', 'Subir']) {
      expect(await page.getByRole('button', { name: action }).count()).toBe(0);
    }
    expect(await page.getByRole('region', { name: 'Adjuntos' }).count()).toBe(0);
    expect(await axeSettled(page)).toEqual([]);
    await page.context().close();
  });
});

describe('screenshots', () => {
  it('leaves the queue and a request’s page at 1366×900', async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    // The extended request as a desk would have it by now: handled by someone, with the technical report attached.
    await app.http.patch(`/api/pqrs/${requests.trees.id}`).set(colleague.auth).send({ assigneeId: colleague.id, priority: 'high', status: 'in_progress' }).expect(200);
    await app.http
      .post(`/api/pqrs/${requests.trees.id}/attachments`)
      .query({ fileName: 'concepto-tecnico-arboles.pdf' })
      .set(colleague.auth)
      .set('Content-Type', 'application/pdf')
      .send(PDF)
      .expect(201);
    const page = await openConsole(browser, app, manager, '/pqrs/cola');
    await queueNumbers(page);
    await page.getByRole('button', { name: /^Vencidas/ }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-pqrs.png') });
    await page.goto(`${app.url}/pqrs/${requests.trees.id}`);
    await page
      .getByRole('region', { name: 'Historial' })
      .getByText(/prorrogó el plazo/)
      .waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-pqrs-request.png') });
    await page.context().close();
  });
});
