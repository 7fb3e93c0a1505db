import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import type { TemplateStatus, WaTemplateSchema } from './whatsapp.entities';

// Message templates: kept before the provider hears of them, then updated with its answer and by
// its review webhooks.

type TemplateTables = InferKyselyDB<typeof WaTemplateSchema>;
const db = tables<TemplateTables>();

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
  'rejection_reason',
  'created_at',
  'updated_at',
] as const;

const templateOf = (row: Pick<Selectable<TemplateTables['wa_templates']>, (typeof templateColumns)[number]>) => camelRow(row);
export type TemplateRecord = ReturnType<typeof templateOf>;

/** What a new template is written from. */
export type TemplateDraft = Pick<TemplateRecord, 'name' | 'language' | 'category' | 'body' | 'header' | 'footer' | 'buttons' | 'examples' | 'placeholders'>;

export async function findTemplate(q: Queries, id: string): Promise<TemplateRecord | undefined> {
  const row = await q.first(db.selectFrom('wa_templates').select(templateColumns).where('id', '=', id));
  return row && templateOf(row);
}

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
      ...snakeRow(draft),
      id,
      buttons: jsonText(draft.buttons),
      examples: jsonText(draft.examples),
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

/** Newest first. */
export async function templatePage<Out>(q: Queries, status: TemplateStatus | undefined, page: PageRequest, present: (template: TemplateRecord) => Out): Promise<Page<Out>> {
  let query = db.selectFrom('wa_templates').select(templateColumns);
  if (status) query = query.where('status', '=', status);
  const found = await queryPage(q, query, ['created_at', 'id'], 'desc', page);
  return mapPage(found, (row) => present(templateOf(row)));
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
