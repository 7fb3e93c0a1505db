import type { z } from 'zod';
import type { AbMetric, AbPhase, CampaignStatus } from '../../../src/modules/email/email.codes';
import type { campaignPreviewView, campaignView, draftView, sendAccepted, statsView, templateSummary, templateView, testSendView } from '../../../src/modules/email/email.schemas';
import { formatNumber } from '../app/format';
import type { ProblemMessages } from '../app/problems';

export type EmailTemplate = z.output<typeof templateView>;
export type EmailTemplateSummary = z.output<typeof templateSummary>;
export type Draft = z.output<typeof draftView>;
export type DraftProblem = Draft['problems'][number];
export type EmailCampaign = z.output<typeof campaignView>;
export type CampaignPreview = z.output<typeof campaignPreviewView>;
export type EmailStats = z.output<typeof statsView>;
export type SendAnswer = z.output<typeof sendAccepted>;
export type TestSendAnswer = z.output<typeof testSendView>;
export type { AbMetric, AbPhase, CampaignStatus };

export const TEMPLATES_PATH = '/api/email-marketing/templates';
export const CAMPAIGNS_PATH = '/api/email-marketing/campaigns';

export const emailKeys = {
  template: (id: string) => ['email', 'template', id] as const,
  templates: ['email', 'templates', 'all'] as const,
  draft: (key: string) => ['email', 'draft', key] as const,
  campaign: (id: string) => ['email', 'campaign', id] as const,
  preview: (segment: string) => ['email', 'campaign-preview', segment] as const,
  stats: (id: string) => ['email', 'stats', id] as const,
};

export const STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Borrador',
  scheduled: 'Programada',
  sending: 'Enviando',
  paused: 'En pausa',
  sent: 'Enviada',
};

export const STATUS_COLOURS: Record<CampaignStatus, string> = {
  draft: 'gray',
  scheduled: 'violet',
  sending: 'blue',
  paused: 'orange',
  sent: 'green',
};

export const PHASE_LABELS: Record<AbPhase, string> = {
  none: 'Sin prueba A/B',
  testing: 'Prueba A/B: enviando a la muestra',
  waiting: 'Prueba A/B: esperando para decidir',
  winner_sent: 'Prueba A/B: ganadora enviada al resto',
};

export const METRIC_LABELS: Record<AbMetric, string> = {
  click: 'Clics (recomendado: las aperturas de máquinas no cuentan, pero inflan las aperturas)',
  open: 'Aperturas de personas',
};

/** Why the winner is who it is (the API's `abTest.reason`), in words. */
export const REASON_LABELS: Record<string, string> = {
  significant: 'Ganó con diferencia significativa en la muestra de prueba (umbral: 95 % de confianza, prueba z de dos proporciones).',
  not_significant: 'La diferencia no fue significativa: se envió la variante de control (la primera).',
  too_small: 'La muestra fue muy pequeña para decidir (menos de 30 entregados por variante o menos de 5 eventos): se envió la variante de control.',
  tie: 'Empate: se envió la variante de control (la primera).',
  guardrail: 'Una variante provocó demasiadas bajas y quedó excluida.',
};

/** The significance of the decision as people read it: the confidence that the lead is real. */
export function significanceWords(pValue: number | null, zScore: number | null): string | null {
  if (pValue === null || zScore === null) return null;
  const confidence = Math.max(0, Math.min(100, (1 - pValue) * 100));
  const shown = confidence >= 99.99 ? '> 99,99' : confidence.toLocaleString('es-CO', { maximumFractionDigits: 2 });
  const p = pValue < 0.0001 ? 'p < 0,0001' : `p = ${pValue.toLocaleString('es-CO', { maximumFractionDigits: 4 })}`;
  return `Confianza de que la ventaja es real: ${shown} % (${p}, z = ${zScore.toLocaleString('es-CO', { maximumFractionDigits: 2 })})`;
}

export const rateWords = (rate: number): string => `${(rate * 100).toLocaleString('es-CO', { maximumFractionDigits: 1 })} %`;
export const countAndRate = (count: number, rate: number): string => `${formatNumber(count)} (${rateWords(rate)})`;

/** The email API's refusals in Spanish, by code. */
export const EMAIL_PROBLEMS: ProblemMessages = {
  invalid_mjml: 'El MJML tiene errores: vea cada uno con su línea junto al editor.',
  invalid_template: 'La plantilla usa variables o enlaces que no se pueden enviar: vea la lista junto al editor.',
  empty_audience: 'Nadie de este segmento puede recibir correo: ninguna persona con autorización, sin baja y con una dirección que no rebotó.',
  already_sent: 'Esta campaña ya se envió.',
  not_waiting: 'La prueba A/B ya no espera una decisión.',
  not_paused: 'La campaña no está en pausa.',
  smtp_refused: 'El servidor de correo rechazó el mensaje. Revise la dirección.',
  smtp_unavailable: 'El servidor de correo no tomó el mensaje ahora. Intente de nuevo en un momento.',
  rate_limited: 'Ya envió muchas pruebas esta hora. Espere un poco.',
};
