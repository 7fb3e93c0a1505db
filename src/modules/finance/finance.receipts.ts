import type { Readable } from 'node:stream';
import { FileArea, detectFileType, fileExtension, readBody as readLimitedBody, sha256Of, type StagedFile } from '../../kernel/file-store';

/**
 * Receipt files: what may be stored (checked by content, not by the declared type), how large,
 * and where: `${DATA_DIR}/finance/receipts/<entry id>` (the shared file store, kernel/file-store.ts).
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

export const receiptArea = (dataDir: string): FileArea => new FileArea(dataDir, 'finance/receipts');

export function receiptPath(dataDir: string, entryId: string): string {
  return receiptArea(dataDir).pathOf(entryId);
}

/** Writes the bytes beside their final place; `place()` moves them there in one rename, `discard()` removes them. */
export function stageReceipt(dataDir: string, entryId: string, bytes: Buffer): Promise<StagedFile> {
  return receiptArea(dataDir).stage(entryId, bytes);
}
