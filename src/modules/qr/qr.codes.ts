import { randomInt } from 'node:crypto';
import QRCode from 'qrcode';

/**
 * Poster codes: 10 characters from 31 that cannot be mistaken for each other when read off a
 * poster or typed (no 0/o, 1/l/i). 31^10 ≈ 8·10^14 codes: unguessable at any rate limit.
 */
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
export const CODE_LENGTH = 10;
export const CODE_PATTERN = new RegExp(`^[${ALPHABET}]{${CODE_LENGTH}}$`);

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

/** A screen-size preview (4 px per module, ~164 px): PNG encoding is the costly part; print uses SVG. */
export function qrPngDataUrl(url: string): Promise<string> {
  return QRCode.toDataURL(url, { ...qrOptions, scale: 4 });
}

export function qrPng(url: string): Promise<Buffer> {
  return QRCode.toBuffer(url, { ...qrOptions, type: 'png', width: 1024 });
}
