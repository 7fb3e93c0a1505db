import { escapeHtml } from '../../../landing/templates';
import { landingUrl, type QrImages } from './qr.codes';
import type { CampaignRecord, CodeRecord } from './qr.repository';

/** Codes on one printed A4 sheet: 4 across, 6 down, each QR about 40 mm wide. */
export const CODES_PER_A4 = 24;

export interface SheetPage {
  campaign: Pick<CampaignRecord, 'name'>;
  codes: Pick<CodeRecord, 'code' | 'label'>[];
  page: number;
  pages: number;
  total: number;
  pageSize: number;
}

const STYLE = `
  * { box-sizing: border-box; }
  body { font: 12px/1.3 system-ui, sans-serif; margin: 12mm; color: #000; }
  h1 { font-size: 16px; margin: 0 0 2mm; }
  nav { margin: 0 0 6mm; display: flex; flex-wrap: wrap; gap: 3mm; align-items: baseline; }
  nav a { padding: 1mm 2mm; border: 1px solid #999; border-radius: 2px; color: inherit; text-decoration: none; }
  nav a[aria-current] { background: #000; color: #fff; }
  .sheet { display: grid; grid-template-columns: repeat(4, 1fr); gap: 6mm 5mm; break-after: page; }
  .sheet:last-of-type { break-after: auto; }
  figure { margin: 0; text-align: center; break-inside: avoid; }
  figure svg { display: block; width: 100%; height: auto; }
  figcaption { font-size: 9px; overflow-wrap: anywhere; }
  @page { size: A4; margin: 10mm; }
  /* Paper: each sheet fills one A4 page (297 − 2 × 10 mm) in 6 rows, a 33 mm QR (0.8 mm a module) over its caption. */
  @media print {
    body { margin: 0; }
    h1, nav, .screen-only { display: none; }
    .sheet { height: 276mm; grid-template-rows: repeat(6, 1fr); gap: 3mm 4mm; overflow: hidden; }
    figure { display: flex; flex-direction: column; align-items: center; justify-content: center; min-height: 0; }
    figure svg { width: 33mm; height: 33mm; }
    figcaption { font-size: 8px; }
  }
`;

function pageLinks(view: SheetPage, sheetLink: string | undefined): string {
  // A sheet opened from a signed link keeps it on its other pages.
  const query = (page: number) => (sheetLink ? `?page=${page}&amp;link=${encodeURIComponent(sheetLink)}` : `?page=${page}`);
  const link = (page: number, text: string, rel?: string) =>
    `<a href="${query(page)}"${rel ? ` rel="${rel}"` : ''}${page === view.page && !rel ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`;
  // Every page number up to 50 pages (12,000 codes); beyond, the first, the last and the ten around this one.
  const shown = Array.from({ length: view.pages }, (_, index) => index + 1).filter(
    (page) => view.pages <= 50 || page === 1 || page === view.pages || Math.abs(page - view.page) <= 5,
  );
  const numbers = shown.map((page) => link(page, String(page)));
  return [view.page > 1 ? link(view.page - 1, '← Anterior', 'prev') : '', ...numbers, view.page < view.pages ? link(view.page + 1, 'Siguiente →', 'next') : '']
    .filter(Boolean)
    .join('');
}

/**
 * One page of a campaign's printable sheet: its codes in A4 sheets of 24, each QR with its label
 * and URL under it, and links to the other pages (not printed; through `sheetLink` when it was opened with one). Images come from the process's
 * cache, so a page that was printed before costs no rendering; the first time, the work yields to
 * the event loop after each A4 sheet so that requests and sockets keep being served.
 */
export async function renderSheet(view: SheetPage, images: QrImages, publicBaseUrl: string, sheetLink?: string): Promise<string> {
  const sheets: string[] = [];
  for (let start = 0; start < view.codes.length; start += CODES_PER_A4) {
    const cells: string[] = [];
    for (const code of view.codes.slice(start, start + CODES_PER_A4)) {
      const url = landingUrl(publicBaseUrl, code.code);
      cells.push(`<figure>${await images.svg(code.code)}<figcaption><strong>${escapeHtml(code.label)}</strong><br>${escapeHtml(url)}</figcaption></figure>`);
    }
    sheets.push(`<section class="sheet">\n${cells.join('\n')}\n</section>`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const first = (view.page - 1) * view.pageSize + 1;
  const range = view.codes.length ? `códigos ${first}–${first + view.codes.length - 1} de ${view.total}` : 'esta campaña aún no tiene códigos';
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<title>Códigos QR — ${escapeHtml(view.campaign.name)} (página ${view.page} de ${view.pages})</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(view.campaign.name)} — página ${view.page} de ${view.pages}</h1>
<p class="screen-only">${escapeHtml(range)} · ${view.pageSize} códigos por página (${view.pageSize / CODES_PER_A4} hojas A4 de ${CODES_PER_A4}).</p>
<nav aria-label="Páginas">${pageLinks(view, sheetLink)}</nav>
<main>
${sheets.join('\n')}
</main>
</body>
</html>`;
}
