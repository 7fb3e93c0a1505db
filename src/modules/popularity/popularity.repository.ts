import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { addDays } from '../../kernel/calendar';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { DailyRunSchema, MetricSchema, PollSchema, PopularitySettingsSchema, SwotItemSchema, type Poll } from './popularity.entities';
import type { TerritoryReferenceHolder } from '../../kernel/module';

type PopularityTables = InferKyselyDB<typeof PollSchema | typeof MetricSchema | typeof SwotItemSchema | typeof PopularitySettingsSchema | typeof DailyRunSchema>;
const db = tables<PopularityTables>();

const pollOf = (row: Selectable<PopularityTables['popularity_polls']>) => camelRow(row, ['margin_of_error', 'confidence_level']);
export type PollRecord = ReturnType<typeof pollOf>;

export async function insertPoll(q: Queries, poll: PollRecord): Promise<void> {
  await q.write(db.insertInto('popularity_polls').values({ ...snakeRow(poll), results: jsonText(poll.results), problems: jsonText(poll.problems) }));
}

export async function findPoll(q: Queries, id: string): Promise<PollRecord | undefined> {
  const row = await q.first(db.selectFrom('popularity_polls').selectAll().where('id', '=', id));
  return row && pollOf(row);
}

export interface PollFilter {
  pollster?: string | undefined;
  scope?: Poll['scope'] | undefined;
  territoryId?: string | undefined;
  compliant?: boolean | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A page of polls, the newest publication first. */
export async function pollPage(q: Queries, filter: PollFilter, page: PageRequest): Promise<Page<PollRecord>> {
  let query = db.selectFrom('popularity_polls').selectAll();
  if (filter.pollster) query = query.where('pollster', '=', filter.pollster);
  if (filter.scope) query = query.where('scope', '=', filter.scope);
  if (filter.territoryId) query = query.where('territory_id', '=', filter.territoryId);
  if (filter.compliant !== undefined) query = query.where('compliant', '=', filter.compliant);
  if (filter.from) query = query.where('published_at', '>=', filter.from);
  if (filter.to) query = query.where('published_at', '<=', filter.to);
  const found = await queryPage(q, query, ['published_at', 'id'], 'desc', page);
  return mapPage(found, pollOf);
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
    .selectAll()
    .where('published_at', '>=', since)
    .where('published_at', '<=', until)
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc');
  if (filter.scope) query = query.where('scope', '=', filter.scope);
  if (filter.territoryId) query = query.where('territory_id', '=', filter.territoryId);
  return (await q.rows(query)).map(pollOf);
}

// ───────────── metrics

const metricOf = <Row extends Pick<Selectable<PopularityTables['popularity_metrics']>, 'value'>>(row: Row) => camelRow(row, ['value']);
export type MetricRecord = ReturnType<typeof metricOf<Selectable<PopularityTables['popularity_metrics']>>>;

/** A metric's value on a day: what a writer gives and what the figures read. */
export type MetricValue = Pick<MetricRecord, 'date' | 'competitorId' | 'metric' | 'value' | 'source'>;

const metricValueColumns = ['date', 'competitor_id', 'metric', 'value', 'source'] as const;

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

export interface MetricFilter {
  competitorId?: string | undefined;
  metric?: string | undefined;
  source?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A page of metric values, the newest day first. */
export async function metricPage(q: Queries, filter: MetricFilter, page: PageRequest): Promise<Page<MetricRecord>> {
  let query = db.selectFrom('popularity_metrics').selectAll();
  if (filter.competitorId) query = query.where('competitor_id', '=', filter.competitorId);
  if (filter.metric) query = query.where('metric', '=', filter.metric);
  if (filter.source) query = query.where('source', '=', filter.source);
  if (filter.from) query = query.where('date', '>=', filter.from);
  if (filter.to) query = query.where('date', '<=', filter.to);
  const found = await queryPage(q, query, ['date', 'id'], 'desc', page);
  return mapPage(found, metricOf);
}

/** Each competitor's newest value of each metric (any source; the newest write wins a tie of days). */
export async function latestMetrics(q: Queries): Promise<MetricValue[]> {
  const query = db
    .selectFrom('popularity_metrics')
    .distinctOn(['competitor_id', 'metric'])
    .select(metricValueColumns)
    .orderBy('competitor_id')
    .orderBy('metric')
    .orderBy('date', 'desc')
    .orderBy('updated_at', 'desc');
  return (await q.rows(query)).map(metricOf);
}

/** A metric's value per competitor on the newest day on or before `day` within `lookbackDays`. */
export async function metricAsOf(q: Queries, metric: string, day: string, lookbackDays: number): Promise<Map<string, MetricValue>> {
  const query = db
    .selectFrom('popularity_metrics')
    .distinctOn('competitor_id')
    .select(metricValueColumns)
    .where('metric', '=', metric)
    .where('date', '<=', day)
    .where('date', '>=', addDays(day, -lookbackDays))
    .orderBy('competitor_id')
    .orderBy('date', 'desc')
    .orderBy('updated_at', 'desc');
  const rows = (await q.rows(query)).map(metricOf);
  return new Map(rows.map((row) => [row.competitorId, row]));
}

/** Takes a day for the automatic metrics: true for the one process that gets it. */
export async function claimDailyRun(q: Queries, day: string, at: Date): Promise<boolean> {
  const result = await q.write(
    db
      .insertInto('popularity_daily_runs')
      .values({ date: day, ran_at: at })
      .onConflict((conflict) => conflict.column('date').doNothing()),
  );
  return result.count === 1;
}

/** Gives a day back when its metrics could not be written, so another run can take it. */
export async function releaseDailyRun(q: Queries, day: string): Promise<void> {
  await q.write(db.deleteFrom('popularity_daily_runs').where('date', '=', day));
}

// ───────────── settings

export async function scoreWeights(q: Queries): Promise<Record<string, number>> {
  const row = await q.first(db.selectFrom('popularity_settings').select('score_weights').where('id', '=', 1));
  return row?.score_weights ?? {};
}

export async function saveScoreWeights(q: Queries, weights: Record<string, number>, at: Date): Promise<void> {
  await q.write(
    db
      .insertInto('popularity_settings')
      .values({ id: 1, score_weights: weights, updated_at: at })
      .onConflict((conflict) => conflict.column('id').doUpdateSet((row) => ({ score_weights: row.ref('excluded.score_weights'), updated_at: row.ref('excluded.updated_at') }))),
  );
}

// ───────────── SWOT items

export type SwotRecord = CamelCased<Selectable<PopularityTables['popularity_swot_items']>>;

export async function insertSwotItem(q: Queries, item: SwotRecord): Promise<void> {
  await q.write(db.insertInto('popularity_swot_items').values({ ...snakeRow(item), evidence: jsonText(item.evidence) }));
}

export async function findSwotItem(q: Queries, id: string): Promise<SwotRecord | undefined> {
  const row = await q.first(db.selectFrom('popularity_swot_items').selectAll().where('id', '=', id));
  return row && camelRow(row);
}

export async function updateSwotItem(q: Queries, item: SwotRecord): Promise<void> {
  await q.write(
    db
      .updateTable('popularity_swot_items')
      .set({ quadrant: item.quadrant, text: item.text, evidence: jsonText(item.evidence), active: item.active, updated_at: new Date() })
      .where('id', '=', item.id),
  );
}

export async function deleteSwotItem(q: Queries, id: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('popularity_swot_items').where('id', '=', id))).count > 0;
}

/** Every SWOT item, the active ones first; and the suggestion keys already accepted (active or not). */
export async function allSwotItems(q: Queries): Promise<SwotRecord[]> {
  return (await q.rows(db.selectFrom('popularity_swot_items').selectAll().orderBy('active', 'desc').orderBy('created_at', 'desc').orderBy('id'))).map((row) => camelRow(row));
}

/** Polls taken in a territory. */
export const popularityTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    db
      .selectFrom('popularity_polls')
      .select((row) => row.cast<number>(row.fn.countAll(), 'integer').as('polls'))
      .where('territory_id', '=', territoryId),
  );
  return [{ count: row?.polls ?? 0, one: 'encuesta', many: 'encuestas' }];
};
