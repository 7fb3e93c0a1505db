import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { CAMPAIGN_STATUSES, CODE_PATTERN, FIELD_MODES } from './qr.constants';

const slug = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(60)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _-]*$/u, 'letters, digits, spaces, _ and - only')
  // The generator writes a regex's flags into the pattern; JSON Schema patterns are Unicode already.
  .meta({ pattern: '^[\\p{L}\\p{N}][\\p{L}\\p{N} _-]*$' });

/** An interest option: a bare word ("salud") or `{ value, label }`. */
const interestOption = z.union([
  slug.transform((value) => ({ value, label: value.charAt(0).toUpperCase() + value.slice(1) })),
  z.object({ value: slug, label: z.string().trim().min(1).max(80) }),
]);

const fieldMode = z.enum(FIELD_MODES);

export const landingInput = z
  .object({
    title: z.string().trim().min(1).max(120).optional(),
    intro: z.string().trim().max(1000).default(''),
    interests: z.array(interestOption).max(30).default([]),
    fields: z
      .object({
        phone: fieldMode.default('required'),
        email: fieldMode.default('optional'),
        documentId: fieldMode.default('hidden'),
        neighbourhood: fieldMode.default('optional'),
      })
      .default({ phone: 'required', email: 'optional', documentId: 'hidden', neighbourhood: 'optional' }),
    /** Ley 1581: who is responsible, for what purposes, the citizen's rights. Shown in full. */
    consentText: z.string().trim().min(20).max(5000),
    privacyPolicyUrl: z.url({ protocol: /^https?$/ }).max(500),
    thankYouMessage: z.string().trim().min(1).max(500).default('¡Gracias! Recibimos tus datos.'),
    volunteerSignup: z.boolean().default(true).describe('Offer the "quiero ser voluntario" box: who ticks it becomes a volunteer prospect'),
  })
  .refine((landing) => landing.fields.phone !== 'hidden' || landing.fields.email !== 'hidden', {
    message: 'ask for a phone or an email (both cannot be hidden)',
    path: ['fields'],
  })
  .refine((landing) => new Set(landing.interests.map((option) => option.value)).size === landing.interests.length, {
    message: 'interest values must be unique',
    path: ['interests'],
  });

export const createCampaignBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    description: z.string().trim().max(2000).optional(),
    status: z.enum(['draft', 'active']).default('draft'),
    startsAt: instant.optional(),
    endsAt: instant.optional(),
    territoryId: z.uuid().optional(),
    landing: landingInput,
  })
  .refine((body) => !body.startsAt || !body.endsAt || Date.parse(body.startsAt) < Date.parse(body.endsAt), {
    message: 'endsAt must be after startsAt',
    path: ['endsAt'],
  });

export const updateCampaignBody = z
  .object({
    name: z.string().trim().min(1).max(160).optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    status: z.enum(CAMPAIGN_STATUSES).optional(),
    startsAt: instant.nullable().optional(),
    endsAt: instant.nullable().optional(),
    landing: landingInput.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change');

const landingView = z.object({
  title: z.string(),
  intro: z.string(),
  interests: z.array(z.object({ value: z.string(), label: z.string() })),
  fields: z.object({ phone: fieldMode, email: fieldMode, documentId: fieldMode, neighbourhood: fieldMode }),
  consentText: z.string(),
  privacyPolicyUrl: z.string(),
  thankYouMessage: z.string(),
  volunteerSignup: z.boolean(),
});

export const campaignView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(CAMPAIGN_STATUSES),
    startsAt: instant.nullable(),
    endsAt: instant.nullable(),
    territoryId: z.uuid().nullable(),
    landing: landingView,
    consentTextId: z.uuid(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'QrCampaign' });

export const campaignIdParams = z.object({ id: z.uuid() });

export const listCampaignsQuery = z.object({
  ...pageQueryShape,
  status: z.enum(CAMPAIGN_STATUSES).optional(),
});

const placement = z.object({
  label: z.string().trim().min(1).max(160),
  address: z.string().trim().max(300).optional(),
  lat: z.number().min(-90).max(90).optional(),
  lng: z.number().min(-180).max(180).optional(),
  territoryId: z.uuid().optional(),
  placedAt: instant.optional(),
  authorisedSite: z.boolean().default(false),
  removalDeadline: instant.optional(),
});

export const generateCodesBody = z
  .object({
    count: z.number().int().min(1).max(500),
    labelPrefix: z.string().trim().min(1).max(100).default('Afiche'),
    placements: z.array(placement).max(500).optional(),
  })
  .refine((body) => !body.placements || body.placements.length <= body.count, {
    message: 'there are more placements than codes',
    path: ['placements'],
  });

export const codeView = z
  .object({
    id: z.uuid(),
    code: z.string(),
    url: z.url(),
    label: z.string(),
    address: z.string().nullable(),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    territoryId: z.uuid().nullable(),
    placedAt: instant.nullable(),
    authorisedSite: z.boolean(),
    removalDeadline: instant.nullable(),
    removedAt: instant.nullable(),
    createdAt: instant,
  })
  .meta({ id: 'QrCode' });

export const generatedCodeView = z.object({
  id: z.uuid(),
  code: z.string(),
  url: z.url(),
  label: z.string(),
  svgUrl: z.url().describe('The QR code as SVG (for print), rendered on first request'),
  pngUrl: z.url().describe('The QR code as a 1024 px PNG, rendered on first request'),
});

export const generateCodesResponse = z.object({ codes: z.array(generatedCodeView) });

export const listCodesQuery = z.object({
  ...pageQueryShape,
  overdue: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
});

export const updateCodeBody = z
  .object({
    label: z.string().trim().min(1).max(160).optional(),
    address: z.string().trim().max(300).nullable().optional(),
    lat: z.number().min(-90).max(90).nullable().optional(),
    lng: z.number().min(-180).max(180).nullable().optional(),
    territoryId: z.uuid().nullable().optional(),
    placedAt: instant.nullable().optional(),
    authorisedSite: z.boolean().optional(),
    removalDeadline: instant.nullable().optional(),
    removedAt: instant.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change');

export const codeParams = z.object({ code: z.string().regex(CODE_PATTERN, 'not a poster code') });
export const codeImageParams = z.object({
  code: z.string().regex(CODE_PATTERN, 'not a poster code'),
  format: z.enum(['svg', 'png']),
});
export const codeIdParams = z.object({ id: z.uuid() });
export const sheetQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1).describe('Which page of 240 codes (ten A4 sheets of 24), oldest codes first'),
  link: z
    .string()
    .max(400)
    .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'not a sheet link')
    .optional()
    .describe('A signed link from `POST …/sheet-link`, for a browser that cannot send the bearer header'),
});

export const sheetLinkView = z
  .object({
    url: z.url().describe("The sheet's first page, openable in a browser without the bearer header until `expiresAt`"),
    expiresAt: instant,
  })
  .meta({ id: 'QrSheetLink' });

export type CreateCampaignInput = z.infer<typeof createCampaignBody>;
export type UpdateCampaignInput = z.infer<typeof updateCampaignBody>;
export type LandingInput = z.infer<typeof landingInput>;
export type GenerateCodesInput = z.infer<typeof generateCodesBody>;
export type UpdateCodeInput = z.infer<typeof updateCodeBody>;
