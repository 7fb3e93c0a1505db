import type { z } from 'zod';
import { localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { allCompetitors, socialFiguresBetween, type CompetitorRecord } from '../social';
import { averageTrend, DEFAULT_AVERAGE_OPTIONS, leadOver, pollAverage, type AverageOptions, type Lead, type PollInput } from './popularity.average';
import type { Poll } from './popularity.entities';
import { latestMetrics, metricAsOf, pollsBetween, type PollRecord } from './popularity.repository';
import type { dashboardView } from './popularity.schemas';
import { compositeScores, type ScoreInput } from './popularity.score';
import { currentWeights, presentPoll } from './popularity.service';

const DAY_MS = 86_400_000;
/** Days of poll-average history the dashboard draws. */
const TREND_DAYS = 30;
/** Momentum: how far back the poll average is compared. */
export const MOMENTUM_DAYS = 14;
/** Favourability older than this no longer describes the race. */
const FAVOURABILITY_LOOKBACK_DAYS = 30;
/** Social engagement share and sentiment are taken over this window. */
const SOCIAL_WINDOW_DAYS = 7;

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The day a poll describes: its fieldwork's midpoint (noon UTC, so no time zone moves it a day). */
export function fieldworkMidpoint(poll: Pick<PollRecord, 'fieldworkStart' | 'fieldworkEnd'>): Date {
  const start = Date.parse(`${poll.fieldworkStart}T12:00:00Z`);
  const end = Date.parse(`${poll.fieldworkEnd}T12:00:00Z`);
  return new Date(Math.round((start + end) / 2 / DAY_MS) * DAY_MS + DAY_MS / 2);
}

export function pollInputs(polls: readonly PollRecord[]): PollInput[] {
  return polls.map((poll) => ({
    id: poll.id,
    pollster: poll.pollster,
    date: fieldworkMidpoint(poll),
    sampleSize: poll.sampleSize,
    compliant: poll.compliant,
    results: new Map(poll.results.flatMap((result) => (result.competitorId ? [[result.competitorId, result.percentage] as const] : []))),
  }));
}

export interface RaceFilter {
  halfLifeDays?: number | undefined;
  scope?: Poll['scope'] | undefined;
  territoryId?: string | undefined;
}

/** Everything the dashboard and the SWOT suggestions read about the race, computed once. */
export interface Race {
  now: Date;
  today: string;
  competitors: CompetitorRecord[];
  polls: PollRecord[];
  options: AverageOptions;
  averages: ReturnType<typeof pollAverage>;
  before: ReturnType<typeof pollAverage>;
}

export async function readRace(deps: Pick<AppDeps, 'db' | 'config'>, filter: RaceFilter, now = new Date()): Promise<Race> {
  const options: AverageOptions = { ...DEFAULT_AVERAGE_OPTIONS, asOf: now, halfLifeDays: filter.halfLifeDays ?? DEFAULT_AVERAGE_OPTIONS.halfLifeDays };
  const today = localClock(now, deps.config.timeZone).date;
  // Polls are published after their fieldwork, so the window reaches a little further back than the average's.
  const since = new Date(now.getTime() - (options.windowDays + TREND_DAYS + 30) * DAY_MS).toISOString().slice(0, 10);
  const [competitors, polls] = await Promise.all([allCompetitors(deps.db, { activeOnly: true }), pollsBetween(deps.db, since, today, filter)]);
  const inputs = pollInputs(polls);
  return {
    now,
    today,
    competitors,
    polls,
    options,
    averages: pollAverage(inputs, options),
    before: pollAverage(inputs, { ...options, asOf: new Date(now.getTime() - MOMENTUM_DAYS * DAY_MS) }),
  };
}

export function momentumOf(race: Race, competitorId: string): number | null {
  const now = race.averages.averages.find((row) => row.competitorId === competitorId);
  const before = race.before.averages.find((row) => row.competitorId === competitorId);
  return now && before ? round(now.average - before.average) : null;
}

/** The lead from our side: negative when the rival is ahead (leadOver answers from the leader's side). */
function ourLead(lead: Lead, ourId: string) {
  const ahead = lead.leaderId === ourId;
  const rivalId = ahead ? lead.rivalId : lead.leaderId;
  return ahead
    ? { ourId, rivalId, lead: lead.lead, low: lead.low, high: lead.high, polls: lead.polls }
    : { ourId, rivalId, lead: -lead.lead, low: -lead.high, high: -lead.low, polls: lead.polls };
}

export async function popularityDashboard(deps: Pick<AppDeps, 'db' | 'config'>, filter: RaceFilter, now = new Date()): Promise<z.input<typeof dashboardView>> {
  const race = await readRace(deps, filter, now);
  const byId = new Map(race.competitors.map((competitor) => [competitor.id, competitor]));
  const inputs = pollInputs(race.polls);
  const ours = race.competitors.find((competitor) => competitor.isOwn);
  const firstRival = race.averages.averages.find((row) => row.competitorId !== ours?.id && byId.has(row.competitorId));
  const lead = ours && firstRival ? leadOver(inputs, ours.id, firstRival.competitorId, race.options) : null;
  const [weights, favourability, unfavourability, social, metrics] = await Promise.all([
    currentWeights(deps.db),
    metricAsOf(deps.db, 'favourability', race.today, FAVOURABILITY_LOOKBACK_DAYS),
    metricAsOf(deps.db, 'unfavourability', race.today, FAVOURABILITY_LOOKBACK_DAYS),
    socialFiguresBetween(deps.db, new Date(now.getTime() - SOCIAL_WINDOW_DAYS * DAY_MS), now),
    latestMetrics(deps.db),
  ]);
  const socialOf = new Map(social.map((row) => [row.competitorId, row]));
  const totalEngagement = social.reduce((sum, row) => sum + row.engagement, 0);
  const scoreInputs: ScoreInput[] = race.competitors.map((competitor) => {
    const average = race.averages.averages.find((row) => row.competitorId === competitor.id);
    const favourable = favourability.get(competitor.id);
    const unfavourable = unfavourability.get(competitor.id);
    const figures = socialOf.get(competitor.id);
    return {
      competitorId: competitor.id,
      pollAverage: average?.average ?? null,
      favourabilityNet: favourable && unfavourable ? favourable.value - unfavourable.value : null,
      engagementShare: figures && totalEngagement > 0 ? (figures.engagement / totalEngagement) * 100 : null,
      sentiment: figures && figures.posts > 0 ? ((figures.positive - figures.negative) / figures.posts) * 100 : null,
      momentum: momentumOf(race, competitor.id),
    };
  });
  return {
    asOf: now.toISOString(),
    pollAverage: {
      confidence: race.averages.confidence,
      halfLifeDays: race.options.halfLifeDays,
      polls: race.averages.weights.length,
      averages: race.averages.averages
        .filter((row) => byId.has(row.competitorId))
        .map((row) => ({
          competitorId: row.competitorId,
          name: byId.get(row.competitorId)!.name,
          isOwn: byId.get(row.competitorId)!.isOwn,
          average: row.average,
          low: row.low,
          high: row.high,
          standardError: row.standardError,
          effectivePolls: row.effectivePolls,
          change14d: momentumOf(race, row.competitorId),
        })),
      houseEffects: race.averages.houseEffects.filter((effect) => byId.has(effect.competitorId)),
      trend: averageTrend(inputs, race.options, TREND_DAYS).map((point) => ({ date: point.date, averages: point.averages.filter((row) => byId.has(row.competitorId)) })),
    },
    lead: lead && ours && firstRival ? ourLead(lead, ours.id) : null,
    latestPolls: race.polls.slice(0, 5).map(presentPoll),
    scores: compositeScores(scoreInputs, weights)
      .filter((row) => byId.has(row.competitorId))
      .map((row) => ({ ...row, name: byId.get(row.competitorId)!.name, isOwn: byId.get(row.competitorId)!.isOwn })),
    weights,
    latestMetrics: metrics.filter((row) => byId.has(row.competitorId)),
  };
}
