import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import type { TerritoryDetail } from '../lib/api-types';
import type { StationState } from './state';

export interface TileConfig {
  url: string;
  attribution: string;
}

/** Colour of a station: its incident first, else how many of its confirmed supporters voted (the API's `level`). */
export function stationColour(station: StationState): string {
  if (station.status === 'incident') return '#ff4d6d';
  return { none: '#8a94a6', low: '#f28c28', medium: '#f2d024', high: '#2ecc71' }[station.level];
}

/** Marker radius grows with the square root of confirmed supporters, so area tracks the number. */
function radius(station: StationState): number {
  return Math.max(4, Math.min(22, 3 + Math.sqrt(station.confirmedVoters) * 0.9));
}

/**
 * The war room's map: territory outlines and one circle per station on a plain background, or over
 * the campaign's own tile server when MAP_TILE_URL is set. Circles are drawn on one canvas, which
 * Leaflet redraws once per frame however many of them changed.
 */
export class StationMap {
  private readonly map: L.Map;
  private readonly renderer = L.canvas({ padding: 0.2 });
  private readonly markers = new Map<string, L.CircleMarker>();
  private readonly shown = new Map<string, StationState>();
  private readonly outlines = L.layerGroup();
  private fitted = false;
  /** Whether only some stations are shown (a territory filter). */
  filtered = false;

  constructor(element: HTMLElement, tiles: TileConfig | undefined) {
    this.map = L.map(element, { preferCanvas: true, zoomSnap: 0.25, attributionControl: Boolean(tiles), zoomControl: true });
    if (tiles) L.tileLayer(tiles.url, { attribution: tiles.attribution, maxZoom: 19 }).addTo(this.map);
    this.outlines.addTo(this.map);
    this.map.setView([4.65, -74.1], 11);
  }

  showTerritories(territories: TerritoryDetail[]): void {
    this.outlines.clearLayers();
    for (const territory of territories) {
      if (!territory.geometry) continue;
      const layer = L.geoJSON(territory.geometry as GeoJSON.GeoJsonObject, {
        style: { color: '#6c8ebf', weight: 1.5, fillColor: '#1d2b44', fillOpacity: 0.35 },
        interactive: false,
      });
      const label = document.createElement('span');
      label.textContent = territory.name;
      layer.bindTooltip(label);
      this.outlines.addLayer(layer);
    }
    this.fit();
  }

  /** Adds, moves or restyles the given stations; removes those not in `keep` when it is given. */
  update(stations: Iterable<StationState>, keep?: ReadonlySet<string>): void {
    for (const station of stations) {
      const style = { radius: radius(station), fillColor: stationColour(station), color: station.status === 'incident' ? '#ffffff' : '#0b1220' };
      this.shown.set(station.id, station);
      const marker = this.markers.get(station.id);
      if (marker) {
        marker.setStyle(style);
        marker.setRadius(style.radius);
        continue;
      }
      const created = L.circleMarker([station.lat, station.lng], { ...style, renderer: this.renderer, weight: 1, fillOpacity: 0.9 });
      const id = station.id;
      created.bindTooltip(() => {
        const now = this.shown.get(id) ?? station;
        // An element, not a string: Leaflet puts strings in as HTML, and names come from users.
        const text = document.createElement('span');
        text.textContent = `${now.name} (${now.code}): ${now.confirmedVoted} de ${now.confirmedVoters} apoyos votaron`;
        return text;
      });
      created.addTo(this.map);
      this.markers.set(station.id, created);
    }
    if (keep) {
      for (const [id, marker] of this.markers) {
        if (!keep.has(id)) {
          marker.remove();
          this.markers.delete(id);
          this.shown.delete(id);
        }
      }
    }
    if (!this.fitted && this.markers.size) this.fit();
  }

  /** Frames every station shown (after the first load and after a territory filter). */
  fit(): void {
    const bounds = L.latLngBounds([...this.markers.values()].map((marker) => marker.getLatLng()));
    // Outlines frame the view only before a territory filter narrows it to its stations.
    if (!this.filtered) this.outlines.eachLayer((layer) => bounds.extend((layer as L.GeoJSON).getBounds()));
    if (!bounds.isValid()) return;
    this.fitted = true;
    this.map.fitBounds(bounds, { padding: [24, 24], maxZoom: 15 });
  }

  invalidate(): void {
    this.map.invalidateSize();
  }
}
