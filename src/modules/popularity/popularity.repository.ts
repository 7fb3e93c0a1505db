import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { sql, tables, type Queries } from '../../kernel/sql';
import {
  DailyRunSchema,
  MetricSchema,
  PollSchema,
  PopularitySettingsSchema,
  SwotItemSchema,
  type Metric,
  type Poll,
  type StoredComplianceProblem,
  type StoredPollResult,
  type SwotEvidence,
  type SwotQuadrant,
} from './popularity.entities';
import type { TerritoryReferenceHolder } from '../../kernel/module';

type PopularityTables = InferKyselyDB<typeof PollSchema | typeof MetricSchema | typeof SwotItemSchema | typeof PopularitySettingsSchema | typeof DailyRunSchema>;
const db = tables<PopularityTables>();

export interface PollRecord {
  id: string;
  pollster: string;
  sponsor: string | null;
  registrationNumber: string | null;
  fieldworkStart: string;
  fieldworkEnd: string;
  publishedAt: string;
  scope: Poll['scope'];
  territoryId: string | null;
  universe: string | null;
  sampleSize: number;
  method: Poll['method'];
  probabilistic: boolean;
  marginOfError: number;
  confidenceLevel: number;
  question: string | null;
  results: StoredPollResult[];
  sourceUrl: string | null;
  notes: string | null;
  compliant: boolean;
  problems: StoredComplianceProblem[];
  createdBy: string | null;
  createdAt: Date;
}

const pollColumns = [
  'id',
  'pollster',
  'sponsor',
  'registration_number',
  'fieldwork_start',
  'fieldwork_end',
  'published_at',
  'scope',
  'territory_id',
  'universe',
  'sample_size',
  'method',
  'probabilistic',
  'margin_of_error',
  'confidence_level',
  'question',
  'results',
  'source_url',
  'notes',
  'compliant',
  'problems',
  'created_by_id',
  'created_at',
] as const;

function pollOf(row: Pick<Selectable<PopularityTables['popularity_polls']>, (typeof pollColumns)[number]>): PollRecord {
  return {
    id: row.id,
    pollster: row.pollster,
    sponsor: row.sponsor ?? null,
    registrationNumber: row.registration_number ?? null,
    fieldworkStart: row.fieldwork_start,
    fieldworkEnd: row.fieldwork_end,
    publishedAt: row.published_at,
    scope: row.scope,
    territoryId: row.territory_id ?? null,
    universe: row.universe ?? null,
    sampleSize: row.sample_size,
    method: row.method,
    probabilistic: row.probabilistic,
    marginOfError: Number(row.margin_of_error),
    confidenceLevel: Number(row.confidence_level),
    question: row.question ?? null,
    results: row.results,
    sourceUrl: row.source_url ?? null,
    notes: row.notes ?? null,
    compliant: row.compliant,
    problems: row.problems,
    createdBy: row.created_by_id ?? null,
    createdAt: row.created_at,
  };
}

function pollOfEntity(poll: Poll): PollRecord {
  return {
    id: poll.id,
    pollster: poll.pollster,
    sponsor: poll.sponsor ?? null,
    registrationNumber: poll.registrationNumber ?? null,
    fieldworkStart: poll.fieldworkStart,
    fieldworkEnd: poll.fieldworkEnd,
    publishedAt: poll.publishedAt,
    scope: poll.scope,
    territoryId: poll.territory ? poll.territory.id : null,
    universe: poll.universe ?? null,
    sampleSize: poll.sampleSize,
    method: poll.method,
    probabilistic: poll.probabilistic,
    marginOfError: Number(poll.marginOfError),
    confidenceLevel: Number(poll.confidenceLevel),
    question: poll.question ?? null,
    results: poll.results,
    sourceUrl: poll.sourceUrl ?? null,
    notes: poll.notes ?? null,
    compliant: poll.compliant,
    problems: poll.problems,
    createdBy: poll.createdBy ? poll.createdBy.id : null,
    createdAt: poll.createdAt,
  };
}

export async function insertPoll(q: Queries, poll: PollRecord): Promise<void> {
  await q.write(
    db.insertInto('popularity_polls').values({
      id: poll.id,
      pollster: poll.pollster,
      sponsor: poll.sponsor,
      registration_number: poll.registrationNumber,
      fieldwork_start: poll.fieldworkStart,
      fieldwork_end: poll.fieldworkEnd,
      published_at: poll.publishedAt,
      scope: poll.scope,
      territory_id: poll.territoryId,
      universe: poll.universe,
      sample_size: poll.sampleSize,
      method: poll.method,
      probabilistic: poll.probabilistic,
      margin_of_error: poll.marginOfError,
      confidence_level: poll.confidenceLevel,
      question: poll.question,
      results: JSON.stringify(poll.results) as unknown as StoredPollResult[],
      source_url: poll.sourceUrl,
      notes: poll.notes,
      compliant: poll.compliant,
      problems: JSON.stringify(poll.problems) as unknown as StoredComplianceProblem[],
      created_by_id: poll.createdBy,
      created_at: poll.createdAt,
    }),
  );
}

export async function findPoll(q: Queries, id: string): Promise<PollRecord | undefined> {
  const row = await q.first(db.selectFrom('popularity_polls').select(pollColumns).where('id', '=', id));
  return row ? pollOf(row) : undefined;
}

export interface PollFilter {
  pollster?: string | undefined;
  scope?: Poll['scope'] | undefined;
  territoryId?: string | undefined;
  compliant?: boolean | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export function pollPage(em: EntityManager, filter: PollFilter, page: PageRequest): Promise<Page<PollRecord>> {
  const where: Record<string, unknown> = {};
  if (filter.pollster) where.pollster = filter.pollster;
  if (filter.scope) where.scope = filter.scope;
  if (filter.territoryId) where.territory = filter.territoryId;
  if (filter.compliant !== undefined) where.compliant = filter.compliant;
  if (filter.from || filter.to) where.publishedAt = { ...(filter.from && { $gte: filter.from }), ...(filter.to && { $lte: filter.to }) };
  return findPage(em, PollSchema, where, page, { publishedAt: 'desc', id: 'desc' }, pollOfEntity);
}

/** Polls published on or before `until` (and after `since`), newest first: the poll average's input. */
export async function pollsBetween(
  q: Queries,
  since: string,
  until: string,
  filter: { scope?: Poll['scope'] | undefined; territoryId?: string | undefined } = {},
): Promise<PollRecord[]> {
  let query = db
    .selectFrom('popularity_polls')
    .select(pollColumns)
    .where('published_at', '>=', since)
    .where('published_at', '<=', until)
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc');
  if (filter.scope) query = query.where('scope', '=', filter.scope);
  if (filter.territoryId) query = query.where('territory_id', '=', filter.territoryId);
  return (await q.rows(query)).map(pollOf);
}

// ───────────── metrics

export interface MetricRecord {
  id: string;
  date: string;
  competitorId: string;
  metric: string;
  value: number;
  source: string;
  updatedAt: Date;
}

export interface MetricValue {
  date: string;
  competitorId: string;
  metric: string;
  value: number;
  source: string;
}

/** Writes each value, replacing one with the same key; how many were new and how many replaced. */
export async function upsertMetrics(q: Queries, values: readonly MetricValue[], at: Date): Promise<{ inserted: number; updated: number }> {
  if (!values.length) return { inserted: 0, updated: 0 };
  const rows = await q.rows<{ inserted: boolean }>(sql`
    insert into popularity_metrics as m (id, date, competitor_id, metric, value, source, created_at, updated_at)
    select x.id, x.date, x.competitor_id, x.metric, x.value, x.source, ${at}::timestamptz, ${at}::timestamptz
    from unnest(${values.map(() => newId())}::uuid[], ${values.map((value) => value.date)}::text[], ${values.map((value) => value.competitorId)}::uuid[],
      ${values.map((value) => value.metric)}::text[], ${values.map((value) => value.value)}::float8[], ${values.map((value) => value.source)}::text[])
      as x(id, date, competitor_id, metric, value, source)
    on conflict (date, competitor_id, metric, source) do update set value = excluded.value, updated_at = excluded.updated_at
    returning (xmax = 0) as inserted`);
  const inserted = rows.filter((row) => row.inserted).length;
  return { inserted, updated: rows.length - inserted };
}

function metricOfEntity(metric: Metric): MetricRecord {
  return {
    id: metric.id,
    date: metric.date,
    competitorId: metric.competitor.id,
    metric: metric.metric,
    value: Number(metric.value),
    source: metric.source,
    updatedAt: metric.updatedAt,
  };
}

export interface MetricFilter {
  competitorId?: string | undefined;
  metric?: string | undefined;
  source?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export function metricPage(em: EntityManager, filter: MetricFilter, page: PageRequest): Promise<Page<MetricRecord>> {
  const where: Record<string, unknown> = {};
  if (filter.competitorId) where.competitor = filter.competitorId;
  if (filter.metric) where.metric = filter.metric;
  if (filter.source) where.source = filter.source;
  if (filter.from || filter.to) where.date = { ...(filter.from && { $gte: filter.from }), ...(filter.to && { $lte: filter.to }) };
  return findPage(em, MetricSchema, where, page, { date: 'desc', id: 'desc' }, metricOfEntity);
}

/** Each competitor's newest value of each metric (any source; the newest write wins a tie of days). */
export async function latestMetrics(q: Queries): Promise<MetricValue[]> {
  return q.rows<MetricValue>(sql`
    select distinct on (competitor_id, metric) date, competitor_id as "competitorId", metric, value, source
    from popularity_metrics order by competitor_id, metric, date desc, updated_at desc`);
}

/** A metric's value per competitor on the newest day on or before `day` within `lookbackDays`. */
export async function metricAsOf(q: Queries, metric: string, day: string, lookbackDays: number): Promise<Map<string, MetricValue>> {
  const rows = await q.rows<MetricValue>(sql`
    select distinct on (competitor_id) date, competitor_id as "competitorId", metric, value, source
    from popularity_metrics
    where metric = ${metric} and date <= ${day} and date >= to_char(${day}::date - ${lookbackDays}::int, 'YYYY-MM-DD')
    order by competitor_id, date desc, updated_at desc`);
  return new Map(rows.map((row) => [row.competitorId, row]));
}

/** Takes a day for the automatic metrics: true for the one process that gets it. */
export async function claimDailyRun(q: Queries, day: string, at: Date): Promise<boolean> {
  const result = await q.write(sql`insert into popularity_daily_runs (date, ran_at) values (${day}, ${at}::timestamptz) on conflict (date) do nothing`);
  return result.count === 1;
}

/** Gives a day back when its metrics could not be written, so another run can take it. */
export async function releaseDailyRun(q: Queries, day: string): Promise<void> {
  await q.write(sql`delete from popularity_daily_runs where date = ${day}`);
}

// ───────────── settings

export async function scoreWeights(q: Queries): Promise<Record<string, number>> {
  const row = await q.first(db.selectFrom('popularity_settings').select('score_weights').where('id', '=', 1));
  return row?.score_weights ?? {};
}

export async function saveScoreWeights(q: Queries, weights: Record<string, number>): Promise<void> {
  await q.write(sql`insert into popularity_settings (id, score_weights, updated_at) values (1, ${JSON.stringify(weights)}::jsonb, now())
    on conflict (id) do update set score_weights = excluded.score_weights, updated_at = excluded.updated_at`);
}

// ───────────── SWOT items

export interface SwotRecord {
  id: string;
  quadrant: SwotQuadrant;
  text: string;
  evidence: SwotEvidence[];
  suggestionKey: string | null;
  authorId: string | null;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const swotColumns = ['id', 'quadrant', 'text', 'evidence', 'suggestion_key', 'author_id', 'active', 'created_at', 'updated_at'] as const;

function swotOf(row: Pick<Selectable<PopularityTables['popularity_swot_items']>, (typeof swotColumns)[number]>): SwotRecord {
  return {
    id: row.id,
    quadrant: row.quadrant,
    text: row.text,
    evidence: row.evidence,
    suggestionKey: row.suggestion_key ?? null,
    authorId: row.author_id ?? null,
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertSwotItem(q: Queries, item: SwotRecord): Promise<void> {
  await q.write(
    db.insertInto('popularity_swot_items').values({
      id: item.id,
      quadrant: item.quadrant,
      text: item.text,
      evidence: JSON.stringify(item.evidence) as unknown as SwotEvidence[],
      suggestion_key: item.suggestionKey,
      author_id: item.authorId,
      active: item.active,
      created_at: item.createdAt,
      updated_at: item.updatedAt,
    }),
  );
}

export async function findSwotItem(q: Queries, id: string): Promise<SwotRecord | undefined> {
  const row = await q.first(db.selectFrom('popularity_swot_items').select(swotColumns).where('id', '=', id));
  return row ? swotOf(row) : undefined;
}

export async function updateSwotItem(q: Queries, item: SwotRecord): Promise<void> {
  await q.write(
    db
      .updateTable('popularity_swot_items')
      .set({ quadrant: item.quadrant, text: item.text, evidence: JSON.stringify(item.evidence) as unknown as SwotEvidence[], active: item.active, updated_at: new Date() })
      .where('id', '=', item.id),
  );
}

export async function deleteSwotItem(q: Queries, id: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('popularity_swot_items').where('id', '=', id))).count > 0;
}

/** Every SWOT item, the active ones first; and the suggestion keys already accepted (active or not). */
export async function allSwotItems(q: Queries): Promise<SwotRecord[]> {
  return (await q.rows(db.selectFrom('popularity_swot_items').select(swotColumns).orderBy('active', 'desc').orderBy('created_at', 'desc').orderBy('id'))).map(swotOf);
}

/** Polls taken in a territory. */
export const popularityTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(sql<{ polls: number }>`select count(*)::int as polls from popularity_polls where territory_id = ${territoryId}`);
  return [{ count: row?.polls ?? 0, one: 'encuesta', many: 'encuestas' }];
};
