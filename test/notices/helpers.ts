import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import type { Queries } from '../../src/kernel/sql';
import { queueNotice, type NoticeRequest, type NoticeResult } from '../../src/modules/notices';
import type { TestApp } from '../helpers/app';
import { contact, type ContactOptions } from '../helpers/factories';

/** A contact registered through audience with the consents given (test/helpers/factories.ts); its id. */
export async function person(app: Pick<TestApp, 'runtime'>, options: ContactOptions): Promise<string> {
  return (await contact(app, options)).id;
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
