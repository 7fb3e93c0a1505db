/** Files in and out of the console: saving what the API answered, reading what staff choose. */
import { api } from './api';

/** Hands a file the API answered (fetched with `api.download`) to the browser to save, under a name of ours. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once it starts; the URL is only needed until then.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A name safe for a file on any system: accents kept, separators and odd characters as dashes. */
export function fileNamePart(text: string): string {
  return (
    text
      .normalize('NFC')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase()
      .slice(0, 60) || 'archivo'
  );
}

export interface TextFile {
  text: string;
  /** `utf-8`, or `windows-1252` for a file Excel saved in its regional encoding. */
  encoding: 'utf-8' | 'windows-1252';
}

/**
 * A text file's content. Excel in Spanish saves "CSV" in Windows-1252 unless told UTF-8: a file
 * that is not valid UTF-8 is read as Windows-1252 instead of showing `Ã±` for `ñ` (the text sent
 * on is then UTF-8). A leading byte-order mark is dropped.
 */
export async function readTextFile(file: Blob): Promise<TextFile> {
  const bytes = await file.arrayBuffer();
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}

/** Fetches a file the API answers with the session's token (never a token in a URL) and saves it as `fileName`. */
export async function downloadFile(path: string, fileName: string): Promise<void> {
  saveFile(await api.download(path), fileName);
}
