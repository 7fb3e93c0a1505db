import type { AppDeps } from '../../kernel/context';
import { AppError, NotFoundError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { contactGreeting } from '../audience';
import { findTemplate, insertTemplate, templatePage, type TemplateRecord } from './email.campaigns.repository';
import { presentTemplate, presentTemplateSummary } from './email.presenter';
import { compileTemplate, renderBody, renderDraft, renderSubject, splitName, type RenderContext } from './email.templates';
import { createMailer } from './providers/mailer';
import { mapPage } from '../../kernel/pagination';

export async function createTemplate(q: Queries, input: { name: string; subject: string; mjml?: string | undefined; html?: string | undefined }) {
  const compiled = await compileTemplate(input);
  const template = await insertTemplate(q, {
    name: input.name,
    subject: input.subject,
    sourceKind: input.mjml !== undefined ? 'mjml' : 'html',
    source: input.mjml ?? input.html!,
    ...compiled,
  });
  return presentTemplate(template);
}

export async function getTemplate(q: Queries, id: string): Promise<TemplateRecord> {
  const template = await findTemplate(q, id);
  if (!template) throw new NotFoundError('No such email template.');
  return template;
}

export async function listTemplates(q: Queries, page: PageRequest) {
  const found = await templatePage(q, page);
  return mapPage(found, presentTemplateSummary);
}

const SAMPLE = { name: 'Ana María Rojas', email: 'ana.rojas@example.org' };
const PIXEL = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEAAAAALAAAAAABAAEAAAIBAAA=';

function sampleContext(person: { name: string; email: string }, campaignName: string, links: string[]): RenderContext {
  return {
    contact: { ...splitName(person.name), name: person.name, email: person.email },
    campaign: { name: campaignName },
    unsubscribeUrl: '#cancelar-suscripcion',
    tracking: { pixel: PIXEL, ...Object.fromEntries(links.map((url, index) => [`link${index}`, url])) },
  };
}

/** A draft (not saved) rendered for the sample person, with its problems by line: the editor's live preview. */
export function previewDraft(input: { subject: string; mjml?: string | undefined; html?: string | undefined }) {
  return renderDraft(input, sampleContext(SAMPLE, 'Campaña de ejemplo', []));
}

/** Test sends per staff member per hour: enough to proof a newsletter, too few to mail a list. */
const TEST_SENDS_PER_HOUR = 30;

/**
 * The saved template, filled in for the sample person, sent once to `to` through the configured
 * SMTP (or the outbox) and waited for: the answer says whether the server took it. It goes to no
 * contact, so it has no tracking and no List-Unsubscribe, and its subject says it is a test.
 */
export async function sendTestMessage(deps: AppDeps, actorId: string, id: string, to: string) {
  const template = await getTemplate(deps.db, id);
  await deps.rateLimits
    .named('email-test-send', { points: TEST_SENDS_PER_HOUR, windowSeconds: 3600 })
    .consume(actorId, `At most ${TEST_SENDS_PER_HOUR} test sends an hour per person.`);
  const context = sampleContext(SAMPLE, template.name, template.links);
  const body = renderBody(template, context);
  const from = deps.config.email.from;
  const messageId = `<${newId()}@${from.email.split('@')[1] ?? 'localhost'}>`;
  const subject = `[Prueba] ${renderSubject(template.subject, context)}`;
  const mailer = createMailer(deps.config.email, deps.files);
  try {
    const outcome = await mailer.send({
      fromName: from.name,
      fromEmail: from.email,
      to,
      replyTo: null,
      subject,
      html: body.html,
      text: body.text,
      messageId,
      unsubscribeUrl: null,
      campaignId: null,
    });
    if (outcome.kind === 'retry') throw new AppError(503, 'smtp_unavailable', 'SMTP unavailable', `The mail server did not take the message now: ${outcome.detail}`);
    if (outcome.kind !== 'sent') throw new AppError(502, 'smtp_refused', 'SMTP refused', `The mail server refused the message: ${outcome.detail}`);
  } finally {
    mailer.close();
  }
  deps.logger.info({ templateId: id }, 'email test message sent');
  return { subject, messageId };
}

/**
 * The template as a recipient would see it, for a real contact or a sample one. Links show as
 * they were written (not tracked) so a preview never counts as a click.
 */
export async function previewTemplate(db: Queries, id: string, contactId: string | undefined) {
  const template = await getTemplate(db, id);
  let person = SAMPLE;
  if (contactId) {
    const contact = await contactGreeting(db, contactId);
    if (!contact) throw new NotFoundError('No such contact.');
    person = { name: contact.name, email: contact.email ?? '' };
  }
  const context = sampleContext(person, template.name, template.links);
  const body = renderBody(template, context);
  return { subject: renderSubject(template.subject, context), html: body.html, text: body.text, sample: !contactId };
}
