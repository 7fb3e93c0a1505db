import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';
import type { Queries } from '../../kernel/sql';
import { instantAt } from '../../kernel/calendar';
import { STATION_STATUSES } from './gotv.entities';
import type { StationEvent } from './gotv.events';
import { DEFAULT_CLOSES_AT, DEFAULT_OPENS_AT } from './gotv.curve';
import { dayPrior } from './gotv.curve-history';
import type { DayFit } from './gotv.curve-model';
import { LAG_MODEL } from './gotv.lag';
import { countReportsSince, stationRows, voterLagRows, voterVoteRows, type StationFilter, type StationRow, type VoterLagRow, type VoterVoteRow } from './gotv.live.repository';
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
  type ProjectionInput,
  type StationInput,
  type VoterLagCount,
  type VoterVoteCount,
} from './gotv.projection';
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

/** A fit is refreshed at most this often per process while the counts keep changing (the push is at most every 5 s anyway). */
const FIT_REFRESH_MS = 1000;
/** The delay histogram and the supporters' flow change slowly: read at most this often per process. */
const VOTES_REFRESH_MS = 15_000;

/**
 * The day's fit, kept per process: reused while the counts it was made from are the same, and,
 * for the live projection, for up to a second after they change (the stations and the prior being
 * the same), so that a burst of requests during a burst of reports costs one fit a second. A
 * projection for a given instant (`now` passed) always uses a fit of exactly its counts.
 */
let fitCache: { key: string; priorKey: string; stationIds: string; fit: DayFit; at: number } | undefined;

/**
 * Rows the live projection reads at most every VOTES_REFRESH_MS per process: reused while a read
 * that began no later than `since` is fresh. A projection for a given instant always reads.
 */
class LiveRows<T> {
  private cached: { since: number; rows: T[]; at: number } | undefined;

  async read(live: boolean, since: Date, load: () => Promise<T[]>): Promise<T[]> {
    const cached = this.cached;
    if (live && cached && Date.now() - cached.at < VOTES_REFRESH_MS && cached.since <= since.getTime()) return cached.rows;
    const rows = await load();
    if (live) this.cached = { since: since.getTime(), rows, at: Date.now() };
    return rows;
  }
}

const lagRows = new LiveRows<VoterLagRow>();
const voteRows = new LiveRows<VoterVoteRow>();

function cachedFit(stationIds: string, live: boolean): (prepared: PreparedDay) => DayFit {
  return (prepared) => {
    const cached = fitCache;
    const now = Date.now();
    if (cached?.key === prepared.key) return cached.fit;
    // Only newer counts may wait: the same stations and the same prior (hours, curve, spread).
    if (live && cached && cached.stationIds === stationIds && cached.priorKey === prepared.priorKey && now - cached.at < FIT_REFRESH_MS) return cached.fit;
    const fit = fitPrepared(prepared);
    fitCache = { key: prepared.key, priorKey: prepared.priorKey, stationIds, fit, at: now };
    return fit;
  };
}

/** Recent voter reports' delays, as the projection reads them at `now` (cached for the live projection). */
async function voterLags(q: Queries, dayStart: Date, now: Date, live: boolean): Promise<VoterLagCount[]> {
  const since = new Date(Math.max(dayStart.getTime(), now.getTime() - LAG_MODEL.windowMinutes * 60_000));
  const rows = await lagRows.read(live, since, () => voterLagRows(q, since, now));
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
async function voterVotes(q: Queries, dayStart: Date, until: Date, now: Date, live: boolean): Promise<VoterVoteCount[]> {
  const rows = await voteRows.read(live, dayStart, () => voterVoteRows(q, dayStart, until, now));
  return rows.map((row) => ({ territoryId: row.territory_id, votedMinute: new Date(row.voted_minute), count: row.n }));
}

/**
 * The projection of the election day at `now` (default: the live one). Every station's counts
 * inform the learned curve; a filter (a territory with what is inside it, a bounding box) narrows
 * which stations and sums are reported.
 */
export async function projection(q: Queries, timeZone: string, filter: StationFilter = {}, now?: Date) {
  const at = now ?? new Date();
  const live = now === undefined;
  const day = await electionDay(q);
  const dayStart = instantAt(day.electionDate, 0, timeZone);
  const filtered = filter.territoryId !== undefined || filter.bbox !== undefined || filter.ids !== undefined;
  const [stations, counts, only, lags, votes] = await Promise.all([
    stationRows(q, {}),
    countsByStation(q, dayStart),
    filtered ? stationRows(q, filter).then((rows) => new Set(rows.map((row) => row.id))) : Promise.resolve(undefined),
    voterLags(q, dayStart, at, live),
    voterVotes(q, dayStart, at, at, live),
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
  };
  return project(input, { fit: cachedFit(stations.map((station) => station.id).join(','), live) });
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
  const prior = dayPrior(settings ?? { opensAt: DEFAULT_OPENS_AT, closesAt: DEFAULT_CLOSES_AT, turnoutCurve: null, curveHistory: [] });
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
