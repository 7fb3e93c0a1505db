import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes } from '../helpers/qr';
import { createUser, registerAdmin } from '../helpers/users';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('offers the barrios inside the campaign territory as choices on the landing page', async () => {
  const admin = await registerAdmin(app);
  const manager = await createUser(app, admin, 'manager');
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
