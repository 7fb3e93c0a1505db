import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError } from '../../kernel/errors';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { whatsapp } from './whatsapp.context';
import type { TemplateStatus } from './whatsapp.entities';
import { presentTemplate } from './whatsapp.presenter';
import * as repository from './whatsapp.templates.repository';
import { checkPlaceholders, type CreateTemplateInput } from './whatsapp.schemas';
import { ProviderError } from './providers/provider';

/** Registers the template with the provider, then keeps it with the status the provider gave. */
export async function createTemplate(deps: AppDeps, actor: Actor, input: CreateTemplateInput) {
  if (await repository.templateNamed(deps.db, input.name, input.language))
    throw new ConflictError(`A template named ${input.name} in ${input.language} exists already.`, 'template_exists');
  const placeholders = checkPlaceholders(input.body) as number;
  const draft = {
    name: input.name,
    language: input.language,
    category: input.category,
    body: input.body,
    header: input.header ?? null,
    footer: input.footer ?? null,
    buttons: input.buttons,
    examples: input.examples,
  };
  // Kept before the provider hears of it, so a review webhook that beats the provider's answer finds it (by name and language).
  let id: string;
  try {
    id = await repository.insertTemplate(deps.db, { ...draft, placeholders }, actor.id);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`A template named ${input.name} in ${input.language} exists already.`, 'template_exists');
    throw error;
  }
  let created;
  try {
    created = await whatsapp(deps).provider.createTemplate(draft);
  } catch (error) {
    await repository.removeTemplate(deps.db, id);
    if (error instanceof ProviderError) throw new AppError(502, 'provider_error', 'WhatsApp provider error', `The provider refused the template: ${error.message}`);
    throw new AppError(502, 'provider_unreachable', 'WhatsApp provider unreachable', 'The WhatsApp provider could not be reached; try again.');
  }
  await repository.recordProviderTemplate(deps.db, id, created.providerTemplateId, created.status);
  return presentTemplate((await repository.findTemplate(deps.db, id))!);
}

export function listTemplates(q: Queries, query: PageRequest & { status?: TemplateStatus | undefined }) {
  const { cursor, limit, status } = query;
  return repository.templatePage(q, status, { cursor, limit }, presentTemplate);
}
