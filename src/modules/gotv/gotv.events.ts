import type { z } from 'zod';
import type { stationProperties } from './gotv.live';
import type { Projection } from './gotv.projection';

/** The war room sees every station; a brigade follows the stations it works. */
export const GOTV_ROOM = 'gotv';
export const stationRoom = (id: string) => `gotv:station:${id}`;

/**
 * A station's public figures (status, confirmed voters and how many voted, last count, ...): the
 * properties of its point on `GET /api/gotv/live-map`, plus the point. No personal data.
 */
export type StationEvent = z.input<typeof stationProperties> & { lat: number; lng: number };

/**
 * What `gotv:projection` pushes: the projection without its per-station list. Every war-room
 * screen gets it every second, so it stays a few kilobytes: about 2 KB plus 1 KB per territory,
 * most of it the hourly curve with its band (per-station figures: 300 stations were ≈ 100 KB a
 * push); screens read the stations from `GET /api/gotv/projection`.
 */
export type ProjectionSummary = Omit<Projection, 'stations'>;

/**
 * An accepted report in `gotv:turnout`: ids and numbers only, as a tuple whose first element says
 * which kind it is and whose second is the station (what a map needs first). Every war-room screen
 * parses every item (2,000 screens × hundreds of reports a second on election day), so items carry
 * nothing a screen cannot use: tuples cost about half of what objects with repeated key names cost
 * to send and parse, and a voter item has no report id because the voter is the fact's identity
 * (only a voter's first report is accepted, so a voter appears in at most one item outside
 * rehearsals). A trailing `true` marks a rehearsal's report (made before the election date).
 * `docs/api.md` documents the positions.
 */
export type TurnoutItem =
  | [kind: 'voter', stationId: string, voterId: string, rehearsal?: true]
  | [kind: 'count', stationId: string, reportId: string, votersSoFar: number, flagged: boolean, rehearsal?: true];

/** Sent when an incident is reported, and again (same id, `photo: true`) when its photo arrives. */
export interface IncidentEvent {
  id: string;
  stationId: string;
  type: string;
  severity: string;
  createdAt: string;
  photo: boolean;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'gotv:station': StationEvent;
    'gotv:incident': IncidentEvent;
    /** The projection, recomputed after new reports, pushed at most once a second. */
    'gotv:projection': ProjectionSummary;
    /** Reports accepted within 100 ms, as one message. */
    'gotv:turnout': { items: TurnoutItem[] };
  }
}
