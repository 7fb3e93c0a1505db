import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../../kernel/errors';

/**
 * Receipt files: what may be stored (checked by content, not by the declared type), how large,
 * and where: `${DATA_DIR}/finance/receipts/<entry id>`.
 */

export const RECEIPT_MAX_BYTES = 5 * 1024 * 1024;

export const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'application/pdf'] as const;
export type ReceiptType = (typeof RECEIPT_TYPES)[number];

const EXTENSIONS: Record<ReceiptType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'application/pdf': 'pdf' };

/** The first bytes each format always starts with (JPEG SOI marker, the PNG signature, `%PDF-`). */
const SIGNATURES: [ReceiptType, Buffer][] = [
  ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff])],
  ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['application/pdf', Buffer.from('%PDF-', 'ascii')],
];

/** The receipt type these bytes are, by their signature; undefined when none matches. */
export function detectReceiptType(bytes: Buffer): ReceiptType | undefined {
  return SIGNATURES.find(([, signature]) => bytes.length >= signature.length && bytes.subarray(0, signature.length).equals(signature))?.[0];
}

export const receiptExtension = (type: string): string => EXTENSIONS[type as ReceiptType] ?? 'bin';

export function tooLarge(): AppError {
  return new AppError(413, 'payload_too_large', 'Payload too large', `A receipt may be at most ${RECEIPT_MAX_BYTES / 1024 / 1024} MB.`);
}

/**
 * The whole body, or a 413 as soon as it passes `limit` bytes (a declared Content-Length over it is
 * refused before reading). The rest of an oversized body is read and dropped, so the client gets
 * the answer rather than a reset connection.
 */
export async function readBody(stream: Readable, declaredLength: number | undefined, limit = RECEIPT_MAX_BYTES): Promise<Buffer> {
  if (declaredLength !== undefined && declaredLength > limit) {
    stream.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      stream.resume();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export function receiptDir(dataDir: string): string {
  return path.join(dataDir, 'finance', 'receipts');
}

export function receiptPath(dataDir: string, entryId: string): string {
  return path.join(receiptDir(dataDir), entryId);
}

/**
 * Writes the bytes beside their final place; `place()` moves them there in one rename (so a reader
 * never sees half a file), `discard()` removes them when the entry could not take them.
 */
export async function stageReceipt(dataDir: string, entryId: string, bytes: Buffer): Promise<{ place(): Promise<void>; discard(): Promise<void> }> {
  const dir = receiptDir(dataDir);
  await fs.promises.mkdir(dir, { recursive: true });
  const staged = path.join(dir, `.${entryId}.${randomBytes(6).toString('hex')}.part`);
  await fs.promises.writeFile(staged, bytes, { mode: 0o640 });
  return {
    place: () => fs.promises.rename(staged, receiptPath(dataDir, entryId)),
    discard: () => fs.promises.rm(staged, { force: true }),
  };
}
