import type { CampaignRecord, TemplateRecord, VariantRecord } from './email.campaigns.repository';

const iso = (value: Date | null | undefined) => (value ? value.toISOString() : null);

export function presentTemplateSummary(template: TemplateRecord) {
  return {
    id: template.id,
    name: template.name,
    subject: template.subject,
    sourceKind: template.sourceKind,
    variables: template.variables,
    links: template.links,
    createdAt: template.createdAt.toISOString(),
  };
}

export function presentTemplate(template: TemplateRecord) {
  return { ...presentTemplateSummary(template), source: template.source, html: template.html, text: template.text };
}

export function presentCampaign(campaign: CampaignRecord, variants: readonly VariantRecord[]) {
  const ordered = [...variants].sort((a, b) => a.position - b.position);
  return {
    id: campaign.id,
    name: campaign.name,
    fromName: campaign.fromName,
    fromEmail: campaign.fromEmail,
    replyTo: campaign.replyTo ?? null,
    segment: campaign.segment as Record<string, unknown>,
    status: campaign.status,
    audienceSize: campaign.audienceSize,
    variants: ordered.map((variant) => ({ id: variant.id, name: variant.name, subject: variant.subject, templateId: variant.templateId })),
    abTest: campaign.abTest ?? null,
    abPhase: campaign.abPhase,
    abDecideAt: iso(campaign.abDecideAt),
    winner: ordered.find((variant) => variant.id === campaign.winnerVariantId)?.name ?? null,
    scheduledAt: iso(campaign.scheduledAt),
    startedAt: iso(campaign.startedAt),
    finishedAt: iso(campaign.finishedAt),
    notice: campaign.notice ?? null,
    createdAt: campaign.createdAt.toISOString(),
  };
}
