import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';
import { TERRITORY_TYPES } from '../territories';

// ───────────── overview

const window = z
  .object({
    from: instant.nullable().describe('Start of what the figure counts (null: since the beginning)'),
    to: instant.describe('End of what it counts (now, or the end of a window ahead)'),
    label: z.string().describe('The window in words, e.g. "last 14 days"'),
  })
  .meta({ id: 'KpiWindow' });

const kpi = <T extends z.ZodRawShape>(shape: T) =>
  z.object({
    value: z.number(),
    window,
    href: z.string().describe('The endpoint with the detail behind the figure'),
    ...shape,
  });

const change = {
  previous: z.number().describe('The same figure over the window just before'),
  change: z.number().describe('value − previous'),
  changePct: z.number().nullable().describe('change ÷ previous × 100, one decimal; null when previous is 0'),
};

export const overviewView = z
  .object({
    asOf: instant,
    timeZone: z.string(),
    cachedFor: z.number().int().describe('Seconds this answer may be older than asOf says at most (the cache TTL)'),
    activeVolunteers: kpi({ ...change })
      .optional()
      .describe('Volunteers with an activity in the active window'),
    upcomingEvents: kpi({ going: z.number().int().describe('RSVPs going to those events') })
      .optional()
      .describe('Scheduled events in the next 7 days'),
    pendingPqrs: kpi({
      overdue: z.number().int().describe('Past their legal deadline'),
      dueSoon: z.number().int().describe('Due within three business days, not yet overdue'),
    })
      .optional()
      .describe('PQRS requests waiting for an answer'),
    financialBalance: kpi({
      income: z.number().int(),
      spent: z.number().int(),
      cap: z.number().int().nullable(),
      capUsedPct: z.number().nullable(),
      remainingToCap: z.number().int().nullable(),
      warnings: z.array(z.object({ code: z.string(), level: z.string(), message: z.string() })),
    })
      .optional()
      .describe('Income − expenses in integer pesos (totals only); only to roles finance lets read its summary'),
    leads: kpi({ ...change })
      .optional()
      .describe('Leads captured in the last 7 days'),
    whatsappReach: kpi({ sent: z.number().int(), delivered: z.number().int(), read: z.number().int(), replies: z.number().int() })
      .optional()
      .describe('WhatsApp messages delivered in the last 7 days (value), with sent, read and inbound replies'),
    emailReach: kpi({ sent: z.number().int(), opened: z.number().int(), clicked: z.number().int() })
      .optional()
      .describe('Campaign emails sent in the last 7 days (value), with people who opened and clicked'),
    socialAlerts: kpi({
      byKind: z.record(z.string(), z.number().int()),
      latest: z.array(
        z.object({ id: z.uuid(), kind: z.string(), severity: z.string(), title: z.string(), state: z.string(), competitorId: z.uuid().nullable(), createdAt: instant }),
      ),
    })
      .optional()
      .describe('Social-monitoring alerts raised in the last 7 days (not dismissed), and the latest five'),
    gotv: kpi({
      confirmedVoters: z.number().int(),
      turnoutPct: z.number().nullable(),
      stations: z.number().int(),
      stationsOpen: z.number().int(),
      stationsWithIncident: z.number().int(),
    })
      .nullable()
      .optional()
      .describe('On election day only (else null): confirmed voters who voted (value)'),
  })
  .meta({ id: 'DashboardOverview' });
export type OverviewView = z.input<typeof overviewView>;

// ───────────── trends

export const TREND_METRICS = [
  'leads',
  'scans',
  'volunteers_active',
  'activities',
  'pqrs_opened',
  'pqrs_closed',
  'spend',
  'whatsapp_replies',
  'email_clicks',
  'poll_average',
] as const;
export type TrendMetric = (typeof TREND_METRICS)[number];

/** The longest range one request may ask for, in days. */
export const MAX_TREND_DAYS = 400;

const metricList = z
  .string()
  .transform((value, ctx) => {
    const names = [...new Set(value.split(',').map((name) => name.trim()))];
    const unknown = names.filter((name) => !(TREND_METRICS as readonly string[]).includes(name));
    if (unknown.length > 0 || names.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown metrics: ${unknown.map((name) => JSON.stringify(name)).join(', ')}; known: ${TREND_METRICS.join(', ')}`,
        params: { unknown },
      });
      return z.NEVER;
    }
    return names as TrendMetric[];
  })
  .describe(`Comma-separated, from: ${TREND_METRICS.join(', ')}`);

export const trendsQuery = z
  .object({
    metrics: metricList,
    interval: z.enum(['day', 'week']).default('day'),
    from: calendarDate.optional().describe("First local day (the campaign's TIMEZONE); default: 30 days (12 weeks) before `to`"),
    to: calendarDate.optional().describe('Last local day, included; default today'),
    territoryId: z.uuid().optional().describe('Only figures inside this territory (and the territories inside it), for the metrics that have one'),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, { message: 'from must not be after to', path: ['from'] });
export type TrendsInput = z.infer<typeof trendsQuery>;

export const trendsView = z
  .object({
    interval: z.enum(['day', 'week']),
    from: calendarDate,
    to: calendarDate,
    timeZone: z.string(),
    territoryId: z.uuid().nullable(),
    buckets: z.array(calendarDate).describe('Start of each day or week (Monday), local dates; every bucket present'),
    series: z.array(
      z.object({
        metric: z.enum(TREND_METRICS),
        unit: z.enum(['count', 'pesos', 'percent']),
        aggregation: z.enum(['sum', 'end_of_bucket']).describe('sum: counted within each bucket (gaps are 0); end_of_bucket: the level at the bucket’s end'),
        scope: z.enum(['territory', 'campaign']).describe('campaign: the figure has no territory, so territoryId did not narrow it'),
        values: z.array(z.number().nullable()).describe('One per bucket; null only where no figure exists (a poll average before any poll)'),
        total: z.number().nullable().describe('Sum over the range for summed series, else the last value'),
      }),
    ),
  })
  .meta({ id: 'DashboardTrends' });

// ───────────── heat map

export const HEATMAP_METRICS = ['leads', 'supporters', 'volunteers', 'activities', 'pqrs', 'turnout', 'scans'] as const;
export type HeatmapMetric = (typeof HEATMAP_METRICS)[number];

export const heatmapQuery = z.object({
  metric: z.enum(HEATMAP_METRICS),
  per: z.enum(['capita', 'absolute']).default('absolute').describe('capita: per 1,000 inhabitants (territories without a population get no value)'),
  level: z.enum(TERRITORY_TYPES).optional().describe('The territory type to colour; default: the most numerous type'),
  method: z.enum(['jenks', 'quantile']).default('jenks').describe('jenks: natural breaks (Ckmeans, optimal 1-D k-means); quantile: equal counts'),
  classes: z.coerce.number().int().min(2).max(9).default(5),
});
export type HeatmapInput = z.infer<typeof heatmapQuery>;

const nullableGeometry = z.object({ type: z.enum(['Polygon', 'MultiPolygon']), coordinates: z.array(z.unknown()) }).nullable();

export const heatmapView = z
  .object({
    type: z.literal('FeatureCollection'),
    metric: z.enum(HEATMAP_METRICS),
    per: z.enum(['capita', 'absolute']),
    unit: z.string().describe('What a value is: "count", "per 1000 inhabitants", "percent voted of confirmed"'),
    level: z.enum(TERRITORY_TYPES).nullable(),
    method: z.enum(['jenks', 'quantile']),
    breaks: z.array(z.number()).describe('Class limits, lowest first: class i holds values in [breaks[i], breaks[i+1]] (each upper limit included)'),
    classes: z.array(z.object({ class: z.number().int(), from: z.number(), to: z.number(), colour: z.string(), territories: z.number().int() })),
    noDataColour: z.string(),
    unplaced: z.number().describe('What sits in a territory above this level, so no territory of the level holds it (figures with no territory at all are not counted)'),
    features: z.array(
      z.object({
        type: z.literal('Feature'),
        id: z.uuid(),
        geometry: nullableGeometry,
        properties: z.object({
          id: z.uuid(),
          name: z.string(),
          type: z.enum(TERRITORY_TYPES),
          code: z.string().nullable(),
          parentId: z.uuid().nullable(),
          population: z.number().int().nullable(),
          centroid: z.object({ lat: z.number(), lng: z.number() }).nullable(),
          count: z.number().describe('The absolute figure (for turnout: voters who voted)'),
          value: z.number().nullable().describe('What is classed: the count, per capita, or the turnout percentage; null without data'),
          normalised: z.number().nullable().describe('(value − min) ÷ (max − min), 0 to 1'),
          class: z.number().int().nullable(),
          colour: z.string(),
        }),
      }),
    ),
  })
  .meta({ id: 'TerritoryHeatmap' });

// ───────────── geospatial

export const GEO_LAYERS = ['territories', 'stations', 'events', 'posterCodes', 'pqrs'] as const;
export type GeoLayer = (typeof GEO_LAYERS)[number];

const layerList = z
  .string()
  .transform((value, ctx) => {
    const names = [...new Set(value.split(',').map((name) => name.trim()))];
    const unknown = names.filter((name) => !(GEO_LAYERS as readonly string[]).includes(name));
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown layers: ${unknown.map((name) => JSON.stringify(name)).join(', ')}; known: ${GEO_LAYERS.join(', ')}` });
      return z.NEVER;
    }
    return names as GeoLayer[];
  })
  .describe(`Comma-separated, from: ${GEO_LAYERS.join(', ')} (default all)`);

export const bboxSchema = z
  .string()
  .transform((value) => value.split(',').map((part) => (part.trim() === '' ? Number.NaN : Number(part))))
  .pipe(
    z
      .tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)], {
        error: 'bbox is minLng,minLat,maxLng,maxLat',
      })
      .refine(([minLng, minLat, maxLng, maxLat]) => minLng <= maxLng && minLat <= maxLat, 'bbox is minLng,minLat,maxLng,maxLat with min ≤ max'),
  )
  .describe('minLng,minLat,maxLng,maxLat');

export const geospatialQuery = z.object({
  layers: layerList.optional(),
  territoryId: z.uuid().optional().describe('Only this territory, the territories inside it and the points in them'),
  bbox: bboxSchema.optional(),
});
export type GeospatialInput = z.infer<typeof geospatialQuery>;

export const geospatialView = z
  .object({
    type: z.literal('FeatureCollection'),
    layers: z.array(z.enum(GEO_LAYERS)),
    features: z.array(
      z.object({
        type: z.literal('Feature'),
        id: z.string(),
        geometry: z.union([nullableGeometry, z.object({ type: z.literal('Point'), coordinates: z.tuple([z.number(), z.number()]) })]),
        properties: z.object({ layer: z.enum(GEO_LAYERS) }).catchall(z.unknown()),
      }),
    ),
  })
  .meta({ id: 'DashboardGeospatial' });
