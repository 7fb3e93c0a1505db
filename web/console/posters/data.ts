import type { z } from 'zod';
import type { leadView } from '../../../src/modules/qr/qr.leads';
import type { analysisView } from '../../../src/modules/qr/qr.analysis';
import type { campaignView, codeView, sheetLinkView } from '../../../src/modules/qr/qr.schemas';
import type { CampaignStatus } from '../../../src/modules/qr/qr.constants';
import type { Tone } from '../app/tones';

export type Campaign = z.output<typeof campaignView>;
export type PosterCode = z.output<typeof codeView>;
export type Lead = z.output<typeof leadView>;
export type Analysis = z.output<typeof analysisView>;
export type SheetLink = z.output<typeof sheetLinkView>;

export const CAMPAIGNS_PATH = '/api/poster-qr/campaigns';
export const LEADS_PATH = '/api/qr-leads';

export const STATUS_LABELS: Record<CampaignStatus, string> = { draft: 'Borrador', active: 'Activa', paused: 'En pausa', ended: 'Terminada' };
export const STATUS_TONES: Record<CampaignStatus, Tone> = { draft: 'gray', active: 'green', paused: 'orange', ended: 'gray' };

/** Whether a poster is still up past the day the law gives to take it down. */
export const isOverdue = (code: PosterCode, now = Date.now()): boolean => !code.removedAt && !!code.removalDeadline && Date.parse(code.removalDeadline) < now;
