import type { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { eventPoints } from '../agenda';
import { stationFigures } from '../gotv';
import { pqrsByTerritory } from '../pqrs';
import { leadsByTerritory, posterCodePoints, scansByTerritory } from '../qr';
import { territoriesForMap, type MapTerritory } from '../territories';
import { activitiesByTerritory, volunteersByTerritory } from '../volunteers';
import { ACTIVITY_DAYS } from './dashboard.heatmap';
import { GEO_LAYERS, type GeospatialInput, type geospatialView } from './dashboard.schemas';

type Deps = Pick<AppDeps, 'db' | 'config'>;
type View = z.input<typeof geospatialView>;
type Feature = View['features'][number];
type Bbox = [number, number, number, number];

const DAY_MS = 86_400_000;
/** Events on the map: from a day ago (still running) to this many days ahead. */
const EVENT_DAYS_AHEAD = 30;

const TERRITORY_METRICS = ['leads', 'scans', 'volunteers', 'activities', 'pqrs', 'pqrsOpen', 'supporters', 'voted'] as const;
type TerritoryMetric = (typeof TERRITORY_METRICS)[number];

const point = (lng: number, lat: number) => ({ type: 'Point' as const, coordinates: [lng, lat] as [number, number] });
const inBox = (lng: number, lat: number, bbox: Bbox | undefined) => !bbox || (lng >= bbox[0] && lng <= bbox[2] && lat >= bbox[1] && lat <= bbox[3]);

/** The territory's extent: its geometry's bounding box, else its centroid; none when neither is known. */
function extentOf(territory: MapTerritory): Bbox | undefined {
  const geometry = territory.geometry;
  if (geometry) {
    const box: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
    const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
    for (const polygon of polygons)
      for (const ring of polygon)
        for (const [lng, lat] of ring) {
          box[0] = Math.min(box[0], lng);
          box[1] = Math.min(box[1], lat);
          box[2] = Math.max(box[2], lng);
          box[3] = Math.max(box[3], lat);
        }
    return box;
  }
  if (territory.centroidLat !== null && territory.centroidLng !== null) return [territory.centroidLng, territory.centroidLat, territory.centroidLng, territory.centroidLat];
  return undefined;
}

const overlaps = (a: Bbox, b: Bbox) => a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1];

/**
 * Territories (with their figures rolled up: a comuna counts its barrios) and the point layers, as
 * one GeoJSON FeatureCollection; `territoryId` keeps that territory and what lies inside it, `bbox`
 * what falls in the box (points) or overlaps it (territories by their extent).
 */
export async function geospatial(deps: Deps, input: GeospatialInput, now = new Date()): Promise<View> {
  const layers = input.layers ?? [...GEO_LAYERS];
  const want = (layer: (typeof GEO_LAYERS)[number]) => layers.includes(layer);
  const { db } = deps;
  const needFigures = want('territories');
  const [territories, leads, scans, volunteers, activities, pqrs, stations, events, codes] = await Promise.all([
    territoriesForMap(db, want('territories')),
    needFigures ? leadsByTerritory(db) : [],
    needFigures ? scansByTerritory(db) : [],
    needFigures ? volunteersByTerritory(db) : [],
    needFigures ? activitiesByTerritory(db, new Date(now.getTime() - ACTIVITY_DAYS * DAY_MS)) : [],
    needFigures || want('pqrs') ? pqrsByTerritory(db) : [],
    needFigures || want('stations') ? stationFigures(db) : [],
    want('events') ? eventPoints(db, new Date(now.getTime() - DAY_MS), new Date(now.getTime() + EVENT_DAYS_AHEAD * DAY_MS)) : [],
    want('posterCodes') ? posterCodePoints(db) : [],
  ]);

  const byId = new Map(territories.map((territory) => [territory.id, territory]));
  // The territories in scope: all, or the one asked for and its descendants.
  let scope: Set<string> | undefined;
  if (input.territoryId) {
    scope = new Set([input.territoryId]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const territory of territories)
        if (territory.parentId && scope.has(territory.parentId) && !scope.has(territory.id)) {
          scope.add(territory.id);
          grew = true;
        }
    }
  }
  const inScope = (territoryId: string | null) => !scope || (territoryId !== null && scope.has(territoryId));

  // Each figure counts for its territory and every territory above it.
  const figures = new Map<string, Record<TerritoryMetric, number>>();
  const add = (territoryId: string | null, metric: TerritoryMetric, count: number) => {
    for (let current = territoryId ? byId.get(territoryId) : undefined, depth = 0; current && depth < 16; depth += 1) {
      let row = figures.get(current.id);
      if (!row) {
        row = Object.fromEntries(TERRITORY_METRICS.map((name) => [name, 0])) as Record<TerritoryMetric, number>;
        figures.set(current.id, row);
      }
      row[metric] += count;
      current = current.parentId ? byId.get(current.parentId) : undefined;
    }
  };
  if (needFigures) {
    for (const row of leads) add(row.territoryId, 'leads', row.count);
    for (const row of scans) add(row.territoryId, 'scans', row.count);
    for (const row of volunteers) add(row.territoryId, 'volunteers', row.count);
    for (const row of activities) add(row.territoryId, 'activities', row.count);
    for (const row of pqrs) {
      add(row.territoryId, 'pqrs', row.count);
      add(row.territoryId, 'pqrsOpen', row.open);
    }
    for (const station of stations) {
      add(station.territoryId, 'supporters', station.confirmedVoters);
      add(station.territoryId, 'voted', station.confirmedVoted);
    }
  }

  const features: Feature[] = [];
  if (want('territories')) {
    for (const territory of territories) {
      if (!inScope(territory.id)) continue;
      const extent = extentOf(territory);
      if (input.bbox && (!extent || !overlaps(extent, input.bbox))) continue;
      features.push({
        type: 'Feature',
        id: `territory:${territory.id}`,
        geometry: territory.geometry,
        properties: {
          layer: 'territories',
          id: territory.id,
          name: territory.name,
          type: territory.type,
          code: territory.code,
          parentId: territory.parentId,
          population: territory.population,
          registeredVoters: territory.registeredVoters,
          centroid: territory.centroidLat !== null && territory.centroidLng !== null ? { lat: territory.centroidLat, lng: territory.centroidLng } : null,
          ...(figures.get(territory.id) ?? Object.fromEntries(TERRITORY_METRICS.map((name) => [name, 0]))),
        },
      });
    }
  }
  if (want('stations')) {
    for (const station of stations) {
      if (!inScope(station.territoryId) || !inBox(station.lng, station.lat, input.bbox)) continue;
      features.push({
        type: 'Feature',
        id: `station:${station.id}`,
        geometry: point(station.lng, station.lat),
        properties: {
          layer: 'stations',
          id: station.id,
          code: station.code,
          name: station.name,
          status: station.status,
          territoryId: station.territoryId,
          registeredVoters: station.registeredVoters,
          supporters: station.confirmedVoters,
          voted: station.confirmedVoted,
        },
      });
    }
  }
  if (want('events')) {
    for (const event of events) {
      if (!inScope(event.territoryId) || !inBox(event.lng, event.lat, input.bbox)) continue;
      features.push({
        type: 'Feature',
        id: `event:${event.id}`,
        geometry: point(event.lng, event.lat),
        properties: {
          layer: 'events',
          id: event.id,
          title: event.title,
          eventType: event.type,
          startsAt: event.startsAt.toISOString(),
          territoryId: event.territoryId,
          going: event.going,
        },
      });
    }
  }
  if (want('posterCodes')) {
    for (const code of codes) {
      if (!inScope(code.territoryId) || !inBox(code.lng, code.lat, input.bbox)) continue;
      features.push({
        type: 'Feature',
        id: `posterCode:${code.id}`,
        geometry: point(code.lng, code.lat),
        properties: {
          layer: 'posterCodes',
          id: code.id,
          code: code.code,
          label: code.label,
          campaignId: code.campaignId,
          territoryId: code.territoryId,
          removed: code.removed,
          scans: code.scans,
          leads: code.leads,
        },
      });
    }
  }
  if (want('pqrs')) {
    // Requests carry a territory, not a spot: one point per territory, at its centroid.
    for (const row of pqrs) {
      const territory = byId.get(row.territoryId);
      if (!territory || territory.centroidLat === null || territory.centroidLng === null) continue;
      if (!inScope(territory.id) || !inBox(territory.centroidLng, territory.centroidLat, input.bbox)) continue;
      features.push({
        type: 'Feature',
        id: `pqrs:${territory.id}`,
        geometry: point(territory.centroidLng, territory.centroidLat),
        properties: { layer: 'pqrs', territoryId: territory.id, name: territory.name, requests: row.count, open: row.open },
      });
    }
  }
  return { type: 'FeatureCollection', layers, features };
}
