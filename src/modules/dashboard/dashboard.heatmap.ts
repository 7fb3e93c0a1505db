import { ckmeans, quantileSorted } from 'simple-statistics';
import type { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { stationFigures } from '../gotv';
import { pqrsByTerritory } from '../pqrs';
import { leadsByTerritory, scansByTerritory } from '../qr';
import { territoriesForMap, type MapTerritory, type TerritoryType } from '../territories';
import { activitiesByTerritory, volunteersByTerritory } from '../volunteers';
import type { HeatmapInput, HeatmapMetric, heatmapView } from './dashboard.schemas';

type Deps = Pick<AppDeps, 'db' | 'config' | 'caches'>;
type View = z.input<typeof heatmapView>;

/** Activities count over this many days: a map of recent work, not of the whole campaign. */
export const ACTIVITY_DAYS = 30;
const HEATMAP_TTL_MS = 30_000;

// ───────────── classes (pure)

/**
 * Class limits for `values`, lowest first, at most `classes` classes (fewer when there are fewer
 * distinct values). Jenks natural breaks through Ckmeans (the optimal one-dimensional k-means,
 * same objective as Jenks, O(n log n)): each class runs from its least to its greatest member.
 */
export function classBreaks(values: readonly number[], classes: number, method: 'jenks' | 'quantile'): number[] {
  if (values.length === 0) return [];
  const sorted = [...values].sort((a, b) => a - b);
  const distinct = new Set(sorted).size;
  const k = Math.min(classes, distinct);
  if (k <= 1) return [sorted[0]!, sorted.at(-1)!];
  if (method === 'jenks') {
    const clusters = ckmeans(sorted, k);
    return [clusters[0]![0]!, ...clusters.map((cluster) => cluster.at(-1)!)];
  }
  const breaks = [sorted[0]!];
  for (let index = 1; index <= k; index += 1) {
    const limit = index === k ? sorted.at(-1)! : quantileSorted(sorted, index / k);
    // Ties can make two quantiles equal: one class, not an empty one.
    if (limit > breaks.at(-1)!) breaks.push(limit);
  }
  if (breaks.length === 1) breaks.push(breaks[0]!);
  return breaks;
}

/** The class of a value: the first whose upper limit holds it (limits included upwards); null outside the breaks. */
export function classOf(value: number, breaks: readonly number[]): number | null {
  if (breaks.length < 2 || value < breaks[0]!) return null;
  for (let index = 1; index < breaks.length; index += 1) if (value <= breaks[index]!) return index - 1;
  return null;
}

const LIGHT = [0xfe, 0xf0, 0xd9];
const DARK = [0xb3, 0x00, 0x00];
export const NO_DATA_COLOUR = '#d9d9d9';

/** A sequential ramp from pale yellow to dark red, `count` colours, lightest first. */
export function ramp(count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const share = count === 1 ? 1 : index / (count - 1);
    return `#${LIGHT.map((channel, at) =>
      Math.round(channel + (DARK[at]! - channel) * share)
        .toString(16)
        .padStart(2, '0'),
    ).join('')}`;
  });
}

// ───────────── figures per territory

interface Figure {
  territoryId: string | null;
  count: number;
  /** For turnout: confirmed voters (the denominator). */
  base?: number;
}

async function figuresFor(deps: Deps, metric: HeatmapMetric, now: Date): Promise<Figure[]> {
  const { db } = deps;
  switch (metric) {
    case 'leads':
      return leadsByTerritory(db);
    case 'scans':
      return scansByTerritory(db);
    case 'volunteers':
      return volunteersByTerritory(db);
    case 'activities':
      return activitiesByTerritory(db, new Date(now.getTime() - ACTIVITY_DAYS * 86_400_000));
    case 'pqrs':
      return pqrsByTerritory(db);
    case 'supporters':
      return (await stationFigures(db)).map((station) => ({ territoryId: station.territoryId, count: station.confirmedVoters }));
    case 'turnout':
      return (await stationFigures(db)).map((station) => ({ territoryId: station.territoryId, count: station.confirmedVoted, base: station.confirmedVoters }));
  }
}

const UNITS: Record<HeatmapMetric, string> = {
  leads: 'leads captured',
  scans: 'poster scans (people, not bots)',
  volunteers: 'volunteers with status active',
  activities: `volunteer activities in the last ${ACTIVITY_DAYS} days`,
  pqrs: 'PQRS requests received',
  supporters: 'confirmed supporters (GOTV voters at the territory’s stations)',
  turnout: 'percent of confirmed supporters who voted',
};

/** The most numerous territory type: usually the finest level the campaign has mapped. */
function defaultLevel(territories: readonly MapTerritory[]): TerritoryType | null {
  const counts = new Map<TerritoryType, number>();
  for (const territory of territories) counts.set(territory.type, (counts.get(territory.type) ?? 0) + 1);
  let best: TerritoryType | null = null;
  for (const [type, count] of counts) if (best === null || count > counts.get(best)!) best = type;
  return best;
}

/** The territory of type `level` holding `territoryId` (itself or an ancestor), if any. */
function ancestorAt(territoryId: string, level: TerritoryType, byId: ReadonlyMap<string, MapTerritory>): string | undefined {
  let current = byId.get(territoryId);
  for (let depth = 0; current && depth < 16; depth += 1) {
    if (current.type === level) return current.id;
    current = current.parentId ? byId.get(current.parentId) : undefined;
  }
  return undefined;
}

export async function computeHeatmap(deps: Deps, input: HeatmapInput, now = new Date()): Promise<View> {
  const [territories, figures] = await Promise.all([territoriesForMap(deps.db, true), figuresFor(deps, input.metric, now)]);
  const level = input.level ?? defaultLevel(territories);
  const byId = new Map(territories.map((territory) => [territory.id, territory]));
  const totals = new Map<string, { count: number; base: number }>();
  let unplaced = 0;
  for (const figure of figures) {
    const at = figure.territoryId && level ? ancestorAt(figure.territoryId, level, byId) : undefined;
    if (!at) {
      unplaced += figure.count;
      continue;
    }
    const total = totals.get(at) ?? { count: 0, base: 0 };
    total.count += figure.count;
    total.base += figure.base ?? 0;
    totals.set(at, total);
  }

  const shown = territories.filter((territory) => territory.type === level);
  const rate = input.metric === 'turnout';
  const valueOf = (territory: MapTerritory): number | null => {
    const total = totals.get(territory.id) ?? { count: 0, base: 0 };
    if (rate) return total.base > 0 ? (total.count / total.base) * 100 : null;
    if (input.per === 'absolute') return total.count;
    return territory.population && territory.population > 0 ? (total.count / territory.population) * 1000 : null;
  };
  const values = new Map(shown.map((territory) => [territory.id, valueOf(territory)]));
  const known = [...values.values()].filter((value): value is number => value !== null);
  const breaks = classBreaks(known, input.classes, input.method);
  const colours = ramp(Math.max(1, breaks.length - 1));
  const min = known.length ? Math.min(...known) : 0;
  const max = known.length ? Math.max(...known) : 0;
  const perClass = new Array<number>(colours.length).fill(0);

  const features = shown.map((territory) => {
    const value = values.get(territory.id) ?? null;
    const klass = value === null ? null : classOf(value, breaks);
    if (klass !== null) perClass[klass]! += 1;
    return {
      type: 'Feature' as const,
      id: territory.id,
      geometry: territory.geometry,
      properties: {
        id: territory.id,
        name: territory.name,
        type: territory.type,
        code: territory.code,
        parentId: territory.parentId,
        population: territory.population,
        centroid: territory.centroidLat !== null && territory.centroidLng !== null ? { lat: territory.centroidLat, lng: territory.centroidLng } : null,
        count: totals.get(territory.id)?.count ?? 0,
        value: value === null ? null : round(value),
        normalised: value === null ? null : max > min ? round((value - min) / (max - min), 4) : 0,
        class: klass,
        colour: klass === null ? NO_DATA_COLOUR : colours[klass]!,
      },
    };
  });
  return {
    type: 'FeatureCollection',
    metric: input.metric,
    per: input.per,
    unit: rate ? UNITS.turnout : input.per === 'capita' ? `${UNITS[input.metric]} per 1000 inhabitants` : UNITS[input.metric],
    level,
    method: input.method,
    breaks: breaks.map((limit) => round(limit)),
    classes: colours.map((colour, index) => ({ class: index, from: round(breaks[index] ?? 0), to: round(breaks[index + 1] ?? 0), colour, territories: perClass[index]! })),
    noDataColour: NO_DATA_COLOUR,
    unplaced,
    features,
  };
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Heat maps are read by map screens, not every screen: a short cache per question keeps a busy war room from recounting. */
export function heatmap(deps: Deps, input: HeatmapInput): Promise<View> {
  const cache = deps.caches.named<View>('dashboard-heatmap', async (key) => computeHeatmap(deps, JSON.parse(key) as HeatmapInput), HEATMAP_TTL_MS);
  return cache.get(JSON.stringify(input));
}
