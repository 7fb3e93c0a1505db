import type { TerritoryType } from './territories.entities';

/** Maps add a new territory without reloading: ids and public names only. */
export interface TerritoryCreatedEvent {
  id: string;
  name: string;
  type: TerritoryType;
  parentId: string | null;
}

/** A territory was deleted: maps drop it. */
export interface TerritoryDeletedEvent {
  id: string;
}

export const TERRITORIES_ROOM = 'territories';

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'territories:created': TerritoryCreatedEvent;
    /** A territory's name, level or parent changed. */
    'territories:updated': TerritoryCreatedEvent;
    'territories:deleted': TerritoryDeletedEvent;
  }
}
