import { isbot } from 'isbot';
import type { AppDeps } from '../../kernel/context';
import { newId } from '../../kernel/ids';
import { hashIp } from '../../kernel/privacy';
import type { CodeContext } from './qr.context';

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
export async function recordScan(deps: AppDeps, code: CodeContext, meta: ScanMeta): Promise<void> {
  let referrer: string | null = null;
  try {
    referrer = meta.referrer ? new URL(meta.referrer).origin.slice(0, 300) : null;
  } catch {
    referrer = null;
  }
  await deps.orm.em.fork().execute(
    'insert into qr_scans (id, campaign_id, code_id, scanned_at, is_bot, ip_hash, referrer) values (?, ?, ?, ?, ?, ?, ?)',
    [newId(), code.campaignId, code.codeId, new Date(), isbot(meta.userAgent ?? ''), hashIp(deps.secrets.ipHashKey, meta.ip), referrer],
  );
}
