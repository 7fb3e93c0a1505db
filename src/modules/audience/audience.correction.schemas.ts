import { z } from 'zod';
import { tagSchema } from './audience.people.schemas';
import { normalisePhone } from './audience.phone';

/*
 * The body of a correction, apart from the other people schemas: it reads a phone as the server
 * does (libphonenumber and its metadata, some 45 KB compressed), so the console loads it with the
 * correction form only, not with the person's page.
 */

const phoneCorrection = z
  .string()
  .trim()
  .max(30)
  .transform((value, ctx) => {
    const phone = normalisePhone(value);
    if (!phone) {
      ctx.addIssue({ code: 'custom', message: 'is not a valid phone number (a Colombian mobile such as 300 123 4567, or +country code)' });
      return z.NEVER;
    }
    return phone;
  });

const documentCorrection = z
  .string()
  .trim()
  .max(30)
  .transform((value) => value.replace(/[.\s-]/g, ''))
  .pipe(z.string().regex(/^\d{5,12}$/, 'a cédula has 5 to 12 digits (dots, spaces and dashes are ignored)'));

export const correctPersonBody = z
  .object({
    name: z.string().trim().min(1).max(160).optional(),
    /** Any format; stored in E.164. Null removes it (the person must keep a phone or an email). */
    phone: phoneCorrection.nullable().optional(),
    email: z.string().trim().toLowerCase().max(254).pipe(z.email('must be an email address')).meta({ format: 'email' }).nullable().optional(),
    documentId: documentCorrection.nullable().optional(),
    /** Replaces the list: each trimmed and lower-cased, 1–40 characters, at most 30; repeats count once. */
    tags: z.array(tagSchema).max(30, 'at most 30 tags').optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'say what to change: name, phone, email, documentId or tags' });

export type CorrectPersonInput = z.infer<typeof correctPersonBody>;
