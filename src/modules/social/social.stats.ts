import type { z } from 'zod';
import { addDays, localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { invalidField } from '../../kernel/errors';
import { latestAlerts } from './social.alerts.repository';
import { PLATFORMS, type Platform } from './social.entities';
import { connectorFor, quotaPeriod } from './social.poller';
import { presentAlert, presentProfile } from './social.presenter';
import { allCompetitors, profilesOf } from './social.repository';
import type { ComparisonInput, ComparisonMetric, comparisonView, dashboardView } from './social.schemas';
import { rangeOf } from './social.service';
import { dailyFollowers, followerGrowth, newAlertCount, postBuckets, quotaUsage, windowFigures, type PostBucket } from './social.stats.repository';

type Deps = Pick<AppDeps, 'db' | 'config' | 'local'>;

const round = (value: number | null, digits = 2) => (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits);

/** Growth over the profiles that have a count both now and then (a profile added since does not count as growth). */
function growthOf(rows: readonly { followers: number | null; before: number | null }[]) {
  const comparable = rows.filter((row) => row.followers !== null && row.before !== null);
  if (!comparable.length) return null;
  const now = comparable.reduce((sum, row) => sum + row.followers!, 0);
  const before = comparable.reduce((sum, row) => sum + row.before!, 0);
  return { absolute: now - before, percent: before > 0 ? round(((now - before) / before) * 100) : null };
}

/** Sums over profiles that have a value, null when none has. */
const sumKnown = (values: (number | null)[]) => (values.some((value) => value !== null) ? values.reduce<number>((sum, value) => sum + (value ?? 0), 0) : null);

export async function socialDashboard(deps: Deps, days: number, now = new Date()): Promise<z.input<typeof dashboardView>> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const competitors = await allCompetitors(deps.db, { activeOnly: true });
  const periods = PLATFORMS.filter((platform) => connectorFor(deps, platform)).map((platform) => ({ platform, ...quotaPeriod(platform, deps.config.social, now) }));
  const [profiles, figures, growthRows, alerts, newAlerts, used] = await Promise.all([
    profilesOf(
      deps.db,
      competitors.map((competitor) => competitor.id),
    ),
    windowFigures(deps.db, since),
    followerGrowth(deps.db, now),
    latestAlerts(deps.db, 10),
    newAlertCount(deps.db),
    quotaUsage(deps.db, periods),
  ]);
  const figuresOf = new Map(figures.map((row) => [row.competitorId, row]));
  const totalEngagement = competitors.reduce((sum, competitor) => sum + (figuresOf.get(competitor.id)?.engagement ?? 0), 0);
  return {
    window: { days, from: since.toISOString(), to: now.toISOString() },
    competitors: competitors.map((competitor) => {
      const own = figuresOf.get(competitor.id);
      const followers = PLATFORMS.flatMap((platform) => {
        const rows = growthRows.filter((row) => row.competitorId === competitor.id && row.platform === platform);
        if (!rows.length) return [];
        const current = sumKnown(rows.map((row) => row.followers));
        return [
          {
            platform,
            followers: current,
            growth7d: growthOf(rows.map((row) => ({ followers: row.followers, before: row.followers7dAgo }))),
            growth30d: growthOf(rows.map((row) => ({ followers: row.followers, before: row.followers30dAgo }))),
          },
        ];
      });
      return {
        id: competitor.id,
        name: competitor.name,
        colour: competitor.colour,
        isOwn: competitor.isOwn,
        followers,
        posts: own?.posts ?? 0,
        engagement: own?.engagement ?? 0,
        averageEngagementRate: round(own?.meanRate ?? null, 4),
        shareOfVoice: totalEngagement > 0 ? round(((own?.engagement ?? 0) / totalEngagement) * 100) : null,
        sentiment: { positive: own?.positive ?? 0, neutral: own?.neutral ?? 0, negative: own?.negative ?? 0 },
        profiles: (profiles.get(competitor.id) ?? []).map((profile) => presentProfile(profile, connectorFor(deps, profile.platform)?.configured)),
      };
    }),
    alerts: { new: newAlerts, latest: alerts.map(presentAlert) },
    connectors: PLATFORMS.map((platform) => {
      const connector = connectorFor(deps, platform);
      const period = periods.find((item) => item.platform === platform);
      return {
        platform,
        status: !connector ? ('import_only' as const) : connector.configured ? ('configured' as const) : ('not_configured' as const),
        quota: period ? { used: used.get(platform) ?? 0, budget: period.budget, resetsAt: period.end.toISOString() } : null,
      };
    }),
  };
}

/** Local bucket starts from `from` to `to` (exclusive), by day or ISO week (Monday). */
export function bucketStarts(from: Date, to: Date, interval: 'day' | 'week', timeZone: string): string[] {
  const first = localClock(from, timeZone).date;
  const last = localClock(new Date(to.getTime() - 1), timeZone).date;
  const start = new Date(`${first}T00:00:00Z`);
  if (interval === 'week') start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  const buckets: string[] = [];
  for (const day = start; day.toISOString().slice(0, 10) <= last; day.setUTCDate(day.getUTCDate() + (interval === 'week' ? 7 : 1))) buckets.push(day.toISOString().slice(0, 10));
  return buckets;
}

function postValue(metric: Exclude<ComparisonMetric, 'followers'>, bucket: PostBucket | undefined, bucketTotal: number): number | null {
  switch (metric) {
    case 'posts':
      return bucket?.posts ?? 0;
    case 'engagement':
      return bucket?.engagement ?? 0;
    case 'engagementRate':
      return round(bucket?.meanRate ?? null, 4);
    case 'sentiment':
      // Net sentiment: positive minus negative posts, per hundred posts.
      return bucket && bucket.posts > 0 ? round(((bucket.positive - bucket.negative) / bucket.posts) * 100) : null;
    case 'shareOfVoice':
      return bucketTotal > 0 ? round(((bucket?.engagement ?? 0) / bucketTotal) * 100) : null;
  }
}

/**
 * A competitor's followers at the end of each bucket: each profile's last daily count on or before
 * the bucket's last day (carried forward), summed over the profiles that have one; null before any.
 */
function followersByBucket(
  rows: readonly { profileId: string; day: string; followers: number }[],
  buckets: readonly string[],
  interval: 'day' | 'week',
  lastDay: string,
): (number | null)[] {
  const byProfile = new Map<string, { day: string; followers: number }[]>();
  for (const row of rows) byProfile.set(row.profileId, [...(byProfile.get(row.profileId) ?? []), row]);
  for (const series of byProfile.values()) series.sort((a, b) => (a.day < b.day ? -1 : 1));
  return buckets.map((bucket) => {
    const end = interval === 'day' ? bucket : addDays(bucket, 6) < lastDay ? addDays(bucket, 6) : lastDay;
    let total: number | null = null;
    for (const series of byProfile.values()) {
      let value: number | undefined;
      for (const point of series) if (point.day <= end) value = point.followers;
      if (value !== undefined) total = (total ?? 0) + value;
    }
    return total;
  });
}

/** The longest range one comparison covers: two years of days is already 730 points per competitor. */
const MAX_RANGE_DAYS = 731;

export async function comparison(deps: Deps, query: ComparisonInput, now = new Date()): Promise<z.input<typeof comparisonView>> {
  const timeZone = deps.config.timeZone;
  const range = rangeOf(query, timeZone);
  const to = range.to ?? now;
  const from = range.from ?? new Date(to.getTime() - 30 * 86_400_000);
  if (from >= to) throw invalidField('query.from', '`from` must be before `to`.');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 86_400_000) throw invalidField('query.from', `A comparison covers at most ${MAX_RANGE_DAYS} days.`);
  const platform = query.platform as Platform | undefined;
  const buckets = bucketStarts(from, to, query.interval, timeZone);
  const competitors = await allCompetitors(deps.db, { activeOnly: true });
  const values = new Map<string, (number | null)[]>();
  const days = { fromDay: localClock(from, timeZone).date, toDay: localClock(new Date(to.getTime() - 1), timeZone).date };
  if (query.metric === 'followers') {
    const rows = await dailyFollowers(deps.db, days, platform);
    for (const competitor of competitors)
      values.set(
        competitor.id,
        followersByBucket(
          rows.filter((row) => row.competitorId === competitor.id),
          buckets,
          query.interval,
          days.toDay,
        ),
      );
  } else {
    const rows = await postBuckets(deps.db, days, query.interval, platform);
    const byKey = new Map(rows.map((row) => [`${row.competitorId}|${row.bucket}`, row]));
    const active = new Set(competitors.map((competitor) => competitor.id));
    const totals = new Map<string, number>();
    for (const row of rows) if (active.has(row.competitorId)) totals.set(row.bucket, (totals.get(row.bucket) ?? 0) + row.engagement);
    const metric = query.metric;
    for (const competitor of competitors)
      values.set(
        competitor.id,
        buckets.map((bucket) => postValue(metric, byKey.get(`${competitor.id}|${bucket}`), totals.get(bucket) ?? 0)),
      );
  }
  const summary = competitors.map((competitor) => {
    const known = values.get(competitor.id)!.filter((value): value is number => value !== null);
    const latest = known.at(-1) ?? null;
    const first = known[0] ?? null;
    const change = latest !== null && first !== null ? round(latest - first) : null;
    return {
      competitorId: competitor.id,
      name: competitor.name,
      isOwn: competitor.isOwn,
      latest,
      change,
      changePercent: change !== null && first ? round((change / first) * 100) : null,
      rank: null as number | null,
    };
  });
  const ranked = summary.filter((row) => row.latest !== null).sort((a, b) => b.latest! - a.latest!);
  ranked.forEach((row, index) => {
    row.rank = index > 0 && ranked[index - 1]!.latest === row.latest ? ranked[index - 1]!.rank : index + 1;
  });
  return {
    metric: query.metric,
    interval: query.interval,
    platform: platform ?? null,
    from: from.toISOString(),
    to: to.toISOString(),
    buckets,
    series: competitors.map((competitor) => ({
      competitorId: competitor.id,
      name: competitor.name,
      colour: competitor.colour,
      isOwn: competitor.isOwn,
      values: values.get(competitor.id)!,
    })),
    summary,
  };
}
