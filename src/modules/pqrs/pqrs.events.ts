import type { DueState } from './pqrs.clock';
import type { PqrsPriority, PqrsStatus, PqrsType } from './pqrs.entities';

/** What moved on the desk; no personal data (viewers follow the room too). */
export interface PqrsRequestEvent {
  action: 'filed' | 'updated' | 'answered' | 'extended' | 'attachment' | 'due_soon';
  id: string;
  number: string;
  type: PqrsType;
  status: PqrsStatus;
  priority: PqrsPriority;
  assigneeId: string | null;
  dueDate: string;
  dueAt: string;
  /** At the time of the event; the row's countdown moves on by itself each business day. */
  businessDaysLeft: number;
  dueState: DueState;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    'pqrs:request': PqrsRequestEvent;
  }
}
