import { sql, type Sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';
import { FakeWhatsAppCloud, type FakeCloudOptions } from '../fakes/whatsapp-cloud';
import { until } from '../helpers/wait';

export const CLOUD = {
  token: 'test-cloud-token-0123456789',
  appSecret: 'test-app-secret-0123456789',
  phoneNumberId: '106540352242922',
  wabaId: '102290129340398',
  verifyToken: 'verify-token-123',
};

export interface WhatsAppTest {
  app: TestApp;
  fake: FakeWhatsAppCloud;
  admin: TestUser;
  manager: TestUser;
  close(): Promise<void>;
}

/** The app wired to the real Cloud API client, pointed at the local fake, which posts webhooks back to the app. */
export async function startWhatsAppTest(env: Record<string, string> = {}, fakeOptions: Partial<FakeCloudOptions> = {}): Promise<WhatsAppTest> {
  const fake = await new FakeWhatsAppCloud({ ...CLOUD, statuses: ['sent', 'delivered'], approveTemplatesAfterMs: 0, ...fakeOptions }).start();
  const app = await startTestApp({
    WHATSAPP_API_BASE_URL: fake.url,
    WHATSAPP_ACCESS_TOKEN: CLOUD.token,
    WHATSAPP_APP_SECRET: CLOUD.appSecret,
    WHATSAPP_PHONE_NUMBER_ID: CLOUD.phoneNumberId,
    WHATSAPP_WABA_ID: CLOUD.wabaId,
    WHATSAPP_VERIFY_TOKEN: CLOUD.verifyToken,
    WHATSAPP_RATE_PER_SECOND: '500',
    WHATSAPP_MESSAGING_TIER: 'unlimited',
    WHATSAPP_PAIR_INTERVAL: '1',
    ...env,
  });
  fake.setWebhookUrl(`${app.url}/api/whatsapp/webhook`);
  const admin = await registerAdmin(app);
  const manager = await createUser(app, admin, 'manager');
  return {
    app,
    fake,
    admin,
    manager,
    async close() {
      await fake.close();
      await app.close();
    },
  };
}

export interface SeedOptions {
  count: number;
  /** First phone: 300 000 0000 + offset. */
  offset?: number;
  interests?: string[];
  optIn?: boolean;
  territoryId?: string | null;
}

/** Contacts straight into the audience table (one statement): `+57300<7 digits>`, named "Persona <n>". */
export function seedContactsSql(options: SeedOptions): Sql<never> {
  const offset = options.offset ?? 0;
  return sql`insert into contacts (id, identity_key, name, phone, interests, territory_id, whatsapp_opt_in, email_opt_in, created_at, updated_at)
    select gen_random_uuid(), 'tel:+57300' || lpad((n + ${offset}::int)::text, 7, '0'), 'Persona ' || (n + ${offset}::int), '+57300' || lpad((n + ${offset}::int)::text, 7, '0'),
           ${options.interests ?? []}::text[], ${options.territoryId ?? null}::uuid, ${options.optIn ?? true}::boolean, false, now(), now()
    from generate_series(1, ${options.count}::int) n`;
}

export async function seedContacts(app: TestApp, options: SeedOptions): Promise<void> {
  await app.runtime.deps.db.write(seedContactsSql(options));
}

export const phoneDigits = (n: number) => `57300${String(n).padStart(7, '0')}`;

/** A template created through the API and approved by the fake's review webhook. */
export async function approvedTemplate(t: WhatsAppTest, body: Record<string, unknown> = {}): Promise<{ id: string; placeholders: number }> {
  const created = await t.app.http
    .post('/api/whatsapp/templates')
    .set(t.manager.auth)
    .send({
      name: `aviso_${Math.random().toString(36).slice(2, 8)}`,
      language: 'es',
      category: 'MARKETING',
      body: 'Hola {{1}}, te esperamos el {{2}}.',
      examples: ['Ana', 'sábado'],
      ...body,
    })
    .expect(201);
  await until(async () => {
    const row = await t.app.runtime.deps.db.first(sql<{ status: string }>`select status from wa_templates where id = ${created.body.id}::uuid`);
    return row?.status === 'APPROVED';
  });
  return created.body;
}

export async function statusCounts(app: TestApp, campaignId: string): Promise<Record<string, number>> {
  const rows = await app.runtime.deps.db.rows(
    sql<{ status: string; n: number }>`select status, count(*)::int as n from wa_messages where campaign_id = ${campaignId}::uuid group by status`,
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}
