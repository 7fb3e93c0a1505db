import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../kernel/errors';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { contactGreeting } from '../audience';
import { findTemplate, insertTemplate, templatePage } from './email.campaigns.repository';
import type { EmailTemplate } from './email.entities';
import { presentTemplate, presentTemplateSummary } from './email.presenter';
import { compileTemplate, renderBody, renderSubject, splitName, type RenderContext } from './email.templates';

export async function createTemplate(em: EntityManager, input: { name: string; subject: string; mjml?: string | undefined; html?: string | undefined }) {
  const compiled = await compileTemplate(input);
  const template = await insertTemplate(em, {
    name: input.name,
    subject: input.subject,
    sourceKind: input.mjml !== undefined ? 'mjml' : 'html',
    source: input.mjml ?? input.html!,
    ...compiled,
  });
  return presentTemplate(template);
}

export async function getTemplate(em: EntityManager, id: string): Promise<EmailTemplate> {
  const template = await findTemplate(em, id);
  if (!template) throw new NotFoundError('No such email template.');
  return template;
}

export function listTemplates(em: EntityManager, page: PageRequest) {
  return templatePage(em, page, presentTemplateSummary);
}

const SAMPLE = { name: 'Ana María Rojas', email: 'ana.rojas@example.org' };

/**
 * The template as a recipient would see it, for a real contact or a sample one. Links show as
 * they were written (not tracked) so a preview never counts as a click.
 */
export async function previewTemplate(em: EntityManager, db: Queries, id: string, contactId: string | undefined) {
  const template = await getTemplate(em, id);
  let person = SAMPLE;
  if (contactId) {
    const contact = await contactGreeting(db, contactId);
    if (!contact) throw new NotFoundError('No such contact.');
    person = { name: contact.name, email: contact.email ?? '' };
  }
  const context: RenderContext = {
    contact: { ...splitName(person.name), name: person.name, email: person.email },
    campaign: { name: template.name },
    unsubscribeUrl: '#cancelar-suscripcion',
    tracking: { pixel: 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEAAAAALAAAAAABAAEAAAIBAAA=', ...Object.fromEntries(template.links.map((url, index) => [`link${index}`, url])) },
  };
  const body = renderBody(template, context);
  return { subject: renderSubject(template.subject, context), html: body.html, text: body.text, sample: !contactId };
}
