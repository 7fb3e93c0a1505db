import { z } from 'zod';
import { emailAddress, instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { segmentSchema } from '../audience/audience.segment.schemas';
import { AB_METRICS, AB_PHASES, CAMPAIGN_STATUSES, TEMPLATE_SOURCES } from './email.codes';

const email = emailAddress();

export const idParams = z.object({ id: z.uuid() });
export const listQuery = z.object(pageQueryShape);

export const createTemplateBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    subject: z.string().trim().min(1).max(300),
    mjml: z.string().min(1).max(500_000).optional(),
    html: z.string().min(1).max(500_000).optional(),
  })
  .refine((body) => (body.mjml === undefined) !== (body.html === undefined), { message: 'send either mjml or html', path: ['mjml'] })
  .meta({ oneOf: [{ required: ['mjml'] }, { required: ['html'] }] });

export const templateView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    subject: z.string(),
    sourceKind: z.enum(TEMPLATE_SOURCES),
    source: z.string(),
    html: z.string(),
    text: z.string(),
    variables: z.array(z.string()),
    links: z.array(z.string()),
    createdAt: z.string(),
  })
  .meta({ id: 'EmailTemplate' });

export const templateSummary = templateView.omit({ source: true, html: true, text: true }).meta({ id: 'EmailTemplateSummary' });

export const previewQuery = z.object({ contactId: z.uuid().optional() });
export const previewView = z.object({ subject: z.string(), html: z.string(), text: z.string(), sample: z.boolean() });

const draftSource = z.string().min(1).max(500_000).optional();

/** A template being written, for its live preview: nothing is saved, so the name is not needed and the subject may still be empty. */
export const renderDraftBody = z
  .object({ subject: z.string().max(300), mjml: draftSource, html: draftSource })
  .refine((body) => (body.mjml === undefined) !== (body.html === undefined), { message: 'send either mjml or html', path: ['mjml'] })
  .meta({ oneOf: [{ required: ['mjml'] }, { required: ['html'] }] });

export const draftView = z.object({
  subject: z.string(),
  /** Filled in for a sample person, links as written; empty when the source is not MJML at all. */
  html: z.string(),
  text: z.string(),
  /** What creating the template would refuse, each on its line of the field (`subject`, `mjml` or `html`); none means it can be saved. */
  problems: z.array(z.object({ field: z.enum(['subject', 'mjml', 'html']), line: z.number().int().min(1), message: z.string() })),
});

export const testSendBody = z.object({ to: email });
export const testSendView = z.object({ subject: z.string(), messageId: z.string() });

const variantInput = z.object({
  name: z.string().trim().min(1).max(40),
  subject: z.string().trim().min(1).max(300),
  templateId: z.uuid(),
});

export const createCampaignBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    fromName: z
      .string()
      .trim()
      .min(1)
      .max(120)
      .regex(/^[^\r\n<>"]+$/, 'no line breaks, quotes or angle brackets'),
    fromEmail: email,
    replyTo: email.optional(),
    segment: segmentSchema,
    variants: z.array(variantInput).min(1).max(4),
    abTest: z
      .object({
        testPercent: z.number().int().min(5).max(50),
        metric: z.enum(AB_METRICS).default('click'),
        waitMinutes: z.number().int().min(15).max(1440),
      })
      .optional(),
    scheduledAt: instant.optional(),
  })
  .refine((body) => new Set(body.variants.map((variant) => variant.name.toLowerCase())).size === body.variants.length, {
    message: 'variant names must be different',
    path: ['variants'],
  })
  .refine((body) => !body.abTest || body.variants.length >= 2, { message: 'an A/B test needs at least two variants', path: ['abTest'] })
  .refine((body) => body.abTest || body.variants.length === 1, { message: 'several variants need an abTest', path: ['variants'] })
  .refine((body) => !body.scheduledAt || Date.parse(body.scheduledAt) > Date.now(), { message: 'scheduledAt must be in the future', path: ['scheduledAt'] });
export type CreateCampaignInput = z.infer<typeof createCampaignBody>;

/** The segment alone: how many addresses it would reach, before a campaign is written. */
export const previewCampaignBody = z.object({ segment: segmentSchema }).strict();
export const campaignPreviewView = z.object({ reachable: z.number().int() });

const abTestView = z.object({ testPercent: z.number(), metric: z.enum(AB_METRICS), waitMinutes: z.number() });

export const campaignView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    fromName: z.string(),
    fromEmail: z.string(),
    replyTo: z.string().nullable(),
    segment: z.record(z.string(), z.unknown()),
    status: z.enum(CAMPAIGN_STATUSES),
    audienceSize: z.number().int(),
    variants: z.array(z.object({ id: z.uuid(), name: z.string(), subject: z.string(), templateId: z.uuid() })),
    abTest: abTestView.nullable(),
    abPhase: z.enum(AB_PHASES),
    abDecideAt: z.string().nullable(),
    winner: z.string().nullable(),
    scheduledAt: z.string().nullable(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    /** Why sending stopped (paused after provider errors); null while it flows. */
    notice: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'EmailCampaign' });

export const sendAccepted = z.object({ id: z.uuid(), status: z.enum(CAMPAIGN_STATUSES), recipients: z.number().int(), abPhase: z.enum(AB_PHASES) });

const rate = z.number().min(0).max(1);

export const statsView = z
  .object({
    campaignId: z.uuid(),
    status: z.enum(CAMPAIGN_STATUSES),
    audienceSize: z.number().int(),
    sent: z.number().int(),
    failed: z.number().int(),
    /** Hard bounces: refused at RCPT TO with a 5xx; the address is suppressed. */
    bounced: z.number().int(),
    /** Soft bounces: recipients who got a temporary answer (4xx) or a connection error at least once, whatever came after. */
    softBounced: z.number().int(),
    /** Of those, the ones waiting for their next try now. */
    retrying: z.number().int(),
    unsubscribed: z.number().int(),
    opens: z.object({ unique: z.number().int(), total: z.number().int(), rate, machine: z.number().int() }),
    clicks: z.object({ unique: z.number().int(), total: z.number().int(), rate, clickToOpenRate: rate }),
    variants: z.array(
      z.object({
        name: z.string(),
        subject: z.string(),
        recipients: z.number().int(),
        sent: z.number().int(),
        uniqueOpens: z.number().int(),
        openRate: rate,
        uniqueClicks: z.number().int(),
        clickRate: rate,
      }),
    ),
    abTest: z.object({
      phase: z.enum(AB_PHASES),
      winner: z.string().nullable(),
      decidedAt: z.string().nullable(),
      metric: z.enum(AB_METRICS).nullable(),
      reason: z.string().nullable(),
      /** The leader against the runner-up (two-proportion z, one-sided); null before a decision or when the test was too small to run. */
      zScore: z.number().nullable(),
      /** P(Z ≥ zScore): the chance of a lead this large with no real difference; the winner is significant below 0.05. */
      pValue: z.number().min(0).max(1).nullable(),
      /** Variants the unsubscribe guardrail excluded from winning. */
      excluded: z.array(z.string()),
    }),
    links: z.array(z.object({ url: z.string(), uniqueClicks: z.number().int(), totalClicks: z.number().int() })),
    timeline: z.array(z.object({ hour: z.string(), opens: z.number().int(), clicks: z.number().int() })),
  })
  .meta({ id: 'EmailCampaignStats' });

export const dashboardView = z.object({
  campaigns: z.array(
    z.object({
      id: z.uuid(),
      name: z.string(),
      status: z.enum(CAMPAIGN_STATUSES),
      abPhase: z.enum(AB_PHASES),
      createdAt: z.string(),
      sent: z.number().int(),
      openRate: rate,
      clickRate: rate,
      unsubscribeRate: rate,
      bounceRate: rate,
    }),
  ),
  last30Days: z.object({
    campaigns: z.number().int(),
    sent: z.number().int(),
    uniqueOpens: z.number().int(),
    uniqueClicks: z.number().int(),
    openRate: rate,
    clickRate: rate,
    unsubscribes: z.number().int(),
    bounces: z.number().int(),
  }),
  audience: z.object({ size: z.number().int(), newLast30Days: z.number().int(), unsubscribedLast30Days: z.number().int(), suppressed: z.number().int() }),
});
