import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import { EmailCampaignSchema, EmailTemplateSchema, EmailVariantSchema } from './email.entities';

// Campaigns, their variants and templates, read and written through the typed builder.

type CampaignTables = InferKyselyDB<typeof EmailCampaignSchema | typeof EmailTemplateSchema | typeof EmailVariantSchema>;
const db = tables<CampaignTables>();

const campaignOf = (row: Selectable<CampaignTables['email_campaigns']>) => camelRow(row);
export type CampaignRecord = ReturnType<typeof campaignOf>;

const variantOf = (row: Selectable<CampaignTables['email_variants']>) => camelRow(row);
export type VariantRecord = ReturnType<typeof variantOf>;

export async function findCampaign(q: Queries, id: string): Promise<CampaignRecord | undefined> {
  const row = await q.first(db.selectFrom('email_campaigns').selectAll().where('id', '=', id));
  return row && campaignOf(row);
}

/** A campaign's variants in their order (A first). */
export async function variantsOf(q: Queries, campaignId: string): Promise<VariantRecord[]> {
  return (await q.rows(db.selectFrom('email_variants').selectAll().where('campaign_id', '=', campaignId).orderBy('position'))).map(variantOf);
}

/** Newest first, with every variant of the page's campaigns. */
export async function campaignPage(q: Queries, page: PageRequest): Promise<Page<{ campaign: CampaignRecord; variants: VariantRecord[] }>> {
  const found = await queryPage(q, db.selectFrom('email_campaigns').selectAll(), ['created_at', 'id'], 'desc', page);
  const ids = found.data.map((row) => row.id);
  const variants = ids.length ? (await q.rows(db.selectFrom('email_variants').selectAll().where('campaign_id', 'in', ids).orderBy('position'))).map(variantOf) : [];
  return {
    data: found.data.map((row) => ({ campaign: campaignOf(row), variants: variants.filter((variant) => variant.campaignId === row.id) })),
    nextCursor: found.nextCursor,
  };
}

/** Which of `ids` are templates. */
export async function existingTemplateIds(q: Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await q.rows(db.selectFrom('email_templates').select('id').where('id', 'in', ids));
  return new Set(rows.map((row) => row.id));
}

/** What a new campaign is written with; the rest (A/B phase, decision, times) starts at the columns' defaults. */
export type NewCampaign = Pick<CampaignRecord, 'name' | 'fromName' | 'fromEmail' | 'replyTo' | 'segment' | 'audienceSize' | 'abTest' | 'scheduledAt'> & {
  status: 'draft' | 'scheduled';
};

/** A variant as a campaign's author gives it. */
export type NewVariant = Pick<VariantRecord, 'name' | 'subject' | 'templateId'>;

/** The campaign and its variants (in the order given), in the caller's transaction; the campaign's id. */
export async function insertCampaign(tx: Queries, fields: NewCampaign, variants: readonly NewVariant[]): Promise<string> {
  const id = newId();
  const at = new Date();
  await tx.write(
    db.insertInto('email_campaigns').values({
      ...snakeRow({ id, ...fields, createdAt: at, updatedAt: at }),
      segment: jsonText(fields.segment),
      ab_test: fields.abTest === null ? null : jsonText(fields.abTest),
    }),
  );
  await tx.write(
    db
      .insertInto('email_variants')
      .values(
        variants.map((variant, position) => snakeRow({ id: newId(), campaignId: id, position, name: variant.name, subject: variant.subject, templateId: variant.templateId })),
      ),
  );
  return id;
}

const templateOf = (row: Selectable<CampaignTables['email_templates']>) => camelRow(row);
export type TemplateRecord = ReturnType<typeof templateOf>;

export async function findTemplate(q: Queries, id: string): Promise<TemplateRecord | undefined> {
  const row = await q.first(db.selectFrom('email_templates').selectAll().where('id', '=', id));
  return row && templateOf(row);
}

export type NewTemplate = Omit<TemplateRecord, 'id' | 'createdAt'>;

export async function insertTemplate(q: Queries, fields: NewTemplate): Promise<TemplateRecord> {
  const template: TemplateRecord = { id: newId(), ...fields, createdAt: new Date() };
  await q.write(db.insertInto('email_templates').values({ ...snakeRow(template), links: jsonText(template.links) }));
  return template;
}

/** Newest first. */
export async function templatePage(q: Queries, page: PageRequest): Promise<Page<TemplateRecord>> {
  const found = await queryPage(q, db.selectFrom('email_templates').selectAll(), ['created_at', 'id'], 'desc', page);
  return mapPage(found, templateOf);
}
