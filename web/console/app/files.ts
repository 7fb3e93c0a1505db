import { api } from './api';

/** Hands a file the page holds to the browser's downloads, under `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy by the next turn; the page's is freed.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Fetches a file the API answers with the session's token (never a token in a URL) and saves it as `fileName`. */
export async function downloadFile(path: string, fileName: string): Promise<void> {
  saveBlob(await api.download(path), fileName);
}
