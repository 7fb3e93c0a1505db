import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { tables, type Queries } from '../../kernel/sql';
import { WaTemplateSchema, type TemplateButton, type TemplateStatus, type WaTemplate } from './whatsapp.entities';

// Message templates: kept before the provider hears of them, then updated with its answer and by
// its review webhooks.

type TemplateTables = InferKyselyDB<typeof WaTemplateSchema>;
const db = tables<TemplateTables>();

export type TemplateDraft = Pick<WaTemplate, 'name' | 'language' | 'category' | 'body' | 'header' | 'footer' | 'buttons' | 'examples' | 'placeholders'>;

/** A template's columns as the module presents and checks them. */
const templateColumns = [
  'id',
  'name',
  'language',
  'category',
  'body',
  'header',
  'footer',
  'buttons',
  'examples',
  'placeholders',
  'status',
  'rejection_reason as rejectionReason',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

export function findTemplate(q: Queries, id: string) {
  return q.first(db.selectFrom('wa_templates').select(templateColumns).where('id', '=', id));
}

export type TemplateRecord = NonNullable<Awaited<ReturnType<typeof findTemplate>>>;

export async function templateNamed(q: Queries, name: string, language: string): Promise<boolean> {
  const row = await q.first(db.selectFrom('wa_templates').select('id').where('name', '=', name).where('language', '=', language));
  return row !== undefined;
}

/** A new template, `PENDING`; a name and language taken meanwhile is the database's unique violation. Its id. */
export async function insertTemplate(q: Queries, draft: TemplateDraft, createdById: string): Promise<string> {
  const id = newId();
  const at = new Date();
  await q.write(
    db.insertInto('wa_templates').values({
      id,
      name: draft.name,
      language: draft.language,
      category: draft.category,
      body: draft.body,
      header: draft.header ?? null,
      footer: draft.footer ?? null,
      // Kysely's jsonb columns take the JSON text.
      buttons: JSON.stringify(draft.buttons) as unknown as TemplateButton[],
      examples: JSON.stringify(draft.examples) as unknown as string[],
      placeholders: draft.placeholders,
      status: 'PENDING',
      provider_template_id: null,
      rejection_reason: null,
      created_by_id: createdById,
      created_at: at,
      updated_at: at,
    }),
  );
  return id;
}

export async function removeTemplate(q: Queries, id: string): Promise<void> {
  await q.write(db.deleteFrom('wa_templates').where('id', '=', id));
}

function templateRecordOf(template: WaTemplate): TemplateRecord {
  return {
    id: template.id,
    name: template.name,
    language: template.language,
    category: template.category,
    body: template.body,
    header: template.header ?? null,
    footer: template.footer ?? null,
    buttons: template.buttons,
    examples: template.examples,
    placeholders: template.placeholders,
    status: template.status,
    rejectionReason: template.rejectionReason ?? null,
    createdAt: template.createdAt,
    updatedAt: template.updatedAt,
  };
}

/** Newest first (keyset pagination through the ORM's cursors). */
export function templatePage<Out>(em: EntityManager, status: TemplateStatus | undefined, page: PageRequest, present: (template: TemplateRecord) => Out): Promise<Page<Out>> {
  return findPage(em, WaTemplateSchema, status ? { status } : {}, page, { createdAt: 'desc', id: 'desc' }, (template) => present(templateRecordOf(template)));
}

/** The provider's answer to a new template; a review that came first by webhook keeps its status. */
export async function recordProviderTemplate(q: Queries, id: string, providerTemplateId: string, status: TemplateStatus): Promise<void> {
  await q.write(
    db
      .updateTable('wa_templates')
      .set((eb) => ({
        provider_template_id: providerTemplateId,
        status: eb.case().when('status', '=', 'PENDING').then(status).else(eb.ref('status')).end(),
        updated_at: eb.fn<Date>('now', []),
      }))
      .where('id', '=', id),
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
    db
      .updateTable('wa_templates')
      .set((eb) => ({
        status: review.status,
        rejection_reason: review.reason,
        provider_template_id: eb.fn.coalesce('provider_template_id', eb.val(review.providerTemplateId)),
        updated_at: eb.fn<Date>('now', []),
      }))
      .where((eb) =>
        eb.or([
          eb('provider_template_id', '=', review.providerTemplateId),
          eb.and([eb('provider_template_id', 'is', null), eb('name', '=', review.name), eb('language', '=', review.language)]),
        ]),
      ),
  );
  return count > 0;
}
