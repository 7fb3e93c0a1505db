import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { findPage, type PageRequest } from '../../kernel/pagination';
import { ensureConsentText } from '../audience';
import { assertTerritoriesExist } from '../territories';
import { campaignContexts } from './qr.context';
import { landingUrl, newPosterCode, qrPngDataUrl, qrSvg } from './qr.codes';
import { QrCampaignSchema, QrCodeSchema, type CampaignStatus, type LandingConfig, type QrCampaign } from './qr.entities';
import { canMoveTo } from './qr.policy';
import { presentCampaign, presentCode } from './qr.presenter';
import type { CreateCampaignInput, GenerateCodesInput, LandingInput, UpdateCampaignInput, UpdateCodeInput } from './qr.schemas';

function toLanding(input: LandingInput, campaignName: string): LandingConfig {
  return {
    title: input.title ?? campaignName,
    intro: input.intro,
    interests: input.interests,
    fields: input.fields,
    consentText: input.consentText,
    privacyPolicyUrl: input.privacyPolicyUrl,
    thankYouMessage: input.thankYouMessage,
  };
}

const toDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

export async function createCampaign(em: EntityManager, deps: AppDeps, input: CreateCampaignInput) {
  await assertTerritoriesExist(em, [input.territoryId], () => 'body.territoryId');
  const landing = toLanding(input.landing, input.name);
  const consentTextId = await ensureConsentText(deps.db, landing.consentText, landing.privacyPolicyUrl);
  const campaign = em.create(QrCampaignSchema, {
    id: newId(),
    name: input.name,
    description: input.description ?? null,
    status: input.status,
    startsAt: toDate(input.startsAt) ?? null,
    endsAt: toDate(input.endsAt) ?? null,
    territory: input.territoryId ?? null,
    landing,
    consentTextId,
    spamBlocked: 0,
  });
  await em.flush();
  return presentCampaign(campaign);
}

export async function getCampaign(em: EntityManager, id: string): Promise<QrCampaign> {
  const campaign = await em.findOne(QrCampaignSchema, { id });
  if (!campaign) throw new NotFoundError('No QR campaign has this id.');
  return campaign;
}

export function listCampaigns(em: EntityManager, query: PageRequest & { status?: CampaignStatus }) {
  return findPage(em, QrCampaignSchema, query.status ? { status: query.status } : {}, query, { id: 'desc' }, presentCampaign);
}

export async function updateCampaign(em: EntityManager, deps: AppDeps, id: string, input: UpdateCampaignInput) {
  const campaign = await getCampaign(em, id);
  if (input.status && !canMoveTo(campaign.status, input.status)) {
    throw new ConflictError(`A campaign that is ${campaign.status} cannot become ${input.status}.`, 'invalid_status_change');
  }
  if (input.name !== undefined) campaign.name = input.name;
  if (input.description !== undefined) campaign.description = input.description;
  if (input.status !== undefined) campaign.status = input.status;
  const startsAt = toDate(input.startsAt);
  const endsAt = toDate(input.endsAt);
  if (startsAt !== undefined) campaign.startsAt = startsAt;
  if (endsAt !== undefined) campaign.endsAt = endsAt;
  if (campaign.startsAt && campaign.endsAt && campaign.startsAt >= campaign.endsAt) {
    throw invalidField('body.endsAt', 'endsAt must be after startsAt');
  }
  if (input.landing) {
    campaign.landing = toLanding(input.landing, campaign.name);
    campaign.consentTextId = await ensureConsentText(deps.db, campaign.landing.consentText, campaign.landing.privacyPolicyUrl);
  }
  await em.flush();
  await campaignContexts(deps).invalidate(campaign.id);
  return presentCampaign(campaign);
}

/**
 * Mints `count` poster codes in one insert. Placements, when given, label and place the first
 * codes; the rest are numbered after the campaign's existing codes. Images are rendered from
 * the same URL the code row encodes.
 */
export async function generateCodes(em: EntityManager, deps: AppDeps, campaignId: string, input: GenerateCodesInput) {
  const campaign = await getCampaign(em, campaignId);
  if (campaign.status === 'ended') throw new ConflictError('The campaign has ended; it takes no new codes.', 'campaign_ended');
  const placements = input.placements ?? [];
  await assertTerritoriesExist(em, placements.map((placement) => placement.territoryId), (index) => `body.placements.${index}.territoryId`);
  const existing = await em.count(QrCodeSchema, { campaign: campaignId });
  const now = new Date();
  const rows = Array.from({ length: input.count }, (_, index) => {
    const placement = placements[index];
    return {
      id: newId(),
      campaign: campaignId,
      code: newPosterCode(),
      label: placement?.label ?? `${input.labelPrefix} ${existing + index + 1}`,
      address: placement?.address ?? null,
      lat: placement?.lat ?? null,
      lng: placement?.lng ?? null,
      territory: placement?.territoryId ?? null,
      placedAt: placement?.placedAt ? new Date(placement.placedAt) : null,
      authorisedSite: placement?.authorisedSite ?? false,
      removalDeadline: placement?.removalDeadline ? new Date(placement.removalDeadline) : null,
      removedAt: null,
      createdAt: now,
    };
  });
  for (let attempt = 1; ; attempt++) {
    try {
      await em.insertMany(QrCodeSchema, rows);
      break;
    } catch (error) {
      // A collision among 8·10^14 codes is all but impossible; if one happens, draw again.
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
      for (const row of rows) row.code = newPosterCode();
    }
  }
  // Rendering is synchronous CPU work (~4 ms a code): one code at a time, yielding in between,
  // so that 500 codes do not freeze the sockets and requests this process serves meanwhile.
  const codes = [];
  for (const row of rows) {
    const url = landingUrl(deps.config.publicBaseUrl, row.code);
    codes.push({ id: row.id, code: row.code, url, label: row.label, svg: await qrSvg(url), png: await qrPngDataUrl(url) });
    await new Promise((resolve) => setImmediate(resolve));
  }
  deps.logger.info({ campaignId, count: codes.length }, 'poster codes generated');
  return { codes };
}

export async function listCodes(em: EntityManager, deps: AppDeps, campaignId: string, query: PageRequest & { overdue?: boolean }) {
  await getCampaign(em, campaignId);
  const where: Record<string, unknown> = { campaign: campaignId };
  // Overdue: past its removal deadline and not yet reported as taken down.
  if (query.overdue === true) Object.assign(where, { removalDeadline: { $lt: new Date() }, removedAt: null });
  return findPage(em, QrCodeSchema, where, query, { createdAt: 'asc', id: 'asc' }, (code) => presentCode(code, deps.config.publicBaseUrl));
}

export async function updateCode(em: EntityManager, deps: AppDeps, id: string, input: UpdateCodeInput) {
  const code = await em.findOne(QrCodeSchema, { id });
  if (!code) throw new NotFoundError('No poster code has this id.');
  if (input.territoryId) await assertTerritoriesExist(em, [input.territoryId], () => 'body.territoryId');
  const { territoryId, placedAt, removalDeadline, removedAt, ...plain } = input;
  em.assign(code, {
    ...plain,
    ...(territoryId !== undefined ? { territory: territoryId } : {}),
    ...(placedAt !== undefined ? { placedAt: toDate(placedAt) } : {}),
    ...(removalDeadline !== undefined ? { removalDeadline: toDate(removalDeadline) } : {}),
    ...(removedAt !== undefined ? { removedAt: toDate(removedAt) } : {}),
  });
  await em.flush();
  return presentCode(code, deps.config.publicBaseUrl);
}

/** Every code of a campaign, in print order, for the printable sheet. */
export async function codesForSheet(em: EntityManager, campaignId: string) {
  const campaign = await getCampaign(em, campaignId);
  const codes = await em.find(QrCodeSchema, { campaign: campaignId }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 5000 });
  return { campaign, codes };
}
