import { z } from 'zod';
import type { Config } from '../../config';
import { addDays, instantAt, localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { defineJob } from '../../kernel/jobs';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { backoffMs } from '../../kernel/outbound';
import { processLocal } from '../../kernel/process-local';
import { ConnectorError, type SocialConnector } from './connectors/connector';
import { createConnectors } from './connectors';
import type { Platform } from './social.entities';
import { ingestPosts, type IngestResult } from './social.ingest';
import { claimDueProfiles, exclusively, quotaUsed, recordFetchFailure, recordFetchSuccess, spendQuota } from './social.poller.repository';
import { findProfile, type ProfileRecord } from './social.repository';

/** How often each platform's profiles are read: within the quotas of a campaign watching ~20 competitors. */
export const POLL_INTERVAL_SECONDS: Record<Platform, number> = { youtube: 30 * 60, x: 15 * 60, facebook: 15 * 60, instagram: 15 * 60, tiktok: 0 };
/** Posts read per fetch at most (newest first). */
const MAX_POSTS_PER_FETCH = 200;
/** Consecutive failures (errors, not rate limits) after which a profile waits for a person. */
export const PAUSE_AFTER_FAILURES = 8;
const FAILURE_BACKOFF = { baseMs: 60_000, maxMs: 3_600_000 };
/** A claimed profile whose job never ran comes due again after this. */
const CLAIM_LEASE_SECONDS = 10 * 60;

export type PollablePlatform = Exclude<Platform, 'tiktok'>;
export const connectors = processLocal('social.connectors', (deps: Pick<AppDeps, 'config' | 'local'>) => createConnectors(deps.config.social));

export function connectorFor(deps: Pick<AppDeps, 'config' | 'local'>, platform: Platform): SocialConnector | undefined {
  return platform === 'tiktok' ? undefined : connectors(deps)[platform];
}

/**
 * The quota period a call falls in and its budget: YouTube's units reset at midnight Pacific time,
 * X's post reads are capped per month; Graph API limits are rolling windows that answer 429-like
 * codes, so they are counted (for the dashboard) without a budget.
 */
export function quotaPeriod(platform: Platform, config: Config['social'], now: Date): { start: Date; end: Date; budget: number | null } {
  if (platform === 'youtube') {
    const zone = 'America/Los_Angeles';
    const today = localClock(now, zone).date;
    const start = instantAt(today, 0, zone);
    return { start, end: instantAt(addDays(today, 1), 0, zone), budget: config.youtube.dailyUnits };
  }
  if (platform === 'x') {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    return { start, end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)), budget: config.x.monthlyReads };
  }
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { start, end: new Date(start.getTime() + 86_400_000), budget: null };
}

export type FetchOutcome =
  | { status: 'fetched'; followers: number | null; posts: number; result: IngestResult }
  | { status: 'busy' | 'gone' | 'paused' | 'import_only' | 'not_configured' }
  | { status: 'waiting'; reason: string; until: Date }
  | { status: 'failed'; failure: ConnectorError['failure']; reason: string; paused: boolean };

function failureOutcome(error: ConnectorError, failures: number, now: Date): { counts: boolean; nextFetchAt: Date; pausedReason: string | null } {
  if (error.failure === 'rate_limited' || error.failure === 'quota_exhausted') {
    return { counts: false, nextFetchAt: error.retryAt && error.retryAt > now ? error.retryAt : new Date(now.getTime() + backoffMs(1, FAILURE_BACKOFF)), pausedReason: null };
  }
  if (error.failure === 'auth' || error.failure === 'not_found') return { counts: true, nextFetchAt: now, pausedReason: error.message };
  const paused = failures + 1 >= PAUSE_AFTER_FAILURES;
  return {
    counts: true,
    nextFetchAt: new Date(now.getTime() + backoffMs(failures + 1, FAILURE_BACKOFF)),
    pausedReason: paused ? `${PAUSE_AFTER_FAILURES} fetches in a row failed; last: ${error.message}` : null,
  };
}

async function fetchOnce(deps: Pick<AppDeps, 'db' | 'realtime' | 'config' | 'local' | 'logger'>, profile: ProfileRecord, now: Date): Promise<FetchOutcome> {
  const connector = connectorFor(deps, profile.platform);
  if (!connector || profile.source === 'import') return { status: 'import_only' };
  if (!connector.configured) {
    await recordFetchFailure(deps.db, profile.id, {
      error: 'not configured',
      counts: false,
      nextFetchAt: new Date(now.getTime() + POLL_INTERVAL_SECONDS[profile.platform] * 1000),
      pausedReason: null,
    });
    return { status: 'not_configured' };
  }
  const period = quotaPeriod(profile.platform, deps.config.social, now);
  if (period.budget !== null && (await quotaUsed(deps.db, profile.platform, period.start)) >= period.budget) {
    const reason = `${profile.platform} quota used up until ${period.end.toISOString()}`;
    await recordFetchFailure(deps.db, profile.id, { error: reason, counts: false, nextFetchAt: period.end, pausedReason: null });
    return { status: 'waiting', reason, until: period.end };
  }
  const since = new Date(now.getTime() - deps.config.social.refreshWindowSeconds * 1000);
  let fetched;
  try {
    fetched = await connector.fetch({ profile: { platform: profile.platform, handle: profile.handle, platformId: profile.platformId }, since, maxPosts: MAX_POSTS_PER_FETCH });
  } catch (error) {
    if (!(error instanceof ConnectorError)) throw error;
    const outcome = failureOutcome(error, profile.consecutiveFailures, now);
    await recordFetchFailure(deps.db, profile.id, { error: `${error.failure}: ${error.message}`, ...outcome });
    deps.logger.warn({ profileId: profile.id, platform: profile.platform, failure: error.failure, status: error.status }, 'social fetch failed');
    if (!outcome.counts) return { status: 'waiting', reason: error.message, until: outcome.nextFetchAt };
    return { status: 'failed', failure: error.failure, reason: error.message, paused: outcome.pausedReason !== null };
  }
  await spendQuota(deps.db, profile.platform, period.start, fetched.quotaUsed);
  const followers = fetched.profile.followers;
  const result = await ingestPosts(
    deps,
    fetched.posts.map((post) => ({ ...post, platform: profile.platform, competitorId: profile.competitorId, profileId: profile.id, capturedAt: now, followers })),
    { now, followers: followers === null ? [] : [{ profileId: profile.id, capturedAt: now, followers }] },
  );
  await recordFetchSuccess(
    deps.db,
    profile.id,
    {
      platformId: fetched.profile.platformId,
      displayName: fetched.profile.displayName,
      followers,
      nextFetchAt: new Date(now.getTime() + POLL_INTERVAL_SECONDS[profile.platform] * 1000),
    },
    now,
  );
  return { status: 'fetched', followers, posts: fetched.posts.length, result };
}

/**
 * Reads one profile now, unless another process is reading it. A scheduled fetch skips a paused
 * profile; one asked for by staff (`manual`) is how a pause is lifted.
 */
export async function fetchProfile(
  deps: Pick<AppDeps, 'db' | 'realtime' | 'config' | 'local' | 'logger'>,
  profileId: string,
  options: { manual?: boolean; now?: Date } = {},
): Promise<FetchOutcome> {
  const outcome = await exclusively(deps.db, profileId, async (): Promise<FetchOutcome> => {
    const profile = await findProfile(deps.db, profileId);
    if (!profile) return { status: 'gone' };
    if (profile.pausedReason && !options.manual) return { status: 'paused' };
    return fetchOnce(deps, profile, options.now ?? new Date());
  });
  return outcome ?? { status: 'busy' };
}

export const fetchProfileJob = defineJob({
  name: 'social.fetch-profile',
  schema: z.object({ profileId: z.uuid() }),
  // The profile row records failures and when to try again; the job itself is not retried.
  attempts: 1,
  concurrency: 4,
  handler: async ({ profileId }, { deps }) => {
    await fetchProfile(deps, profileId);
  },
});

/** Enqueues a fetch for every due profile; the claim makes each one due only once per lease. */
export async function sweepDueProfiles(deps: Pick<AppDeps, 'db' | 'jobs'>): Promise<string[]> {
  const claimed = await claimDueProfiles(deps.db, 50, CLAIM_LEASE_SECONDS);
  for (const { id, claimedAt } of claimed) await deps.jobs.enqueue(fetchProfileJob, { profileId: id }, { jobId: `social-fetch-${id}-${claimedAt.getTime()}` });
  return claimed.map((profile) => profile.id);
}

export function startPolling(deps: AppDeps): BackgroundTask {
  return repeatEvery(deps.logger, 'social.sweep', deps.config.social.sweepIntervalSeconds * 1000, async () => {
    await sweepDueProfiles(deps);
  });
}
