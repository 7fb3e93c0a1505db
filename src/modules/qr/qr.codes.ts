import { randomInt } from 'node:crypto';
import QRCode from 'qrcode';
import type { AppDeps } from '../../kernel/context';
import { processLocal } from '../../kernel/process-local';
import { CODE_ALPHABET as ALPHABET, CODE_LENGTH } from './qr.constants';

export { CODE_LENGTH, CODE_PATTERN } from './qr.constants';

export function newPosterCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

export function landingUrl(publicBaseUrl: string, code: string): string {
  return `${publicBaseUrl}/q/${code}`;
}

/**
 * Error correction Q (≈25% of the symbol can be lost): posters get rained on, torn and
 * stickered over. The short URL keeps the symbol small even at that level.
 */
const qrOptions = { errorCorrectionLevel: 'Q' as const, margin: 4 };

export function qrSvg(url: string): Promise<string> {
  return QRCode.toString(url, { ...qrOptions, type: 'svg' });
}

export function qrPng(url: string): Promise<Buffer> {
  return QRCode.toBuffer(url, { ...qrOptions, type: 'png', width: 1024 });
}

/** Where a code's images are served; generation answers these instead of rendering anything. */
export function imageUrls(publicBaseUrl: string, code: string): { svgUrl: string; pngUrl: string } {
  const base = `${publicBaseUrl}/api/poster-qr/codes/${code}`;
  return { svgUrl: `${base}.svg`, pngUrl: `${base}.png` };
}

/** A map that forgets the least recently used entry beyond `max` (a Map iterates in insertion order). */
class Recent<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * A code's images, rendered on first request and kept: a code and the site's base URL never
 * change, so an entry never goes stale. SVGs are ~2 KB (10,000 of them, a big print run, is
 * ~20 MB); the 1024 px PNGs are downloaded one at a time, so fewer are kept.
 */
export class QrImages {
  private readonly svgs = new Recent<string>(10_000);
  private readonly pngs = new Recent<Buffer>(200);

  constructor(private readonly publicBaseUrl: string) {}

  async svg(code: string): Promise<string> {
    let svg = this.svgs.get(code);
    if (svg === undefined) {
      svg = await qrSvg(landingUrl(this.publicBaseUrl, code));
      this.svgs.set(code, svg);
    }
    return svg;
  }

  async png(code: string): Promise<Buffer> {
    let png = this.pngs.get(code);
    if (png === undefined) {
      png = await qrPng(landingUrl(this.publicBaseUrl, code));
      this.pngs.set(code, png);
    }
    return png;
  }
}

export const qrImages = processLocal('qr.images', (deps: Pick<AppDeps, 'config' | 'local'>) => new QrImages(deps.config.publicBaseUrl));
