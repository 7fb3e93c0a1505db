import type { z } from 'zod';
import type { stationProperties } from './gotv.live';
import type { Projection } from './projection/projection';
import type { TurnoutMessage } from './gotv.turnout-wire';

/** The war room sees every station; a brigade follows the stations it works. */
export const GOTV_ROOM = 'gotv';
export const stationRoom = (id: string) => `gotv:station:${id}`;

/**
 * A station's public figures (status, confirmed voters and how many voted, last count, ...): the
 * properties of its point on `GET /api/gotv/live-map`, plus the point. No personal data.
 */
export type StationEvent = z.input<typeof stationProperties> & { lat: number; lng: number };

/**
 * What `gotv:projection` pushes: the overall projection with the day's curve, near 3 KB whatever
 * the day's size. Every war-room screen parses every push, so neither the per-territory sums (over a
 * thousand territories on a national day) nor the stations ride along: screens read those from
 * `GET /api/gotv/projection?territoryId=` and `GET /api/gotv/projection/stations`.
 */
export type ProjectionSummary = Omit<Projection, 'byTerritory'>;

/**
 * An accepted report in `gotv:turnout`, as decoded from the wire (gotv.turnout-wire.ts): ids and
 * numbers only, a tuple whose first element says which kind it is and whose second is the station
 * (what a map needs first). Items carry nothing a screen cannot use: a voter item has no report id
 * because the voter is the fact's identity (only a voter's first report is accepted, so a voter
 * appears in at most one item outside rehearsals). A trailing `true` marks a rehearsal's report
 * (made before the election date).
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
    /** The projection, recomputed after new reports, pushed at most every GOTV_PROJECTION_PUSH (5 s). */
    'gotv:projection': ProjectionSummary;
    /** Reports accepted within 100 ms, as one message, packed (gotv.turnout-wire.ts). */
    'gotv:turnout': TurnoutMessage;
  }
}
