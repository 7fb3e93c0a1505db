import { api } from '../app/api';
import { ENTRIES, type Entry } from './data';

/** What the API takes as a receipt, by type and by the name's ending (a browser may not know a file's type). */
const TYPES: Record<string, string> = { pdf: 'application/pdf', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png' };
export const RECEIPT_ACCEPT = 'application/pdf,image/jpeg,image/png,.pdf,.jpg,.jpeg,.png';
const MAX_BYTES = 5 * 1024 * 1024;

/** The file's type as the API takes it, or what is wrong with it before anything is sent. */
export function receiptFile(file: File): { type: string; error: null } | { type: undefined; error: string } {
  const type = Object.values(TYPES).includes(file.type) ? file.type : TYPES[file.name.split('.').pop()?.toLowerCase() ?? ''];
  if (!type) return { type: undefined, error: 'El soporte debe ser un PDF o una imagen JPEG o PNG.' };
  if (file.size > MAX_BYTES) return { type: undefined, error: 'El soporte pesa más de 5 MB.' };
  return { type, error: null };
}

/** Sends the file as the API takes it: the raw body with its type (`PUT …/receipt`), not a form. */
export async function uploadReceipt(entryId: string, file: File): Promise<Entry> {
  const checked = receiptFile(file);
  if (checked.error !== null) throw new Error(checked.error);
  const typed = file.type === checked.type ? file : new Blob([file], { type: checked.type });
  return api.put<Entry>(`${ENTRIES}/${entryId}/receipt`, typed);
}
