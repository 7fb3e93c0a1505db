import type { JsonValue, PersonalDataHolder } from '../../kernel/module';
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
 *
 * A merge moves the other record's answers, sign-ups, check-ins and account links to the survivor.
 * Where both have one for the same event or shift (one per person), one stays: of two answers the
 * later (what the person said last), of two check-ins the earlier (they were there from then), of
 * two sign-ups to a shift the survivor's. The other is removed, kept with the merge for its undo.
 * A place freed on a full event is not offered to its waitlist by the merge.
 */
export const agendaPersonalData: PersonalDataHolder = {
  freeText: [
    { table: 'agenda_events', column: 'description', kind: 'eventDescriptions' },
    { table: 'agenda_tasks', column: 'title', kind: 'taskTitles', record: 'event_id' },
    { table: 'agenda_tasks', column: 'notes', kind: 'taskNotes', record: 'event_id' },
    { table: 'agenda_allocations', column: 'notes', kind: 'allocationNotes', record: 'event_id' },
  ],
  /** The login accounts that answer events as the person: theirs, which auth erases with them. */
  async keys(q, personId) {
    const rows = await q.rows<{ user_id: string }>(sql`select user_id from agenda_user_contacts where contact_id = ${personId}::uuid`);
    return { userIds: rows.map((row) => row.user_id) };
  },

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

  async merge(q, fromId, intoId) {
    // Rows of both for the same event (shift), locked; which of the two goes is `loser` (the other stays).
    const clashes = async (table: string, key: string, loserIsFromWhen: string) =>
      q.rows(
        sql<{ row: Row }>`
        select to_jsonb(case when ${sql.raw(loserIsFromWhen)} then f else s end) as row
        from ${sql.raw(table)} f join ${sql.raw(table)} s on s.${sql.raw(key)} = f.${sql.raw(key)} and s.contact_id = ${intoId}::uuid
        where f.contact_id = ${fromId}::uuid order by f.id for update of f, s`,
      );
    const rsvps = await clashes('agenda_rsvps', 'event_id', '(f.responded_at, f.id) <= (s.responded_at, s.id)');
    const checkIns = await clashes('agenda_check_ins', 'event_id', '(f.checked_in_at, f.id) >= (s.checked_in_at, s.id)');
    const signups = await clashes('agenda_shift_signups', 'shift_id', 'true');
    const drop = async (table: string, rows: { row: Row }[]) => {
      const ids = rows.map(({ row }) => row.id as string);
      if (ids.length) await q.write(sql`delete from ${sql.raw(table)} where id = any(${ids}::uuid[])`);
    };
    await drop('agenda_rsvps', rsvps);
    await drop('agenda_check_ins', checkIns);
    await drop('agenda_shift_signups', signups);
    const move = async (table: string, id = 'id') =>
      (
        await q.write(sql<{ id: string }>`update ${sql.raw(table)} set contact_id = ${intoId}::uuid where contact_id = ${fromId}::uuid returning ${sql.raw(id)}::text as id`)
      ).rows.map((row) => row.id);
    return {
      moved: {
        agenda_rsvps: await move('agenda_rsvps'),
        agenda_check_ins: await move('agenda_check_ins'),
        agenda_shift_signups: await move('agenda_shift_signups'),
        agenda_user_contacts: await move('agenda_user_contacts', 'user_id'),
      },
      combined: { rsvpsDropped: rsvps.length, checkInsDropped: checkIns.length, shiftSignupsDropped: signups.length },
      undo: {
        dropped: {
          agenda_rsvps: rsvps.map(({ row }) => row),
          agenda_check_ins: checkIns.map(({ row }) => row),
          agenda_shift_signups: signups.map(({ row }) => row),
        },
      },
    };
  },

  async unmerge(q, moves, fromId, intoId) {
    const tables = ['agenda_rsvps', 'agenda_check_ins', 'agenda_shift_signups'] as const;
    const dropped = (moves.undo?.dropped ?? {}) as Partial<Record<(typeof tables)[number], Row[]>>;
    // Moved rows return before dropped ones come back, so a pair's two rows never share a contact.
    for (const table of tables) {
      const ids = moves.moved[table] ?? [];
      if (ids.length) await q.write(sql`update ${sql.raw(table)} set contact_id = ${fromId}::uuid where id = any(${ids}::uuid[]) and contact_id = ${intoId}::uuid`);
      const rows = dropped[table] ?? [];
      if (rows.length) await q.write(sql`insert into ${sql.raw(table)} select * from jsonb_populate_recordset(null::${sql.raw(table)}, ${JSON.stringify(rows)}::jsonb)`);
    }
    const links = moves.moved.agenda_user_contacts ?? [];
    if (links.length) await q.write(sql`update agenda_user_contacts set contact_id = ${fromId}::uuid where user_id = any(${links}::uuid[]) and contact_id = ${intoId}::uuid`);
  },
};

/** A row as one JSON value (`to_jsonb(row)`), to put back exactly as it was. */
type Row = { [column: string]: JsonValue };
