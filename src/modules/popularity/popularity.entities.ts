import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';
import { UserSchema } from '../auth';
import { CompetitorSchema } from '../social';
import { TerritorySchema } from '../territories';
import { POLL_METHODS, POLL_OPTIONS, POLL_SCOPES, SWOT_QUADRANTS, type PollOption, type SwotQuadrant } from './popularity.constants';

export { POLL_METHODS, POLL_OPTIONS, POLL_SCOPES, SWOT_QUADRANTS, type PollOption, type SwotQuadrant };

/** One answer of a poll: a competitor's share, or blank vote / undecided / none. */
export interface StoredPollResult {
  competitorId: string | null;
  option: PollOption | null;
  percentage: number;
}

export interface StoredComplianceProblem {
  code: string;
  message: string;
}

/** A published poll with its technical sheet (ficha técnica) and whether it meets Ley 2494 de 2025. */
export const PollSchema = defineEntity({
  name: 'PopularityPoll',
  tableName: 'popularity_polls',
  indexes: [{ properties: ['publishedAt', 'id'] }, { properties: ['pollster'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    pollster: p.string().length(160),
    sponsor: p.string().length(160).nullable(),
    registrationNumber: p.string().length(60).nullable(),
    fieldworkStart: p.string().length(10),
    fieldworkEnd: p.string().length(10),
    publishedAt: p.string().length(10),
    scope: p.enum([...POLL_SCOPES]),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('restrict'),
    universe: p.text().nullable(),
    sampleSize: p.integer(),
    method: p.enum([...POLL_METHODS]),
    probabilistic: p.boolean(),
    marginOfError: p.double(),
    confidenceLevel: p.double(),
    question: p.text().nullable(),
    results: p.json<StoredPollResult[]>(),
    sourceUrl: p.string().length(2048).nullable(),
    notes: p.text().nullable(),
    compliant: p.boolean(),
    problems: p.json<StoredComplianceProblem[]>(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
  }),
});
export type Poll = InferEntity<typeof PollSchema>;

/** A daily number per competitor from any source; one value per (day, competitor, metric, source). */
export const MetricSchema = defineEntity({
  name: 'PopularityMetric',
  tableName: 'popularity_metrics',
  uniques: [{ properties: ['date', 'competitor', 'metric', 'source'], name: 'popularity_metrics_key_unique' }],
  indexes: [{ properties: ['competitor', 'metric', 'date'] }, { properties: ['date', 'id'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    date: p.string().length(10),
    competitor: () => p.manyToOne(CompetitorSchema).deleteRule('cascade'),
    metric: p.string().length(60),
    value: p.double(),
    source: p.string().length(60),
    ...timestamps,
  }),
});
export type Metric = InferEntity<typeof MetricSchema>;

export interface SwotEvidence {
  type: 'poll' | 'metric' | 'alert' | 'post' | 'link';
  id: string | null;
  label: string;
}

/** A SWOT item written by staff, or a suggestion they accepted (`suggestionKey`). */
export const SwotItemSchema = defineEntity({
  name: 'PopularitySwotItem',
  tableName: 'popularity_swot_items',
  indexes: [{ properties: ['quadrant', 'createdAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    quadrant: p.enum([...SWOT_QUADRANTS]),
    text: p.string().length(500),
    evidence: p.json<SwotEvidence[]>(),
    suggestionKey: p.string().length(200).nullable().unique(),
    author: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    active: p.boolean().default(true),
    ...timestamps,
  }),
});
export type SwotItem = InferEntity<typeof SwotItemSchema>;

/** The module's settings, one row: the composite score's weights. */
export const PopularitySettingsSchema = defineEntity({
  name: 'PopularitySettings',
  tableName: 'popularity_settings',
  properties: (p) => ({
    id: p.smallint().primary().autoincrement(false),
    scoreWeights: p.json<Record<string, number>>(),
    updatedAt: p.datetime().onCreate(() => new Date()),
  }),
});

/** Days whose automatic metrics were recorded: the first process to insert a day records it. */
export const DailyRunSchema = defineEntity({
  name: 'PopularityDailyRun',
  tableName: 'popularity_daily_runs',
  properties: (p) => ({
    date: p.string().length(10).primary(),
    ranAt: p.datetime(),
  }),
});

export const popularityEntities = [PollSchema, MetricSchema, SwotItemSchema, PopularitySettingsSchema, DailyRunSchema];
