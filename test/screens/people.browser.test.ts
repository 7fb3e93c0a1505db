/**
 * The console's People screens in headless Chromium against a listening test app (with the fake
 * WhatsApp Cloud API posting signed webhooks): a citizen who filed a PQRS and wrote on WhatsApp is
 * found by her phone typed two ways and her page shows both; a supporters' file is previewed, its
 * two bad rows listed by line on the dry run with nothing written, then imported; a correction to a
 * phone another person holds offers the merge, the merge moves that person's request and the undo
 * puts it back; consent is withdrawn and the person's data exported and erased through their
 * dialogs, after which search no longer finds her. axe on every screen, the main actions by
 * keyboard, and a viewer kept out. Leaves screenshots in test-artifacts/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { signBody } from '../fakes/whatsapp-cloud';
import { createUser, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';
import { CLOUD, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { assertBuilt, launchChromium } from './campaign';
import { axeSettled, openConsole } from './console';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

jest.setTimeout(90_000);

let t: WhatsAppTest;
let browser: Browser;
let manager: TestUser;
let viewer: TestUser;

/** The citizen the screens look for, and another record that turns out to be her. */
const CAMILA = {
  name: 'Camila Rojas Peña',
  phone: '+57 300 123 4567',
  email: 'camila.rojas@example.org',
  subject: 'Hueco en la calle 45',
  text: 'Hola, ¿cuándo arreglan el hueco de la 45?',
};
const OTHER = { name: 'Cami Rojas', phone: '310 555 0199', email: 'camila.rojas@example.org', subject: 'Poste caído en la esquina' };
let camilaId: string;
let otherId: string;

const http = () => t.app.http;

interface Timeline {
  data: { module: string; kind: string; title: string; detail: Record<string, unknown> | null }[];
}

async function person(id: string): Promise<{ status: number; body: { name: string; consent: { whatsapp: string }; timeline: Timeline; notes: { text: string }[] } }> {
  const response = await http().get(`/api/audience/contacts/${id}`).set(manager.auth);
  return { status: response.status, body: response.body };
}

async function search(q: string): Promise<{ id: string; name: string }[]> {
  return (await http().get('/api/audience/contacts').query({ q }).set(manager.auth).expect(200)).body.data;
}

async function fileRequest(who: { name: string; phone: string; email: string; subject: string }): Promise<void> {
  await http()
    .post('/api/pqrs')
    .send({
      type: 'peticion',
      subject: who.subject,
      description: 'Lleva semanas así y nadie responde en la alcaldía.',
      name: who.name,
      phone: who.phone,
      email: who.email,
      consent: true,
      whatsappOptIn: true,
    })
    .expect(201);
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  assertBuilt();
  t = await startWhatsAppTest();
  manager = t.manager;
  viewer = await createUser(t.app, t.admin, 'viewer');
  browser = await launchChromium();

  // Camila files a request on the public form, then writes to the campaign's WhatsApp number.
  await fileRequest(CAMILA);
  camilaId = (await search('3001234567'))[0]!.id;
  const payload = JSON.stringify(t.fake.inboundPayload('573001234567', { type: 'text', text: { body: CAMILA.text } }, 'Camila'));
  await http().post('/api/whatsapp/webhook').set('Content-Type', 'application/json').set('X-Hub-Signature-256', signBody(CLOUD.appSecret, payload)).send(payload).expect(200);
  await until(async () => (await person(camilaId)).body.timeline.data.some((item) => item.kind === 'message_in'), 10_000, 'the WhatsApp message on her page');

  // Another request, from another phone but her email: the same person, held twice.
  await fileRequest(OTHER);
  otherId = (await search('3105550199'))[0]!.id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('people screens', () => {
  it('finds a person by her phone typed any way, by keyboard, and her page shows her PQRS and WhatsApp message', async () => {
    const page = await openConsole(browser, t.app, manager, '/personas');
    await page.getByRole('heading', { name: 'Personas', level: 1 }).waitFor();
    await page.getByRole('link', { name: CAMILA.name }).waitFor();
    expect(await axeSettled(page)).toEqual([]);

    // Typed and sent from the keyboard: the search box, Enter.
    const box = page.getByRole('searchbox', { name: 'Buscar' });
    for (const typed of ['3001234567', '300-123-4567']) {
      await box.focus();
      await box.fill('');
      await page.keyboard.type(typed);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.searchParams.get('q') === typed);
      const rows = page.getByRole('table', { name: 'Personas' }).getByRole('row');
      await rows.filter({ hasText: CAMILA.name }).waitFor();
      await until(async () => (await rows.count()) === 2, 10_000, 'one person found');
      await rows.filter({ hasText: '+57 300 123 4567' }).waitFor();
    }
    // The filter is the address: going back shows the previous search again.
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('q') === '3001234567');
    // The box follows the address's history entry: it shows the earlier search once React has redrawn it.
    await until(async () => (await box.inputValue()) === '3001234567', 10_000, 'the search box to show the earlier search');
    // A filter narrows the search, and Back takes it off again.
    await page.getByRole('combobox', { name: 'WhatsApp' }).click();
    await page.getByRole('option', { name: 'Retiró la autorización' }).click();
    await page.waitForURL((url) => url.searchParams.get('whatsapp') === 'opted_out' && url.searchParams.get('q') === '3001234567');
    await page.getByText('Nadie coincide con esta búsqueda y estos filtros.').waitFor();
    await page.goBack();
    await page.getByRole('link', { name: CAMILA.name }).waitFor();
    // Too little to search by is said in Spanish.
    await box.fill('ab');
    await box.press('Enter');
    await page.getByRole('alert').getByText('Escriba al menos 3 letras de un nombre').waitFor();
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('q') === '3001234567');

    await shot(page, 'people-list');
    // The CSV of the current filter, fetched with the session (no token in the address).
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exportar CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^personas-filtradas-3001234567-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(readFileSync((await download.path())!, 'utf8')).toContain(CAMILA.name);

    // Opened by keyboard.
    await page.getByRole('link', { name: CAMILA.name }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: CAMILA.name, level: 1 }).waitFor();
    expect(await page.title()).toBe(`${CAMILA.name} · Comando`);
    const history = page.getByRole('region', { name: 'Historia en todos los módulos' });
    await history.getByText(new RegExp(`radicada \\(petición\\): ${CAMILA.subject}`)).waitFor();
    await history.getByText(CAMILA.text).waitFor();
    await history.getByText('Mensaje recibido').waitFor();
    expect(await history.getByText('PQRS', { exact: true }).count()).toBeGreaterThan(0);
    // The exact time is in each fact's title.
    expect(await history.locator('time').first().getAttribute('title')).toMatch(/\d{4}.*\d{2}:\d{2}/);
    await page.getByRole('region', { name: 'Corregir datos' }).waitFor();
    expect(await axeSettled(page)).toEqual([]);
    await shot(page, 'people-person');

    // A note, written and shown with its author, in her history too; then deleted by its author.
    const notes = page.getByRole('region', { name: 'Notas del equipo' });
    await notes.getByLabel('Nueva nota').fill('Prefiere que la llamen en la tarde.');
    await notes.getByRole('button', { name: 'Agregar nota' }).click();
    await notes.getByText('Prefiere que la llamen en la tarde.').waitFor();
    await notes.getByText(/^A manager ·/).waitFor();
    await history.getByText('Prefiere que la llamen en la tarde.').waitFor();
    await notes.getByRole('button', { name: /^Borrar la nota/ }).click();
    await page.getByRole('dialog', { name: 'Borrar la nota' }).getByRole('button', { name: 'Borrar nota' }).click();
    await notes.getByText('Aún no hay notas.').waitFor();

    // Tags, written as staff type them.
    const tags = page.getByRole('region', { name: 'Etiquetas' });
    await tags.getByLabel('Etiquetas de la persona').fill('Líder');
    await page.keyboard.press('Enter');
    await tags.getByRole('button', { name: 'Guardar etiquetas' }).click();
    await page.getByRole('region', { name: 'Datos de la persona' }).getByText('líder', { exact: true }).waitFor();
    expect((await http().get(`/api/audience/contacts/${camilaId}`).set(manager.auth).expect(200)).body.tags).toEqual(['líder']);
    await page.context().close();
  });

  it('previews a file, lists both bad rows by line on the dry run writing nothing, then imports the rest', async () => {
    const page = await openConsole(browser, t.app, manager, '/personas/importar');
    await page.getByRole('heading', { name: 'Importar personas' }).waitFor();
    await page.getByRole('region', { name: 'Columnas que se leen' }).getByText('autorizaWhatsapp').waitFor();
    const csv = [
      'nombre,telefono,correo,cedula,autoriza_whatsapp,etiquetas',
      'Andrés Gómez,300 765 4321,andres.gomez@example.org,1020304050,si,líder',
      'Beatriz Ortiz,301 222 3344,,,no,',
      'X,312 000 1111,,,no,',
      'Carlos Ruiz,123,,,no,',
      'Diana Peña,,diana.pena@example.org,,no,transporte',
    ].join('\n');
    await page.locator('input[type="file"]').setInputFiles({ name: 'simpatizantes.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
    const preview = page.getByRole('region', { name: 'Vista previa del archivo' });
    await preview.getByText('5 filas de datos', { exact: false }).waitFor();
    await preview.getByRole('cell', { name: 'Andrés Gómez' }).waitFor();
    await preview.getByRole('cell', { name: 'Carlos Ruiz' }).waitFor();
    expect(await page.getByRole('button', { name: 'Importar' }).isDisabled()).toBe(true);

    await page.getByLabel('Texto que aceptaron').fill('Autorizo a la campaña a escribirme por WhatsApp sobre sus actividades (Ley 1581 de 2012).');
    await page.getByLabel('Cómo y dónde se recogió').fill('Planilla firmada en el evento del 12/10 en Bosa');
    await page.getByRole('button', { name: 'Revisar' }).click();
    const outcome = page.getByRole('region', { name: 'Revisión: así quedaría' });
    const errors = outcome.getByRole('region', { name: 'Errores por línea' });
    await errors.getByRole('heading', { name: 'Errores por línea (2)' }).waitFor();
    const line = (n: number) => errors.getByRole('row').filter({ has: page.getByRole('cell', { name: String(n), exact: true }) });
    await line(4).getByText('Nombre: es obligatorio, con al menos 2 caracteres').waitFor();
    await line(5).getByText('Teléfono: no es un número válido').waitFor();
    expect(await errors.getByRole('row').count()).toBe(3);
    await outcome.getByText('Se crearían').waitFor();
    expect(await axeSettled(page)).toEqual([]);
    await shot(page, 'people-import');
    // A dry run: nobody written.
    expect(await search('Andrés Gómez')).toEqual([]);
    expect(await search('diana.pena@example.org')).toEqual([]);

    await page.getByRole('button', { name: 'Importar' }).click();
    const done = page.getByRole('region', { name: 'Importación terminada' });
    await done.getByText('Se importaron 3 personas; 2 filas con errores quedaron por fuera.').waitFor();
    // The hint to review first belongs before an import, not beside its result.
    expect(await page.getByText('Revise el archivo antes de importarlo.').count()).toBe(0);
    expect(await search('Andrés Gómez')).toHaveLength(1);
    expect(await search('diana.pena@example.org')).toHaveLength(1);
    expect(await search('Carlos Ruiz')).toEqual([]);
    await page.context().close();
  });

  it('turns a correction to a phone another person holds into a merge, which moves her request and is undone', async () => {
    const page = await openConsole(browser, t.app, manager, `/personas/${camilaId}`);
    const correction = page.getByRole('region', { name: 'Corregir datos' });
    await correction.getByLabel('Teléfono').fill(OTHER.phone);
    await correction.getByRole('button', { name: 'Guardar corrección' }).click();
    const conflict = correction.getByRole('alert').filter({ hasText: 'Otra persona ya tiene este teléfono' });
    await conflict.getByRole('link', { name: OTHER.name }).waitFor();
    // The phone stayed where it was.
    expect((await http().get(`/api/audience/contacts/${camilaId}`).set(manager.auth).expect(200)).body.phone).toBe('+573001234567');

    await conflict.getByRole('link', { name: 'Fusionar las dos personas' }).click();
    await page.getByRole('heading', { name: 'Duplicados y fusiones' }).waitFor();
    const compare = page.getByRole('region', { name: 'Comparar y fusionar' });
    await compare.getByRole('article', { name: OTHER.name }).waitFor();
    // The pair is among the candidates too, with its reason in words.
    await page.getByRole('region', { name: 'Posibles duplicados' }).getByText('Mismo correo').first().waitFor();
    expect(await axeSettled(page)).toEqual([]);
    await shot(page, 'people-duplicates');

    await compare.getByRole('button', { name: 'Fusionar' }).click();
    const dialog = page.getByRole('dialog', { name: 'Fusionar dos registros de la misma persona' });
    await dialog.getByText(/Se puede deshacer durante 24 horas/).waitFor();
    await dialog.getByRole('radio', { name: CAMILA.name }).check();
    // Two phones: an authorisation holds for its own number, so the dialog says which one stays.
    await dialog.getByText(`WhatsApp: queda el teléfono de ${CAMILA.name} (+57 300 123 4567).`, { exact: false }).waitFor();
    expect(await axeSettled(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Fusionar' }).click();
    await page.getByRole('status').filter({ hasText: 'Fusionadas' }).first().waitFor();

    // Her other record is gone into hers, with its request.
    expect((await person(otherId)).status).toBe(404);
    const merged = (await person(camilaId)).body.timeline.data.map((item) => item.title);
    expect(merged.some((title) => title.includes(OTHER.subject))).toBe(true);
    // Her old record's address says where she is now.
    expect((await person(otherId)).body).toMatchObject({ code: 'contact_merged', mergedIntoId: camilaId });
    await page.goto(`${t.app.url}/personas/${otherId}`);
    await page.getByRole('heading', { name: 'Registro fusionado' }).waitFor();
    expect(await page.getByRole('link', { name: 'Ver a la persona' }).getAttribute('href')).toBe(`/personas/${camilaId}`);
    expect(await axeSettled(page)).toEqual([]);
    await page.goto(`${t.app.url}/personas/duplicados`);

    const merges = page.getByRole('table', { name: 'Fusiones recientes' });
    await merges
      .getByRole('row')
      .filter({ hasText: CAMILA.name })
      .getByText(/Se puede deshacer hasta el/)
      .waitFor();
    await merges.getByRole('button', { name: /^Deshacer la fusión/ }).click();
    const undo = page.getByRole('dialog', { name: 'Deshacer la fusión' });
    await undo.getByRole('button', { name: 'Deshacer la fusión' }).click();
    await merges.getByRole('row').filter({ hasText: CAMILA.name }).getByText('Deshecha').waitFor();

    // Each record has its own request again.
    const restored = await person(otherId);
    expect(restored.status).toBe(200);
    expect(restored.body.timeline.data.some((item) => item.title.includes(OTHER.subject))).toBe(true);
    expect((await person(camilaId)).body.timeline.data.some((item) => item.title.includes(OTHER.subject))).toBe(false);
    await page.context().close();
  });

  it('records a withdrawal, exports and erases the person through their dialogs, by keyboard; then search no longer finds her', async () => {
    const page = await openConsole(browser, t.app, manager, `/personas/${camilaId}`);
    const consent = page.getByRole('region', { name: 'Autorizaciones y datos personales' });
    await consent.getByText('Autorizado').first().waitFor();
    // The exact text she agreed to, opened from its summary.
    await consent.getByText('Texto que aceptó').first().click();

    // Opened and confirmed from the keyboard.
    await consent.getByRole('button', { name: 'Registrar retiro' }).focus();
    await page.keyboard.press('Enter');
    const withdrawal = page.getByRole('dialog', { name: 'Registrar retiro de autorización' });
    await withdrawal.getByLabel('Cómo lo pidió').focus();
    await page.keyboard.type('Llamó a la sede y pidió que no le escriban más por WhatsApp.');
    await withdrawal.getByRole('button', { name: 'Registrar retiro' }).focus();
    await page.keyboard.press('Enter');
    await withdrawal.waitFor({ state: 'hidden' });
    await consent.getByText('Retiró la autorización').first().waitFor();
    await consent.getByText('Evidencia: Llamó a la sede y pidió que no le escriban más por WhatsApp.').waitFor();
    expect((await person(camilaId)).body.consent.whatsapp).toBe('opted_out');

    await consent.getByRole('button', { name: 'Exportar datos' }).click();
    const exporting = page.getByRole('dialog', { name: 'Exportar datos personales' });
    await exporting.getByText(/queda registrada en la auditoría/).waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), exporting.getByRole('button', { name: 'Descargar sus datos' }).click()]);
    expect(file.suggestedFilename()).toMatch(/^datos-personales-camila-rojas-peña-\d{4}-\d{2}-\d{2}\.json$/);
    expect(JSON.parse(readFileSync((await file.path())!, 'utf8')).contact.name).toBe(CAMILA.name);

    // A staff note on another person names her in full, with her number.
    await http().post(`/api/audience/contacts/${otherId}/notes`).set(manager.auth).send({ text: 'Prima de Camila Rojas Peña; su número es 300 123 4567.' }).expect(201);
    await consent.getByRole('button', { name: 'Suprimir datos' }).click();
    const erasure = page.getByRole('dialog', { name: 'Suprimir los datos de esta persona' });
    await erasure.getByText('Se conserva, sin nada que la identifique').waitFor();
    const confirm = erasure.getByRole('button', { name: 'Suprimir datos' });
    expect(await confirm.isDisabled()).toBe(true);
    await erasure.getByLabel(/Para confirmar/).fill('camila rojas pena');
    expect(await confirm.isDisabled()).toBe(false);
    expect(await axeSettled(page)).toEqual([]);
    await confirm.click();
    await page.getByRole('heading', { name: 'Datos suprimidos' }).waitFor();
    await page.getByText('Los datos de esta persona fueron suprimidos').waitFor();
    expect((await person(camilaId)).status).toBe(404);
    // The note lost her number; it still names her, so the notice sends staff to read it.
    const mention = page.getByRole('link', { name: 'Nota del equipo sobre otra persona (Personas)' });
    expect(await mention.getAttribute('href')).toBe(`/personas/${otherId}`);
    expect(await axeSettled(page)).toEqual([]);
    expect((await person(otherId)).body.notes.map((note) => note.text)).toContain('Prima de Camila Rojas Peña; su número es (dato suprimido).');

    await page.getByRole('link', { name: 'Volver a Personas' }).click();
    const box = page.getByRole('searchbox', { name: 'Buscar' });
    await box.fill('3001234567');
    await box.press('Enter');
    await page.getByText('Nadie coincide con esta búsqueda y estos filtros.').waitFor();
    expect(await search('3001234567')).toEqual([]);
    await page.context().close();
  });

  it('is not there for a viewer: no menu entry, and the address says there is no access', async () => {
    const page = await openConsole(browser, t.app, viewer, '/personas');
    await page.getByRole('heading', { name: 'Sin acceso' }).waitFor();
    const modules = await page.getByRole('navigation', { name: 'Módulos' }).getByRole('link').allTextContents();
    expect(modules.some((name) => name.trim().startsWith('Personas'))).toBe(false);
    await page.context().close();
  });
});
