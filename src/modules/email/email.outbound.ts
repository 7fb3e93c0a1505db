import type { EmailConfig } from '../../config';
import type { AppDeps } from '../../kernel/context';
import { processLocal } from '../../kernel/process-local';
import { ConflictError, NotFoundError } from '../../kernel/errors';
import {
  OutboundEngine,
  type ChannelSettings,
  type Claimed,
  type ClaimRequest,
  type OutboundAdapter,
  type OutboundMessage,
  type Outcome,
  type Settlement,
} from '../../kernel/outbound';
import { getCampaign } from './email.campaigns.service';
import { EMAIL_ROOM, type EmailProgressEvent } from './email.events';
import { decideJob, sendJob } from './email.jobs';
import {
  campaignPlans,
  campaignStatus,
  claimRecipients,
  endTestPhase,
  finishCampaign,
  hasDueRecipients,
  noticeQueue,
  pauseCampaign,
  releaseStaleClaims,
  resumeCampaign as resumePaused,
  sendingCampaigns,
  settleAndClaimRecipients,
  settleRecipients,
  type ClaimedRow,
  type EmailSource,
  type RecipientSettlement,
  type SettledCount,
} from './email.outbound.repository';
import { noticeContents, type NoticeContent } from './email.notices.repository';
import { buildMessage, buildNoticeMessage, plansFrom, type CampaignPlan } from './email.sending';
import { createMailer, type Mailer, type SendOutcome } from './providers/mailer';

/** A claimed campaign recipient or notice, as the engine and the message builders need it. */
export interface EmailOutbound extends OutboundMessage {
  source: EmailSource;
  /** Null for a notice. */
  campaignId: string | null;
  email: string;
  name: string;
  /** Null for a notice. */
  variantId: string | null;
}

/** The SMTP answer beyond the outcome: the Message-ID of a sent message, whether a refusal was for the address. */
export interface EmailDetail {
  messageId?: string;
  bounced?: boolean;
}

export function emailSettings(config: EmailConfig): ChannelSettings {
  return {
    // One message per pooled connection: the most in doubt after a crash is the pool's size.
    concurrency: config.maxConnections,
    ratePerSecond: config.ratePerSecond,
    burst: Math.max(1, Math.floor(config.ratePerSecond / 200)),
    maxAttempts: config.maxAttempts,
    backoff: { baseMs: config.retryBaseSeconds * 1000, factor: 2, maxMs: 24 * 3600 * 1000 },
    pauseAfterErrors: config.pauseAfterErrors,
  };
}

/** The mailer's answer in the engine's words. */
export function outcomeOf(result: SendOutcome, messageId: string): Outcome<EmailDetail> {
  switch (result.kind) {
    case 'sent':
      return { kind: 'sent', detail: { messageId } };
    case 'bounced':
      return { kind: 'failed', reason: result.detail, detail: { bounced: true } };
    case 'failed':
      return { kind: 'failed', reason: result.detail };
    case 'retry':
      return { kind: 'retry', reason: result.detail };
  }
}

function rowOf(item: Settlement<EmailOutbound, EmailDetail>): RecipientSettlement {
  const id = item.message.id;
  const none = { source: item.message.source, messageId: null, error: null, nextAt: null, released: false };
  switch (item.kind) {
    case 'sent':
      return { ...none, id, status: 'sent', messageId: item.detail?.messageId ?? null };
    case 'failed':
      return { ...none, id, status: item.detail?.bounced ? 'bounced' : 'failed', error: item.reason.slice(0, 200) };
    case 'retry':
      return { ...none, id, status: 'queued', error: item.reason.slice(0, 200), nextAt: item.at };
    case 'in_doubt':
      return { ...none, id, status: 'in_doubt', error: `in doubt: ${item.reason}`.slice(0, 200) };
    case 'released':
      return { ...none, id, status: 'queued', released: true };
  }
}

const PROGRESS_MS = 1000;

/**
 * The email channel for the outbound engine: notices to one person first, then recipients of
 * every sending campaign, through one
 * pooled SMTP transport per drain (or the outbox), progress pushed to the war room at most once
 * a second, and campaigns moved on (A/B wait, sent) when a drain ends. Several processes may
 * drain side by side: claims skip each other's rows.
 */
export class EmailChannel implements OutboundAdapter<EmailOutbound, EmailDetail> {
  readonly channel = 'email';
  readonly room = EMAIL_ROOM;
  readonly settings: ChannelSettings;
  private readonly plans = new Map<string, CampaignPlan>();
  private readonly notices = new Map<string, NoticeContent>();
  private mailer: Mailer | undefined;
  private progress = new Map<string, EmailProgressEvent>();
  private pushedAt = 0;

  constructor(private readonly deps: AppDeps) {
    this.settings = emailSettings(deps.config.email);
  }

  releaseOrphans(): Promise<number> {
    return releaseStaleClaims(this.deps.db, this.deps.config.email.claimTimeoutSeconds);
  }

  hasDueWork(): Promise<boolean> {
    return hasDueRecipients(this.deps.db);
  }

  async claim(request: ClaimRequest): Promise<Claimed<EmailOutbound>> {
    return this.claimedFrom(await claimRecipients(this.deps.db, request.limit));
  }

  private claimedFrom(rows: ClaimedRow[]): Claimed<EmailOutbound> {
    const messages: EmailOutbound[] = [];
    let skipped = 0;
    for (const row of rows) {
      if (row.status === 'skipped') {
        if (row.campaign_id) this.count(row.campaign_id, 'skipped', 1);
        skipped++;
      } else {
        messages.push({ id: row.id, source: row.source, campaignId: row.campaign_id, attempt: row.attempts, email: row.email, name: row.name, variantId: row.variant_id });
      }
    }
    return { messages, skipped };
  }

  async prepare(messages: EmailOutbound[]): Promise<void> {
    const missing = [...new Set(messages.map((message) => message.campaignId).filter((id): id is string => id !== null && !this.plans.has(id)))];
    for (const [id, plan] of plansFrom(await campaignPlans(this.deps.db, missing))) this.plans.set(id, plan);
    const notices = messages.filter((message) => message.source === 'notice').map((message) => message.id);
    for (const content of await noticeContents(this.deps.db, notices)) this.notices.set(content.id, content);
  }

  async send(recipient: EmailOutbound): Promise<Outcome<EmailDetail>> {
    const message = this.messageFor(recipient);
    if (!message) return { kind: 'failed', reason: recipient.source === 'notice' ? 'its content could not be read' : 'its variant is not part of the campaign' };
    this.mailer ??= createMailer(this.deps.config.email, this.deps.files);
    return outcomeOf(await this.mailer.send(message), message.messageId);
  }

  private messageFor(recipient: EmailOutbound) {
    if (recipient.source === 'notice') {
      const content = this.notices.get(recipient.id);
      // Sent once: its content is not needed again in this process.
      this.notices.delete(recipient.id);
      return content && buildNoticeMessage(this.deps, { ...content, email: recipient.email });
    }
    const plan = recipient.campaignId ? this.plans.get(recipient.campaignId) : undefined;
    return plan && recipient.variantId
      ? buildMessage(this.deps, plan, { id: recipient.id, email: recipient.email, name: recipient.name, variantId: recipient.variantId })
      : undefined;
  }

  async settle(items: Settlement<EmailOutbound, EmailDetail>[]): Promise<void> {
    this.settled(await settleRecipients(this.deps.db, items.map(rowOf)));
  }

  async settleAndClaim(items: Settlement<EmailOutbound, EmailDetail>[], request: ClaimRequest): Promise<Claimed<EmailOutbound>> {
    const { settled, claimed } = await settleAndClaimRecipients(this.deps.db, items.map(rowOf), request.limit);
    this.settled(settled);
    return this.claimedFrom(claimed);
  }

  private settled(rows: SettledCount[]): void {
    for (const row of rows) this.tally(row);
    if (Date.now() - this.pushedAt >= PROGRESS_MS) this.pushProgress();
  }

  async pause(campaignId: string, notice: string): Promise<boolean> {
    const state = await pauseCampaign(this.deps.db, campaignId, notice);
    if (!state) return false;
    this.deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'paused', abPhase: state.ab_phase, winner: state.winner });
    return true;
  }

  /**
   * Pushes the progress so far; once nothing is left to claim, lets go of the SMTP pool and moves
   * each sending campaign on: a delayed job for its next retry (or for rows another process holds,
   * at their claim timeout), or, when nothing is left, the A/B wait or `sent`.
   */
  async housekeeping(drained: boolean): Promise<void> {
    this.pushProgress();
    if (!drained) return;
    this.close();
    this.plans.clear();
    this.notices.clear();
    for (const campaign of await sendingCampaigns(this.deps.db)) await this.advance(campaign.id, campaign);
    await this.wakeForNotices();
  }

  /** A delayed drain for the next notice retry, or for notices another process holds, at their claim timeout. */
  private async wakeForNotices(): Promise<void> {
    const { deps } = this;
    const queue = await noticeQueue(deps.db);
    const timeout = queue.oldest_claim ? new Date(queue.oldest_claim).getTime() + deps.config.email.claimTimeoutSeconds * 1000 + 1000 : null;
    const at = [queue.next_retry ? new Date(queue.next_retry).getTime() : null, timeout].filter((value): value is number => value !== null).sort((a, b) => a - b)[0];
    if (at !== undefined) await deps.jobs.enqueue(sendJob, {}, { jobId: `email-send-notices-${at}`, delayMs: Math.max(0, at - Date.now()) });
  }

  close(): void {
    this.mailer?.close();
    this.mailer = undefined;
  }

  private async advance(campaignId: string, pending: { next_retry: Date | null; open: number; oldest_claim: Date | null }): Promise<void> {
    const { deps } = this;
    if (pending.next_retry) {
      const at = new Date(pending.next_retry).getTime();
      await deps.jobs.enqueue(sendJob, { campaignId }, { jobId: `email-send-${campaignId}-${at}`, delayMs: Math.max(0, at - Date.now()) });
      return;
    }
    if (pending.open > 0) {
      // Another process holds the rest and moves the campaign on when it settles them. Should it
      // have died, a drain after the claim timeout marks its rows in doubt and moves it on.
      if (pending.oldest_claim) {
        const at = new Date(pending.oldest_claim).getTime() + deps.config.email.claimTimeoutSeconds * 1000 + 1000;
        await deps.jobs.enqueue(sendJob, { campaignId }, { jobId: `email-send-${campaignId}-claims-${at}`, delayMs: Math.max(0, at - Date.now()) });
      }
      return;
    }
    const waiting = await endTestPhase(deps.db, campaignId);
    if (waiting) {
      const delayMs = Math.max(0, new Date(waiting.ab_decide_at).getTime() - Date.now());
      await deps.jobs.enqueue(decideJob, { campaignId }, { jobId: `email-decide-${campaignId}`, delayMs });
      deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sending', abPhase: 'waiting', winner: null });
      deps.logger.info({ campaignId, delayMs }, 'email A/B test sent; winner decision scheduled');
      return;
    }
    const finished = await finishCampaign(deps.db, campaignId);
    if (finished) {
      deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sent', abPhase: finished.ab_phase, winner: finished.winner });
      deps.logger.info({ campaignId }, 'email campaign sent');
    }
  }

  private tally(row: SettledCount): void {
    if (row.released) return;
    const field = ({ sent: 'sent', bounced: 'bounced', failed: 'failed', queued: 'retrying' } as const)[row.status as 'sent' | 'bounced' | 'failed' | 'queued'];
    if (field) this.count(row.campaign_id, field, row.n);
  }

  private count(campaignId: string, field: Exclude<keyof EmailProgressEvent, 'campaignId'>, n: number): void {
    let event = this.progress.get(campaignId);
    if (!event) {
      event = { campaignId, sent: 0, bounced: 0, failed: 0, retrying: 0, skipped: 0 };
      this.progress.set(campaignId, event);
    }
    event[field] += n;
  }

  private pushProgress(): void {
    this.pushedAt = Date.now();
    for (const event of this.progress.values()) this.deps.realtime.publish(EMAIL_ROOM, 'email:progress', event);
    this.progress = new Map();
  }
}

/** This process's email sender: the engine and its channel (whose SMTP pool is closed with it). */
const sender = processLocal('email.sender', (deps: AppDeps) => {
  const channel = new EmailChannel(deps);
  const engine = new OutboundEngine(channel, deps);
  return {
    engine,
    idle: () => engine.idle(),
    async close() {
      await engine.stop();
      channel.close();
    },
  };
});

export const emailSender = (deps: AppDeps): OutboundEngine<EmailOutbound, EmailDetail> => sender(deps).engine;

/** At shutdown, before the job workers close: recipients waiting for their turn go back to the queue, those in flight finish. */
export async function stopEmailSender(deps: AppDeps): Promise<void> {
  await sender.ifMade(deps)?.close();
}

/**
 * Staff resume a campaign the sender paused (after they fixed what the notice said): it sends
 * again from where it stopped. Only a paused campaign can be resumed.
 */
export async function resumeCampaign(deps: AppDeps, campaignId: string) {
  const state = await resumePaused(deps.db, campaignId);
  if (!state) {
    const existing = await campaignStatus(deps.db, campaignId);
    if (!existing) throw new NotFoundError('No such email campaign.');
    throw new ConflictError(`This campaign is ${existing.status}; only a paused campaign can be resumed.`, 'not_paused');
  }
  await deps.jobs.enqueue(sendJob, { campaignId });
  deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sending', abPhase: state.ab_phase, winner: state.winner });
  deps.logger.info({ campaignId }, 'email campaign resumed');
  return getCampaign(deps.db, campaignId);
}
