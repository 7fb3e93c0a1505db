import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import type { PqrsType } from './pqrs.entities';
import { sql } from '../../kernel/sql';
import { requestsOfContact } from './pqrs.repository';

const TYPE_NAMES: Record<PqrsType, string> = {
  peticion: 'petición',
  queja: 'queja',
  reclamo: 'reclamo',
  sugerencia: 'sugerencia',
  denuncia: 'denuncia',
  consulta: 'consulta',
  informacion: 'solicitud de información',
};

/**
 * A person's PQRS requests on their page: each filing (number, type, subject), its extension, its
 * answer and its closing. What they wrote and were answered stays on the request's own page.
 */
export const pqrsTimeline: PersonTimelineHolder = {
  async items(q, { contactId, before, limit }) {
    const items: TimelineEntry[] = [];
    for (const request of await requestsOfContact(q, contactId)) {
      const detail = { number: request.number, type: request.type, subject: request.subject, status: request.status, channel: request.channel, dueDate: request.dueDate };
      const facts: [Date | null, string, string][] = [
        [request.receivedAt, 'request_filed', `PQRS ${request.number} radicada (${TYPE_NAMES[request.type]}): ${request.subject}`],
        [request.extendedAt, 'request_extended', `Plazo de la PQRS ${request.number} prorrogado`],
        [request.answeredAt, 'request_answered', `PQRS ${request.number} respondida`],
        [request.closedAt, 'request_closed', `PQRS ${request.number} cerrada`],
      ];
      for (const [at, kind, title] of facts) if (at && (!before || at < before)) items.push({ at, kind, title, refId: request.id, detail });
    }
    return items.sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, limit);
  },

  /** A `pqrs` origin is the request the person first filed. */
  originNames: {
    pqrs: (ref) => sql`(select 'PQRS ' || r.number from pqrs_requests r where r.id = ${ref})`,
  },
};
