import type { EventStatus, EventType, Visibility } from './agenda.entities';

/** The agenda's live room. */
export const AGENDA_ROOM = 'agenda';

export interface AgendaEventSummary {
  id: string;
  title: string;
  type: EventType;
  startsAt: string;
  endsAt: string;
  timeZone: string;
  status: EventStatus;
  visibility: Visibility;
  territoryId: string | null;
}

/** Going and checked-in counts of the events whose doors are open now. */
export interface AgendaAttendance {
  events: Array<{ eventId: string; going: number; checkedIn: number; capacity: number | null }>;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'agenda:event': { action: 'created' | 'changed' | 'cancelled'; event: AgendaEventSummary };
    'agenda:attendance': AgendaAttendance;
  }
}
