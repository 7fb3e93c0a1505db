import type { Dashboard, LiveMap, Projection, ProjectionSummary, StationEvent, StationFigures, TurnoutItem } from '../lib/api-types';
import type { LiveState } from '../lib/live';

export type StationState = StationFigures & { lat: number; lng: number };

/** The API's colour band for a station (gotv.live.ts `level`), kept in step as reports arrive. */
export function levelOf(confirmedVoters: number, confirmedVoted: number): StationState['level'] {
  if (confirmedVoters === 0) return 'none';
  const share = confirmedVoted / confirmedVoters;
  return share < 0.3 ? 'low' : share < 0.6 ? 'medium' : 'high';
}

export interface Totals {
  confirmed: number;
  voted: number;
  pending: number;
  open: number;
  closed: number;
  incident: number;
  pendingStations: number;
}

/**
 * What the war room shows, as plain data: loaded whole from REST, then changed by socket events.
 * Every change marks what it touched, and the screen redraws only that, once per animation frame.
 */
export class WarRoomState {
  stations = new Map<string, StationState>();
  /** Reports per hour of the campaign's day (its time zone), as the dashboard counts them. */
  hourly = new Map<number, { voterReports: number; countReports: number }>();
  projection: ProjectionSummary | undefined;
  timeZone = 'America/Bogota';
  /** Station ids that changed since the last frame. */
  readonly changed = new Set<string>();
  dirty = { stations: false, totals: false, hourly: false, projection: false };

  load(map: LiveMap, dashboard: Dashboard, projection: ProjectionSummary | undefined): void {
    this.stations = new Map(
      map.features.map((feature) => [feature.properties.id, { ...feature.properties, lng: feature.geometry.coordinates[0], lat: feature.geometry.coordinates[1] }]),
    );
    this.hourly = new Map(dashboard.hourly.map((row) => [row.hour, { voterReports: row.voterReports, countReports: row.countReports }]));
    this.timeZone = dashboard.timeZone;
    this.projection = projection;
    this.changed.clear();
    for (const id of this.stations.keys()) this.changed.add(id);
    this.dirty = { stations: true, totals: true, hourly: true, projection: true };
  }

  private hourFormat: Intl.DateTimeFormat | undefined;

  /** The hour now in the campaign's time zone (the formatter is made once: making one costs more than using it). */
  private hourNow(): number {
    if (this.hourFormat?.resolvedOptions().timeZone !== this.timeZone) {
      this.hourFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hour12: false, timeZone: this.timeZone });
    }
    return Number(this.hourFormat.format(new Date())) % 24;
  }

  applyTurnout(items: TurnoutItem[]): void {
    const hour = this.hourNow();
    const bucket = this.hourly.get(hour) ?? { voterReports: 0, countReports: 0 };
    for (const item of items) {
      const station = this.stations.get(item[1]);
      if (item[0] === 'voter') {
        bucket.voterReports++;
        if (!station) continue;
        station.confirmedVoted = Math.min(station.confirmedVoters, station.confirmedVoted + 1);
        station.level = levelOf(station.confirmedVoters, station.confirmedVoted);
        station.confirmedTurnoutPct = station.confirmedVoters ? Math.round((station.confirmedVoted / station.confirmedVoters) * 1000) / 10 : 0;
      } else {
        bucket.countReports++;
        if (!station) continue;
        // A flagged count (lower than an earlier one, above registered voters) does not move the figure.
        if (!item[4] && item[3] > station.lastCount) station.lastCount = item[3];
      }
      station.lastReportAt = new Date().toISOString();
      this.changed.add(station.id);
    }
    this.hourly.set(hour, bucket);
    this.dirty.stations = this.dirty.totals = this.dirty.hourly = true;
  }

  applyStation(event: StationEvent): void {
    const { lat, lng, ...figures } = event;
    this.stations.set(event.id, { ...(figures as StationFigures), lat, lng });
    this.changed.add(event.id);
    this.dirty.stations = this.dirty.totals = true;
  }

  applyProjection(summary: ProjectionSummary): void {
    this.projection = summary;
    this.dirty.projection = true;
  }

  totals(only?: ReadonlySet<string>): Totals {
    const totals: Totals = { confirmed: 0, voted: 0, pending: 0, open: 0, closed: 0, incident: 0, pendingStations: 0 };
    for (const station of this.stations.values()) {
      if (only && !only.has(station.id)) continue;
      totals.confirmed += station.confirmedVoters;
      totals.voted += station.confirmedVoted;
      if (station.status === 'open') totals.open++;
      else if (station.status === 'closed') totals.closed++;
      else if (station.status === 'incident') totals.incident++;
      else totals.pendingStations++;
    }
    totals.pending = totals.confirmed - totals.voted;
    return totals;
  }

  mostPending(limit: number, only?: ReadonlySet<string>): StationState[] {
    const candidates = [...this.stations.values()].filter((station) => (!only || only.has(station.id)) && station.confirmedVoters > station.confirmedVoted);
    return candidates.sort((a, b) => b.confirmedVoters - b.confirmedVoted - (a.confirmedVoters - a.confirmedVoted) || a.name.localeCompare(b.name)).slice(0, limit);
  }
}

/** The stations of the chosen territory and that territory's projection (a territory's projection is not pushed: it is asked for). */
export interface TerritoryFilter {
  territoryId: string;
  stations: Set<string>;
  projection: Projection | undefined;
}

/** What to do about a turnout window this page cannot read: reload the page (a newer server), read the figures from REST, or nothing yet. */
export type UnreadableAnswer = 'page' | 'figures' | 'nothing';

/** At most one page reload in ten minutes for windows it cannot read, so a page that still cannot read cannot loop. */
const PAGE_RELOAD_EVERY_MS = 10 * 60_000;
/** At most one reload of the figures every 30 s for them: 2,000 screens reloading at every window would flood the API. */
const FIGURES_RELOAD_EVERY_MS = 30_000;

/**
 * What the war room's screen keeps besides the figures, in one place rather than module-level
 * variables: the territory chosen, the connection's state, the day's incidents, the sound switch,
 * how many times it read REST, and the throttles of its drawing.
 */
export class ScreenState<MapView = unknown> {
  /** The map (`StationMap`, which needs a DOM: a type parameter here), once the screen is open (signed in). */
  map: MapView | undefined;
  filter: TerritoryFilter | undefined;
  liveState: LiveState = 'connecting';
  /** When the figures were last read again after missed events (a reconnection, a `resync`). */
  resyncedAt: Date | undefined;
  sound = false;
  /** Reloads from REST that completed (the page shows it as `data-loads`). */
  loads = 0;
  /** The day's incidents (id → station), from REST on every load and then live: the counter counts these, as the API does. */
  dayIncidents = new Map<string, string>();
  /** The incident photo shown in the dialog (an object URL to release). */
  photoUrl: string | undefined;
  /** A redraw is asked for the next animation frame. */
  frameRequested = false;
  /** performance.now() of the last drawing of the curve and of the pending table, and their waiting redraws. */
  curveDrawnAt = 0;
  curveTimer: number | undefined;
  pendingDrawnAt = 0;
  pendingTimer: number | undefined;
  /** The territory's projection, asked for again after pushes. */
  filterRefresh: number | undefined;
  private lastFiguresReload = 0;
  private pageReloading = false;

  /** The day's incidents at the chosen stations (all when none are chosen). */
  incidentsToday(only: ReadonlySet<string> | undefined): number {
    if (!only) return this.dayIncidents.size;
    let count = 0;
    for (const stationId of this.dayIncidents.values()) if (only.has(stationId)) count++;
    return count;
  }

  /** A live incident not counted yet: true when it is new (the counter moves). */
  countIncident(id: string, stationId: string): boolean {
    if (this.dayIncidents.has(id)) return false;
    this.dayIncidents.set(id, stationId);
    return true;
  }

  /**
   * A turnout window this page cannot read means the server is newer than the page (a deploy while
   * the screen was open): reload the page, unless it did in the last ten minutes (`lastPageReload`,
   * kept across page loads); otherwise read the figures from REST, at most every 30 s.
   */
  unreadableTurnout(now: number, lastPageReload: number): UnreadableAnswer {
    if (this.pageReloading) return 'nothing';
    if (now - lastPageReload > PAGE_RELOAD_EVERY_MS) {
      this.pageReloading = true;
      return 'page';
    }
    if (now - this.lastFiguresReload < FIGURES_RELOAD_EVERY_MS) return 'nothing';
    this.lastFiguresReload = now;
    return 'figures';
  }
}
