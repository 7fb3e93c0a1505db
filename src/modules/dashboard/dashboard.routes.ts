import { ApiRouter } from '../../kernel/http/router';
import { geospatial } from './dashboard.geospatial';
import { heatmap } from './dashboard.heatmap';
import { overviewFor, OVERVIEW_TTL_MS } from './dashboard.overview';
import { dashboardPolicy } from './dashboard.policy';
import { geospatialQuery, geospatialView, heatmapQuery, heatmapView, overviewView, TREND_METRICS, trendsQuery, trendsView } from './dashboard.schemas';
import { trends } from './dashboard.trends';

const base = '/api/dashboard';

export const dashboardRouter = new ApiRouter('dashboard', 'The campaign at a glance: KPIs from every module, trends over time, maps and the territory heat map (read-only)')
  .get(
    `${base}/overview`,
    {
      summary: 'The KPIs every screen shows',
      description:
        `Active volunteers (and the change against the window before), events in the next 7 days with RSVPs going, pending PQRS (overdue, due soon), ` +
        `the financial balance (income, spent, cap used; totals only, to roles finance lets read its summary), leads, WhatsApp and email reach of the ` +
        `last 7 days, social alerts and, on election day, the GOTV turnout. Each KPI carries its window and the endpoint with its detail. ` +
        `Cached for ${OVERVIEW_TTL_MS / 1000} s and dropped sooner when a figure changes; \`dashboard:kpi\` pushes the same figures to room \`dashboard\`. ` +
        'A treasurer gets the financial balance only.',
      access: dashboardPolicy.roles('readOverview'),
      response: overviewView,
    },
    async ({ ctx, actor }) => {
      const answer = await overviewFor(ctx.deps, actor);
      // Outside production the router checks the object against the schema; in production the bytes made once per cache fill go out.
      if (ctx.deps.config.env !== 'production') return answer.view;
      ctx.type = 'application/json';
      ctx.body = answer.json;
      return undefined;
    },
  )
  .get(
    `${base}/trends`,
    {
      summary: 'Aligned daily or weekly series',
      description:
        `Metrics: ${TREND_METRICS.join(', ')}. Buckets are local days (or weeks from Monday) in the campaign's TIMEZONE, every one present and ` +
        'zero-filled; at most 400 days. `territoryId` narrows leads, scans, activities, active volunteers and the poll average; the other series ' +
        'say `scope: campaign`. `spend` follows finance’s rule (treasurers may ask for it alone); an unknown metric is a 400 naming it.',
      access: dashboardPolicy.roles('readTrends'),
      query: trendsQuery,
      response: trendsView,
    },
    async ({ ctx, input, actor }) => trends(ctx.deps, actor, input.query),
  )
  .get(
    `${base}/geospatial`,
    {
      summary: 'Territories and point layers as GeoJSON',
      description:
        'A FeatureCollection: territories (geometry where known, null otherwise) with their figures rolled up (leads, scans, volunteers, activities ' +
        'of the last 30 days, PQRS and open PQRS, GOTV supporters and voted), polling stations, events (from a day ago to 30 days ahead), poster ' +
        'codes placed at a spot, and PQRS per territory at its centroid. `layers` picks layers, `territoryId` keeps a territory and what is inside ' +
        'it, `bbox=minLng,minLat,maxLng,maxLat` what falls in (points) or overlaps (territories) the box.',
      access: dashboardPolicy.roles('readMap'),
      query: geospatialQuery,
      response: geospatialView,
    },
    async ({ ctx, input }) => geospatial(ctx.deps, input.query),
  )
  .get(
    '/api/territories/heatmap',
    {
      summary: 'A figure per territory, classed and coloured',
      description:
        'Per territory of `level`: the figure (rolled up from the territories inside), the value classed (absolute, per 1,000 inhabitants, or for ' +
        'turnout the percent of confirmed supporters who voted), its normalised value, class and colour, with the class breaks. Jenks natural ' +
        'breaks (Ckmeans) or quantiles. A GeoJSON FeatureCollection; geometry is null where none is known. Cached for 30 s per question.',
      access: dashboardPolicy.roles('readMap'),
      query: heatmapQuery,
      response: heatmapView,
    },
    async ({ ctx, input }) => heatmap(ctx.deps, input.query),
  );
