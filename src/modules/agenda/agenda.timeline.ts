import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { sql } from '../../kernel/sql';
import type { RsvpStatus } from './agenda.entities';

interface AgendaFact {
  ref: string;
  kind: 'rsvp' | 'shift_signup' | 'check_in';
  at: Date;
  event_id: string;
  event_title: string;
  starts_at: Date;
  status: RsvpStatus | null;
  shift_role: string | null;
  method: string | null;
}

const RSVP_TITLES: Record<RsvpStatus, string> = {
  going: 'Confirmó que asistirá a',
  maybe: 'Dijo que tal vez asista a',
  declined: 'Dijo que no asistirá a',
  waitlisted: 'Quedó en lista de espera para',
};

function titleOf(fact: AgendaFact): string {
  if (fact.kind === 'check_in') return `Asistió a: ${fact.event_title}`;
  if (fact.kind === 'shift_signup') return `Se inscribió a un turno (${fact.shift_role}) en: ${fact.event_title}`;
  return `${RSVP_TITLES[fact.status ?? 'going']}: ${fact.event_title}`;
}

/** A person's answers to events, the shifts they signed up for and the events they were checked in at, on their page. */
export const agendaTimeline: PersonTimelineHolder = {
  async items(q, { contactId, before, limit }) {
    const until = (column: string) => (before ? sql`and ${sql.raw(column)} < ${before}` : sql``);
    const facts = await q.rows(sql<AgendaFact>`
      (select r.id::text as ref, 'rsvp' as kind, r.responded_at as at, e.id as event_id, e.title as event_title, e.starts_at,
          r.status, null::text as shift_role, null::text as method
        from agenda_rsvps r join agenda_events e on e.id = r.event_id
        where r.contact_id = ${contactId}::uuid ${until('r.responded_at')} order by r.responded_at desc limit ${limit})
      union all
      (select u.id::text, 'shift_signup', u.created_at, e.id, e.title, e.starts_at, null, s.role, null
        from agenda_shift_signups u join agenda_shifts s on s.id = u.shift_id join agenda_events e on e.id = u.event_id
        where u.contact_id = ${contactId}::uuid ${until('u.created_at')} order by u.created_at desc limit ${limit})
      union all
      (select c.id::text, 'check_in', c.checked_in_at, e.id, e.title, e.starts_at, null, null, c.method
        from agenda_check_ins c join agenda_events e on e.id = c.event_id
        where c.contact_id = ${contactId}::uuid ${until('c.checked_in_at')} order by c.checked_in_at desc limit ${limit})`);
    return facts.map((fact): TimelineEntry => ({
      at: fact.at,
      kind: fact.kind,
      title: titleOf(fact),
      refId: fact.ref,
      detail: {
        eventId: fact.event_id,
        eventTitle: fact.event_title,
        startsAt: fact.starts_at,
        ...(fact.status ? { status: fact.status } : {}),
        ...(fact.shift_role ? { shiftRole: fact.shift_role } : {}),
        ...(fact.method ? { method: fact.method } : {}),
      },
    }));
  },

  /** An `agenda_event` origin is the event the person first answered. */
  originNames: {
    agenda_event: (ref) => sql`(select e.title from agenda_events e where e.id = ${ref})`,
  },
};
