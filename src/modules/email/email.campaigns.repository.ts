import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { EmailCampaignSchema, EmailTemplateSchema, EmailVariantSchema, type EmailCampaign, type EmailTemplate, type EmailVariant } from './email.entities';

// Campaigns, their variants and templates as entities of the request's unit of work: a campaign
// and its variants are written in one flush.

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

export function templatesById(em: EntityManager, ids: readonly string[]): Promise<EmailTemplate[]> {
  return em.find(EmailTemplateSchema, { id: { $in: [...ids] } });
}

export type NewCampaign = Pick<EmailCampaign, 'name' | 'fromName' | 'fromEmail' | 'replyTo' | 'segment' | 'status' | 'audienceSize' | 'abTest' | 'scheduledAt'>;

/** The campaign and its variants (in the order given) in one flush. */
export async function insertCampaign(
  em: EntityManager,
  fields: NewCampaign,
  variants: readonly { name: string; subject: string; templateId: string }[],
): Promise<{ campaign: EmailCampaign; variants: EmailVariant[] }> {
  const campaign = em.create(EmailCampaignSchema, fields);
  const created = variants.map((variant, position) =>
    em.create(EmailVariantSchema, { campaign, position, name: variant.name, subject: variant.subject, template: em.getReference(EmailTemplateSchema, variant.templateId) }),
  );
  await em.flush();
  return { campaign, variants: created };
}

export type NewTemplate = Pick<EmailTemplate, 'name' | 'subject' | 'sourceKind' | 'source' | 'html' | 'text' | 'sendHtml' | 'sendText' | 'variables' | 'links'>;

export async function insertTemplate(em: EntityManager, fields: NewTemplate): Promise<EmailTemplate> {
  const template = em.create(EmailTemplateSchema, fields);
  await em.flush();
  return template;
}

export function findTemplate(em: EntityManager, id: string): Promise<EmailTemplate | null> {
  return em.findOne(EmailTemplateSchema, { id });
}

export function templatePage<Out>(em: EntityManager, page: PageRequest, present: (template: EmailTemplate) => Out): Promise<Page<Out>> {
  return findPage(em, EmailTemplateSchema, {}, page, { createdAt: 'desc', id: 'desc' }, present);
}
