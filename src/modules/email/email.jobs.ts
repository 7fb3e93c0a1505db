import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { defineJob } from '../../kernel/jobs';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { decideWinner } from './email.ab';
import { startCampaign } from './email.campaigns.service';
import { emailSender, stopEmailSender } from './email.outbound';
import { campaignStatus, noticeQueue, releaseStaleClaims, unfinishedCampaigns } from './email.outbound.repository';

const campaignPayload = z.object({ campaignId: z.uuid() });
/** How often a process looks for notices nobody asked it to send. */
const NOTICE_CHECK_MS = 5000;
/** The campaign whose news it is, or none for notices to one person. */
const sendPayload = z.object({ campaignId: z.uuid().optional() });

/**
 * "There are recipients to send to" (the campaign named is only where the news came from): the
 * process's sender drains every due recipient of every sending campaign. Safe to run twice or
 * side by side, in one process or several (claims skip each other's rows).
 */
export const sendJob = defineJob({
  name: 'email.send',
  schema: sendPayload,
  attempts: 5,
  backoffMs: 2000,
  concurrency: 2,
  handler: async (_data, { deps }) => emailSender(deps).drain(),
});

/** Decides the A/B winner once waitMinutes are over; a second run finds nothing to do. */
export const decideJob = defineJob({
  name: 'email.decide-winner',
  schema: campaignPayload,
  attempts: 5,
  backoffMs: 5000,
  handler: async ({ campaignId }, { deps }) => {
    const result = await decideWinner(deps, campaignId);
    if (!result.decided && result.reason === 'not_due' && result.dueAt) {
      await deps.jobs.enqueue(decideJob, { campaignId }, { jobId: `email-decide-${campaignId}-${result.dueAt.getTime()}`, delayMs: result.dueAt.getTime() - Date.now() });
    }
  },
});

/**
 * A scheduled campaign's start; `send` before then starts it and this finds it already sending.
 * Its id names the time it is for, so a campaign rescheduled (edited) gets a job of its own and the
 * old one, finding the campaign scheduled later than now, does nothing.
 */
export const startJob = defineJob({
  name: 'email.start',
  schema: campaignPayload,
  attempts: 3,
  handler: async ({ campaignId }, { deps }) => {
    const row = await campaignStatus(deps.db, campaignId);
    if (row?.status !== 'scheduled') return;
    if (row.scheduled_at && new Date(row.scheduled_at).getTime() > Date.now() + START_EARLY_MS) return;
    await startCampaign(deps, campaignId, ['scheduled']);
  },
});

/** How early a start job may run and still start its campaign (timers are not exact to the millisecond). */
const START_EARLY_MS = 2_000;

/** Queues the start of a campaign scheduled at `at`: one job per campaign and time. */
export function scheduleStart(deps: AppDeps, campaignId: string, at: Date): Promise<unknown> {
  return deps.jobs.enqueue(startJob, { campaignId }, { jobId: `email-start-${campaignId}-${at.getTime()}`, delayMs: Math.max(0, at.getTime() - Date.now()) });
}

/**
 * At worker start: whatever the database says is unfinished gets its job again — jobs lost with
 * an in-memory queue or a crash, a winner decision whose delay passed while nobody was running.
 * Paused campaigns wait for staff. Then, every few seconds, notices that are due with the sender
 * idle get a send job. The sender and that check are stopped at shutdown.
 */
export async function resumeUnfinished(deps: AppDeps): Promise<BackgroundTask> {
  if (!deps.config.email.smtpUrl) deps.logger.info({ fileStore: deps.files.backend.kind }, "no SMTP_URL: email campaigns are written as .eml files to the file store's outbox");
  const stale = await releaseStaleClaims(deps.db, deps.config.email.claimTimeoutSeconds);
  if (stale) deps.logger.warn({ recipients: stale }, 'email recipients claimed by a stopped process are in doubt (not resent)');
  const campaigns = await unfinishedCampaigns(deps.db);
  for (const campaign of campaigns) {
    const campaignId = campaign.id;
    if (campaign.status === 'scheduled') {
      await scheduleStart(deps, campaignId, new Date(campaign.scheduled_at ?? Date.now()));
    } else if (campaign.ab_phase === 'waiting') {
      const delayMs = Math.max(0, new Date(campaign.ab_decide_at ?? Date.now()).getTime() - Date.now());
      await deps.jobs.enqueue(decideJob, { campaignId }, { jobId: `email-decide-${campaignId}-resume-${Date.now()}`, delayMs });
    } else {
      await deps.jobs.enqueue(sendJob, { campaignId });
    }
  }
  if (campaigns.length) deps.logger.info({ campaigns: campaigns.length }, 'email campaigns resumed');
  // Notices whose dispatch was lost (the caller stopped after its commit, a job lost with Redis) go out within a few seconds.
  const ticker = repeatEvery(deps.logger, 'email.notices', NOTICE_CHECK_MS, async () => {
    if (!emailSender(deps).busy && (await noticeQueue(deps.db)).due) await deps.jobs.enqueue(sendJob, {});
  });
  return {
    async stop() {
      await ticker.stop();
      await stopEmailSender(deps);
    },
  };
}

export const emailJobs = [sendJob, decideJob, startJob];
