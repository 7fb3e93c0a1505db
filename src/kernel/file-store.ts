import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import type { FileStoreConfig } from '../config';
import { AppError, ServiceBusyError } from './errors';

/**
 * Files people send (receipts, PQRS attachments, incident photos) and the email outbox, kept as
 * `<area>/<name>` under `DATA_DIR` or in an S3-compatible bucket (`FILE_STORE`). What a file is
 * comes from its first bytes, never from the declared type or the file name, and a body is
 * refused as soon as it passes the area's size limit.
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

/** A written file not yet in its place: `place()` moves it there (a reader never sees half a file), `discard()` removes it. */
export interface StagedFile {
  place(): Promise<void>;
  discard(): Promise<void>;
}

export interface StoredFile {
  size: number;
  stream: Readable;
}

export interface StoredEntry {
  name: string;
  size: number;
  modifiedAt: Date;
}

/** What a back end does with whole keys (`pqrs/attachments/<id>`); FileArea checks every key it builds. */
export interface FileBackend {
  readonly kind: FileStoreConfig['kind'];
  write(key: string, bytes: Buffer): Promise<void>;
  /** Replaces `to` with `from` as one step a reader cannot see half of. */
  move(from: string, to: string): Promise<void>;
  read(key: string): Promise<StoredFile | undefined>;
  size(key: string): Promise<number | undefined>;
  remove(key: string): Promise<void>;
  /** The files directly under `dir` (no trailing slash). */
  list(dir: string): Promise<StoredEntry[]>;
  close(): void;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Files under one folder (`DATA_DIR`): the embedded default, for one host. */
export class LocalBackend implements FileBackend {
  readonly kind = 'local';
  private readonly made = new Set<string>();

  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  async write(key: string, bytes: Buffer): Promise<void> {
    const file = this.pathOf(key);
    const dir = path.dirname(file);
    if (!this.made.has(dir)) {
      await fs.promises.mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    await fs.promises.writeFile(file, bytes, { mode: 0o640 });
  }

  move(from: string, to: string): Promise<void> {
    return fs.promises.rename(this.pathOf(from), this.pathOf(to));
  }

  async read(key: string): Promise<StoredFile | undefined> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { size, stream: handle.createReadStream() };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await fs.promises.stat(this.pathOf(key))).size;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async list(dir: string): Promise<StoredEntry[]> {
    const folder = this.pathOf(dir);
    let names: string[];
    try {
      names = await fs.promises.readdir(folder);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const entries: StoredEntry[] = [];
    for (const name of names) {
      const stat = await fs.promises.stat(path.join(folder, name)).catch(() => undefined);
      if (stat?.isFile()) entries.push({ name, size: stat.size, modifiedAt: stat.mtime });
    }
    return entries;
  }

  close(): void {}
}

type S3Config = Extract<FileStoreConfig, { kind: 's3' }>;

const notFound = (error: unknown) => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'NoSuchKey' || failure.name === 'NotFound' || failure.$metadata?.httpStatusCode === 404;
};

/** Seconds a client is asked to wait when the bucket cannot be reached. */
const STORE_RETRY_AFTER_SECONDS = 10;

/** The store unreachable or refusing (after the SDK's own retries) is the service's trouble, not the request's: a 503 to retry. */
async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (notFound(error)) throw error;
    throw Object.assign(new ServiceBusyError(STORE_RETRY_AFTER_SECONDS, 'The file store cannot be reached now; send the request again.'), { cause: error });
  }
}

/** Objects in an S3-compatible bucket (S3, MinIO, R2, GCS's XML API): every process and host sees the same files. */
export class S3Backend implements FileBackend {
  readonly kind = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.prefix = config.prefix ? `${config.prefix}/` : '';
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      // The SDK's default CRC checksums are AWS-only headers that GCS and older MinIO refuse.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private keyOf(key: string): string {
    return this.prefix + key;
  }

  async write(key: string, bytes: Buffer): Promise<void> {
    await storeCall(() => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Body: bytes, ContentLength: bytes.length })));
  }

  async move(from: string, to: string): Promise<void> {
    // A copy inside the store (no bytes through this process); a PUT or COPY replaces an object whole.
    const source = `${this.bucket}/${this.keyOf(from).split('/').map(encodeURIComponent).join('/')}`;
    await storeCall(() => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.keyOf(to), CopySource: source })));
    await this.remove(from);
  }

  async read(key: string): Promise<StoredFile | undefined> {
    try {
      const answer = await storeCall(() => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })));
      return { size: answer.ContentLength ?? 0, stream: answer.Body as Readable };
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await storeCall(() => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })))).ContentLength;
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await storeCall(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })));
  }

  async list(dir: string): Promise<StoredEntry[]> {
    const prefix = `${this.keyOf(dir)}/`;
    const entries: StoredEntry[] = [];
    let token: string | undefined;
    do {
      const page: ListObjectsV2CommandOutput = await storeCall(() =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        entries.push({ name: object.Key.slice(prefix.length), size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return entries;
  }

  close(): void {
    this.client.destroy();
  }
}

/** A stored file's name: an id or a generated file name (no separator, not starting with a dot), so it cannot leave its area. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9@._-]*$/;
/** A name `list()` may give: a file's, or a staged one's (one leading dot). */
const LISTED_NAME = /^\.?[A-Za-z0-9_-][A-Za-z0-9@._-]*$/;

/** One area of the store (`finance/receipts`, `pqrs/attachments`): file names are ids the module chooses. */
export class FileArea {
  constructor(
    private readonly backend: FileBackend,
    readonly area: string,
  ) {
    if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*$/.test(area)) throw new Error(`file area "${area}" must be lower-case words separated by /`);
  }

  private keyOf(name: string, pattern = FILE_NAME): string {
    if (!pattern.test(name)) throw new Error('a stored file name is an id: letters, digits, @ . - and _ only, not starting with a dot');
    return `${this.area}/${name}`;
  }

  /** Writes the bytes beside their final place, for the caller to place once its record is written. */
  async stage(name: string, bytes: Buffer): Promise<StagedFile> {
    const final = this.keyOf(name);
    // Staged names start with a dot, so no module's id is ever one; the area's sweep removes those a crash left.
    const staged = `${this.area}/.${name}.${randomBytes(6).toString('hex')}.part`;
    await this.backend.write(staged, bytes);
    return {
      place: () => this.backend.move(staged, final),
      discard: () => this.backend.remove(staged),
    };
  }

  /** Writes a file in one step (no record waits on it). */
  async put(name: string, bytes: Buffer): Promise<void> {
    await this.backend.write(this.keyOf(name), bytes);
  }

  /** The file's size and its bytes as a stream, or undefined when it is not there. */
  read(name: string): Promise<StoredFile | undefined> {
    return this.backend.read(this.keyOf(name));
  }

  /** The file's size, or undefined when it is not there. */
  sizeOf(name: string): Promise<number | undefined> {
    return this.backend.size(this.keyOf(name));
  }

  /** Removes a file (or a staged one `list()` gave); one that is already gone is not an error. */
  remove(name: string): Promise<void> {
    return this.backend.remove(this.keyOf(name, LISTED_NAME));
  }

  /** Every file in the area, staged ones included (their names start with a dot). */
  list(): Promise<StoredEntry[]> {
    return this.backend.list(this.area);
  }
}

/** The process's file store: one back end, areas on it. */
export class FileStore {
  constructor(readonly backend: FileBackend) {}

  area(name: string): FileArea {
    return new FileArea(this.backend, name);
  }

  close(): void {
    this.backend.close();
  }
}

export function createFileStore(config: FileStoreConfig): FileStore {
  return new FileStore(config.kind === 's3' ? new S3Backend(config) : new LocalBackend(config.dir));
}
