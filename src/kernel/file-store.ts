import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from './errors';

/**
 * Files people send (receipts, PQRS attachments), kept under `${DATA_DIR}/<area>/<name>`. What a
 * file is comes from its first bytes, never from the declared type or the file name, and a body
 * is refused as soon as it passes the area's size limit. S3-compatible storage is not offered yet.
 */

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export const STORED_FILE_TYPES = ['image/jpeg', 'image/png', 'application/pdf', DOCX_TYPE] as const;
export type StoredFileType = (typeof STORED_FILE_TYPES)[number];

const EXTENSIONS: Record<StoredFileType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'application/pdf': 'pdf', [DOCX_TYPE]: 'docx' };

const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** The first bytes each format always starts with (JPEG SOI marker, the PNG signature, `%PDF-`). */
const SIGNATURES: [Exclude<StoredFileType, typeof DOCX_TYPE>, Buffer][] = [
  ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff])],
  ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['application/pdf', Buffer.from('%PDF-', 'ascii')],
];

/** Programs: Windows PE (`MZ`), ELF, Mach-O (both byte orders, fat binaries), scripts with a `#!` line, Java classes. */
const EXECUTABLE_SIGNATURES = [
  Buffer.from('MZ', 'ascii'),
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]),
  Buffer.from([0xfe, 0xed, 0xfa, 0xce]),
  Buffer.from([0xfe, 0xed, 0xfa, 0xcf]),
  Buffer.from([0xce, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xcf, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xca, 0xfe, 0xba, 0xbe]),
  Buffer.from('#!', 'ascii'),
];

const startsWith = (bytes: Buffer, signature: Buffer) => bytes.length >= signature.length && bytes.subarray(0, signature.length).equals(signature);

export function isExecutable(bytes: Buffer): boolean {
  return EXECUTABLE_SIGNATURES.some((signature) => startsWith(bytes, signature));
}

/**
 * The names of a ZIP archive's entries, read from its central directory (names there are never
 * compressed); undefined when the bytes are not a well-formed archive.
 */
export function zipEntryNames(bytes: Buffer): string[] | undefined {
  if (!startsWith(bytes, ZIP_LOCAL_HEADER)) return undefined;
  // The end-of-central-directory record is in the last 22 bytes plus at most a 64 KiB comment.
  const floor = Math.max(0, bytes.length - 22 - 0xffff);
  let end = -1;
  for (let at = bytes.length - 22; at >= floor; at -= 1) {
    if (bytes.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== 0x02014b50) return undefined;
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    if (at + 46 + nameLength > bytes.length) return undefined;
    names.push(bytes.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

/**
 * The type these bytes are, by their signature, among `allowed`; undefined when none matches. A
 * Word document is a ZIP archive holding `[Content_Types].xml` and `word/document.xml`, so any
 * other archive (or a renamed program) is not taken for one.
 */
export function detectFileType<T extends StoredFileType>(bytes: Buffer, allowed: readonly T[]): T | undefined {
  const byPrefix = SIGNATURES.find(([type, signature]) => (allowed as readonly StoredFileType[]).includes(type) && startsWith(bytes, signature));
  if (byPrefix) return byPrefix[0] as T;
  if ((allowed as readonly StoredFileType[]).includes(DOCX_TYPE)) {
    const names = zipEntryNames(bytes);
    if (names?.includes('[Content_Types].xml') && names.includes('word/document.xml')) return DOCX_TYPE as T;
  }
  return undefined;
}

export const fileExtension = (type: string): string => EXTENSIONS[type as StoredFileType] ?? 'bin';

export function tooLarge(limit: number, what = 'A file'): AppError {
  return new AppError(413, 'payload_too_large', 'Payload too large', `${what} may be at most ${Math.round((limit / 1024 / 1024) * 10) / 10} MB.`);
}

/**
 * The whole body, or a 413 as soon as it passes `limit` bytes (a declared Content-Length over it is
 * refused before reading). The rest of an oversized body is read and dropped, so the client gets
 * the answer rather than a reset connection.
 */
export async function readBody(stream: Readable, declaredLength: number | undefined, limit: number, what = 'A file'): Promise<Buffer> {
  if (declaredLength !== undefined && declaredLength > limit) {
    stream.resume();
    throw tooLarge(limit, what);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      stream.resume();
      throw tooLarge(limit, what);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A written file not yet in its place: `place()` renames it there (a reader never sees half a file), `discard()` removes it. */
export interface StagedFile {
  place(): Promise<void>;
  discard(): Promise<void>;
}

/** One area of the store (`finance/receipts`, `pqrs/attachments`): file names are ids the module chooses. */
export class FileArea {
  readonly dir: string;

  constructor(dataDir: string, area: string) {
    if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*$/.test(area)) throw new Error(`file area "${area}" must be lower-case words separated by /`);
    this.dir = path.join(dataDir, ...area.split('/'));
  }

  /** Where a file is; the name must be a plain id (no separators or dots), so it cannot leave the area. */
  pathOf(name: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error('a stored file name is an id: letters, digits, - and _ only');
    return path.join(this.dir, name);
  }

  /** Writes the bytes beside their final place, for the caller to place once its record is written. */
  async stage(name: string, bytes: Buffer): Promise<StagedFile> {
    const final = this.pathOf(name);
    await fs.promises.mkdir(this.dir, { recursive: true });
    const staged = path.join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.part`);
    await fs.promises.writeFile(staged, bytes, { mode: 0o640 });
    return {
      place: () => fs.promises.rename(staged, final),
      discard: () => fs.promises.rm(staged, { force: true }),
    };
  }

  /** The file's size, or undefined when it is not there. */
  async sizeOf(name: string): Promise<number | undefined> {
    try {
      return (await fs.promises.stat(this.pathOf(name))).size;
    } catch {
      return undefined;
    }
  }

  open(name: string): fs.ReadStream {
    return fs.createReadStream(this.pathOf(name));
  }

  /** Removes a file; one that is already gone is not an error. */
  async remove(name: string): Promise<void> {
    await fs.promises.rm(this.pathOf(name), { force: true });
  }
}
