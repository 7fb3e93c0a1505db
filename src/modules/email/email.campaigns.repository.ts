import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { tables, type Queries } from '../../kernel/sql';
import type { Segment } from '../audience';
import { EmailCampaignSchema, EmailTemplateSchema, EmailVariantSchema, type AbTestSettings, type EmailCampaign, type EmailTemplate, type EmailVariant } from './email.entities';

// Campaigns, their variants and templates. Campaigns are still read as entities through the ORM;
// everything is written through the typed builder.

type CampaignTables = InferKyselyDB<typeof EmailCampaignSchema | typeof EmailTemplateSchema | typeof EmailVariantSchema>;
const db = tables<CampaignTables>();

export function findCampaign(em: EntityManager, id: string): Promise<EmailCampaign | null> {
  return em.findOne(EmailCampaignSchema, { id });
}

/** A campaign's variants in their order (A first). */
export function variantsOf(em: EntityManager, campaignId: string): Promise<EmailVariant[]> {
  return em.find(EmailVariantSchema, { campaign: campaignId }, { orderBy: { position: 'asc' } });
}

/** Newest first, with every variant of the page's campaigns. */
export async function campaignPage(em: EntityManager, page: PageRequest): Promise<Page<{ campaign: EmailCampaign; variants: EmailVariant[] }>> {
  const result = await findPage(em, EmailCampaignSchema, {}, page, { createdAt: 'desc', id: 'desc' }, (campaign) => campaign);
  const variants = result.data.length ? await em.find(EmailVariantSchema, { campaign: { $in: result.data.map((campaign) => campaign.id) } }) : [];
  return {
    data: result.data.map((campaign) => ({ campaign, variants: variants.filter((variant) => variant.campaign.id === campaign.id) })),
    nextCursor: result.nextCursor,
  };
}

/** Which of `ids` are templates. */
export async function existingTemplateIds(q: Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await q.rows(db.selectFrom('email_templates').select('id').where('id', 'in', ids));
  return new Set(rows.map((row) => row.id));
}

export interface NewCampaign {
  name: string;
  fromName: string;
  fromEmail: string;
  replyTo: string | null;
  segment: Segment;
  status: 'draft' | 'scheduled';
  audienceSize: number;
  abTest: AbTestSettings | null;
  scheduledAt: Date | null;
}

/** The campaign and its variants (in the order given), in the caller's transaction; the campaign's id. */
export async function insertCampaign(tx: Queries, fields: NewCampaign, variants: readonly { name: string; subject: string; templateId: string }[]): Promise<string> {
  const id = newId();
  const at = new Date();
  await tx.write(
    db.insertInto('email_campaigns').values({
      id,
      name: fields.name,
      from_name: fields.fromName,
      from_email: fields.fromEmail,
      reply_to: fields.replyTo,
      // Kysely's jsonb columns take the JSON text.
      segment: JSON.stringify(fields.segment) as unknown as Segment,
      status: fields.status,
      audience_size: fields.audienceSize,
      ab_test: fields.abTest === null ? null : (JSON.stringify(fields.abTest) as unknown as AbTestSettings),
      scheduled_at: fields.scheduledAt,
      created_at: at,
      updated_at: at,
    }),
  );
  await tx.write(
    db
      .insertInto('email_variants')
      .values(variants.map((variant, position) => ({ id: newId(), campaign_id: id, position, name: variant.name, subject: variant.subject, template_id: variant.templateId }))),
  );
  return id;
}

const templateColumns = [
  'id',
  'name',
  'subject',
  'source_kind as sourceKind',
  'source',
  'html',
  'text',
  'send_html as sendHtml',
  'send_text as sendText',
  'variables',
  'links',
  'created_at as createdAt',
] as const;

export function findTemplate(q: Queries, id: string) {
  return q.first(db.selectFrom('email_templates').select(templateColumns).where('id', '=', id));
}

export type TemplateRecord = NonNullable<Awaited<ReturnType<typeof findTemplate>>>;

export type NewTemplate = Omit<TemplateRecord, 'id' | 'createdAt'>;

export async function insertTemplate(q: Queries, fields: NewTemplate): Promise<TemplateRecord> {
  const { rows } = await q.write(
    db
      .insertInto('email_templates')
      .values({
        id: newId(),
        name: fields.name,
        subject: fields.subject,
        source_kind: fields.sourceKind,
        source: fields.source,
        html: fields.html,
        text: fields.text,
        send_html: fields.sendHtml,
        send_text: fields.sendText,
        variables: fields.variables,
        // Kysely's jsonb columns take the JSON text.
        links: JSON.stringify(fields.links) as unknown as string[],
        created_at: new Date(),
      })
      .returning(templateColumns),
  );
  return rows[0]!;
}

function templateRecordOf(template: EmailTemplate): TemplateRecord {
  return {
    id: template.id,
    name: template.name,
    subject: template.subject,
    sourceKind: template.sourceKind,
    source: template.source,
    html: template.html,
    text: template.text,
    sendHtml: template.sendHtml,
    sendText: template.sendText,
    variables: template.variables,
    links: template.links,
    createdAt: template.createdAt,
  };
}

/** Newest first (keyset pagination through the ORM's cursors). */
export function templatePage<Out>(em: EntityManager, page: PageRequest, present: (template: TemplateRecord) => Out): Promise<Page<Out>> {
  return findPage(em, EmailTemplateSchema, {}, page, { createdAt: 'desc', id: 'desc' }, (template) => present(templateRecordOf(template)));
}
