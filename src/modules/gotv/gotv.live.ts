import { z } from 'zod';
import type { Queries } from '../../kernel/sql';
import { instantAt } from '../../kernel/calendar';
import { STATION_STATUSES } from './gotv.entities';
import type { StationEvent } from './gotv.events';
import { countReportsSince, stationRows, type StationFilter, type StationRow } from './gotv.live.repository';
import { project, stationFigure, type StationInput } from './gotv.projection';
import { electionDay, liveDayStart } from './gotv.settings';

export type { StationFilter } from './gotv.live.repository';

type CountsByStation = Map<string, { votersSoFar: number; reportedAt: Date }[]>;

/** Count reports since `since` (the engine keeps the figures at `now`), of some stations or all, by station. */
async function countsByStation(q: Queries, since: Date, ids?: string[]): Promise<CountsByStation> {
  const byStation: CountsByStation = new Map();
  for (const row of await countReportsSince(q, since, ids)) {
    const list = byStation.get(row.station_id) ?? [];
    list.push({ votersSoFar: row.voters_so_far, reportedAt: new Date(row.reported_at) });
    byStation.set(row.station_id, list);
  }
  return byStation;
}

export async function projection(q: Queries, timeZone: string, filter: StationFilter = {}, now = new Date()) {
  const { electionDate, curve } = await electionDay(q);
  const dayStart = instantAt(electionDate, 0, timeZone);
  const [stations, counts] = await Promise.all([stationRows(q, filter), countsByStation(q, dayStart)]);
  const input: StationInput[] = stations.map((station) => ({
    id: station.id,
    territoryId: station.territory_id,
    registeredVoters: station.registered_voters,
    confirmedVoters: station.confirmed_voters,
    confirmedVoted: station.confirmed_voted,
    counts: counts.get(station.id) ?? [],
  }));
  return project({ now, timeZone, electionDate, curve, stations: input });
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
  lastReportAt: z.iso.datetime().nullable(),
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
