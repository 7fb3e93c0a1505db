import { isbot } from 'isbot';
import type { AppDeps } from '../../kernel/context';
import { hashIp } from '../../kernel/privacy';
import type { CodeContext } from './qr.context';
import { insertScan } from './qr.repository';

export interface ScanMeta {
  ip: string;
  userAgent: string | undefined;
  referrer: string | undefined;
}

/**
 * One row per scan, with a keyed hash of the IP instead of the IP (unique-scan counts) and a
 * bot flag so link-preview crawlers do not inflate the figures. Only the referrer's origin is
 * kept: a full URL may carry someone's query string.
 */
export async function recordScan(deps: Pick<AppDeps, 'db' | 'secrets'>, code: CodeContext, meta: ScanMeta): Promise<void> {
  let referrer: string | null;
  try {
    referrer = meta.referrer ? new URL(meta.referrer).origin.slice(0, 300) : null;
  } catch {
    referrer = null;
  }
  await insertScan(deps.db, {
    campaignId: code.campaignId,
    codeId: code.codeId,
    scannedAt: new Date(),
    isBot: isbot(meta.userAgent ?? ''),
    ipHash: hashIp(deps.secrets.ipHashKey, meta.ip),
    referrer,
  });
}
