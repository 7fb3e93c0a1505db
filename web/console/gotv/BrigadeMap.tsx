/**
 * A brigade's scope on a map: its stations, one circle each, over the campaign's tile server when
 * MAP_TILE_URL is set (the war room's meta tags) or a plain background. Leaflet is its own chunk,
 * loaded when a brigade is first opened.
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useRef } from 'react';
import type { Station } from './gotv';

function tiles(): { url: string; attribution: string } | undefined {
  const url = document.querySelector<HTMLMetaElement>('meta[name="comando:map-tiles"]')?.content;
  if (!url) return undefined;
  return { url, attribution: document.querySelector<HTMLMetaElement>('meta[name="comando:map-attribution"]')?.content ?? '' };
}

const COLOURS: Record<Station['status'], string> = { pending: '#5c6b80', open: '#1c7c3c', closed: '#1d4f91', incident: '#c92a2a' };

export default function BrigadeMap({ stations, label }: { stations: Station[]; label: string }) {
  const element = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);

  useEffect(() => {
    if (!element.current) return;
    const server = tiles();
    const created = L.map(element.current, { zoomSnap: 0.25, attributionControl: Boolean(server), keyboard: true });
    if (server) L.tileLayer(server.url, { attribution: server.attribution, maxZoom: 19 }).addTo(created);
    created.setView([4.65, -74.1], 11);
    layer.current = L.layerGroup().addTo(created);
    map.current = created;
    return () => {
      created.remove();
      map.current = null;
    };
  }, []);

  useEffect(() => {
    const current = map.current;
    if (!current || !layer.current) return;
    layer.current.clearLayers();
    const points: L.LatLngExpression[] = [];
    for (const station of stations) {
      const marker = L.circleMarker([station.lat, station.lng], { radius: 8, color: '#0b1220', weight: 1, fillColor: COLOURS[station.status], fillOpacity: 0.9 });
      // An element, not a string: Leaflet puts strings in as HTML, and names come from users.
      const text = document.createElement('span');
      text.textContent = `${station.name} (${station.code})`;
      marker.bindTooltip(text);
      layer.current.addLayer(marker);
      points.push([station.lat, station.lng]);
    }
    // The area the brigade covers: the stations' outline when there are three or more.
    if (points.length >= 3) layer.current.addLayer(L.polygon(hull(stations), { color: '#1d4f91', weight: 1.5, fillOpacity: 0.08, interactive: false }));
    if (points.length) current.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 15 });
  }, [stations]);

  // A region, not an image: the map holds its own controls (zoom).
  return <div ref={element} role="region" aria-label={label} style={{ height: 320, borderRadius: 4, background: '#e9eef5' }} />;
}

/** The convex hull of the stations (Andrew's monotone chain), as the polygon of the brigade's area. */
function hull(stations: Station[]): L.LatLngExpression[] {
  const points = [...new Map(stations.map((station) => [`${station.lng},${station.lat}`, [station.lng, station.lat] as const])).values()].sort(
    (a, b) => a[0] - b[0] || a[1] - b[1],
  );
  const cross = (o: readonly [number, number], a: readonly [number, number], b: readonly [number, number]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: (readonly [number, number])[]) => {
    const chain: (readonly [number, number])[] = [];
    for (const point of list) {
      while (chain.length >= 2 && cross(chain[chain.length - 2]!, chain[chain.length - 1]!, point) <= 0) chain.pop();
      chain.push(point);
    }
    chain.pop();
    return chain;
  };
  return [...half(points), ...half([...points].reverse())].map(([lng, lat]) => [lat, lng]);
}
