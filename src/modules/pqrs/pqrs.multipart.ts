import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import formidable from 'formidable';
import { AppError, type FieldError } from '../../kernel/errors';
import { DOCX_TYPE, detectFileType, isExecutable } from '../../kernel/file-store';
import { ATTACHMENT_MAX_BYTES, ATTACHMENT_TYPES } from './pqrs.service';

/** Files the public form may carry with a filing (more can be attached afterwards with the token). */
export const FORM_MAX_FILES = 3;

export interface FormFile {
  fileName: string;
  type: (typeof ATTACHMENT_TYPES)[number];
  bytes: Buffer;
}

/** A failed multipart post, with the fields read before the failure so the form can show them again. */
export class MultipartError extends AppError {
  constructor(
    status: number,
    message: string,
    readonly fields: Record<string, string>,
  ) {
    super(status, status === 413 ? 'payload_too_large' : 'validation_failed', status === 413 ? 'Payload too large' : 'Validation failed', message, [
      { path: 'body.attachments', message },
    ]);
  }
}

const SIZE_MESSAGE = `Puedes adjuntar hasta ${FORM_MAX_FILES} archivos de ${ATTACHMENT_MAX_BYTES / 1024 / 1024} MB cada uno.`;

/**
 * The public form's multipart post: its fields (first value of each) and its files, kept in memory
 * (at most FORM_MAX_FILES × 10 MB) and never written to a temporary folder. A file over the size
 * or count limit ends the parse with a 413 whose error sits on the `attachments` field. Fields
 * holding a NUL character are refused (PostgreSQL text cannot store one).
 */
export async function parseMultipart(req: IncomingMessage): Promise<{ fields: Record<string, string>; files: { fileName: string; bytes: Buffer }[] }> {
  const chunks = new Map<string, Buffer[]>();
  const seen: Record<string, string> = {};
  const form = formidable({
    maxFiles: FORM_MAX_FILES,
    maxFileSize: ATTACHMENT_MAX_BYTES,
    maxTotalFileSize: FORM_MAX_FILES * ATTACHMENT_MAX_BYTES,
    maxFields: 50,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    fileWriteStreamHandler: (file) => {
      const parts: Buffer[] = [];
      if (file) chunks.set(file.toJSON().newFilename, parts);
      return new Writable({
        write(chunk: Buffer, _encoding, done) {
          parts.push(chunk);
          done();
        },
      });
    },
  });
  form.on('field', (name, value) => {
    seen[name] ??= value;
  });
  try {
    const [fields, files] = await form.parse(req);
    const first = Object.fromEntries(Object.entries(fields).flatMap(([name, values]) => (values?.length ? [[name, values[0]!]] : [])));
    if (Object.entries(first).some(([name, value]) => name.includes('\u0000') || value.includes('\u0000'))) {
      throw new AppError(400, 'validation_failed', 'Validation failed', 'A field contains a NUL character (\\u0000), which text cannot hold.');
    }
    const uploaded = (files.attachments ?? [])
      .map((file) => ({ fileName: file.originalFilename ?? '', bytes: Buffer.concat(chunks.get(file.newFilename) ?? []) }))
      // A file input left empty still sends a part: no name, no bytes.
      .filter((file) => file.fileName !== '' || file.bytes.length > 0);
    return { fields: first, files: uploaded };
  } catch (error) {
    if (error instanceof AppError) throw error;
    req.resume();
    const httpCode = (error as { httpCode?: number }).httpCode;
    if (httpCode === 413) throw new MultipartError(413, SIZE_MESSAGE, seen);
    throw new MultipartError(400, 'No pudimos leer el formulario; vuelve a intentarlo.', seen);
  }
}

/** Each file's type by its bytes, or the problems with them, as errors on the `attachments` field. */
export function checkFormFiles(files: { fileName: string; bytes: Buffer }[]): { accepted: FormFile[]; errors: FieldError[] } {
  const accepted: FormFile[] = [];
  const errors: FieldError[] = [];
  for (const file of files) {
    const name = file.fileName || 'sin nombre';
    const type = isExecutable(file.bytes) ? undefined : detectFileType(file.bytes, ATTACHMENT_TYPES);
    if (isExecutable(file.bytes)) errors.push({ path: 'body.attachments', message: `«${name}» es un programa: no aceptamos programas como adjuntos.` });
    else if (!file.bytes.length) errors.push({ path: 'body.attachments', message: `«${name}» está vacío.` });
    else if (!type) errors.push({ path: 'body.attachments', message: `«${name}» no es un PDF, una imagen JPG o PNG ni un documento de Word (.docx).` });
    else accepted.push({ fileName: file.fileName || `adjunto.${type === DOCX_TYPE ? 'docx' : type.split('/')[1]}`, type, bytes: file.bytes });
  }
  return { accepted, errors };
}
