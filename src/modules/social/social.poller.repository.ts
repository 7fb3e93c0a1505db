import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql, tables, type Queries } from '../../kernel/sql';
import { ProfileSchema, QuotaUsageSchema, type Platform } from './social.entities';
import type { ProfileRecord } from './social.repository';

const db = tables<InferKyselyDB<typeof ProfileSchema | typeof QuotaUsageSchema>>();

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

/** What a fetch learnt of a profile (a name or count it did not give is null), and when to read it next. */
export type FetchSuccess = Pick<ProfileRecord, 'displayName' | 'followers'> & { platformId: string; nextFetchAt: Date };

export async function recordFetchSuccess(q: Queries, profileId: string, success: FetchSuccess, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('social_profiles')
      .set((profile) => ({
        platform_id: success.platformId,
        // A name or count the platform did not give keeps the one known.
        display_name: profile.fn.coalesce(profile.val(success.displayName), profile.ref('display_name')),
        followers: profile.fn.coalesce(profile.val(success.followers), profile.ref('followers')),
        last_fetched_at: at,
        last_error: null,
        consecutive_failures: 0,
        paused_reason: null,
        next_fetch_at: success.nextFetchAt,
      }))
      .where('id', '=', profileId),
  );
}

export type FetchFailure = Pick<ProfileRecord, 'nextFetchAt' | 'pausedReason'> & {
  error: string;
  /** Counts towards pausing a profile that keeps failing (not for rate limits or quotas: those are ours to wait out). */
  counts: boolean;
};

/** Records a failed fetch; the profile's consecutive failures after it. */
export async function recordFetchFailure(q: Queries, profileId: string, failure: FetchFailure): Promise<number> {
  const row = await q.first(
    db
      .updateTable('social_profiles')
      .set((profile) => ({
        last_error: failure.error.slice(0, 500),
        consecutive_failures: profile('consecutive_failures', '+', failure.counts ? 1 : 0),
        paused_reason: failure.pausedReason?.slice(0, 500) ?? null,
        next_fetch_at: failure.nextFetchAt,
      }))
      .where('id', '=', profileId)
      .returning('consecutive_failures as failures'),
  );
  return row?.failures ?? 0;
}

/** Puts a profile back in the poller's list (a resumed pause, a fetch asked for by staff). */
export async function scheduleProfile(q: Queries, profileId: string, at: Date): Promise<void> {
  await q.write(db.updateTable('social_profiles').set({ paused_reason: null, consecutive_failures: 0, next_fetch_at: at }).where('id', '=', profileId));
}

export async function quotaUsed(q: Queries, platform: Platform, periodStart: Date): Promise<number> {
  const row = await q.first(db.selectFrom('social_quota_usage').select('used').where('platform', '=', platform).where('period_start', '=', periodStart));
  // int8 comes as text.
  return row ? Number(row.used) : 0;
}

export async function spendQuota(q: Queries, platform: Platform, periodStart: Date, units: number): Promise<void> {
  if (units <= 0) return;
  await q.write(
    db
      .insertInto('social_quota_usage')
      .values({ platform, period_start: periodStart, used: units })
      .onConflict((conflict) =>
        conflict.columns(['platform', 'period_start']).doUpdateSet((usage) => ({ used: usage('social_quota_usage.used', '+', usage.ref('excluded.used')) })),
      ),
  );
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
