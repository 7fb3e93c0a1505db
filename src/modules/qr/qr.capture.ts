import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, NotFoundError, ValidationError, type FieldError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { zodIssuesToFieldErrors } from '../../kernel/http/router';
import { hashIp } from '../../kernel/privacy';
import { normalisePhone, type CapturedPerson } from '../audience';
import { enrolVolunteerProspect } from '../volunteers';
import { campaignContexts, codeContexts, type CampaignContext, type CodeContext } from './qr.context';
import { CODE_PATTERN } from './qr.codes';
import { isOpen } from './qr.policy';
import { offersVolunteerSignup } from './qr.presenter';
import { DASHBOARD_ROOM } from './qr.events';
import { countSpam, recordCapturedLead } from './qr.repository';

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((value) => (value ? value : undefined));

/**
 * What a citizen submits. The same schema serves JSON and the no-JavaScript form post
 * (whose values are strings: see `fromForm`). `consent` must be exactly `true`.
 */
export const captureBody = z.object({
  code: z.string().trim().regex(CODE_PATTERN, 'Este código no corresponde a ningún afiche.'),
  name: z.string().trim().min(2, 'Escribe tu nombre.').max(150, 'El nombre es demasiado largo.'),
  phone: optionalText(30),
  email: z
    .string()
    .trim()
    .max(254)
    .optional()
    .transform((value) => (value ? value.toLowerCase() : undefined))
    .pipe(z.email('Escribe un correo como ana@ejemplo.com, sin espacios.').optional())
    .meta({ format: 'email' }),
  /** Cédula: digits only; dots and spaces as people type them are removed. */
  documentId: optionalText(20)
    .transform((value) => value?.replace(/[.\s-]/g, ''))
    .pipe(
      z
        .string()
        .regex(/^\d{5,12}$/, 'La cédula tiene de 5 a 12 dígitos.')
        .optional(),
    ),
  territoryId: z
    .uuid()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  neighbourhood: optionalText(120),
  interests: z.array(z.string().trim().toLowerCase().max(60)).max(30).default([]),
  consent: z.literal(true, { error: 'Para enviar tus datos debes autorizar su tratamiento.' }),
  whatsappOptIn: z.boolean().default(false),
  emailOptIn: z.boolean().default(false),
  /** "Quiero ser voluntario": the person becomes a volunteer prospect the team will call. */
  volunteer: z.boolean().default(false),
  /** Honeypot: hidden from people, filled in by naive bots. */
  website: z.string().max(500).optional(),
});

export type CaptureInput = z.infer<typeof captureBody>;

const BOOLEAN_FIELDS = ['consent', 'whatsappOptIn', 'emailOptIn', 'volunteer'] as const;

/** A urlencoded form has only strings: "true" is a ticked box, one interest arrives as a string. */
export function fromForm(body: Record<string, unknown>): Record<string, unknown> {
  const normalised: Record<string, unknown> = { ...body };
  for (const field of BOOLEAN_FIELDS) {
    if (normalised[field] === 'true') normalised[field] = true;
    else if (normalised[field] === 'false' || normalised[field] === undefined) normalised[field] = field === 'consent' ? undefined : false;
  }
  if (typeof normalised.interests === 'string') normalised.interests = [normalised.interests];
  return normalised;
}

/** Citizens read these messages on the landing page: Spanish, like the page. */
const spanish = z.locales.es().localeError;

/** 400 with `consent_required` when consent is missing or not `true`, `validation_failed` otherwise. */
export function parseCapture(body: unknown): CaptureInput {
  const parsed = captureBody.safeParse(body, { error: spanish });
  if (parsed.success) return parsed.data;
  const errors = zodIssuesToFieldErrors(parsed.error, 'body');
  const consentMissing = errors.some((error) => error.path === 'body.consent');
  throw new ValidationError(
    errors,
    consentMissing ? 'Para enviar tus datos debes autorizar su tratamiento.' : 'Algunos datos no son válidos.',
    consentMissing ? 'consent_required' : 'validation_failed',
  );
}

export interface CaptureMeta {
  ip: string;
  userAgent: string | undefined;
}

export interface CaptureResult {
  id: string;
  campaignId: string;
  /** False when the same person submitted again and the lead was updated. */
  created: boolean;
  /** The volunteer record when they asked to volunteer (a prospect; an existing volunteer stays as they are). */
  volunteerId?: string;
}

/** Applies the campaign's own rules: which fields it asks, which it requires, which interests it offers. */
function personFrom(input: CaptureInput, campaign: CampaignContext): CapturedPerson {
  const { fields, interests } = campaign.landing;
  const errors: FieldError[] = [];
  const asked = <T>(mode: string, value: T | undefined, path: string): T | null => {
    if (mode === 'hidden') return null;
    if (mode === 'required' && value === undefined) errors.push({ path, message: 'Este campo es obligatorio.' });
    return value ?? null;
  };
  const rawPhone = asked(fields.phone, input.phone, 'body.phone');
  const email = asked(fields.email, input.email, 'body.email');
  const documentId = asked(fields.documentId, input.documentId, 'body.documentId');
  const place = fields.neighbourhood === 'hidden' ? undefined : (input.territoryId ?? input.neighbourhood);
  asked(fields.neighbourhood, place, campaign.neighbourhoods.length ? 'body.territoryId' : 'body.neighbourhood');
  let phone: string | null = null;
  if (rawPhone) {
    phone = normalisePhone(rawPhone) ?? null;
    if (!phone) errors.push({ path: 'body.phone', message: 'Revisa el número: debe ser un celular o teléfono válido, por ejemplo 300 123 4567.' });
  }
  if (!rawPhone && !email && !errors.length) errors.push({ path: 'body.phone', message: 'Déjanos al menos un celular o un correo.' });
  const offered = new Set(interests.map((option) => option.value));
  const unknown = input.interests.filter((interest) => !offered.has(interest));
  if (unknown.length) errors.push({ path: 'body.interests', message: `Estos temas no están entre las opciones: ${unknown.join(', ')}.` });
  if (input.territoryId && campaign.neighbourhoods.length && !campaign.neighbourhoods.some((option) => option.id === input.territoryId)) {
    errors.push({ path: 'body.territoryId', message: 'Elige uno de los barrios de la lista.' });
  }
  if (errors.length) throw new ValidationError(errors, 'Algunos datos no son válidos.');
  return {
    name: input.name,
    phone,
    email,
    documentId,
    territoryId: fields.neighbourhood === 'hidden' ? null : (input.territoryId ?? null),
    neighbourhood: fields.neighbourhood === 'hidden' ? null : (input.neighbourhood ?? null),
    interests: [...new Set(input.interests)],
    whatsappOptIn: Boolean(phone) && input.whatsappOptIn,
    emailOptIn: Boolean(email) && input.emailOptIn,
  };
}

export async function resolveOpenCode(deps: Pick<AppDeps, 'db' | 'caches'>, code: string): Promise<{ code: CodeContext; campaign: CampaignContext }> {
  const context = await codeContexts(deps).get(code);
  const campaign = context && (await campaignContexts(deps).get(context.campaignId));
  if (!context || !campaign) throw new NotFoundError('Este código no corresponde a ningún afiche.');
  if (!isOpen(campaign)) throw new ConflictError('Esta convocatoria no está recibiendo datos en este momento.', 'campaign_closed');
  return { code: context, campaign };
}

const TOO_MANY = 'Recibimos demasiados envíos seguidos. Espera unos minutos y vuelve a intentarlo.';

function captureLimits(deps: Pick<AppDeps, 'config' | 'rateLimits'>) {
  const { perIp, perPerson, windowSeconds } = deps.config.captureLimits;
  return {
    byIp: deps.rateLimits.named('capture-ip', { points: perIp, windowSeconds }),
    byPerson: deps.rateLimits.named('capture-person', { points: perPerson, windowSeconds }),
  };
}

/** What a capture uses: the database, caches, limits, the IP-hash key and the dashboard. */
export type CaptureDeps = Pick<AppDeps, 'db' | 'caches' | 'config' | 'rateLimits' | 'secrets' | 'realtime'>;

export async function captureLead(deps: CaptureDeps, input: CaptureInput, meta: CaptureMeta): Promise<CaptureResult> {
  const limits = captureLimits(deps);
  // Counted now, awaited with the per-person limit below: one Redis round trip for both.
  const ipLimit = limits.byIp.consume(meta.ip, TOO_MANY);
  ipLimit.catch(() => undefined); // a request that fails validation first never awaits it
  if (input.website) {
    await ipLimit;
    return recordSpam(deps, input.code);
  }
  const { code, campaign } = await resolveOpenCode(deps, input.code);
  const person = personFrom(input, campaign);
  await Promise.all([ipLimit, limits.byPerson.consume(person.phone ?? person.email!, TOO_MANY)]);

  const proof = {
    textId: campaign.consentTextId,
    source: 'qr',
    sourceRef: code.codeId,
    ipHash: hashIp(deps.secrets.ipHashKey, meta.ip),
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
  };
  let lead: { id: string; created: boolean; contactId: string };
  try {
    lead = await recordCapturedLead(deps.db, { campaignId: campaign.id, codeId: code.codeId, person, proof });
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) {
      throw new ValidationError([{ path: 'body.territoryId', message: 'Elige un barrio de la lista.' }], 'Algunos datos no son válidos.');
    }
    throw error;
  }
  deps.realtime.batched(DASHBOARD_ROOM, 'qr:lead')({ id: lead.id, campaignId: campaign.id, codeId: code.codeId, created: lead.created });
  if (!input.volunteer || !offersVolunteerSignup(campaign.landing)) return { id: lead.id, campaignId: campaign.id, created: lead.created };
  // After the lead: a retry of a failed enrolment re-captures the lead (an update) and enrols again (idempotent).
  const volunteer = await enrolVolunteerProspect(deps.db, {
    contactId: lead.contactId,
    territoryId: person.territoryId,
    source: 'qr',
    sourceRef: campaign.id,
    timeZone: deps.config.timeZone,
  });
  return { id: lead.id, campaignId: campaign.id, created: lead.created, volunteerId: volunteer.id };
}

/** A honeypot hit looks accepted to the bot, stores nothing personal, and is counted. */
async function recordSpam(deps: Pick<AppDeps, 'db' | 'caches'>, code: string): Promise<CaptureResult> {
  const context = CODE_PATTERN.test(code) ? await codeContexts(deps).get(code) : null;
  if (context) await countSpam(deps.db, context.campaignId);
  return { id: newId(), campaignId: context?.campaignId ?? newId(), created: true };
}

export function isClientError(error: unknown): error is AppError {
  return error instanceof AppError && error.status < 500;
}
