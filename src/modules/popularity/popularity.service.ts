import type { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { NotFoundError, ValidationError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { existingCompetitorIds } from '../social';
import { assertTerritoriesExist } from '../territories';
import { checkCompliance } from './popularity.compliance';
import {
  metricPage,
  pollPage,
  findPoll,
  insertPoll,
  saveScoreWeights,
  scoreWeights,
  upsertMetrics,
  type MetricRecord,
  type MetricValue,
  type PollRecord,
} from './popularity.repository';
import { metricItem, type CreatePollInput, type ListMetricsInput, type ListPollsInput, type metricView, type metricsAnswer, type pollView } from './popularity.schemas';
import { DEFAULT_SCORE_WEIGHTS, SCORE_COMPONENTS, type ScoreWeights } from './popularity.score';
import { mapPage } from '../../kernel/pagination';

export function presentPoll(poll: PollRecord): z.input<typeof pollView> {
  return {
    id: poll.id,
    pollster: poll.pollster,
    sponsor: poll.sponsor,
    registrationNumber: poll.registrationNumber,
    fieldworkStart: poll.fieldworkStart,
    fieldworkEnd: poll.fieldworkEnd,
    publishedAt: poll.publishedAt,
    scope: poll.scope,
    territoryId: poll.territoryId,
    universe: poll.universe,
    sampleSize: poll.sampleSize,
    method: poll.method,
    probabilistic: poll.probabilistic,
    marginOfError: poll.marginOfError,
    confidenceLevel: poll.confidenceLevel,
    question: poll.question,
    results: poll.results,
    sourceUrl: poll.sourceUrl,
    notes: poll.notes,
    compliance: { compliant: poll.compliant, problems: poll.problems },
    createdAt: poll.createdAt.toISOString(),
  };
}

function presentMetric(metric: MetricRecord): z.input<typeof metricView> {
  return {
    id: metric.id,
    date: metric.date,
    competitorId: metric.competitorId,
    metric: metric.metric,
    value: metric.value,
    source: metric.source,
    updatedAt: metric.updatedAt.toISOString(),
  };
}

/**
 * Records a poll with its technical sheet. A poll that breaks Ley 2494 is stored and flagged (staff
 * must know a rival's poll is challengeable), never refused; what cannot be a poll at all (results
 * over 100 %, fieldwork ending before it starts, unknown competitors) is a 400.
 */
export async function createPoll(deps: Pick<AppDeps, 'db'>, input: CreatePollInput, userId: string) {
  const competitorIds = input.results.flatMap((result) => (result.competitorId ? [result.competitorId] : []));
  const known = await existingCompetitorIds(deps.db, competitorIds);
  const unknown = input.results.findIndex((result) => result.competitorId && !known.has(result.competitorId));
  if (unknown >= 0) throw invalidField(`body.results.${unknown}.competitorId`, 'No competitor has this id (competitors are registered under /api/social-monitoring/competitors).');
  if (input.territoryId) await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const compliance = checkCompliance({
    pollster: input.pollster,
    sponsor: input.sponsor ?? null,
    fieldworkStart: input.fieldworkStart,
    fieldworkEnd: input.fieldworkEnd,
    publishedAt: input.publishedAt,
    scope: input.scope,
    universe: input.universe ?? null,
    sampleSize: input.sampleSize,
    method: input.method,
    probabilistic: input.probabilistic,
    marginOfError: input.marginOfError,
    confidenceLevel: input.confidenceLevel,
    question: input.question ?? null,
  });
  const poll: PollRecord = {
    id: newId(),
    pollster: input.pollster,
    sponsor: input.sponsor ?? null,
    registrationNumber: input.registrationNumber ?? null,
    fieldworkStart: input.fieldworkStart,
    fieldworkEnd: input.fieldworkEnd,
    publishedAt: input.publishedAt,
    scope: input.scope,
    territoryId: input.territoryId ?? null,
    universe: input.universe ?? null,
    sampleSize: input.sampleSize,
    method: input.method,
    probabilistic: input.probabilistic,
    marginOfError: input.marginOfError,
    confidenceLevel: input.confidenceLevel,
    question: input.question ?? null,
    results: input.results.map((result) => ({ competitorId: result.competitorId ?? null, option: result.option ?? null, percentage: result.percentage })),
    sourceUrl: input.sourceUrl ?? null,
    notes: input.notes ?? null,
    compliant: compliance.compliant,
    problems: compliance.problems,
    createdById: userId,
    createdAt: new Date(),
  };
  await insertPoll(deps.db, poll);
  return presentPoll(poll);
}

export async function getPoll(q: Queries, id: string) {
  const poll = await findPoll(q, id);
  if (!poll) throw new NotFoundError('No poll has this id.');
  return presentPoll(poll);
}

export async function listPolls(q: Queries, query: ListPollsInput) {
  const page = await pollPage(q, query, query);
  return mapPage(page, presentPoll);
}

const metricKey = (value: Pick<MetricValue, 'date' | 'competitorId' | 'metric' | 'source'>) => `${value.date}|${value.competitorId}|${value.metric}|${value.source}`;

/**
 * Records one metric or a batch (≤ 1,000). Each item is checked on its own: a bad item is reported
 * by index and nothing of it is written, the rest are. Two items with the same key in one batch:
 * the later one wins and the earlier is reported as replaced. A batch where nothing is valid is a 400.
 */
export async function recordMetrics(deps: Pick<AppDeps, 'db'>, body: unknown): Promise<z.input<typeof metricsAnswer>> {
  const batch = typeof body === 'object' && body !== null && 'metrics' in body;
  const items: unknown[] = batch ? (body as { metrics: unknown[] }).metrics : [body];
  const rejected: { index: number; reason: string }[] = [];
  const valid = new Map<string, { index: number; value: MetricValue }>();
  items.forEach((raw, index) => {
    const parsed = metricItem.safeParse(raw);
    if (!parsed.success) {
      rejected.push({ index, reason: parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || 'item'}: ${issue.message}`).join('; ') });
      return;
    }
    const value: MetricValue = { ...parsed.data };
    const key = metricKey(value);
    const earlier = valid.get(key);
    if (earlier) rejected.push({ index: earlier.index, reason: `replaced by item ${index}, which has the same date, competitor, metric and source` });
    valid.set(key, { index, value });
  });
  const known = await existingCompetitorIds(
    deps.db,
    [...valid.values()].map((item) => item.value.competitorId),
  );
  for (const [key, item] of valid) {
    if (!known.has(item.value.competitorId)) {
      rejected.push({ index: item.index, reason: 'competitorId: no competitor has this id' });
      valid.delete(key);
    }
  }
  rejected.sort((a, b) => a.index - b.index);
  if (!valid.size) {
    throw new ValidationError(
      rejected.map((item) => ({ path: batch ? `body.metrics.${item.index}` : 'body', message: item.reason })),
      batch ? 'No metric in the batch is valid.' : 'The metric is not valid.',
    );
  }
  const written = await upsertMetrics(
    deps.db,
    [...valid.values()].map((item) => item.value),
    new Date(),
  );
  return { accepted: written.inserted, updated: written.updated, rejected };
}

export async function listMetrics(q: Queries, query: ListMetricsInput) {
  if (query.from && query.to && query.from > query.to) throw invalidField('query.from', '`from` must not be after `to`.');
  const page = await metricPage(q, query, query);
  return mapPage(page, presentMetric);
}

/** The stored weights, any missing component at its default (a component added later starts at its default). */
export async function currentWeights(q: Queries): Promise<ScoreWeights> {
  const stored = await scoreWeights(q);
  return Object.fromEntries(
    SCORE_COMPONENTS.map((component) => [component, typeof stored[component] === 'number' ? stored[component] : DEFAULT_SCORE_WEIGHTS[component]]),
  ) as ScoreWeights;
}

export async function replaceWeights(q: Queries, weights: ScoreWeights): Promise<ScoreWeights> {
  await saveScoreWeights(q, weights, new Date());
  return currentWeights(q);
}
