import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
});
afterAll(() => app.close());

it('offers the barrios inside the campaign territory as choices on the landing page', async () => {
  const territory = async (body: object) => (await app.http.post('/api/territories').set(manager.auth).send(body).expect(201)).body.id as string;
  const city = await territory({ name: 'Bogotá', type: 'municipality' });
  const kennedy = await territory({ name: 'Kennedy', type: 'commune', parentId: city });
  await territory({ name: 'Timiza', type: 'neighbourhood', parentId: kennedy });
  await territory({ name: 'Fuera', type: 'neighbourhood' });
  const campaign = await createCampaign(app, manager, { territoryId: city });
  const [code] = await generateCodes(app, manager, campaign.id, { count: 1 });
  const page = await app.http.get(`/q/${code!.code}`).expect(200);
  expect(page.text).toContain('name="territoryId"');
  expect(page.text).toContain('Timiza');
  expect(page.text).not.toContain('Fuera');
});

describe('a lead who names no barrio', () => {
  it('is placed where the poster was put up, and a barrio named before or now is kept', async () => {
    const territory = async (body: object) => (await app.http.post('/api/territories').set(manager.auth).send(body).expect(201)).body.id as string;
    const city = await territory({ name: 'Medellín', type: 'municipality' });
    const comuna10 = await territory({ name: 'La Candelaria', type: 'commune', parentId: city });
    const prado = await territory({ name: 'Prado', type: 'neighbourhood', parentId: comuna10 });
    const campaign = await createCampaign(app, manager, { name: 'Afiches Comuna 10' });
    const [poster, unplaced] = await generateCodes(app, manager, campaign.id, { count: 2, placements: [{ label: 'Parque Berrío', territoryId: comuna10 }] });

    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(poster!.code, { name: 'Sin Barrio', phone: '300 555 0101', email: undefined }))
      .expect(201);
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(unplaced!.code, { name: 'Sin Afiche', phone: '300 555 0102', email: undefined }))
      .expect(201);
    const leads = (await app.http.get('/api/qr-leads').query({ campaignId: campaign.id }).set(manager.auth).expect(200)).body.data as {
      contact: { name: string };
      territoryId: string | null;
    }[];
    expect(leads.find((row) => row.contact.name === 'Sin Barrio')?.territoryId).toBe(comuna10);
    expect(leads.find((row) => row.contact.name === 'Sin Afiche')?.territoryId).toBeNull();

    // The people list by Comuna 10 (and so a segment by it) finds the poster's lead.
    const inComuna = (await app.http.get('/api/audience/contacts').query({ territoryId: comuna10 }).set(admin.auth).expect(200)).body.data as {
      name: string;
      territory: { id: string } | null;
    }[];
    expect(inComuna.map((person) => person.name)).toEqual(['Sin Barrio']);

    // A person whose barrio is known keeps it when they scan the poster again naming none; naming one replaces it.
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(unplaced!.code, { name: 'Con Barrio', phone: '300 555 0103', email: undefined, territoryId: prado }))
      .expect(201);
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(poster!.code, { name: 'Con Barrio', phone: '300 555 0103', email: undefined }))
      .expect(200);
    const placeOf = async (name: string) =>
      ((await app.http.get('/api/audience/contacts').query({ q: name }).set(admin.auth).expect(200)).body.data as { territory: { id: string } | null }[])[0]?.territory?.id;
    expect(await placeOf('Con Barrio')).toBe(prado);
    await app.http
      .post('/api/qr-leads/capture')
      .send(lead(poster!.code, { name: 'Sin Barrio', phone: '300 555 0101', email: undefined, territoryId: prado }))
      .expect(200);
    expect(await placeOf('Sin Barrio')).toBe(prado);
  });
});
