import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';
import type { Queries } from '../../kernel/sql';
import { keysPage, pageQueryShape, type Page } from '../../kernel/pagination';
import { processLocal } from '../../kernel/process-local';
import { Projector } from './projection/projector';
import { instantAt } from '../../kernel/calendar';
import { STATION_STATUSES } from './gotv.entities';
import type { StationEvent } from './gotv.events';
import { DEFAULT_CLOSES_AT, DEFAULT_OPENS_AT } from './projection/curve';
import { dayPrior } from './projection/curve-history';
import type { DayFit } from './projection/curve-model';
import { LAG_MODEL } from './projection/lag';
import {
  countReportsSince,
  stationRows,
  territoryParents,
  voterLagRows,
  voterVoteRows,
  type StationFilter,
  type StationRow,
  type VoterLagRow,
  type VoterVoteRow,
} from './gotv.live.repository';
import {
  curvePoints,
  curveSupporterVotes,
  curveView,
  fitPrepared,
  fittedCurves,
  prepareDay,
  project,
  stationFigure,
  type PreparedDay,
  type ProjectedDay,
  type Projection,
  type ProjectionInput,
  type StationProjection,
  type StationInput,
  type VoterLagCount,
  type VoterVoteCount,
} from './projection/projection';
import { electionDay, liveDayStart } from './gotv.settings';
import { findSettings } from './gotv.stations.repository';

export type { StationFilter } from './gotv.live.repository';

type CountsByStation = Map<string, { votersSoFar: number; reportedAt: Date }[]>;

/** Count reports since `since` (and before `until`), of some stations or all, by station. */
async function countsByStation(q: Queries, since: Date, ids?: string[], until?: Date): Promise<CountsByStation> {
  const byStation: CountsByStation = new Map();
  for (const row of await countReportsSince(q, since, ids, until)) {
    const list = byStation.get(row.station_id) ?? [];
    list.push({ votersSoFar: row.voters_so_far, reportedAt: new Date(row.reported_at) });
    byStation.set(row.station_id, list);
  }
  return byStation;
}

/** `withPrevious`: each station's previous turnout (today's projection; not a past day's curve, which it does not describe). */
function stationInputs(stations: StationRow[], counts: CountsByStation, withPrevious = false): StationInput[] {
  return stations.map((station) => ({
    id: station.id,
    territoryId: station.territory_id,
    registeredVoters: station.registered_voters,
    previousTurnout: withPrevious ? station.previous_turnout : null,
    confirmedVoters: station.confirmed_voters,
    confirmedVoted: station.confirmed_voted,
    counts: counts.get(station.id) ?? [],
  }));
}

/** The delay histogram and the supporters' flow: re-read when reports came in, and at least this often per process. */
const VOTES_REFRESH_MS = 15_000;

/** The day's fit, kept per process and reused while the counts and prior it was made from are the same. */
let fitCache: { key: string; fit: DayFit } | undefined;

/** The voter reports a read of the flow or the delays must include, as a projection found them just before. */
interface Freshness {
  /** The live day's start: rows of another day are never reused. */
  day: number;
  /**
   * What changes whenever a voter report is accepted: the confirmed voters who voted, summed over
   * the tallies (each accepted report marks one voter voted), with the stations' territories the
   * rows are grouped by.
   */
  mark: string;
}

/** Read from the station rows, before any row that must include what they saw is read. */
function freshnessOf(stations: StationRow[], dayStart: Date): Freshness {
  let voted = 0;
  for (const station of stations) voted += station.confirmed_voted;
  return { day: dayStart.getTime(), mark: `${voted}|${stations.map((station) => `${station.id}:${station.territory_id ?? ''}`).join(',')}` };
}

interface Load<T> extends Freshness {
  since: number;
  rows: Promise<T[]>;
}

/**
 * Rows the live projection reads (the flow, the delays: a grouped scan of the day's reports each)
 * kept per process, yet never older than a voter report accepted before the request: a read is
 * reused only while the tallies show no report since it began, else made again. Requests that need
 * one while a read is under way share one: the one under way when nothing changed since it began,
 * else the next, started once it ends (so a war room's screens reloading at once cost two reads,
 * not one each). A projection for a given instant always reads.
 */
class LiveRows<T> {
  private cached: (Freshness & { since: number; rows: T[]; at: number }) | undefined;
  private running: Load<T> | undefined;
  private next: Load<T> | undefined;

  read(live: boolean, since: Date, freshness: Freshness, load: () => Promise<T[]>): Promise<T[]> {
    if (!live) return load();
    const wanted = { ...freshness, since: since.getTime() };
    const serves = (held: (Freshness & { since: number }) | undefined, sameMark: boolean) =>
      held !== undefined && held.day === wanted.day && held.since <= wanted.since && (!sameMark || held.mark === wanted.mark);
    const cached = this.cached;
    if (serves(cached, true) && Date.now() - cached!.at < VOTES_REFRESH_MS) return Promise.resolve(cached!.rows);
    // A read under way serves if nothing changed since it began; the next one, which begins later, serves anyway.
    if (serves(this.running, true)) return this.running!.rows;
    if (serves(this.next, false)) return this.next!.rows;
    const start = (): Promise<T[]> => {
      const rows = load();
      const entry: Load<T> = { ...wanted, rows };
      this.running = entry;
      const startedAt = Date.now();
      const settle = () => {
        if (this.running === entry) this.running = undefined;
      };
      rows.then((loaded) => {
        settle();
        this.cached = { ...wanted, rows: loaded, at: startedAt };
      }, settle);
      return rows;
    };
    if (!this.running) return start();
    const after = this.running.rows.then(
      () => undefined,
      () => undefined,
    );
    const next: Load<T> = {
      ...wanted,
      rows: after.then(() => {
        if (this.next === next) this.next = undefined;
        return start();
      }),
    };
    this.next = next;
    return next.rows;
  }
}

const lagRows = new LiveRows<VoterLagRow>();
const voteRows = new LiveRows<VoterVoteRow>();

function cachedFit(prepared: PreparedDay): DayFit {
  const cached = fitCache;
  if (cached?.key === prepared.key) return cached.fit;
  const fit = fitPrepared(prepared);
  fitCache = { key: prepared.key, fit };
  return fit;
}

/** Recent voter reports' delays, as the projection reads them at `now` (kept for the live projection: see LiveRows). */
async function voterLags(q: Queries, dayStart: Date, now: Date, live: boolean, freshness: Freshness): Promise<VoterLagCount[]> {
  const since = new Date(Math.max(dayStart.getTime(), now.getTime() - LAG_MODEL.windowMinutes * 60_000));
  const rows = await lagRows.read(live, since, freshness, () => voterLagRows(q, since, now));
  return rows
    .filter((row) => new Date(row.voted_minute).getTime() >= since.getTime())
    .map((row) => ({
      territoryId: row.territory_id,
      lagMinutes: row.lag_minutes,
      ageMinutes: Math.floor((now.getTime() - new Date(row.voted_minute).getTime()) / 60_000),
      count: row.n,
    }));
}

/**
 * A day's voter reports by territory and the minute of the vote (from `dayStart` to `until`), as
 * received by `now` (the live projection: until now; a past day: until its end, received since too).
 */
async function voterVotes(q: Queries, dayStart: Date, until: Date, now: Date, live: boolean, freshness?: Freshness): Promise<VoterVoteCount[]> {
  const rows = await (freshness ? voteRows.read(live, dayStart, freshness, () => voterVoteRows(q, dayStart, until, now)) : voterVoteRows(q, dayStart, until, now));
  return rows.map((row) => ({ territoryId: row.territory_id, votedMinute: new Date(row.voted_minute), count: row.n }));
}

export interface ProjectionRequest {
  /** The instant to project at (default: now, the live projection). */
  now?: Date;
  /** The stations whose own figures to list (default: none; the sums do not need them). */
  stations?: ReadonlySet<string>;
  /** Where to compute it: the process's worker thread (the API and the pushes), or here (default). */
  projector?: Projector;
}

/** The process's projection thread, started on first use and stopped with the process. */
export const projector = processLocal('gotv.projector', () => new Projector());

/**
 * The projection of the election day at `request.now` (default: the live one). Every station's
 * counts inform the learned curve; a filter (a territory with what is inside it, a bounding box)
 * narrows which stations and sums are reported.
 */
export async function projectedDay(q: Queries, timeZone: string, filter: StationFilter = {}, request: ProjectionRequest = {}): Promise<ProjectedDay> {
  const at = request.now ?? new Date();
  const live = request.now === undefined;
  const day = await electionDay(q);
  const dayStart = instantAt(day.electionDate, 0, timeZone);
  const filtered = filter.territoryId !== undefined || filter.bbox !== undefined || filter.ids !== undefined;
  // The stations first: their tallies say which voter reports the rows read next must include.
  const stations = await stationRows(q, {});
  const freshness = freshnessOf(stations, dayStart);
  const [counts, only, lags, votes, parents] = await Promise.all([
    countsByStation(q, dayStart),
    filtered ? stationRows(q, filter).then((rows) => new Set(rows.map((row) => row.id))) : Promise.resolve(undefined),
    voterLags(q, dayStart, at, live, freshness),
    voterVotes(q, dayStart, at, at, live, freshness),
    territoryParents(q),
  ]);
  const input: ProjectionInput = {
    now: at,
    timeZone,
    electionDate: day.electionDate,
    curve: day.curve,
    curveSource: day.source,
    spread: day.spread,
    level: day.level,
    warnings: day.warnings,
    stations: stationInputs(stations, counts, true),
    voterLags: lags,
    voterVotes: votes,
    ...(only ? { only } : {}),
    sumsUnder: sumsUnder(stations, parents, filter.territoryId ?? null),
  };
  if (request.projector) return request.projector.project(input, request.stations);
  const wanted = request.stations;
  return project(input, { fit: cachedFit, stations: (id) => wanted?.has(id) ?? false });
}

/**
 * Where each station's sums go in `byTerritory`: under the child of `root` (a top-level territory
 * when there is none) that holds its territory, or `root` itself for a station placed there. So a
 * national day lists its departamentos, and a departamento its municipios, not every comuna.
 */
function sumsUnder(stations: readonly StationRow[], parents: readonly { id: string; parent_id: string | null }[], root: string | null): Map<string, string | null> {
  const parentOf = new Map(parents.map((row) => [row.id, row.parent_id]));
  const topOf = new Map<string, string>();
  const top = (territory: string): string => {
    let found = topOf.get(territory);
    if (found === undefined) {
      const parent = parentOf.get(territory) ?? null;
      found = territory === root || parent === root || parent === null ? territory : top(parent);
      topOf.set(territory, found);
    }
    return found;
  };
  return new Map(stations.map((station) => [station.id, station.territory_id === null ? null : top(station.territory_id)]));
}

/** `GET /api/gotv/projection`: the overall and per-territory projection, without the per-station list. */
export async function projection(q: Queries, timeZone: string, filter: StationFilter = {}, request: Omit<ProjectionRequest, 'stations'> = {}): Promise<Projection> {
  const { stations: _none, ...answer } = await projectedDay(q, timeZone, filter, request);
  return answer;
}

export const projectionStationsQuery = z.object({ territoryId: z.uuid().optional(), ...pageQueryShape });

/**
 * `GET /api/gotv/projection/stations`: the stations' own projections, a page at a time in id order.
 * Each page is projected afresh (the sums, and the figures of its own stations only), so a page
 * costs about what the overall projection does however many stations there are.
 */
export async function projectionStations(
  q: Queries,
  timeZone: string,
  query: z.output<typeof projectionStationsQuery>,
  where: Pick<ProjectionRequest, 'projector'> = {},
): Promise<Page<StationProjection>> {
  const filter: StationFilter = query.territoryId ? { territoryId: query.territoryId } : {};
  const ids = (await stationRows(q, filter)).map((row) => row.id);
  const page = keysPage(ids, query);
  const wanted = new Set(page.keys);
  const day = await projectedDay(q, timeZone, filter, { ...where, stations: wanted });
  const byId = new Map(day.stations.map((station) => [station.id, station]));
  return { data: page.keys.map((id) => byId.get(id)!), nextCursor: page.nextCursor };
}

/** Prior spread for deriving a past day's curve: loose, so that the day's own reports decide. */
const PAST_DAY_SPREAD = { tiltSd: 3, wiggleSd: 0.5, openingWiggleSd: 0.5, wiggleHourCorrelation: 0.5, territoryTiltSd: 1, driftSd: 0, futureSd: 0.3 };

export const dayCurveQuery = z.object({ date: calendarDate });

export const dayCurveView = z
  .object({
    date: calendarDate,
    countedStations: z.number().int().describe('stations with usable counts that day'),
    closedStations: z.number().int().describe('stations with a count read after closing (their final): the curve’s end rests on these'),
    turnoutCurve: z.array(z.object({ time: z.string(), fraction: z.number() })).describe('hourly, ready for `turnoutCurve` or `curveHistory` in PUT /api/gotv/settings'),
    curve: curveView,
  })
  .meta({ id: 'GotvDayCurve' });

/**
 * A past day's curve, learned from its count reports kept in the database (a previous election, or
 * a rehearsal) and its supporters' flow (a previous election's voter reports; never a rehearsal's),
 * on today's configured hours, with a loose prior so that the day's own reports decide: what a
 * campaign can store as curve history (a second round's, from the first).
 */
export async function dayCurve(q: Queries, timeZone: string, date: string): Promise<z.input<typeof dayCurveView>> {
  const settings = await findSettings(q);
  // A past day is one date: its curve on election day's first day's hours.
  const prior = dayPrior(settings ? { ...settings, followingDays: [] } : { opensAt: DEFAULT_OPENS_AT, closesAt: DEFAULT_CLOSES_AT, turnoutCurve: null, curveHistory: [] });
  const from = instantAt(date, 0, timeZone);
  const until = instantAt(date, 24 * 60, timeZone);
  const [stations, counts, votes] = await Promise.all([stationRows(q, {}), countsByStation(q, from, undefined, until), voterVotes(q, from, until, new Date(), false)]);
  const input: ProjectionInput = {
    now: until,
    timeZone,
    electionDate: date,
    curve: prior.curve,
    spread: PAST_DAY_SPREAD,
    stations: stationInputs(stations, counts),
    voterVotes: votes,
  };
  const prepared = prepareDay(input);
  const fit = fitPrepared(prepared);
  const curves = fittedCurves(fit);
  const points = curvePoints(fit, prior.curve, curves.day, -1);
  // Rounded fractions must still rise from 0 to 1 to be accepted back as a curve.
  let floor = 0;
  const turnoutCurve = points.map((point, i) => {
    const fraction = i === 0 ? 0 : i === points.length - 1 ? 1 : Math.max(floor, point.fraction);
    floor = fraction;
    return { time: point.time, fraction };
  });
  return {
    date,
    countedStations: fit.countedStations,
    closedStations: fit.stations.filter((station) => station.closed).length,
    turnoutCurve,
    curve: { scope: 'day', countedStations: fit.countedStations, supporterVotes: curveSupporterVotes(fit), points },
  };
}

/** `part` as a percentage of `whole`, one decimal; 0 when there is no whole. */
export const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

/** Colour band for the map, by how many of our confirmed voters have voted. */
export function level(confirmedVoters: number, confirmedVoted: number): 'none' | 'low' | 'medium' | 'high' {
  if (confirmedVoters === 0) return 'none';
  const share = confirmedVoted / confirmedVoters;
  return share < 0.3 ? 'low' : share < 0.6 ? 'medium' : 'high';
}

export const liveMapQuery = z.object({
  territoryId: z.uuid().optional(),
  bbox: z
    .string()
    .transform((value) => value.split(',').map(Number))
    .pipe(
      z
        .tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)])
        .refine(([minLng, minLat, maxLng, maxLat]) => minLng <= maxLng && minLat <= maxLat, 'bbox is minLng,minLat,maxLng,maxLat'),
    )
    .optional(),
});

export const stationProperties = z.object({
  id: z.uuid(),
  code: z.string(),
  name: z.string(),
  status: z.enum(STATION_STATUSES),
  registeredVoters: z.number().int(),
  confirmedVoters: z.number().int(),
  confirmedVoted: z.number().int(),
  confirmedTurnoutPct: z.number(),
  lastCount: z.number().int(),
  stationTurnoutPct: z.number(),
  lastReportAt: instant.nullable(),
  level: z.enum(['none', 'low', 'medium', 'high']),
});

export const liveMapView = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(
      z.object({
        type: z.literal('Feature'),
        geometry: z.object({ type: z.literal('Point'), coordinates: z.tuple([z.number(), z.number()]) }),
        properties: stationProperties,
      }),
    ),
  })
  .meta({ id: 'GotvLiveMap' });

/** One station's figures, as the map shows them and `gotv:station` pushes them. */
function stationFigures(station: StationRow, counts: CountsByStation, since: Date, now: Date): z.input<typeof stationProperties> {
  const lastCount = stationFigure(counts.get(station.id) ?? [], since.getTime(), now.getTime()).votersSoFar;
  return {
    id: station.id,
    code: station.code,
    name: station.name,
    status: station.status,
    registeredVoters: station.registered_voters,
    confirmedVoters: station.confirmed_voters,
    confirmedVoted: station.confirmed_voted,
    confirmedTurnoutPct: percent(station.confirmed_voted, station.confirmed_voters),
    lastCount,
    stationTurnoutPct: percent(lastCount, station.registered_voters),
    lastReportAt: station.last_report_at ? new Date(station.last_report_at).toISOString() : null,
    level: level(station.confirmed_voters, station.confirmed_voted),
  };
}

/** Stations and their figures; counts from the live day's start (today's, or election day's once it has passed). */
async function stationsWithCounts(q: Queries, timeZone: string, electionDate: string | null, filter: StationFilter, now: Date) {
  const since = liveDayStart(now, timeZone, electionDate);
  const [stations, counts] = await Promise.all([stationRows(q, filter), countsByStation(q, since, filter.ids)]);
  return stations.map((station) => ({ station, figures: stationFigures(station, counts, since, now) }));
}

/** GeoJSON for the war-room map: one point per station with its numbers and colour band. */
export async function liveMap(q: Queries, timeZone: string, electionDate: string | null, filter: StationFilter, now = new Date()): Promise<z.input<typeof liveMapView>> {
  const stations = await stationsWithCounts(q, timeZone, electionDate, filter, now);
  return {
    type: 'FeatureCollection',
    features: stations.map(({ station, figures }) => ({
      type: 'Feature' as const,
      geometry: { type: 'Point' as const, coordinates: [Number(station.lng), Number(station.lat)] as [number, number] },
      properties: figures,
    })),
  };
}

/** `gotv:station` for these stations: the map's figures and the point (the same numbers as `GET /api/gotv/live-map`). */
export async function stationEvents(q: Queries, timeZone: string, electionDate: string | null, ids: string[], now = new Date()): Promise<StationEvent[]> {
  if (!ids.length) return [];
  const stations = await stationsWithCounts(q, timeZone, electionDate, { ids }, now);
  return stations.map(({ station, figures }) => ({ ...figures, lat: Number(station.lat), lng: Number(station.lng) }));
}
