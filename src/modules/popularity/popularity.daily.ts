import { addDays, instantAt, localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { leadsCapturedBetween } from '../qr';
import { allCompetitors, socialFiguresBetween } from '../social';
import { activeVolunteers } from '../volunteers';
import { inboundMessagesBetween } from '../whatsapp';
import { claimDailyRun, releaseDailyRun, upsertMetrics, type MetricValue } from './popularity.repository';
import { AUTOMATIC_SOURCE } from './popularity.schemas';

/** How often each worker checks whether yesterday's figures were recorded. */
const CHECK_INTERVAL_MS = 5 * 60_000;

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The local day before `now`'s, as 'YYYY-MM-DD'. */
export function previousDay(now: Date, timeZone: string): string {
  const today = localClock(now, timeZone).date;
  return addDays(today, -1);
}

/**
 * The figures of the modules we own for one local day, as metrics under source `comando`: per
 * competitor followers at the end of the day, engagement rate, net sentiment and share of voice of
 * the day's posts; for our own candidate, leads captured, WhatsApp messages received and the volunteers
 * active at the end of the day.
 */
export async function dailyFigures(deps: Pick<AppDeps, 'db' | 'config'>, day: string): Promise<MetricValue[]> {
  const since = instantAt(day, 0, deps.config.timeZone);
  const until = instantAt(addDays(day, 1), 0, deps.config.timeZone);
  const [competitors, social, leads, replies, volunteers] = await Promise.all([
    allCompetitors(deps.db, { activeOnly: true }),
    socialFiguresBetween(deps.db, since, until),
    leadsCapturedBetween(deps.db, since, until),
    inboundMessagesBetween(deps.db, since, until),
    // The last instant of the day: active volunteers as the day ended.
    activeVolunteers(deps, new Date(until.getTime() - 1)),
  ]);
  const totalEngagement = social.reduce((sum, row) => sum + row.engagement, 0);
  const values: MetricValue[] = [];
  const add = (competitorId: string, metric: string, value: number | null) => {
    if (value !== null && Number.isFinite(value)) values.push({ date: day, competitorId, metric, value: round(value), source: AUTOMATIC_SOURCE });
  };
  for (const figures of social) {
    add(figures.competitorId, 'followers', figures.followers);
    add(figures.competitorId, 'engagement_rate', figures.meanRate);
    add(figures.competitorId, 'sentiment', figures.posts > 0 ? ((figures.positive - figures.negative) / figures.posts) * 100 : null);
    add(figures.competitorId, 'share_of_voice', totalEngagement > 0 ? (figures.engagement / totalEngagement) * 100 : null);
  }
  const ours = competitors.find((competitor) => competitor.isOwn);
  if (ours) {
    add(ours.id, 'leads', leads);
    add(ours.id, 'whatsapp_replies', replies);
    add(ours.id, 'volunteers', volunteers);
  }
  return values;
}

/**
 * Records a day's automatic metrics once, whichever process gets there first: the day is claimed in
 * the database before anything is computed, and given back if the write fails so a later check
 * retries. True when this call recorded it.
 */
export async function recordDailyMetrics(deps: Pick<AppDeps, 'db' | 'config'>, day: string, now = new Date()): Promise<boolean> {
  if (!(await claimDailyRun(deps.db, day, now))) return false;
  try {
    await upsertMetrics(deps.db, await dailyFigures(deps, day), now);
    return true;
  } catch (error) {
    await releaseDailyRun(deps.db, day);
    throw error;
  }
}

export function startDailyMetrics(deps: AppDeps): BackgroundTask {
  const check = async () => {
    await recordDailyMetrics(deps, previousDay(new Date(), deps.config.timeZone));
  };
  void check().catch((error: unknown) => deps.logger.warn({ task: 'popularity.daily', errorName: (error as Error).name }, 'daily metrics failed'));
  return repeatEvery(deps.logger, 'popularity.daily', CHECK_INTERVAL_MS, check);
}
