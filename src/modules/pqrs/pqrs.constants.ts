/**
 * The desk's closed lists, with nothing but TypeScript: the entities, the clock and the schemas
 * use them, and so does the staff console, which bundles the schemas (no ORM, no holiday data).
 */

export const PQRS_TYPES = ['peticion', 'queja', 'reclamo', 'sugerencia', 'denuncia', 'consulta', 'informacion'] as const;
export type PqrsType = (typeof PQRS_TYPES)[number];

export const PQRS_CHANNELS = ['web', 'whatsapp', 'email', 'presencial', 'telefono'] as const;
export type PqrsChannel = (typeof PQRS_CHANNELS)[number];

export const PQRS_STATUSES = ['received', 'in_progress', 'waiting_citizen', 'answered', 'closed'] as const;
export type PqrsStatus = (typeof PQRS_STATUSES)[number];
/** Statuses in which the legal clock runs: the request still waits for its answer. */
export const OPEN_STATUSES: readonly PqrsStatus[] = ['received', 'in_progress', 'waiting_citizen'];

export const PQRS_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type PqrsPriority = (typeof PQRS_PRIORITIES)[number];

export const HISTORY_ACTIONS = ['filed', 'update', 'extend', 'answer', 'attachment', 'due_soon', 'notice', 'erase'] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

/** Business days to answer: 10 for documents and information, 30 for consultations, 15 for everything else. */
export function termFor(type: PqrsType): number {
  if (type === 'informacion') return 10;
  if (type === 'consulta') return 30;
  return 15;
}

/**
 * Where a request stands against its deadline, for the desk's queue: open and past it (`overdue`),
 * open with `DUE_SOON_BUSINESS_DAYS` or fewer left (`due_soon`), open with more (`on_time`), its
 * clock stopped by an answer (`answered`, closed or not) or by closing it without one (`closed`).
 */
export const DUE_STATES = ['overdue', 'due_soon', 'on_time', 'answered', 'closed'] as const;
export type DueState = (typeof DUE_STATES)[number];

/** How many business days before the deadline (the due day itself counting as 0) a request counts as due soon. */
export const DUE_SOON_BUSINESS_DAYS = 3;
