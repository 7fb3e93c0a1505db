/**
 * The console's WhatsApp inbox in headless Chromium against a listening test app wired to the fake
 * Cloud API: a message posted to the signed webhook shows up live, opening it reads it, a reply goes
 * out and its ticks move live; outside the 24-hour window only templates; quick replies with `/`;
 * assigning, resolving and filing a PQRS; who may open it; keyboard and axe. Leaves screenshots in
 * test-artifacts/ (console-whatsapp.png is the one docs/screens-console-whatsapp.png is taken from).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { sql } from '../../src/kernel/sql';
import { signBody } from '../fakes/whatsapp-cloud';
import { createUser, type TestUser } from '../helpers/users';
import { approvedTemplate, CLOUD, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { until } from '../helpers/wait';
import { assertBuilt, axeBlocking, launchChromium } from './campaign';
import { openConsole } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

let t: WhatsAppTest;
let browser: Browser;
let marta: TestUser;
let julian: TestUser;
let viewer: TestUser;

jest.setTimeout(90_000);

interface Row {
  id: string;
  status: string;
  unreadCount: number;
  assignedToId: string | null;
  contact: { id: string; name: string };
}

beforeAll(async () => {
  assertBuilt();
  t = await startWhatsAppTest({}, { statuses: ['sent', 'delivered'] });
  [marta, julian, viewer] = await Promise.all([
    createUser(t.app, t.admin, 'manager', 'Marta Lucía Gómez'),
    createUser(t.app, t.admin, 'manager', 'Julián Restrepo'),
    createUser(t.app, t.admin, 'viewer', 'Verónica Vega'),
  ]);
  await t.app.http
    .post('/api/whatsapp/quick-replies')
    .set(marta.auth)
    .send({ shortcut: '/saludo', title: 'Saludo', text: 'Hola {{primer_nombre}}, gracias por escribir a la campaña. ¿En qué le podemos ayudar?' })
    .expect(201);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Someone writes to the campaign's number: a Cloud API delivery, signed with the app secret, posted to the webhook. */
async function writes(phone: string, name: string, text: string): Promise<void> {
  const raw = JSON.stringify(t.fake.inboundPayload(phone, { type: 'text', text: { body: text } }, name));
  await t.app.http.post('/api/whatsapp/webhook').set('Content-Type', 'application/json').set('X-Hub-Signature-256', signBody(CLOUD.appSecret, raw)).send(raw).expect(200);
}

async function conversationOf(phone: string): Promise<Row> {
  const answer = await t.app.http.get('/api/whatsapp/conversations').query({ q: phone }).set(marta.auth).expect(200);
  return answer.body.data[0] as Row;
}

const rowOf = (id: string) => t.app.http.get(`/api/whatsapp/conversations/${id}`).set(marta.auth).expect(200) as unknown as Promise<{ body: Row }>;

/** The inbox open and listening (the socket joined its rooms), as staff leave it open all day. */
async function openInbox(user: TestUser, path = '/whatsapp'): Promise<Page> {
  const page = await openConsole(browser, t.app, user, path);
  await page.getByRole('heading', { name: 'Conversaciones' }).waitFor();
  await page.getByRole('status').filter({ hasText: 'En vivo' }).waitFor();
  return page;
}

/** Opens a menu from its button by keyboard and moves down to the item named `name`, then Enter. */
async function chooseByKeyboard(page: Page, button: string, name: string): Promise<void> {
  await page.getByRole('button', { name: button }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('menuitem', { name }).waitFor();
  for (let step = 0; step < 8; step++) {
    if ((await page.evaluate('document.activeElement && document.activeElement.textContent')) === name) break;
    await page.keyboard.press('ArrowDown');
  }
  expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe(name);
  await page.keyboard.press('Enter');
}

const rows = (page: Page) => page.getByRole('list', { name: 'Conversaciones' }).getByRole('link');
const thread = (page: Page) => page.getByRole('log');

describe('the WhatsApp inbox', () => {
  it('shows a new message live within 3 s, reads it when opened, and sends a reply whose ticks move live', async () => {
    const page = await openInbox(marta);
    const phone = '573001112233';
    const posted = Date.now();
    await writes(phone, 'Ana María Rodríguez', 'Buenas tardes, ¿dónde queda la sede de la campaña en Chapinero?');
    const row = rows(page).filter({ hasText: 'Ana María Rodríguez' });
    await row.waitFor({ timeout: 3000 });
    const shownAfter = Date.now() - posted;
    process.stdout.write(`inbox: an inbound message reached the open inbox ${shownAfter} ms after the webhook was posted\n`);
    expect(shownAfter).toBeLessThan(3000);
    // Its unread count, said in words to a screen reader, and the inbox's total.
    expect(await row.textContent()).toContain('1 mensaje sin leer');
    await page
      .getByRole('status')
      .filter({ hasText: /sin leer/ })
      .first()
      .waitFor();
    const conversation = await conversationOf(phone);
    expect(conversation.unreadCount).toBe(1);

    await row.click();
    await page.waitForURL(`**/whatsapp/${conversation.id}`);
    await thread(page).getByText('¿dónde queda la sede de la campaña en Chapinero?', { exact: false }).waitFor();
    await until(async () => (await rowOf(conversation.id)).body.unreadCount === 0, 5000, 'read on opening');
    await until(async () => !(await row.textContent())?.includes('sin leer'), 5000, 'the badge gone');
    await page.getByText(/Ventana de 24 horas abierta hasta las \d\d:\d\d/).waitFor();

    // Enter sends; Shift+Enter was a new line.
    const box = page.getByRole('textbox', { name: 'Mensaje' });
    await box.fill('Hola Ana María, la sede queda en la Calle 57 # 9-20.');
    await box.press('Shift+Enter');
    await box.pressSequentially('Abrimos de 8 a. m. a 6 p. m.');
    await box.press('Enter');
    await until(async () => (await box.inputValue()) === '', 5000, 'the box emptied');
    await until(async () => t.fake.sendsTo(phone).length === 1, 10_000, 'the reply reaching the Cloud API');
    expect(t.fake.sendsTo(phone)[0]).toMatchObject({ type: 'text', text: 'Hola Ana María, la sede queda en la Calle 57 # 9-20.\nAbrimos de 8 a. m. a 6 p. m.' });
    // The fake reports sent then delivered by webhook; the inbox room's ticks move the reply without a reload.
    const reply = thread(page).getByRole('listitem').filter({ hasText: 'la sede queda en la Calle 57' });
    await reply.getByText('Entregado').waitFor({ timeout: 10_000 });
    await expect(rows(page).filter({ hasText: 'Ana María Rodríguez' }).textContent()).resolves.toContain('Usted: Hola Ana María');
    await page.context().close();
  });

  it('offers only approved templates outside the 24-hour window, and says so when the server refuses free text', async () => {
    const template = await approvedTemplate(t, {
      name: 'seguimiento_sede',
      body: 'Hola {{1}}, le escribimos de la campaña sobre {{2}}.',
      examples: ['Ana', 'la reunión del sábado'],
    });
    const phone = '573004445566';
    await writes(phone, 'Jorge Eliécer Pardo', 'Quiero ser testigo electoral en mi mesa, ¿cómo me inscribo?');
    const conversation = await conversationOf(phone);
    const page = await openInbox(marta, `/whatsapp/${conversation.id}`);
    const box = page.getByRole('textbox', { name: 'Mensaje' });
    await box.waitFor();
    await until(async () => (await rowOf(conversation.id)).body.unreadCount === 0, 5000, 'read on opening');

    // The window closes while the screen still shows it open: the server refuses, the screen says why.
    await t.app.runtime.deps.db.write(sql`update wa_conversations set last_inbound_at = now() - interval '25 hours' where id = ${conversation.id}::uuid`);
    await box.fill('Claro, le explico.');
    await box.press('Enter');
    await page.getByText('La ventana de 24 horas está cerrada', { exact: false }).first().waitFor();
    expect(t.fake.sendsTo(phone)).toHaveLength(0);

    await page.reload();
    // Outside the window a template needs consent, which someone who only wrote in has not given.
    await page.getByText('Esta persona no ha autorizado mensajes de WhatsApp', { exact: false }).waitFor();
    await t.app.runtime.deps.db.write(sql`update contacts set whatsapp_opt_in = true where id = ${conversation.contact.id}::uuid`);
    await page.reload();
    await page.getByLabel('Plantilla aprobada').waitFor();
    // No free text box at all: only a template can go.
    expect(await page.getByRole('textbox', { name: 'Mensaje' }).count()).toBe(0);
    await page
      .getByText(/Ventana de 24 horas cerrada/)
      .first()
      .waitFor();
    await page.getByLabel('Plantilla aprobada').selectOption(template.id);
    await page.getByRole('button', { name: 'Enviar plantilla' }).click();
    await page.getByText('Complete esta variable.').first().waitFor();
    await page.getByLabel('Variable {{1}}').fill('Jorge');
    await page.getByLabel('Variable {{2}}').fill('la inscripción de testigos');
    await page.getByText('Hola Jorge, le escribimos de la campaña sobre la inscripción de testigos.').waitFor();
    await page.getByRole('button', { name: 'Enviar plantilla' }).click();
    await until(async () => t.fake.sendsTo(phone).length === 1, 10_000, 'the template reaching the Cloud API');
    expect(t.fake.sendsTo(phone)[0]).toMatchObject({ type: 'template', template: { name: 'seguimiento_sede', params: ['Jorge', 'la inscripción de testigos'] } });
    await thread(page).getByText('Hola Jorge, le escribimos de la campaña sobre la inscripción de testigos.').waitFor();
    await page.context().close();
  });

  it('inserts a quick reply with `/`, rendered for the person, and manages quick replies from the keyboard', async () => {
    const phone = '573007778899';
    await writes(phone, 'Luz Dary Cárdenas', 'El alumbrado de la calle 45 lleva un mes dañado');
    const conversation = await conversationOf(phone);
    const page = await openInbox(marta, `/whatsapp/${conversation.id}`);
    const box = page.getByRole('textbox', { name: 'Mensaje' });
    await box.click();
    await box.pressSequentially('/sal');
    const option = page.getByRole('listbox', { name: 'Respuestas rápidas' }).getByRole('option', { name: /\/saludo/ });
    await option.waitFor();
    expect(await option.getAttribute('aria-selected')).toBe('true');
    await box.press('Enter');
    await expect(box.inputValue()).resolves.toBe('Hola Luz, gracias por escribir a la campaña. ¿En qué le podemos ayudar?');
    await box.press('Enter');
    await until(async () => t.fake.sendsTo(phone).length === 1, 10_000, 'the quick reply sent');
    expect(t.fake.sendsTo(phone)[0]!.text).toBe('Hola Luz, gracias por escribir a la campaña. ¿En qué le podemos ayudar?');

    // The management dialog, by keyboard only: open it from the actions menu, add one, close with Escape.
    await chooseByKeyboard(page, 'Más acciones', 'Respuestas rápidas…');
    const dialog = page.getByRole('dialog', { name: 'Respuestas rápidas' });
    await dialog.getByRole('cell', { name: '/saludo', exact: true }).waitFor();
    await dialog.getByLabel('Atajo').focus();
    await page.keyboard.press('End');
    await page.keyboard.type('horario');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Horario de la sede');
    await page.keyboard.press('Tab');
    await page.keyboard.type('{{primer_nombre}}, la sede abre de lunes a sábado de 8 a. m. a 6 p. m.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await dialog.getByRole('cell', { name: '/horario', exact: true }).waitFor();
    expect(await axeBlocking(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    const stored = await t.app.http.get('/api/whatsapp/quick-replies').query({ q: '/horario' }).set(marta.auth).expect(200);
    expect(stored.body.data).toEqual([expect.objectContaining({ shortcut: '/horario', title: 'Horario de la sede' })]);
    await page.context().close();
  });

  it('assigns to another manager, resolves, and files a PQRS from the conversation, by keyboard', async () => {
    const phone = '573002223344';
    await writes(phone, 'Carlos Andrés Mejía', 'La vía de la vereda El Salitre está intransitable desde las lluvias.');
    const conversation = await conversationOf(phone);
    const page = await openInbox(marta, `/whatsapp/${conversation.id}`);
    await thread(page).getByText('intransitable', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Asignar', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Julián Restrepo' }).click();
    await page.getByRole('button', { name: 'Asignada a Julián Restrepo' }).waitFor();
    expect((await rowOf(conversation.id)).body.assignedToId).toBe(julian.id);
    await rows(page).filter({ hasText: 'Carlos Andrés Mejía' }).filter({ hasText: 'Asignada a Julián Restrepo' }).waitFor();

    // Convertir en PQRS, from the keyboard: the menu, the dialog, its form.
    await chooseByKeyboard(page, 'Más acciones', 'Convertir en PQRS');
    const dialog = page.getByRole('dialog', { name: 'Convertir en PQRS' });
    await dialog.getByLabel('Tipo').waitFor();
    await dialog.getByLabel('Tipo').selectOption('queja');
    await dialog.getByRole('button', { name: 'Radicar PQRS' }).click();
    await dialog.getByText('Escriba el asunto (al menos 3 caracteres).').waitFor();
    await dialog.getByLabel('Asunto').fill('Vía de la vereda El Salitre intransitable');
    await dialog.getByLabel('Asunto').press('Enter');
    const open = dialog.getByRole('link', { name: /^Abrir PQRS-/ });
    await open.waitFor();
    const filed = await t.app.http.get('/api/pqrs').query({ contactId: conversation.contact.id }).set(marta.auth).expect(200);
    expect(filed.body.data).toEqual([expect.objectContaining({ type: 'queja', subject: 'Vía de la vereda El Salitre intransitable', channel: 'whatsapp' })]);
    expect(await open.getAttribute('href')).toBe(`/pqrs/${filed.body.data[0].id}`);
    expect(await axeBlocking(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // The person's panel lists it.
    await page
      .getByRole('complementary', { name: 'Ficha de la persona' })
      .getByRole('link', { name: /Vía de la vereda El Salitre/ })
      .waitFor();

    await page.getByRole('button', { name: 'Resolver' }).click();
    await page.getByRole('button', { name: 'Reabrir' }).waitFor();
    expect((await rowOf(conversation.id)).body.status).toBe('closed');
    // Out of the open conversations, into the closed ones.
    await rows(page).filter({ hasText: 'Carlos Andrés Mejía' }).waitFor({ state: 'detached' });
    await page.locator('label', { hasText: 'Cerradas' }).click();
    await rows(page).filter({ hasText: 'Carlos Andrés Mejía' }).waitFor();
    await page.context().close();
  });

  it('is not offered to a viewer, and a direct address says "Sin acceso"', async () => {
    const page = await openConsole(browser, t.app, viewer);
    const modules = (await page.getByRole('navigation', { name: 'Módulos' }).getByRole('link').allTextContents()).map((text) => text.trim());
    expect(modules.some((name) => name.startsWith('WhatsApp'))).toBe(false);
    await page.goto(`${t.app.url}/whatsapp`);
    await page.getByRole('heading', { name: 'Sin acceso' }).waitFor();
    await page.context().close();
  });

  it('switches conversations by keyboard, marks one unread, and passes axe with a conversation open', async () => {
    const page = await openInbox(marta);
    expect(await page.getByRole('navigation', { name: 'Módulos' }).getByRole('link', { name: 'WhatsApp', exact: true }).count()).toBe(1);
    const luz = rows(page).filter({ hasText: 'Luz Dary Cárdenas' });
    await luz.focus();
    await page.keyboard.press('Enter');
    const luzId = (await conversationOf('573007778899')).id;
    await page.waitForURL(`**/whatsapp/${luzId}`);
    await rows(page).filter({ hasText: 'Ana María Rodríguez' }).focus();
    await page.keyboard.press('Enter');
    const ana = await conversationOf('573001112233');
    await page.waitForURL(`**/whatsapp/${ana.id}`);
    await thread(page).getByText('¿dónde queda la sede', { exact: false }).waitFor();
    expect(await axeBlocking(page)).toEqual([]);

    await page.getByRole('button', { name: 'Más acciones' }).click();
    await page.getByRole('menuitem', { name: 'Marcar como no leída' }).click();
    await page.waitForURL(/\/whatsapp$/);
    await until(async () => (await rowOf(ana.id)).body.unreadCount === 1, 5000, 'marked unread');
    await until(async () => (await rows(page).filter({ hasText: 'Ana María Rodríguez' }).textContent())?.includes('1 mensaje sin leer') ?? false, 5000, 'the badge back');
    await page.context().close();
  });

  it('collapses on smaller screens: the person in a drawer on a laptop, one pane at a time on a phone', async () => {
    const ana = await conversationOf('573001112233');
    const page = await openInbox(marta, `/whatsapp/${ana.id}`);
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.getByRole('complementary', { name: 'Ficha de la persona' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Ficha de la persona' }).click();
    const drawer = page.getByRole('dialog', { name: 'Ficha de la persona' });
    await drawer.getByRole('link', { name: 'Ver ficha completa' }).waitFor();
    await page.waitForTimeout(400); // the drawer's slide, for the picture
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'console-whatsapp-laptop.png') });
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    await page.setViewportSize({ width: 390, height: 844 });
    await thread(page).waitFor();
    expect(await page.getByRole('list', { name: 'Conversaciones' }).isVisible()).toBe(false);
    await page.getByRole('link', { name: '← Conversaciones' }).click();
    await page.waitForURL(/\/whatsapp$/);
    await rows(page).filter({ hasText: 'Ana María Rodríguez' }).waitFor();
    expect(await page.getByRole('log').count()).toBe(0);
    await rows(page).filter({ hasText: 'Ana María Rodríguez' }).click();
    await thread(page).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'console-whatsapp-phone.png') });
    expect(await axeBlocking(page)).toEqual([]);
    await page.context().close();
  });

  it('looks like a working inbox (the screenshot for docs/screens-console-whatsapp.png)', async () => {
    const people: [string, string, string][] = [
      ['573105556677', 'Yolanda Pérez Ruiz', '¿Cuándo pasan por el barrio La Esperanza a recoger las firmas?'],
      ['573118889900', 'Hernán Darío Castaño', 'Buenas noches. Quisiera ofrecerme como voluntario para el día de elecciones.'],
    ];
    for (const [phone, name, text] of people) await writes(phone, name, text);
    await writes('573118889900', 'Hernán Darío Castaño', 'Tengo carro y puedo llevar gente a votar 🚗');
    const ana = await conversationOf('573001112233');
    await writes('573001112233', 'Ana María Rodríguez', '¡Muchas gracias! ¿Y el sábado también abren?');
    await t.app.http
      .patch(`/api/audience/contacts/${ana.contact.id}`)
      .set(marta.auth)
      .send({ tags: ['chapinero', 'voluntaria', 'líder comunal'] })
      .expect(200);
    await t.app.runtime.deps.db.write(sql`update contacts set neighbourhood = 'Chapinero Alto', whatsapp_opt_in = true where id = ${ana.contact.id}::uuid`);
    await t.app.http.patch(`/api/whatsapp/conversations/${ana.id}`).set(marta.auth).send({ assignedToId: marta.id }).expect(200);

    const page = await openInbox(marta, `/whatsapp/${ana.id}`);
    await thread(page).getByText('¿Y el sábado también abren?').waitFor();
    await page.getByRole('complementary', { name: 'Ficha de la persona' }).getByText('líder comunal').waitFor();
    const box = page.getByRole('textbox', { name: 'Mensaje' });
    await box.fill('Sí, el sábado abrimos de 9 a. m. a 1 p. m. ¡La esperamos!');
    await page.waitForTimeout(300);
    expect(await axeBlocking(page)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'console-whatsapp.png') });
    await page.context().close();
  });
});
