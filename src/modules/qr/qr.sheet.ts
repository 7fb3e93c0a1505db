import { escapeHtml } from '../../../landing/templates';
import { landingUrl, qrSvg } from './qr.codes';
import type { CampaignRecord, CodeRecord } from './qr.repository';

/** A printable page of every poster code of a campaign, its label and URL under each. */
export async function renderSheet(campaign: Pick<CampaignRecord, 'name'>, codes: Pick<CodeRecord, 'code' | 'label'>[], publicBaseUrl: string): Promise<string> {
  const cells: string[] = [];
  for (const code of codes) {
    const url = landingUrl(publicBaseUrl, code.code);
    cells.push(`<figure>${await qrSvg(url)}<figcaption><strong>${escapeHtml(code.label)}</strong><br>${escapeHtml(url)}</figcaption></figure>`);
    // ~1 ms of CPU a code: yield so a big sheet does not freeze the process's other work.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<title>Códigos QR — ${escapeHtml(campaign.name)}</title>
<style>
  body { font: 12px/1.3 system-ui, sans-serif; margin: 12mm; }
  h1 { font-size: 16px; }
  main { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8mm; }
  figure { margin: 0; text-align: center; break-inside: avoid; }
  figure svg { width: 100%; height: auto; }
  figcaption { word-break: break-all; }
  @page { size: A4; margin: 10mm; }
</style>
</head>
<body>
<h1>${escapeHtml(campaign.name)} — ${codes.length} códigos</h1>
<main>${cells.join('\n')}</main>
</body>
</html>`;
}
