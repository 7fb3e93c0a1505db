import type { z } from 'zod';
import { addDays, daysBetween, instantAt, localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { ForbiddenError, invalidField } from '../../kernel/errors';
import { emailClicksByDay } from '../email';
import { financePolicy, spendByDay } from '../finance';
import { ownPollAverageAt } from '../popularity';
import { pqrsOpenedClosedBetween } from '../pqrs';
import { leadsByDay, scansByDay } from '../qr';
import { activeVolunteersAt, activitiesByDay } from '../volunteers';
import { inboundMessagesByDay } from '../whatsapp';
import { dashboardPolicy } from './dashboard.policy';
import { MAX_TREND_DAYS, type TrendMetric, type TrendsInput, type trendsView } from './dashboard.schemas';

type Deps = Pick<AppDeps, 'db' | 'config'>;
type Series = z.input<typeof trendsView>['series'][number];

interface Range {
  from: string;
  to: string;
  /** Every local day from `from` to `to`. */
  days: string[];
  since: Date;
  until: Date;
  timeZone: string;
  now: Date;
  territoryIds: string[] | undefined;
  /** Opened and closed PQRS per day, read once for both of their metrics. */
  pqrs?: ReturnType<typeof pqrsOpenedClosedBetween>;
}

/** Per-day figures: a map from local day to value, days absent being zero. */
type DayValues = Map<string, number>;

const toMap = (rows: readonly { day: string; count?: number; amount?: number }[]): DayValues => new Map(rows.map((row) => [row.day, row.count ?? row.amount ?? 0]));

interface MetricSource {
  unit: Series['unit'];
  /** sum: bucket = sum of its days; end_of_bucket: bucket = value at the end of its last day. */
  aggregation: Series['aggregation'];
  /** Whether `territoryId` narrows it; else the series is campaign-wide and says so. */
  territorial: boolean;
  /** Money: readable only by roles finance lets see its totals. */
  money?: boolean;
  daily?: (deps: Deps, range: Range) => Promise<DayValues>;
  /** For levels: the value at each instant. */
  at?: (deps: Deps, range: Range, instants: Date[]) => Promise<(number | null)[]>;
}

/** The PQRS statement returns both series; one read serves both metrics of a request. */
const pqrsOf = (deps: Deps, range: Range) => (range.pqrs ??= pqrsOpenedClosedBetween(deps.db, range.from, range.to, range.timeZone));

const SOURCES: Record<TrendMetric, MetricSource> = {
  leads: { unit: 'count', aggregation: 'sum', territorial: true, daily: async (deps, r) => toMap(await leadsByDay(deps.db, r.since, r.until, r.timeZone, r.territoryIds)) },
  scans: { unit: 'count', aggregation: 'sum', territorial: true, daily: async (deps, r) => toMap(await scansByDay(deps.db, r.since, r.until, r.timeZone, r.territoryIds)) },
  activities: {
    unit: 'count',
    aggregation: 'sum',
    territorial: true,
    daily: async (deps, r) => toMap(await activitiesByDay(deps.db, r.since, r.until, r.timeZone, r.territoryIds)),
  },
  volunteers_active: {
    unit: 'count',
    aggregation: 'end_of_bucket',
    territorial: true,
    at: (deps, r, instants) => activeVolunteersAt(deps.db, instants, deps.config.volunteers.activeDays, r.territoryIds),
  },
  pqrs_opened: { unit: 'count', aggregation: 'sum', territorial: false, daily: async (deps, r) => new Map((await pqrsOf(deps, r)).map((row) => [row.day, row.opened])) },
  pqrs_closed: { unit: 'count', aggregation: 'sum', territorial: false, daily: async (deps, r) => new Map((await pqrsOf(deps, r)).map((row) => [row.day, row.closed])) },
  spend: { unit: 'pesos', aggregation: 'sum', territorial: false, money: true, daily: async (deps, r) => toMap(await spendByDay(deps.db, r.from, r.to)) },
  whatsapp_replies: {
    unit: 'count',
    aggregation: 'sum',
    territorial: false,
    daily: async (deps, r) => toMap(await inboundMessagesByDay(deps.db, r.since, r.until, r.timeZone)),
  },
  email_clicks: { unit: 'count', aggregation: 'sum', territorial: false, daily: async (deps, r) => toMap(await emailClicksByDay(deps.db, r.since, r.until, r.timeZone)) },
  poll_average: {
    unit: 'percent',
    aggregation: 'end_of_bucket',
    territorial: true,
    // Polls carry a single territory, not a hierarchy: the filter is that territory's own polls.
    at: (deps, r, instants) => ownPollAverageAt(deps.db, instants, r.territoryIds?.[0]),
  },
};

/** Monday of the ISO week holding a local day. */
function mondayOf(localDate: string): string {
  const weekday = new Date(`${localDate}T12:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(localDate, -((weekday + 6) % 7));
}

/** Who may read which metric: money follows finance's rule, everything else the campaign roles. */
function assertMayRead(actor: Actor, metrics: readonly TrendMetric[]): void {
  const refused = metrics.filter((metric) => !(SOURCES[metric].money ? financePolicy.allows(actor, 'readSummary') : dashboardPolicy.allows(actor, 'readCampaignFigures')));
  if (refused.length > 0) throw new ForbiddenError(`Your role may not read these metrics: ${refused.join(', ')}.`);
}

export async function trends(deps: Deps, actor: Actor, input: TrendsInput, now = new Date()): Promise<z.input<typeof trendsView>> {
  assertMayRead(actor, input.metrics);
  const timeZone = deps.config.timeZone;
  const today = localClock(now, timeZone).date;
  const to = input.to ?? today;
  const defaultSpan = input.interval === 'week' ? 12 * 7 - 1 : 29;
  let from = input.from ?? addDays(to, -defaultSpan);
  if (from > to) throw invalidField('from', 'from must not be after to');
  // A week series starts on the Monday of the first week, so every bucket is a whole week.
  if (input.interval === 'week') from = mondayOf(from);
  const length = daysBetween(from, to) + 1;
  if (length > MAX_TREND_DAYS) throw invalidField('from', `the range may cover at most ${MAX_TREND_DAYS} days; this one covers ${length}`, 'range_too_long');

  const days = Array.from({ length }, (_, index) => addDays(from, index));
  const range: Range = {
    from,
    to,
    days,
    since: instantAt(from, 0, timeZone),
    until: instantAt(addDays(to, 1), 0, timeZone),
    timeZone,
    now,
    territoryIds: input.territoryId ? [input.territoryId] : undefined,
  };
  const buckets = input.interval === 'day' ? days : days.filter((localDay, index) => index === 0 || mondayOf(localDay) === localDay);
  const bucketOf = (localDay: string) => (input.interval === 'day' ? localDay : mondayOf(localDay));
  // The end of a bucket is the start of the next one, or now for the bucket still running.
  const bucketEnds = buckets.map((start, index) => {
    const next = index + 1 < buckets.length ? buckets[index + 1]! : addDays(to, 1);
    const end = instantAt(next, 0, timeZone);
    return end > now ? now : end;
  });

  const series = await Promise.all(
    input.metrics.map(async (metric): Promise<Series> => {
      const source = SOURCES[metric];
      let values: (number | null)[];
      if (source.daily) {
        const perDay = await source.daily(deps, range);
        const sums = new Map<string, number>(buckets.map((bucket) => [bucket, 0]));
        for (const localDay of days) sums.set(bucketOf(localDay), (sums.get(bucketOf(localDay)) ?? 0) + (perDay.get(localDay) ?? 0));
        values = buckets.map((bucket) => sums.get(bucket) ?? 0);
      } else {
        // Buckets that start in the future have no level yet.
        const known = bucketEnds.map((end, index) => (instantAt(buckets[index]!, 0, timeZone) > now ? null : end));
        const levels = await source.at!(
          deps,
          range,
          known.filter((end): end is Date => end !== null),
        );
        let next = 0;
        values = known.map((end) => (end === null ? null : (levels[next++] ?? null)));
      }
      const present = values.filter((value): value is number => value !== null);
      const total = source.aggregation === 'sum' ? present.reduce((sum, value) => sum + value, 0) : (present.at(-1) ?? null);
      return {
        metric,
        unit: source.unit,
        aggregation: source.aggregation,
        scope: source.territorial && input.territoryId ? 'territory' : 'campaign',
        values,
        total,
      };
    }),
  );
  return { interval: input.interval, from, to, timeZone, territoryId: input.territoryId ?? null, buckets, series };
}
