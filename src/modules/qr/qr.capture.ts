import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, NotFoundError, ValidationError, type FieldError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { hashIp } from '../../kernel/privacy';
import { spanishError } from '../../kernel/spanish-issues';
import { citizenDocumentId, citizenEmail, citizenTerritoryId, normalisePhone, optionalText, type CapturedPerson } from '../audience';
import { enrolVolunteerProspect } from '../volunteers';
import { campaignContexts, codeContexts, type CampaignContext, type CodeContext } from './qr.context';
import { CODE_PATTERN } from './qr.codes';
import { isOpen } from './qr.policy';
import { offersVolunteerSignup } from './qr.presenter';
import { DASHBOARD_ROOM } from './qr.events';
import { countSpam, recordCapturedLead } from './qr.repository';

const CODE_UNKNOWN = 'Este código no corresponde a ningún afiche.';
const CONSENT_REQUIRED = 'Para enviar tus datos debes autorizar su tratamiento.';

/**
 * What a citizen submits. The same schema serves JSON and the no-JavaScript form post
 * (whose values are strings: see `fromForm`). `consent` must be exactly `true`. Every message a
 * citizen can meet is written here in Spanish, so the page says the same with and without JavaScript.
 */
export const captureBody = z.object({
  code: z.string({ error: CODE_UNKNOWN }).trim().regex(CODE_PATTERN, CODE_UNKNOWN),
  // A missing name (the script once left empty fields out) reads like an empty one.
  name: z.string({ error: 'Escribe tu nombre.' }).trim().min(2, 'Escribe tu nombre.').max(150, 'El nombre es demasiado largo.'),
  phone: optionalText(30),
  email: citizenEmail,
  documentId: citizenDocumentId,
  territoryId: citizenTerritoryId('Elige uno de los barrios de la lista.'),
  neighbourhood: optionalText(120),
  interests: z
    .array(z.string('Elige los temas de la lista.').trim().toLowerCase().max(60, 'Elige los temas de la lista.'), { error: 'Elige los temas de la lista.' })
    .max(30, 'Elige como máximo 30 temas.')
    .default([]),
  consent: z.literal(true, { error: CONSENT_REQUIRED }),
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

/** The order of the form, so the error summary lists problems top to bottom. */
const FORM_ORDER = ['code', 'name', 'phone', 'email', 'documentId', 'territoryId', 'neighbourhood', 'interests', 'consent'];
const formPosition = (path: string) => {
  const index = FORM_ORDER.indexOf(path.replace(/^body\./, '').split('.')[0]!);
  return index < 0 ? FORM_ORDER.length : index;
};

/** 400 with `consent_required` when consent is missing or not `true`, `validation_failed` otherwise; every field's error at once. */
function invalidCapture(errors: FieldError[]): ValidationError {
  const sorted = errors.map((error, index) => ({ error, index })).sort((x, y) => formPosition(x.error.path) - formPosition(y.error.path) || x.index - y.index);
  const consentMissing = errors.some((error) => error.path === 'body.consent');
  return new ValidationError(
    sorted.map(({ error }) => error),
    consentMissing ? CONSENT_REQUIRED : 'Algunos datos no son válidos.',
    consentMissing ? 'consent_required' : 'validation_failed',
  );
}

/** A submission that failed the shape: each field on its own, so the campaign's rules can still judge the ones that are fine. */
function parseFieldByField(body: unknown): { input: Partial<CaptureInput>; failed: Set<string>; errors: FieldError[] } {
  const raw = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  const failed = new Set<string>();
  const errors: FieldError[] = [];
  for (const [field, schema] of Object.entries(captureBody.shape)) {
    const parsed = (schema as z.ZodType).safeParse(raw[field], { error: spanishError });
    if (parsed.success) input[field] = parsed.data;
    else {
      failed.add(field);
      errors.push(...parsed.error.issues.map((issue) => ({ path: ['body', field, ...issue.path.map(String)].join('.'), message: issue.message })));
    }
  }
  return { input: input as Partial<CaptureInput>, failed, errors };
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

/**
 * Applies the campaign's own rules: which fields it asks, which it requires, which interests it
 * offers. Fields in `failed` already have an error of their own and are not judged again.
 */
function personFrom(input: Partial<CaptureInput>, campaign: CampaignContext, failed: ReadonlySet<string> = new Set()): { person: CapturedPerson; errors: FieldError[] } {
  const { fields, interests } = campaign.landing;
  const errors: FieldError[] = [];
  const asked = <T>(mode: string, value: T | undefined, field: string): T | null => {
    if (mode === 'hidden') return null;
    if (mode === 'required' && value === undefined && !failed.has(field)) errors.push({ path: `body.${field}`, message: 'Este campo es obligatorio.' });
    return value ?? null;
  };
  const rawPhone = asked(fields.phone, input.phone, 'phone');
  const email = asked(fields.email, input.email, 'email');
  const documentId = asked(fields.documentId, input.documentId, 'documentId');
  const place = fields.neighbourhood === 'hidden' ? undefined : (input.territoryId ?? input.neighbourhood);
  const placeField = campaign.neighbourhoods.length ? 'territoryId' : 'neighbourhood';
  if (!failed.has('territoryId') && !failed.has('neighbourhood')) asked(fields.neighbourhood, place, placeField);
  let phone: string | null = null;
  if (rawPhone) {
    phone = normalisePhone(rawPhone) ?? null;
    if (!phone) errors.push({ path: 'body.phone', message: 'Revisa el número: debe ser un celular o teléfono válido, por ejemplo 300 123 4567.' });
  }
  const contactJudged = !failed.has('phone') && !failed.has('email') && !errors.some((error) => error.path === 'body.phone' || error.path === 'body.email');
  if (!rawPhone && !email && contactJudged) errors.push({ path: 'body.phone', message: 'Déjanos al menos un celular o un correo.' });
  const offered = new Set(interests.map((option) => option.value));
  const chosen = input.interests ?? [];
  const unknown = chosen.filter((interest) => !offered.has(interest));
  if (unknown.length) errors.push({ path: 'body.interests', message: `Estos temas no están entre las opciones: ${unknown.join(', ')}.` });
  if (input.territoryId && campaign.neighbourhoods.length && !campaign.neighbourhoods.some((option) => option.id === input.territoryId)) {
    errors.push({ path: 'body.territoryId', message: 'Elige uno de los barrios de la lista.' });
  }
  const person: CapturedPerson = {
    name: input.name ?? '',
    phone,
    email,
    documentId,
    territoryId: fields.neighbourhood === 'hidden' ? null : (input.territoryId ?? null),
    neighbourhood: fields.neighbourhood === 'hidden' ? null : (input.neighbourhood ?? null),
    interests: [...new Set(chosen)],
    whatsappOptIn: Boolean(phone) && Boolean(input.whatsappOptIn),
    emailOptIn: Boolean(email) && Boolean(input.emailOptIn),
  };
  return { person, errors };
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

/**
 * Takes the submission as sent (JSON, or a form post through `fromForm`). A submission that fails
 * is answered with every field's problem at once: the shape's and the campaign's rules together.
 */
export async function captureLead(deps: CaptureDeps, body: unknown, meta: CaptureMeta): Promise<CaptureResult> {
  const limits = captureLimits(deps);
  // Counted now, awaited with the per-person limit below: one Redis round trip for both.
  const ipLimit = limits.byIp.consume(meta.ip, TOO_MANY);
  ipLimit.catch(() => undefined); // a request that fails validation first never awaits it
  const parsed = captureBody.safeParse(body, { error: spanishError });
  if (!parsed.success) {
    const { input, failed, errors } = parseFieldByField(body);
    // A well-formed code names the campaign whose rules apply; an unknown or closed one answers first (404/409).
    if (input.code) errors.push(...personFrom(input, (await resolveOpenCode(deps, input.code)).campaign, failed).errors);
    throw invalidCapture(errors);
  }
  const input = parsed.data;
  if (input.website) {
    await ipLimit;
    return recordSpam(deps, input.code);
  }
  const { code, campaign } = await resolveOpenCode(deps, input.code);
  const { person, errors } = personFrom(input, campaign);
  if (errors.length) throw invalidCapture(errors);
  await Promise.all([ipLimit, limits.byPerson.consume(person.phone ?? person.email!, TOO_MANY)]);

  const proof = {
    textId: campaign.consentTextId,
    source: 'qr',
    sourceRef: code.codeId,
    ipHash: hashIp(deps.secrets.ipHashKey, meta.ip),
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
  };
  let lead: Awaited<ReturnType<typeof recordCapturedLead>>;
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
    territoryId: lead.territoryId,
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
