import type { Readable } from 'node:stream';
import { detectFileType, fileExtension, readBody as readLimitedBody, sha256Of, type FileArea, type FileStore } from '../../kernel/file-store';

/**
 * Receipt files: what may be stored (checked by content, not by the declared type), how large,
 * and where: `finance/receipts/<entry id>` in the shared file store (kernel/file-store.ts).
 */

export const RECEIPT_MAX_BYTES = 5 * 1024 * 1024;

export const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'application/pdf'] as const;
export type ReceiptType = (typeof RECEIPT_TYPES)[number];

/** The receipt type these bytes are, by their signature; undefined when none matches. */
export function detectReceiptType(bytes: Buffer): ReceiptType | undefined {
  return detectFileType(bytes, RECEIPT_TYPES);
}

export const receiptExtension = fileExtension;

export { sha256Of };

/** The whole body, or a 413 once it passes `limit` bytes. */
export function readBody(stream: Readable, declaredLength: number | undefined, limit = RECEIPT_MAX_BYTES): Promise<Buffer> {
  return readLimitedBody(stream, declaredLength, limit, 'A receipt');
}

export const receiptArea = (files: FileStore): FileArea => files.area('finance/receipts');
