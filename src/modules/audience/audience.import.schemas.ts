import { z } from 'zod';

/*
 * What a supporters' import accepts, apart from the import itself (streams, SQL) so that the
 * console's import page validates the consent proof with the route's own schema and lists the
 * columns the server reads.
 */

/** As the GOTV voters' import: a department's supporters in one file. */
export const CONTACT_IMPORT_MAX_ROWS = 100_000;
/** Bytes one CSV record may take (the kernel's default): a row longer than this is a malformed file. */
export const CONTACT_IMPORT_MAX_RECORD_BYTES = 10_000;
/** How many rows a dry run shows as they would be written. */
export const PREVIEW_ROWS = 10;

/**
 * The columns an import reads, each under its English and Spanish names. Headers are matched
 * without regard to case, accents, spaces, dashes or underscores (`Teléfono`, `correo_electronico`).
 */
export const IMPORT_COLUMNS = {
  name: ['name', 'nombre'],
  phone: ['phone', 'telefono', 'celular'],
  email: ['email', 'correo', 'correoElectronico'],
  documentId: ['documentId', 'cedula', 'documento'],
  territoryCode: ['territoryCode', 'codigoTerritorio'],
  territoryId: ['territoryId', 'idTerritorio'],
  neighbourhood: ['neighbourhood', 'neighborhood', 'barrio'],
  interests: ['interests', 'intereses'],
  tags: ['tags', 'etiquetas'],
  whatsappConsent: ['whatsappConsent', 'autorizaWhatsapp', 'consentimientoWhatsapp'],
  emailConsent: ['emailConsent', 'autorizaCorreo', 'consentimientoCorreo'],
} as const;
export const importQuery = z
  .object({
    /** `true`: read and check everything, answer what would be written, write nothing. */
    dryRun: z.enum(['true', 'false'], { error: 'expected true or false' }).default('false'),
    /** The exact text the people in the file agreed to; required when a row's consent column says yes. */
    consentText: z.string().trim().min(20).max(4000).optional(),
    /** Where and how that consent was collected ("formulario firmado en evento del 12/10"); required with consentText. */
    consentCollection: z.string().trim().min(5).max(300).optional(),
    /** The privacy policy the text refers to, stored with it. */
    privacyPolicyUrl: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .optional(),
  })
  .refine((query) => (query.consentText === undefined) === (query.consentCollection === undefined), {
    message: 'Give consentText and consentCollection together: the text people agreed to and where and how it was collected.',
    path: ['consentCollection'],
  });
export type ImportQuery = z.infer<typeof importQuery>;
