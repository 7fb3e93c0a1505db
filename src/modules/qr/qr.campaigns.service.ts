import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { ensureConsentText } from '../audience';
import { assertTerritoriesExist } from '../territories';
import { campaignContexts } from './qr.context';
import { imageUrls, landingUrl, newPosterCode } from './qr.codes';
import type { CampaignStatus, LandingConfig } from './qr.entities';
import { canMoveTo } from './qr.policy';
import { presentCampaign, presentCode } from './qr.presenter';
import {
  campaignCodes,
  campaignPage,
  codePage,
  countCodes,
  findCampaign,
  findCode,
  insertCampaign,
  insertCodes,
  updateCampaignRow,
  updateCodeRow,
  type CampaignChanges,
  type CampaignRecord,
  type CodeRecord,
} from './qr.repository';
import type { CreateCampaignInput, GenerateCodesInput, LandingInput, UpdateCampaignInput, UpdateCodeInput } from './qr.schemas';
import { mapPage } from '../../kernel/pagination';

function toLanding(input: LandingInput, campaignName: string): LandingConfig {
  return {
    title: input.title ?? campaignName,
    intro: input.intro,
    interests: input.interests,
    fields: input.fields,
    consentText: input.consentText,
    privacyPolicyUrl: input.privacyPolicyUrl,
    thankYouMessage: input.thankYouMessage,
    volunteerSignup: input.volunteerSignup,
  };
}

const toDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

export async function createCampaign(deps: Pick<AppDeps, 'db'>, input: CreateCampaignInput) {
  await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const landing = toLanding(input.landing, input.name);
  const consentTextId = await ensureConsentText(deps.db, landing.consentText, landing.privacyPolicyUrl);
  const campaign = await insertCampaign(deps.db, {
    id: newId(),
    name: input.name,
    description: input.description ?? null,
    status: input.status,
    startsAt: toDate(input.startsAt) ?? null,
    endsAt: toDate(input.endsAt) ?? null,
    territoryId: input.territoryId ?? null,
    landing,
    consentTextId,
  });
  return presentCampaign(campaign);
}

export async function getCampaign(q: Queries, id: string): Promise<CampaignRecord> {
  const campaign = await findCampaign(q, id);
  if (!campaign) throw new NotFoundError('No QR campaign has this id.');
  return campaign;
}

export async function listCampaigns(q: Queries, query: PageRequest & { status?: CampaignStatus | undefined }) {
  const page = await campaignPage(q, query.status, query);
  return mapPage(page, presentCampaign);
}

/** One change at a time per campaign (its row is locked), so a status move is checked against the status it replaces. */
export async function updateCampaign(deps: Pick<AppDeps, 'db' | 'caches'>, id: string, input: UpdateCampaignInput) {
  const campaign = await deps.db.transaction(async (tx) => {
    const current = await findCampaign(tx, id, { lock: true });
    if (!current) throw new NotFoundError('No QR campaign has this id.');
    if (input.status && !canMoveTo(current.status, input.status)) {
      throw new ConflictError(`A campaign that is ${current.status} cannot become ${input.status}.`, 'invalid_status_change');
    }
    const changes: CampaignChanges = {
      name: input.name,
      description: input.description,
      status: input.status,
      startsAt: toDate(input.startsAt),
      endsAt: toDate(input.endsAt),
    };
    const startsAt = changes.startsAt !== undefined ? changes.startsAt : current.startsAt;
    const endsAt = changes.endsAt !== undefined ? changes.endsAt : current.endsAt;
    if (startsAt && endsAt && startsAt >= endsAt) throw invalidField('body.endsAt', 'endsAt must be after startsAt');
    if (input.landing) {
      changes.landing = toLanding(input.landing, input.name ?? current.name);
      changes.consentTextId = await ensureConsentText(tx, changes.landing.consentText, changes.landing.privacyPolicyUrl);
    }
    return updateCampaignRow(tx, id, changes);
  });
  await campaignContexts(deps).invalidate(campaign.id);
  return presentCampaign(campaign);
}

/**
 * Mints `count` poster codes in one insert. Placements, when given, label and place the first
 * codes; the rest are numbered after the campaign's existing codes. No image is rendered here
 * (that was ~3.5 ms a code, PNG encoding mostly): the answer links each code's images, which are
 * rendered on first request and kept (`QrImages`).
 */
export async function generateCodes(deps: Pick<AppDeps, 'db' | 'config' | 'logger'>, campaignId: string, input: GenerateCodesInput) {
  const campaign = await getCampaign(deps.db, campaignId);
  if (campaign.status === 'ended') throw new ConflictError('The campaign has ended; it takes no new codes.', 'campaign_ended');
  const placements = input.placements ?? [];
  await assertTerritoriesExist(
    deps.db,
    placements.map((placement) => placement.territoryId),
    (index) => `body.placements.${index}.territoryId`,
  );
  const existing = await countCodes(deps.db, campaignId);
  const now = new Date();
  const rows: CodeRecord[] = Array.from({ length: input.count }, (_, index) => {
    const placement = placements[index];
    return {
      id: newId(),
      campaignId,
      code: newPosterCode(),
      label: placement?.label ?? `${input.labelPrefix} ${existing + index + 1}`,
      address: placement?.address ?? null,
      lat: placement?.lat ?? null,
      lng: placement?.lng ?? null,
      territoryId: placement?.territoryId ?? null,
      placedAt: placement?.placedAt ? new Date(placement.placedAt) : null,
      authorisedSite: placement?.authorisedSite ?? false,
      removalDeadline: placement?.removalDeadline ? new Date(placement.removalDeadline) : null,
      removedAt: null,
      createdAt: now,
    };
  });
  for (let attempt = 1; ; attempt++) {
    try {
      await insertCodes(deps.db, rows);
      break;
    } catch (error) {
      // A collision among 8·10^14 codes is all but impossible; if one happens, draw again.
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
      for (const row of rows) row.code = newPosterCode();
    }
  }
  const codes = rows.map((row) => ({
    id: row.id,
    code: row.code,
    url: landingUrl(deps.config.publicBaseUrl, row.code),
    label: row.label,
    ...imageUrls(deps.config.publicBaseUrl, row.code),
  }));
  deps.logger.info({ campaignId, count: codes.length }, 'poster codes generated');
  return { codes };
}

export async function listCodes(deps: Pick<AppDeps, 'db' | 'config'>, campaignId: string, query: PageRequest & { overdue?: boolean | undefined }) {
  await getCampaign(deps.db, campaignId);
  const page = await codePage(deps.db, campaignId, query, query);
  return mapPage(page, (code) => presentCode(code, deps.config.publicBaseUrl));
}

export async function updateCode(deps: Pick<AppDeps, 'db' | 'config'>, id: string, input: UpdateCodeInput) {
  if (!(await findCode(deps.db, id))) throw new NotFoundError('No poster code has this id.');
  if (input.territoryId) await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const code = await updateCodeRow(deps.db, id, {
    label: input.label,
    address: input.address,
    lat: input.lat,
    lng: input.lng,
    territoryId: input.territoryId,
    placedAt: toDate(input.placedAt),
    authorisedSite: input.authorisedSite,
    removalDeadline: toDate(input.removalDeadline),
    removedAt: toDate(input.removedAt),
  });
  if (!code) throw new NotFoundError('No poster code has this id.');
  return presentCode(code, deps.config.publicBaseUrl);
}

/** Codes per `?page=` of the printable sheet: ten A4 sheets of 24 (4 × 6), so a print run of 6,000 codes is 25 prints, not 250. */
export const SHEET_PAGE_SIZE = 240;

/** One page of a campaign's codes, in print order (oldest first), with how many pages there are. */
export async function codesForSheet(q: Queries, campaignId: string, page: number) {
  const campaign = await getCampaign(q, campaignId);
  const total = await countCodes(q, campaignId);
  const pages = Math.max(1, Math.ceil(total / SHEET_PAGE_SIZE));
  if (page > pages) throw new NotFoundError(`This campaign's sheet has ${pages} page${pages === 1 ? '' : 's'}.`);
  const codes = await campaignCodes(q, campaignId, SHEET_PAGE_SIZE, (page - 1) * SHEET_PAGE_SIZE);
  return { campaign, codes, page, pages, total, pageSize: SHEET_PAGE_SIZE };
}
