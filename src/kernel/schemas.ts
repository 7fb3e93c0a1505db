import { z } from 'zod';
import { ROLES } from './auth/roles';

/** A role's name, as the API takes and answers it. */
export const roleSchema = z.enum(ROLES);

/**
 * An email address as people type it: trimmed, lower-cased, at most 254 characters. The pipe's
 * check does not reach the OpenAPI input schema by itself, so the format is stated for it.
 */
export function emailAddress(message = 'must be an email address') {
  return z.string().trim().toLowerCase().max(254).pipe(z.email(message)).meta({ format: 'email' });
}
