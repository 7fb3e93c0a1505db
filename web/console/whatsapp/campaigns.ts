import type { z } from 'zod';
import type { CAMPAIGN_STATUSES, CONTACT_FIELDS, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '../../../src/modules/whatsapp/whatsapp.codes';
import type { campaignPreviewView, campaignView, sendResponse } from '../../../src/modules/whatsapp/whatsapp.campaigns.schemas';
import type { Counters } from '../../../src/modules/whatsapp/whatsapp.schemas';
import { formatNumber, plural } from '../app/format';
import type { ProblemMessages } from '../app/problems';

export type Campaign = z.output<typeof campaignView>;
export type CampaignPreview = z.output<typeof campaignPreviewView>;
export type SendAnswer = z.output<typeof sendResponse>;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type { Counters };

export const CAMPAIGNS_PATH = '/api/whatsapp/campaigns';
export const TEMPLATES_PATH = '/api/whatsapp/templates';

export const campaignKeys = {
  campaign: (id: string) => ['whatsapp', 'campaign', id] as const,
  preview: (segment: string) => ['whatsapp', 'campaign-preview', segment] as const,
};

export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Borrador',
  scheduled: 'Programada',
  sending: 'Enviando',
  paused: 'En pausa',
  completed: 'Terminada',
  cancelled: 'Cancelada',
};

export const CAMPAIGN_STATUS_COLOURS: Record<CampaignStatus, string> = {
  draft: 'gray',
  scheduled: 'violet',
  sending: 'blue',
  paused: 'orange',
  completed: 'green',
  cancelled: 'red',
};

export const TEMPLATE_STATUS_LABELS: Record<(typeof TEMPLATE_STATUSES)[number], string> = {
  PENDING: 'En revisión de Meta',
  APPROVED: 'Aprobada',
  REJECTED: 'Rechazada',
  PAUSED: 'Pausada por Meta',
  DISABLED: 'Desactivada',
};

export const TEMPLATE_STATUS_COLOURS: Record<(typeof TEMPLATE_STATUSES)[number], string> = {
  PENDING: 'yellow',
  APPROVED: 'green',
  REJECTED: 'red',
  PAUSED: 'orange',
  DISABLED: 'gray',
};

export const TEMPLATE_CATEGORY_LABELS: Record<(typeof TEMPLATE_CATEGORIES)[number], string> = {
  MARKETING: 'Marketing',
  UTILITY: 'Servicio (utilidad)',
};

/** What each contact field fills a placeholder with, as staff read it. */
export const CONTACT_FIELD_LABELS: Record<(typeof CONTACT_FIELDS)[number], string> = {
  firstName: 'Primer nombre de la persona',
  name: 'Nombre completo',
  neighbourhood: 'Barrio',
  territory: 'Territorio',
};

/** A stand-in per contact field for the preview of the message. */
export const CONTACT_FIELD_EXAMPLES: Record<(typeof CONTACT_FIELDS)[number], string> = {
  firstName: 'Ana',
  name: 'Ana María Rodríguez',
  neighbourhood: 'Chapinero Alto',
  territory: 'Comuna 1',
};

/** The template's body with `{{n}}` replaced by `values[n - 1]` (what one person would read). */
export function renderBody(body: string, values: readonly string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => values[Number(n) - 1] || whole);
}

/** Messages the sender is done with (every outcome, in doubt included): those neither waiting nor in flight. */
export function doneCount(campaign: Pick<Campaign, 'queued' | 'progress'>): number {
  return Math.max(0, campaign.queued - campaign.progress.queued - campaign.progress.sending);
}

/** How far the send is, 0–100, over the messages written at send time (the audience then). */
export function percentDone(campaign: Pick<Campaign, 'queued' | 'progress' | 'status'>): number {
  if (campaign.queued === 0) return campaign.status === 'completed' ? 100 : 0;
  return Math.min(100, Math.round((doneCount(campaign) / campaign.queued) * 100));
}

/** "menos de un minuto", "unos 3 minutos", "unas 2 horas": how long `count` messages take at `perSecond`. */
export function sendDuration(count: number, perSecond: number): string {
  const seconds = Math.ceil(count / Math.max(1, perSecond));
  if (seconds < 60) return 'menos de un minuto';
  const minutes = Math.round(seconds / 60);
  if (minutes <= 1) return 'cerca de un minuto';
  if (minutes < 90) return `unos ${plural(minutes, 'minuto', 'minutos')}`;
  return `unas ${formatNumber(Math.round(minutes / 60))} horas`;
}

/**
 * What the messaging tier means for a send of `reachable` people: Meta lets templates reach `limit`
 * distinct people in a rolling 24 hours; beyond what is left, messages wait for the window to free up.
 */
export function tierMeaning(preview: CampaignPreview): string {
  const { reachable, tier, ratePerSecond } = preview;
  const pace = `a ${plural(ratePerSecond, 'mensaje', 'mensajes')} por segundo`;
  if (tier.limit === null || tier.remaining === null) {
    return `Nivel de mensajería sin límite diario: el envío sale completo ${pace}, en ${sendDuration(reachable, ratePerSecond)}.`;
  }
  const level = `Nivel de mensajería: hasta ${plural(tier.limit, 'persona distinta', 'personas distintas')} cada 24 horas; ya se usaron ${formatNumber(tier.usedLast24h)}, quedan ${formatNumber(tier.remaining)}.`;
  if (reachable <= tier.remaining) return `${level} Este envío cabe completo: sale ${pace}, en ${sendDuration(reachable, ratePerSecond)}.`;
  return `${level} Este envío no cabe: salen ${formatNumber(tier.remaining)} ahora (${pace}) y ${plural(reachable - tier.remaining, 'persona espera', 'personas esperan')} a que se libere el cupo de las últimas 24 horas.`;
}

/** The campaign API's refusals in Spanish, by code. */
export const CAMPAIGN_PROBLEMS: ProblemMessages = {
  empty_audience: 'Nadie de este segmento puede recibir WhatsApp: ninguna persona con autorización y sin baja.',
  template_not_approved: 'La plantilla no está aprobada por Meta: solo se envían plantillas aprobadas.',
  unknown_template: 'Esa plantilla ya no existe.',
  already_sent: 'Esta campaña ya se envió.',
  invalid_transition: 'La campaña cambió de estado mientras tanto; recargue para ver cómo está.',
  template_exists: 'Ya hay una plantilla con ese nombre e idioma.',
  provider_error: 'WhatsApp rechazó la plantilla. Revise el texto y los ejemplos.',
  provider_unreachable: 'No se pudo contactar a WhatsApp. Intente de nuevo en un momento.',
};
