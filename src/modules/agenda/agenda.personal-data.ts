import type { PersonalDataHolder } from '../../kernel/module';
import { sql, type Queries } from '../../kernel/sql';

/**
 * A person's answers, shift sign-ups and check-ins, oldest first, with the event each is about.
 * One after the other: `q` is the erasure's transaction, a single connection.
 */
async function participationOf(q: Queries, contactId: string) {
  const rsvps = await q.rows<{ eventId: string; eventTitle: string; status: string; respondedAt: Date }>(sql`
      select r.event_id as "eventId", e.title as "eventTitle", r.status, r.responded_at as "respondedAt"
      from agenda_rsvps r join agenda_events e on e.id = r.event_id where r.contact_id = ${contactId}::uuid order by r.responded_at, r.id`);
  const signups = await q.rows<{ eventId: string; eventTitle: string; shiftRole: string; signedUpAt: Date }>(sql`
      select u.event_id as "eventId", e.title as "eventTitle", s.role as "shiftRole", u.created_at as "signedUpAt"
      from agenda_shift_signups u join agenda_shifts s on s.id = u.shift_id join agenda_events e on e.id = u.event_id
      where u.contact_id = ${contactId}::uuid order by u.created_at, u.id`);
  const checkIns = await q.rows<{ eventId: string; eventTitle: string; method: string; checkedInAt: Date }>(sql`
      select c.event_id as "eventId", e.title as "eventTitle", c.method, c.checked_in_at as "checkedInAt"
      from agenda_check_ins c join agenda_events e on e.id = c.event_id where c.contact_id = ${contactId}::uuid order by c.checked_in_at, c.id`);
  return { rsvps, signups, checkIns };
}

/**
 * What the agenda holds about a person: their answers, sign-ups and check-ins (no personal
 * columns: they point at the contact, whose data audience erases). Erasure keeps past
 * participation, so events' attendance figures stay true and name nobody once the contact is
 * erased; it drops what was still to come (answers and sign-ups for events not over, so no one
 * waits for them) and the link to a user account.
 */
export const agendaPersonalData: PersonalDataHolder = {
  async export(q, personId) {
    const { rsvps, signups, checkIns } = await participationOf(q, personId);
    return { rsvps, shiftSignups: signups, checkIns };
  },

  async erase(q, personId) {
    const upcoming = sql`(select id from agenda_events where ends_at > now() and status in ('draft', 'scheduled'))`;
    const rsvps = await q.write(sql`delete from agenda_rsvps where contact_id = ${personId}::uuid and event_id in ${upcoming}`);
    const signups = await q.write(sql`delete from agenda_shift_signups where contact_id = ${personId}::uuid and event_id in ${upcoming}`);
    const links = await q.write(sql`delete from agenda_user_contacts where contact_id = ${personId}::uuid`);
    return { upcomingRsvps: rsvps.count, upcomingShiftSignups: signups.count, accountLinks: links.count };
  },
};
