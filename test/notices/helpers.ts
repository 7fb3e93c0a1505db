import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import type { Queries } from '../../src/kernel/sql';
import { queueNotice, type NoticeRequest, type NoticeResult } from '../../src/modules/notices';
import type { TestApp } from '../helpers/app';

export interface PersonOptions {
  phone?: string | null;
  email?: string | null;
  whatsapp?: boolean;
  emailConsent?: boolean;
  erased?: boolean;
}

/** A contact written straight into the audience table; its id. */
export async function person(app: TestApp, options: PersonOptions): Promise<string> {
  const id = randomUUID();
  const phone = options.phone ?? null;
  const email = options.email ?? null;
  const identity = options.erased ? `erased:${id}` : phone ? `tel:${phone}` : `mail:${email}`;
  await app.runtime.deps.db.write(sql`
    insert into contacts (id, identity_key, name, phone, email, interests, whatsapp_opt_in, email_opt_in, erased_at, created_at, updated_at)
    values (${id}::uuid, ${identity}, 'Ana María Pérez', ${phone}, ${email}, '{}', ${options.whatsapp ?? false}, ${options.emailConsent ?? false},
            ${options.erased ? new Date() : null}::timestamptz, now(), now())`);
  return id;
}

export const REMINDER_TEMPLATE = { name: 'recordatorio_evento', body: 'Hola {{1}}, te esperamos el {{2}}.', examples: ['Ana', 'sábado'] };

export function reminder(contactId: string, overrides: Partial<NoticeRequest> = {}): NoticeRequest {
  return {
    key: `test:reminder-24h:${randomUUID()}:${contactId}`,
    contactId,
    purpose: 'agenda.reminder',
    channels: ['whatsapp', 'email'],
    whatsapp: { template: REMINDER_TEMPLATE.name, language: 'es', params: ['Ana', 'sábado 14 de marzo'] },
    email: {
      subject: 'Recordatorio: encuentro en el barrio',
      text: 'Hola Ana, te esperamos mañana a las 6 p. m.',
      html: '<p>Hola Ana, te esperamos <b>mañana</b> a las 6 p. m.</p>',
    },
    ...overrides,
  };
}

/** queueNotice in a transaction of its own, committed. */
export function queueCommitted(app: Pick<TestApp, 'runtime'>, request: NoticeRequest): Promise<NoticeResult> {
  return app.runtime.deps.db.transaction((tx: Queries) => queueNotice(tx, request));
}

export function rows<T>(app: TestApp, statement: ReturnType<typeof sql<T>>): Promise<T[]> {
  return app.runtime.deps.db.rows(statement);
}
