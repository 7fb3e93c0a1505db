import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, invalidField, NotFoundError, ValidationError } from '../../kernel/errors';
import type { PageRequest } from '../../kernel/pagination';
import type { Queries } from '../../kernel/sql';
import { countSegment, segmentMembers, type Segment } from '../audience';
import { campaignStatus, queueCampaignMessages, startCampaign, templateStatus } from './whatsapp.repository';
import {
  campaignPage,
  campaignState,
  cancelQueuedMessages,
  dueScheduledCampaigns,
  findCampaign,
  insertCampaign,
  moveCampaign,
  pauseScheduled,
  setCampaignNotice,
} from './whatsapp.campaigns.repository';
import { findTemplate } from './whatsapp.templates.repository';
import { requestDispatch } from './whatsapp.jobs';
import type { ContactField, StoredSegment, VariableSource, WaCampaignStatus } from './whatsapp.entities';
import { presentCampaign } from './whatsapp.presenter';
import type { CreateCampaignInput, PreviewCampaignInput } from './whatsapp.campaigns.schemas';
import { tierNotice } from './whatsapp.outbound';
import { whatsapp } from './whatsapp.context';
import { campaignCounters, tierUsage } from './whatsapp.stats';
import { mapPage } from '../../kernel/pagination';

function toSource(variable: CreateCampaignInput['variables'][number]): VariableSource {
  if (typeof variable !== 'string') return { literal: variable.literal };
  return variable.startsWith('contact.') ? { field: variable.slice(8) as ContactField } : { literal: variable };
}

function audienceSegment(segment: StoredSegment & { all?: true | undefined }): Segment {
  const { all: _all, ...conditions } = segment;
  return conditions;
}

async function approvedTemplate(q: Queries, templateId: string, path: string) {
  const template = await findTemplate(q, templateId);
  if (!template) throw invalidField(path, 'No template has this id.', 'unknown_template');
  if (template.status !== 'APPROVED') throw new ConflictError(`The template is ${template.status}; only approved templates can be sent.`, 'template_not_approved');
  return template;
}

/** Whom a segment would reach now, counted as `createCampaign` counts it, and the tier and pace it would be sent at. */
export async function previewCampaign(deps: AppDeps, input: PreviewCampaignInput) {
  const config = deps.config.whatsapp;
  const [reachable, tier] = await Promise.all([countSegment(deps.db, audienceSegment(input.segment as StoredSegment & { all?: true }), 'whatsapp'), tierUsage(deps.db, config)]);
  return { reachable, tier, ratePerSecond: config.ratePerSecond, provider: config.provider };
}

export async function createCampaign(deps: AppDeps, actor: Actor, input: CreateCampaignInput) {
  const template = await approvedTemplate(deps.db, input.templateId, 'body.templateId');
  if (input.variables.length !== template.placeholders) {
    throw invalidField('body.variables', `The template has ${template.placeholders} placeholder(s); give exactly one variable for each.`);
  }
  const segment = input.segment as StoredSegment & { all?: true };
  const audienceSize = await countSegment(deps.db, audienceSegment(segment), 'whatsapp');
  if (audienceSize === 0)
    throw new ValidationError(
      [{ path: 'body.segment', message: 'Nobody in this segment can be reached on WhatsApp (opted in, not opted out).' }],
      'The segment is empty.',
      'empty_audience',
    );
  const scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : null;
  if (scheduledAt && scheduledAt.getTime() <= Date.now()) throw invalidField('body.scheduledAt', 'must be in the future');
  const id = await insertCampaign(deps.db, {
    name: input.name,
    templateId: template.id,
    variables: input.variables.map(toSource),
    segment,
    status: scheduledAt ? 'scheduled' : 'draft',
    scheduledAt,
    audienceSize,
    createdById: actor.id,
  });
  return getCampaign(deps.db, id);
}

export async function getCampaign(q: Queries, id: string) {
  const campaign = await findCampaign(q, id);
  if (!campaign) throw new NotFoundError('No WhatsApp campaign has this id.');
  return presentCampaign(campaign, (await campaignCounters(q, [id])).get(id)!);
}

export async function listCampaigns(q: Queries, query: PageRequest & { status?: WaCampaignStatus | undefined }) {
  const page = await campaignPage(q, query.status, { cursor: query.cursor, limit: query.limit });
  const counters = await campaignCounters(
    q,
    page.data.map((row) => row.id),
  );
  return mapPage(page, (row) => presentCampaign(row, counters.get(row.id)!));
}

/**
 * Starts sending: in one transaction the campaign turns `sending` (only from draft or scheduled,
 * so a second call is a conflict) and one `queued` row per recipient is written by a single
 * INSERT ... SELECT over the segment, consent and opt-outs applied, one row per phone. Workers
 * take it from there.
 */
export async function sendCampaign(deps: AppDeps, id: string) {
  const result = await deps.db.transaction(async (tx) => {
    const started = await startCampaign(tx, id);
    if (!started) {
      const existing = await campaignStatus(tx, id);
      if (!existing) throw new NotFoundError('No WhatsApp campaign has this id.');
      throw new ConflictError(`The campaign is ${existing.status}; it can be sent only once.`, 'already_sent');
    }
    const template = await templateStatus(tx, started.template_id);
    if (!template) throw invalidField('templateId', 'No template has this id.', 'unknown_template');
    if (template.status !== 'APPROVED') throw new ConflictError(`The template is ${template.status}; only approved templates can be sent.`, 'template_not_approved');
    const queued = await queueCampaignMessages(tx, started, segmentMembers(audienceSegment(started.segment), 'whatsapp'));
    return { queued };
  });
  const usage = await tierUsage(deps.db, deps.config.whatsapp);
  let notice: string | null = null;
  if (usage.remaining !== null && usage.remaining < result.queued) {
    notice = `${tierNotice(usage.limit)} ${usage.remaining} of ${result.queued} can go out now.`;
    await setCampaignNotice(deps.db, id, notice.slice(0, 300));
  }
  announce(deps, id, 'sending');
  await requestDispatch(deps, 'campaign');
  return { campaignId: id, status: 'sending' as const, queued: result.queued, notice };
}

async function transition(q: Queries, id: string, from: WaCampaignStatus[], to: WaCampaignStatus): Promise<void> {
  if (await moveCampaign(q, id, from, to)) return;
  const existing = await campaignState(q, id);
  if (!existing) throw new NotFoundError('No WhatsApp campaign has this id.');
  throw new ConflictError(`A ${existing.status} campaign cannot become ${to}.`, 'invalid_transition');
}

/** Staff moved the campaign: every screen following it hears so with its counters (`whatsapp:status`), as it does of the sender's changes. */
function announce(deps: AppDeps, id: string, status: WaCampaignStatus): void {
  whatsapp(deps).statusChanged([{ id, campaignId: id, conversationId: null, status }]);
}

/** Stops claiming new messages; those already in flight finish. */
export async function pauseCampaign(deps: AppDeps, id: string) {
  await transition(deps.db, id, ['sending', 'scheduled'], 'paused');
  announce(deps, id, 'paused');
  return getCampaign(deps.db, id);
}

export async function resumeCampaign(deps: AppDeps, id: string) {
  const state = await campaignState(deps.db, id);
  // A campaign paused before its first send goes back to waiting for its time (or a send).
  const to = state?.started_at ? 'sending' : 'scheduled';
  await transition(deps.db, id, ['paused'], to);
  announce(deps, id, to);
  await requestDispatch(deps, 'campaign');
  return getCampaign(deps.db, id);
}

/** Nothing more goes out: queued messages are cancelled in the same transaction. */
export async function cancelCampaign(deps: AppDeps, id: string) {
  await deps.db.transaction(async (tx) => {
    await transition(tx, id, ['draft', 'scheduled', 'sending', 'paused'], 'cancelled');
    await cancelQueuedMessages(tx, id);
  });
  announce(deps, id, 'cancelled');
  return getCampaign(deps.db, id);
}

/** Scheduled campaigns whose time has come start by themselves. */
export async function startDueCampaigns(deps: AppDeps): Promise<number> {
  let started = 0;
  for (const id of await dueScheduledCampaigns(deps.db, 10)) {
    try {
      await sendCampaign(deps, id);
      started++;
    } catch (error) {
      // Raced with a manual send, or the template lost its approval: leave it for staff to see.
      deps.logger.warn({ campaignId: id, code: (error as { code?: string }).code }, 'scheduled whatsapp campaign did not start');
      if ((error as { code?: string }).code === 'template_not_approved') await pauseScheduled(deps.db, id, 'Paused: its template is no longer approved.');
    }
  }
  return started;
}
