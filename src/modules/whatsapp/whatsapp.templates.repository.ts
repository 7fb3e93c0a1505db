import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { sql, type Queries } from '../../kernel/sql';
import { UserSchema } from '../auth';
import { WaTemplateSchema, type TemplateStatus, type WaTemplate } from './whatsapp.entities';

// Message templates: kept before the provider hears of them, then updated with its answer and by
// its review webhooks.

export type TemplateDraft = Pick<WaTemplate, 'name' | 'language' | 'category' | 'body' | 'header' | 'footer' | 'buttons' | 'examples' | 'placeholders'>;

export function findTemplate(em: EntityManager, id: string): Promise<WaTemplate | null> {
  return em.findOne(WaTemplateSchema, { id });
}

export async function templateNamed(em: EntityManager, name: string, language: string): Promise<boolean> {
  return (await em.count(WaTemplateSchema, { name, language })) > 0;
}

/** A new template, `PENDING`; a name and language taken meanwhile is the database's unique violation. */
export async function insertTemplate(em: EntityManager, draft: TemplateDraft, createdById: string): Promise<WaTemplate> {
  const template = em.create(WaTemplateSchema, { ...draft, status: 'PENDING', providerTemplateId: null, createdBy: em.getReference(UserSchema, createdById) });
  await em.flush();
  return template;
}

export async function removeTemplate(em: EntityManager, template: WaTemplate): Promise<void> {
  em.remove(template);
  await em.flush();
}

/** The template as stored now (after statements that bypassed the unit of work). */
export async function reloadTemplate(em: EntityManager, template: WaTemplate): Promise<void> {
  await em.refresh(template);
}

export function templatePage<Out>(em: EntityManager, status: TemplateStatus | undefined, page: PageRequest, present: (template: WaTemplate) => Out): Promise<Page<Out>> {
  return findPage(em, WaTemplateSchema, status ? { status } : {}, page, { createdAt: 'desc', id: 'desc' }, present);
}

/** The provider's answer to a new template; a review that came first by webhook keeps its status. */
export async function recordProviderTemplate(q: Queries, id: string, providerTemplateId: string, status: TemplateStatus): Promise<void> {
  await q.write(
    sql`update wa_templates set provider_template_id = ${providerTemplateId},
          status = case when status = 'PENDING' then ${status} else status end, updated_at = now()
        where id = ${id}::uuid`,
  );
}

export interface TemplateReview {
  status: TemplateStatus;
  reason: string | null;
  providerTemplateId: string;
  name: string;
  language: string;
}

/**
 * A review outcome by webhook, on the template with this provider id or, before the provider's
 * answer to the create call is recorded, the one with this name and language. Whether one matched.
 */
export async function applyTemplateReview(q: Queries, review: TemplateReview): Promise<boolean> {
  const { count } = await q.write(
    sql`update wa_templates set status = ${review.status}, rejection_reason = ${review.reason},
          provider_template_id = coalesce(provider_template_id, ${review.providerTemplateId}), updated_at = now()
        where provider_template_id = ${review.providerTemplateId}
           or (provider_template_id is null and name = ${review.name} and language = ${review.language})`,
  );
  return count > 0;
}
