import type { EventCheck, ReliabilitySource } from './volunteers.service';

/**
 * What volunteers read from the agenda module: whether an event exists, and each volunteer's
 * attendance record. Without the agenda, activities name no event and the list no reliability.
 */
export const agendaHooks: { eventExists?: EventCheck; reliability?: ReliabilitySource } = {};
