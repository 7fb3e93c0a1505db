import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, ValidationError, type FieldError } from '../../kernel/errors';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { countReachable, writeSendList } from './email.audience';
import { newId } from '../../kernel/ids';
import { campaignExists, markSending, rewriteUnstartedCampaign, setAudienceSize } from './email.repository';
import * as repository from './email.campaigns.repository';
import { EMAIL_ROOM } from './email.events';
import { scheduleStart, sendJob } from './email.jobs';
import { presentCampaign } from './email.presenter';
import type { CreateCampaignInput } from './email.schemas';
import { checkVariables } from './email.templates';
import { mapPage } from '../../kernel/pagination';

export async function loadCampaign(q: Queries, id: string): Promise<repository.CampaignRecord> {
  const campaign = await repository.findCampaign(q, id);
  if (!campaign) throw new NotFoundError('No such email campaign.');
  return campaign;
}

export async function getCampaign(q: Queries, id: string) {
  const campaign = await loadCampaign(q, id);
  return presentCampaign(campaign, await repository.variantsOf(q, id));
}

export async function listCampaigns(q: Queries, page: PageRequest) {
  const result = await repository.campaignPage(q, page);
  return mapPage(result, ({ campaign, variants }) => presentCampaign(campaign, variants));
}

/** The variants' templates exist and their subjects use known variables; the segment reaches someone. Its size. */
async function checkCampaign(deps: AppDeps, input: CreateCampaignInput): Promise<number> {
  const templateIds = [...new Set(input.variants.map((variant) => variant.templateId))];
  const templates = await repository.existingTemplateIds(deps.db, templateIds);
  const errors: FieldError[] = [];
  input.variants.forEach((variant, index) => {
    if (!templates.has(variant.templateId)) errors.push({ path: `body.variants.${index}.templateId`, message: 'No such template' });
    errors.push(...checkVariables(variant.subject, `body.variants.${index}.subject`).errors);
  });
  if (errors.length) throw new ValidationError(errors);
  const audienceSize = await countReachable(deps.db, input.segment);
  if (audienceSize === 0) {
    throw new ValidationError(
      [{ path: 'body.segment', message: 'The segment reaches nobody with email opt-in (unsubscribed and bounced addresses excluded).' }],
      'The segment is empty.',
      'empty_audience',
    );
  }
  return audienceSize;
}

/** How many distinct addresses a segment reaches now, counted as a campaign counts them. */
export async function previewAudience(deps: AppDeps, segment: CreateCampaignInput['segment']) {
  return { reachable: await countReachable(deps.db, segment) };
}

export async function createCampaign(deps: AppDeps, input: CreateCampaignInput) {
  const audienceSize = await checkCampaign(deps, input);
  const scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : null;
  const id = await deps.db.transaction((tx) =>
    repository.insertCampaign(
      tx,
      {
        name: input.name,
        fromName: input.fromName,
        fromEmail: input.fromEmail,
        replyTo: input.replyTo ?? null,
        segment: input.segment,
        status: scheduledAt ? 'scheduled' : 'draft',
        audienceSize,
        abTest: input.abTest ?? null,
        scheduledAt,
      },
      input.variants,
    ),
  );
  if (scheduledAt) await scheduleStart(deps, id, scheduledAt);
  return getCampaign(deps.db, id);
}

/**
 * Rewrites a campaign that has not started yet (draft or scheduled) with the same rules as a new
 * one: its audience is counted again, its variants replaced, its start moved (a new start job; the
 * old one finds the campaign rescheduled and does nothing). One that started is a 409.
 */
export async function updateCampaign(deps: AppDeps, campaignId: string, input: CreateCampaignInput) {
  await loadCampaign(deps.db, campaignId);
  const audienceSize = await checkCampaign(deps, input);
  const scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : null;
  const rewritten = await deps.db.transaction((tx) =>
    rewriteUnstartedCampaign(
      tx,
      campaignId,
      {
        name: input.name,
        fromName: input.fromName,
        fromEmail: input.fromEmail,
        replyTo: input.replyTo ?? null,
        segment: input.segment,
        abTest: input.abTest ?? null,
        scheduledAt,
        audienceSize,
      },
      input.variants.map((variant) => ({ id: newId(), ...variant })),
    ),
  );
  if (!rewritten) throw new ConflictError('This campaign has started: only a draft or a scheduled campaign can be changed.', 'not_editable');
  if (scheduledAt) await scheduleStart(deps, campaignId, scheduledAt);
  return getCampaign(deps.db, campaignId);
}

/**
 * Starts sending: one conditional state change (draft/scheduled → sending) and the whole send
 * list written set-based, in one transaction. A second `send` finds the state changed: 409.
 */
export async function startCampaign(deps: AppDeps, campaignId: string, from: readonly ('draft' | 'scheduled')[] = ['draft', 'scheduled']) {
  const result = await deps.db.transaction(async (tx) => {
    const started = await markSending(tx, campaignId, from);
    if (!started) {
      if (!(await campaignExists(tx, campaignId))) throw new NotFoundError('No such email campaign.');
      throw new ConflictError('This campaign has already been sent or is being sent.', 'already_sent');
    }
    const recipients = await writeSendList(tx, campaignId, started.segment, started.variants, started.ab_test?.testPercent ?? 0);
    if (recipients === 0) throw new ConflictError('The segment reaches nobody any more (opt-outs or bounces since the campaign was created).', 'empty_audience');
    await setAudienceSize(tx, campaignId, recipients);
    return { recipients, abPhase: started.ab_test ? ('testing' as const) : ('none' as const) };
  });
  await deps.jobs.enqueue(sendJob, { campaignId });
  deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sending', abPhase: result.abPhase, winner: null });
  deps.logger.info({ campaignId, recipients: result.recipients, abPhase: result.abPhase }, 'email campaign sending');
  return { id: campaignId, status: 'sending' as const, recipients: result.recipients, abPhase: result.abPhase };
}
