import { z } from 'zod';

/**
 * The fields a citizen types on a public form (a poster's landing page, the PQRS form), one
 * schema each so every form normalises and words them alike. Messages are Spanish: the pages show
 * them beside the fields, with and without JavaScript.
 */
export const tooLong = (max: number) => `Escribe como máximo ${max} caracteres.`;

/** Trimmed; an empty answer is no answer. */
export const optionalText = (max: number) =>
  z
    .string({ error: 'Escribe texto en este campo.' })
    .trim()
    .max(max, tooLong(max))
    .optional()
    .transform((value) => (value ? value : undefined));

const EMAIL_MESSAGE = 'Escribe un correo como ana@ejemplo.com, sin espacios.';

/** Lower-cased; documented as `format: email` (the pipe's check does not reach the OpenAPI input schema). */
export const citizenEmail = z
  .string({ error: EMAIL_MESSAGE })
  .trim()
  .max(254, tooLong(254))
  .optional()
  .transform((value) => (value ? value.toLowerCase() : undefined))
  .pipe(z.email(EMAIL_MESSAGE).optional())
  .meta({ format: 'email' });

/** Cédula: digits only; dots, spaces and dashes as people type them are removed. */
export const citizenDocumentId = optionalText(20)
  .transform((value) => value?.replace(/[.\s-]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{5,12}$/, 'La cédula tiene de 5 a 12 dígitos.')
      .optional(),
  );

/** A territory picked from the page's list; the empty option is none. */
export const citizenTerritoryId = (message: string) =>
  z
    .uuid(message)
    .optional()
    .or(z.literal('').transform(() => undefined));
