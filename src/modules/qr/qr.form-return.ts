import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * Post/redirect/get for the landing form without JavaScript: a failed form post keeps what the
 * citizen typed and the errors in a short-lived encrypted cookie scoped to the poster's page, and
 * answers 303 to `/q/<code>?e=<id>`, which renders the form from it. A refresh there re-reads the
 * cookie instead of resubmitting, and personal data never travels in a URL, a log line or Redis.
 */

export const FORM_RETURN_COOKIE = 'qr_form';
/** Long enough to read the errors and fix them; the page then shows a fresh form. */
export const FORM_RETURN_TTL_SECONDS = 600;
/** Browsers drop cookies above ~4 KB: past this the values are left out and only the errors kept. */
const MAX_COOKIE_CHARS = 3800;
const AAD = Buffer.from('comando:qr-form-return');

const text = (max: number) => z.string().max(max).optional();

const formValues = z.object({
  name: text(150),
  phone: text(30),
  email: text(254),
  documentId: text(20),
  neighbourhood: text(120),
  territoryId: text(36),
  interests: z.array(z.string().max(60)).max(30).optional(),
  whatsappOptIn: z.boolean().optional(),
  emailOptIn: z.boolean().optional(),
  consent: z.boolean().optional(),
  volunteer: z.boolean().optional(),
});

const savedForm = z.object({
  id: z.string(),
  code: z.string(),
  expiresAt: z.number(),
  values: formValues,
  errors: z.array(z.object({ field: z.string().max(40), message: z.string().max(300) })).max(40),
});

export type FormValues = z.infer<typeof formValues>;
export type FormErrors = z.infer<typeof savedForm>['errors'];

/** A key of its own for these cookies, derived from the process's IP-hash key (itself from JWT_SECRET). */
function cookieKey(secret: KeyObject): Buffer {
  return Buffer.from(hkdfSync('sha256', secret.export(), Buffer.alloc(0), 'comando:qr-form-return', 32));
}

function seal(secret: KeyObject, payload: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cookieKey(secret), iv).setAAD(AAD);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

function open(secret: KeyObject, token: string): unknown {
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < 29) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', cookieKey(secret), bytes.subarray(0, 12)).setAAD(AAD);
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'));
  } catch {
    return undefined; // forged, truncated, or sealed with another key (JWT_SECRET rotated)
  }
}

const cut = (value: string | undefined, max: number) => value?.slice(0, max);

/** The cookie's value and the id the redirect carries. Values are trimmed to the form's own limits. */
export function saveForm(secret: KeyObject, code: string, values: FormValues, errors: FormErrors, now = Date.now()): { id: string; cookie: string } {
  const id = randomBytes(16).toString('base64url');
  const kept: FormValues = {
    ...values,
    name: cut(values.name, 150),
    phone: cut(values.phone, 30),
    email: cut(values.email, 254),
    documentId: cut(values.documentId, 20),
    neighbourhood: cut(values.neighbourhood, 120),
    territoryId: cut(values.territoryId, 36),
    interests: values.interests?.filter((interest) => interest.length <= 60).slice(0, 30),
  };
  const shortErrors = errors.slice(0, 40).map((error) => ({ field: error.field.slice(0, 40), message: error.message.slice(0, 300) }));
  const expiresAt = now + FORM_RETURN_TTL_SECONDS * 1000;
  const cookie = seal(secret, { id, code, expiresAt, values: kept, errors: shortErrors });
  if (cookie.length <= MAX_COOKIE_CHARS) return { id, cookie };
  return { id, cookie: seal(secret, { id, code, expiresAt, values: {}, errors: shortErrors }) };
}

/** The saved form for this page and redirect id, if the cookie is genuine, current and theirs. */
export function loadForm(secret: KeyObject, cookie: string | undefined, code: string, id: string, now = Date.now()): { values: FormValues; errors: FormErrors } | undefined {
  if (!cookie) return undefined;
  const parsed = savedForm.safeParse(open(secret, cookie));
  if (!parsed.success) return undefined;
  const saved = parsed.data;
  if (saved.id !== id || saved.code !== code || saved.expiresAt <= now) return undefined;
  return { values: saved.values, errors: saved.errors };
}

/** `Set-Cookie` for the poster's page only; `Secure` whenever the site is served over HTTPS. */
export function formCookieHeader(code: string, value: string, secure: boolean, maxAgeSeconds = FORM_RETURN_TTL_SECONDS): string {
  return `${FORM_RETURN_COOKIE}=${value}; Path=/q/${code}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
