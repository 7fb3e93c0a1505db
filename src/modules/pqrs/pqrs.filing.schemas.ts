import { z } from 'zod';
import { citizenDocumentId, citizenEmail, citizenTerritoryId, optionalText } from '../audience';
import { PQRS_TYPES } from './pqrs.constants';

const truthy = z
  .union([z.boolean(), z.literal('true'), z.literal('on')])
  .optional()
  .transform((value) => value === true || value === 'true' || value === 'on');

/**
 * What a citizen files, by JSON or by the no-JavaScript form (whose values are strings). The
 * messages are Spanish: the form shows them next to its fields.
 */
export const fileBody = z.object({
  type: z.enum(PQRS_TYPES, { error: 'Elige el tipo de solicitud.' }),
  subject: z.string({ error: 'Escribe el asunto.' }).trim().min(3, 'Escribe el asunto (al menos 3 caracteres).').max(200, 'El asunto es demasiado largo (máximo 200 caracteres).'),
  description: z
    .string({ error: 'Describe tu solicitud.' })
    .trim()
    .min(10, 'Describe tu solicitud (al menos 10 caracteres).')
    .max(10_000, 'La descripción es demasiado larga (máximo 10.000 caracteres).'),
  name: optionalText(150),
  phone: optionalText(30),
  email: citizenEmail,
  documentId: citizenDocumentId,
  territoryId: citizenTerritoryId('Elige un barrio de la lista.'),
  /** Only a denuncia may be anonymous; then no personal data is kept, whatever else was sent. */
  anonymous: truthy,
  consent: truthy,
  /** The citizen agrees to get the number and the answer on this channel. */
  whatsappOptIn: truthy,
  emailOptIn: truthy,
  /** Honeypot: hidden from people, filled in by naive bots. */
  website: z.string().max(500).optional(),
});
export type FileInput = z.infer<typeof fileBody>;
