import { sql, type Sql } from '../../src/kernel/sql';
import type { TestApp } from '../helpers/app';
import type { TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

export const PUBLIC_BASE = 'https://comando.example.org';
export const TRACKING_SECRET = 'email-tracking-secret-for-tests-0123456789';

/** Settings every email test app uses: the fake SMTP server, fast retries, a public https base. */
export function emailEnv(smtpUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SMTP_URL: smtpUrl,
    PUBLIC_BASE_URL: PUBLIC_BASE,
    EMAIL_TRACKING_SECRET: TRACKING_SECRET,
    EMAIL_RETRY_BASE: '1',
    EMAIL_MACHINE_OPEN_SECONDS: '0',
    EMAIL_UNSUBSCRIBE_MAILTO: 'baja@ejemplo.co',
    ...extra,
  };
}

export { sql } from '../../src/kernel/sql';

/** Reads or writes the app's tables directly, for what the API does not show. */
export function query<T>(app: TestApp, statement: Sql<T>): Promise<T[]> {
  return app.runtime.deps.db.rows(statement);
}

export interface SeedOptions {
  prefix: string;
  count: number;
  emailOptIn?: boolean;
  interests?: string[];
  optedOut?: boolean;
}

/** Contacts written straight into the audience tables (the capture path is tested elsewhere). */
export async function seedContacts(app: TestApp, options: SeedOptions): Promise<void> {
  await query(
    app,
    sql`insert into contacts (id, identity_key, name, email, interests, whatsapp_opt_in, email_opt_in, email_opted_out_at, created_at, updated_at)
     select gen_random_uuid(), 'mail:' || ${options.prefix} || g || '@example.org', 'Persona' || g || ' Apellido', ${options.prefix} || g || '@example.org',
            ${options.interests ?? []}::text[], false, ${options.emailOptIn ?? true}::boolean, ${options.optedOut ? new Date() : null}::timestamptz, now(), now()
     from generate_series(1, ${options.count}::int) g`,
  );
}

export const MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hola {{contact.firstName}},</mj-text>
        <mj-text>Te contamos las propuestas de {{campaign.name}}.</mj-text>
        <mj-button href="https://ejemplo.co/propuestas?utm=correo&amp;x=1">Ver propuestas</mj-button>
        <mj-text><a href="https://ejemplo.co/agenda">Agenda</a> · <a href="{{unsubscribeUrl}}">Cancelar suscripción</a></mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

export async function createTemplate(app: TestApp, manager: TestUser, overrides: Record<string, unknown> = {}) {
  const response = await app.http
    .post('/api/email-marketing/templates')
    .set(manager.auth)
    .send({ name: 'Boletín', subject: 'Hola {{contact.firstName}}', mjml: MJML, ...overrides });
  if (response.status !== 201) throw new Error(`template: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; links: string[]; html: string; text: string; variables: string[] };
}

export function campaignBody(templateId: string, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Boletín de junio',
    fromName: 'Campaña Ejemplo',
    fromEmail: 'boletin@ejemplo.co',
    replyTo: 'equipo@ejemplo.co',
    segment: {},
    variants: [{ name: 'A', subject: 'Hola {{contact.firstName}}', templateId }],
    ...overrides,
  };
}

export async function createCampaign(app: TestApp, manager: TestUser, body: Record<string, unknown>) {
  const response = await app.http.post('/api/email-marketing/campaigns').set(manager.auth).send(body);
  if (response.status !== 201) throw new Error(`campaign: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; audienceSize: number; status: string };
}

/** Polls until the campaign reaches the state `check` accepts. */
export async function waitForCampaign(app: TestApp, campaignId: string, check: (row: { status: string; ab_phase: string }) => boolean, timeoutMs = 20_000) {
  return until(
    async () => {
      const [row] = await query(app, sql<{ status: string; ab_phase: string }>`select status, ab_phase from email_campaigns where id = ${campaignId}`);
      return row && check(row) ? row : undefined;
    },
    timeoutMs,
    'the campaign to reach the state',
  );
}

/** The tracking path (`/e/...`) of a URL found in a message. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}

export function linksIn(html: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!.replace(/&amp;/g, '&'));
}
