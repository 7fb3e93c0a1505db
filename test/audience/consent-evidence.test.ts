import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

/**
 * Consent records are evidence (Ley 1581 de 2012): the text a person agreed to can be neither
 * rewritten nor removed, by the application or by anyone with SQL.
 */
let app: TestApp;
let textId: string;
let manager: TestUser;

const db = () => app.runtime.deps.db;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  const campaign = await createCampaign(app, manager);
  const [code] = await generateCodes(app, manager, campaign.id, { count: 1 });
  await app.http
    .post('/api/qr-leads/capture')
    .send(lead(code!.code, { phone: '3001234567' }))
    .expect(201);
  const [consent] = await db().rows(sql<{ text_id: string }>`select text_id from consents`);
  textId = consent!.text_id;
});
afterAll(() => app.close());

it('records each capture against the exact stored text', async () => {
  const row = await db().first(
    sql<{ consents: number; text: string }>`select count(*)::int as consents, (select text from consent_texts where id = ${textId}) as text
      from consents where text_id = ${textId}`,
  );
  expect(row!.consents).toBe(1);
  expect(row!.text.length).toBeGreaterThan(20);
});

it('refuses to rewrite or delete a consent text', async () => {
  await expect(db().write(sql`update consent_texts set text = 'otro texto' where id = ${textId}`)).rejects.toThrow(/append-only/);
  await expect(db().write(sql`delete from consent_texts where id = ${textId}`)).rejects.toThrow(/append-only/);
  const row = await db().first(sql<{ n: number }>`select count(*)::int as n from consent_texts where id = ${textId}`);
  expect(row!.n).toBe(1);
});

it('still stores a known text again as the same version (the upsert changes nothing)', async () => {
  const before = await db().first(sql<{ n: number }>`select count(*)::int as n from consent_texts`);
  const again = await createCampaign(app, manager);
  const after = await db().first(sql<{ n: number }>`select count(*)::int as n from consent_texts`);
  expect(after!.n).toBe(before!.n);
  expect(again.consentTextId).toBe(textId);
});
