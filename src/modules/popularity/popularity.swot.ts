import type { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError } from '../../kernel/errors';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { alertCountsSince } from '../social';
import { momentumOf, readRace, type Race } from './popularity.dashboard';
import { SWOT_QUADRANTS, type SwotEvidence, type SwotQuadrant } from './popularity.entities';
import { allSwotItems, deleteSwotItem, findSwotItem, insertSwotItem, latestMetrics, updateSwotItem, type SwotRecord } from './popularity.repository';
import { METRIC_CATALOGUE, type CreateSwotInput, type UpdateSwotInput, type swotItemView, type swotView } from './popularity.schemas';

const DAY_MS = 86_400_000;
/** A poll-average move this large over the momentum window is a surge or a sustained drop. */
export const POLL_SWING_POINTS = 2;
/** Negative-sentiment alerts about us in the last week that make a threat. */
export const NEGATIVE_ALERTS_FOR_THREAT = 2;
/** Metrics older than this are not compared. */
const METRIC_FRESH_DAYS = 30;
/** Metrics where less is better. */
const LOWER_IS_BETTER = new Set(['unfavourability']);

export interface SwotSuggestion {
  key: string;
  quadrant: SwotQuadrant;
  text: string;
  evidence: SwotEvidence[];
}

function presentItem(item: SwotRecord): z.input<typeof swotItemView> {
  return {
    id: item.id,
    quadrant: item.quadrant,
    text: item.text,
    evidence: item.evidence,
    suggestionKey: item.suggestionKey,
    authorId: item.authorId,
    active: item.active,
    createdAt: item.createdAt.toISOString(),
    updatedAt: item.updatedAt.toISOString(),
  };
}

const fmt = (value: number) => (Math.round(value * 10) / 10).toLocaleString('es-CO');

/**
 * Suggestions read from the data, each with the evidence behind it: metrics where we lead or trail
 * every rival, a rival's sustained drop or surge in the poll average, negative conversation about
 * us. They change as the data does; staff accept one to make it an item.
 */
export async function swotSuggestions(deps: Pick<AppDeps, 'db' | 'config'>, race: Race): Promise<SwotSuggestion[]> {
  const ours = race.competitors.find((competitor) => competitor.isOwn);
  if (!ours) return [];
  const rivals = race.competitors.filter((competitor) => !competitor.isOwn);
  const nameOf = new Map(race.competitors.map((competitor) => [competitor.id, competitor.name]));
  const suggestions: SwotSuggestion[] = [];
  const freshSince = new Date(race.now.getTime() - METRIC_FRESH_DAYS * DAY_MS).toISOString().slice(0, 10);

  // Where we lead or trail every rival: the poll average and each catalogue metric with fresh values.
  const standings: { label: string; key: string; values: Map<string, number>; evidence: (id: string) => SwotEvidence; lowerIsBetter: boolean }[] = [];
  standings.push({
    label: 'promedio de encuestas',
    key: 'poll_average',
    values: new Map(race.averages.averages.map((row) => [row.competitorId, row.average])),
    evidence: (id) => ({ type: 'poll', id: race.polls[0]?.id ?? null, label: `Promedio de encuestas de ${nameOf.get(id) ?? id}` }),
    lowerIsBetter: false,
  });
  const metrics = (await latestMetrics(deps.db)).filter((row) => row.date >= freshSince && row.metric in METRIC_CATALOGUE);
  for (const metric of new Set(metrics.map((row) => row.metric))) {
    const rows = metrics.filter((row) => row.metric === metric);
    standings.push({
      label: metric.replace(/_/g, ' '),
      key: `metric:${metric}`,
      values: new Map(rows.map((row) => [row.competitorId, row.value])),
      evidence: (id) => ({ type: 'metric', id: null, label: `${metric} de ${nameOf.get(id) ?? id} (${rows.find((row) => row.competitorId === id)?.date ?? ''})` }),
      lowerIsBetter: LOWER_IS_BETTER.has(metric),
    });
  }
  for (const standing of standings) {
    const ourValue = standing.values.get(ours.id);
    const rivalValues = rivals.flatMap((rival) => (standing.values.has(rival.id) ? [{ id: rival.id, value: standing.values.get(rival.id)! }] : []));
    if (ourValue === undefined || !rivalValues.length) continue;
    const better = (a: number, b: number) => (standing.lowerIsBetter ? a < b : a > b);
    const best = rivalValues.reduce((top, row) => (better(row.value, top.value) ? row : top));
    const worst = rivalValues.reduce((bottom, row) => (better(bottom.value, row.value) ? row : bottom));
    if (rivalValues.every((row) => better(ourValue, row.value))) {
      suggestions.push({
        key: `strength:${standing.key}`,
        quadrant: 'strength',
        text: `Lideramos en ${standing.label}: ${fmt(ourValue)} frente a ${fmt(best.value)} de ${nameOf.get(best.id)}.`,
        evidence: [standing.evidence(ours.id), standing.evidence(best.id)],
      });
    } else if (rivalValues.every((row) => better(row.value, ourValue))) {
      suggestions.push({
        key: `weakness:${standing.key}`,
        quadrant: 'weakness',
        text: `Estamos por detrás de todos en ${standing.label}: ${fmt(ourValue)}, ${nameOf.get(worst.id)} tiene ${fmt(worst.value)}.`,
        evidence: [standing.evidence(ours.id), standing.evidence(worst.id)],
      });
    }
  }

  // A rival's sustained drop or surge in the poll average over the momentum window.
  for (const rival of rivals) {
    const change = momentumOf(race, rival.id);
    if (change === null || Math.abs(change) < POLL_SWING_POINTS) continue;
    const evidence: SwotEvidence[] = [
      { type: 'poll', id: race.polls[0]?.id ?? null, label: `Promedio de ${rival.name}: ${change > 0 ? '+' : ''}${fmt(change)} puntos en 14 días` },
    ];
    if (change < 0)
      suggestions.push({
        key: `opportunity:poll_drop:${rival.id}`,
        quadrant: 'opportunity',
        text: `${rival.name} cae ${fmt(-change)} puntos en el promedio de encuestas en 14 días.`,
        evidence,
      });
    else
      suggestions.push({
        key: `threat:poll_surge:${rival.id}`,
        quadrant: 'threat',
        text: `${rival.name} sube ${fmt(change)} puntos en el promedio de encuestas en 14 días.`,
        evidence,
      });
  }

  // Social signals of the last week: rivals' follower surges, negative conversation about us.
  const alerts = await alertCountsSince(deps.db, new Date(race.now.getTime() - 7 * DAY_MS));
  for (const row of alerts) {
    if (row.kind === 'follower_change' && row.competitorId && row.competitorId !== ours.id && nameOf.has(row.competitorId)) {
      suggestions.push({
        key: `threat:follower_surge:${row.competitorId}`,
        quadrant: 'threat',
        text: `${nameOf.get(row.competitorId)} tuvo cambios bruscos de seguidores esta semana (${row.count} alertas).`,
        evidence: [{ type: 'alert', id: row.latestId, label: 'Alerta de seguidores' }],
      });
    }
  }
  const negative = alerts.filter((row) => row.kind === 'negative_sentiment').reduce((sum, row) => sum + row.count, 0);
  if (negative >= NEGATIVE_ALERTS_FOR_THREAT) {
    const latest = alerts.find((row) => row.kind === 'negative_sentiment')!;
    suggestions.push({
      key: `threat:negative_sentiment:${race.today}`,
      quadrant: 'threat',
      text: `${negative} alertas de conversación negativa sobre nosotros en los últimos 7 días.`,
      evidence: [{ type: 'alert', id: latest.latestId, label: 'Alerta de sentimiento negativo' }],
    });
  }
  return suggestions;
}

export async function swot(deps: Pick<AppDeps, 'db' | 'config'>, now = new Date()): Promise<z.input<typeof swotView>> {
  const [items, race] = await Promise.all([allSwotItems(deps.db), readRace(deps, {}, now)]);
  const accepted = new Set(items.flatMap((item) => (item.suggestionKey ? [item.suggestionKey] : [])));
  const suggestions = (await swotSuggestions(deps, race)).filter((suggestion) => !accepted.has(suggestion.key));
  return Object.fromEntries(
    SWOT_QUADRANTS.map((quadrant) => [
      quadrant,
      {
        items: items.filter((item) => item.quadrant === quadrant && item.active).map(presentItem),
        suggestions: suggestions.filter((suggestion) => suggestion.quadrant === quadrant),
      },
    ]),
  ) as z.input<typeof swotView>;
}

export async function createSwotItem(q: Queries, input: CreateSwotInput, authorId: string) {
  const at = new Date();
  const item: SwotRecord = {
    id: newId(),
    quadrant: input.quadrant,
    text: input.text,
    evidence: input.evidence.map((entry) => ({ type: entry.type, id: entry.id, label: entry.label })),
    suggestionKey: input.suggestionKey ?? null,
    authorId,
    active: true,
    createdAt: at,
    updatedAt: at,
  };
  try {
    await insertSwotItem(q, item);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError('This suggestion was already accepted.', 'suggestion_taken');
    throw error;
  }
  return presentItem(item);
}

export async function changeSwotItem(q: Queries, id: string, input: UpdateSwotInput) {
  const item = await findSwotItem(q, id);
  if (!item) throw new NotFoundError('No SWOT item has this id.');
  const changed: SwotRecord = {
    ...item,
    quadrant: input.quadrant ?? item.quadrant,
    text: input.text ?? item.text,
    evidence: input.evidence ? input.evidence.map((entry) => ({ type: entry.type, id: entry.id, label: entry.label })) : item.evidence,
    active: input.active ?? item.active,
  };
  await updateSwotItem(q, changed);
  return presentItem((await findSwotItem(q, id))!);
}

export async function removeSwotItem(q: Queries, id: string): Promise<void> {
  if (!(await deleteSwotItem(q, id))) throw new NotFoundError('No SWOT item has this id.');
}
