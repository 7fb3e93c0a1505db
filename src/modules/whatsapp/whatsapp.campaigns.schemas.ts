import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { segmentSchema } from '../audience/audience.segment.schemas';
import { CAMPAIGN_STATUSES, CONTACT_FIELDS } from './whatsapp.codes';
import { counters } from './whatsapp.schemas';

/*
 * Campaigns' requests and answers. A campaign's segment is audience's rule, taken from its zod-only
 * schema file (its index brings the ORM), so the console's campaign form validates with these.
 */

/** `contact.firstName` etc. take the contact's field; anything else (or `{ literal }`) is sent as written. */
const variableSource = z.union([
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .superRefine((value, ctx) => {
      if (value.startsWith('contact.') && !(CONTACT_FIELDS as readonly string[]).includes(value.slice(8))) {
        ctx.addIssue({ code: 'custom', message: `unknown contact field; use one of ${CONTACT_FIELDS.map((field) => `contact.${field}`).join(', ')}` });
      }
    }),
  z.object({ literal: z.string().trim().min(1).max(200) }).strict(),
]);

const campaignSegment = z
  .object({ ...segmentSchema.shape, all: z.literal(true).optional() })
  .refine((segment) => Object.keys(segment).length > 0, 'choose at least one condition, or { "all": true } for every opted-in contact')
  .refine((segment) => !segment.createdFrom || !segment.createdTo || Date.parse(segment.createdFrom) <= Date.parse(segment.createdTo), {
    message: 'createdFrom must not be after createdTo',
    path: ['createdTo'],
  });

/** The segment alone: how many it would reach, before a campaign is written. */
export const previewCampaignBody = z.object({ segment: campaignSegment }).strict();
export type PreviewCampaignInput = z.infer<typeof previewCampaignBody>;

export const campaignPreviewView = z
  .object({
    reachable: z.number().int().describe('People the segment reaches on WhatsApp: opted in, not opted out, one per phone (what `audienceSize` would be)'),
    tier: z
      .object({
        limit: z.number().int().nullable().describe('Unique contacts templates may reach in a rolling 24 hours (`WHATSAPP_MESSAGING_TIER`); null: unlimited'),
        usedLast24h: z.number().int(),
        remaining: z.number().int().nullable(),
      })
      .describe('The messaging tier now: a send beyond `remaining` waits until earlier contacts leave the 24-hour window'),
    ratePerSecond: z.number().int().describe('Messages per second the sender keeps to (`WHATSAPP_RATE_PER_SECOND`)'),
    provider: z.enum(['cloud', 'simulator']).describe('`simulator`: nothing reaches WhatsApp'),
  })
  .meta({ id: 'WhatsAppCampaignPreview' });

export const createCampaignBody = z.object({
  name: z.string().trim().min(1).max(160),
  templateId: z.uuid(),
  variables: z.array(variableSource).max(100).default([]),
  segment: campaignSegment,
  scheduledAt: instant.optional(),
});
export type CreateCampaignInput = z.infer<typeof createCampaignBody>;

export const campaignIdParams = z.object({ id: z.uuid() });

export const campaignView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    templateId: z.uuid(),
    variables: z.array(z.union([z.string(), z.object({ literal: z.string() })])),
    segment: z.record(z.string(), z.unknown()),
    status: z.enum(CAMPAIGN_STATUSES),
    scheduledAt: instant.nullable(),
    audienceSize: z.number().int(),
    queued: z.number().int(),
    notice: z.string().nullable(),
    progress: counters,
    createdAt: instant,
    startedAt: instant.nullable(),
    completedAt: instant.nullable(),
  })
  .meta({ id: 'WhatsAppCampaign' });

export const listCampaignsQuery = z.object({ ...pageQueryShape, status: z.enum(CAMPAIGN_STATUSES).optional() });

export const sendResponse = z.object({
  campaignId: z.uuid(),
  status: z.literal('sending'),
  queued: z.number().int(),
  /** Present when the messaging tier will not reach everyone within the next 24 hours. */
  notice: z.string().nullable(),
});
