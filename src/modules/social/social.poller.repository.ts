import { sql, type Queries } from '../../kernel/sql';
import type { Platform } from './social.entities';

/**
 * Takes up to `limit` due profiles for fetching and pushes their due time out by `leaseSeconds`,
 * in one statement: two sweepers never take the same profile, and a profile whose job is lost
 * (Redis gone, process killed) comes due again when the lease ends.
 */
export async function claimDueProfiles(q: Queries, limit: number, leaseSeconds: number): Promise<{ id: string; claimedAt: Date }[]> {
  return q.rows(sql`
    update social_profiles p set next_fetch_at = now() + make_interval(secs => ${leaseSeconds}::int)
    where p.id in (select id from social_profiles where paused_reason is null and next_fetch_at <= now() and source = 'api'
      order by next_fetch_at limit ${limit}::int for update skip locked)
    returning p.id, now() as "claimedAt"`);
}

export interface FetchSuccess {
  platformId: string;
  displayName: string | null;
  followers: number | null;
  nextFetchAt: Date;
}

export async function recordFetchSuccess(q: Queries, profileId: string, success: FetchSuccess, at: Date): Promise<void> {
  await q.write(sql`
    update social_profiles set platform_id = ${success.platformId}, display_name = coalesce(${success.displayName}::text, display_name),
      followers = coalesce(${success.followers}::bigint, followers), last_fetched_at = ${at}::timestamptz, last_error = null,
      consecutive_failures = 0, paused_reason = null, next_fetch_at = ${success.nextFetchAt}::timestamptz
    where id = ${profileId}::uuid`);
}

export interface FetchFailure {
  error: string;
  /** Counts towards pausing a profile that keeps failing (not for rate limits or quotas: those are ours to wait out). */
  counts: boolean;
  nextFetchAt: Date | null;
  pausedReason: string | null;
}

/** Records a failed fetch; the profile's consecutive failures after it. */
export async function recordFetchFailure(q: Queries, profileId: string, failure: FetchFailure): Promise<number> {
  const row = await q.first<{ failures: number }>(sql`
    update social_profiles set last_error = ${failure.error.slice(0, 500)},
      consecutive_failures = consecutive_failures + ${failure.counts ? 1 : 0}::int,
      paused_reason = ${failure.pausedReason?.slice(0, 500) ?? null}::text,
      next_fetch_at = ${failure.nextFetchAt}::timestamptz
    where id = ${profileId}::uuid returning consecutive_failures as failures`);
  return row?.failures ?? 0;
}

/** Puts a profile back in the poller's list (a resumed pause, a fetch asked for by staff). */
export async function scheduleProfile(q: Queries, profileId: string, at: Date): Promise<void> {
  await q.write(sql`update social_profiles set paused_reason = null, consecutive_failures = 0, next_fetch_at = ${at}::timestamptz where id = ${profileId}::uuid`);
}

export async function quotaUsed(q: Queries, platform: Platform, periodStart: Date): Promise<number> {
  const row = await q.first<{ used: string }>(sql`select used from social_quota_usage where platform = ${platform} and period_start = ${periodStart}::timestamptz`);
  return row ? Number(row.used) : 0;
}

export async function spendQuota(q: Queries, platform: Platform, periodStart: Date, units: number): Promise<void> {
  if (units <= 0) return;
  await q.write(sql`insert into social_quota_usage as u (platform, period_start, used) values (${platform}, ${periodStart}::timestamptz, ${units}::bigint)
    on conflict (platform, period_start) do update set used = u.used + excluded.used`);
}

/** Runs `work` only if no other process is fetching this profile now; undefined when one is. */
export async function exclusively<T>(db: { session<R>(work: (connection: Queries) => Promise<R>): Promise<R> }, profileId: string, work: () => Promise<T>): Promise<T | undefined> {
  return db.session(async (connection) => {
    const lock = sql`hashtextextended(${`social-fetch:${profileId}`}, 0)`;
    const taken = await connection.first<{ taken: boolean }>(sql`select pg_try_advisory_lock(${lock}) as taken`);
    if (!taken?.taken) return undefined;
    try {
      return await work();
    } finally {
      await connection.write(sql`select pg_advisory_unlock(${lock})`);
    }
  });
}
