import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { segmentSchema } from '../audience';
import { CAMPAIGN_STATUSES, CONTACT_FIELDS } from './whatsapp.codes';
import { counters } from './whatsapp.schemas';

/*
 * Campaigns' requests and answers, apart from whatsapp.schemas.ts because a campaign's segment is
 * audience's rule (reached through its index, which brings the ORM): the inbox's schemas, which the
 * console bundles, stay free of it.
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
