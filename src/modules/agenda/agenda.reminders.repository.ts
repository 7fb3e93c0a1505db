import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { AgendaEventSchema, AgendaRsvpSchema, AgendaSettingsSchema, AgendaShiftSignupSchema, type ReminderKind } from './agenda.entities';

type RemindersTables = InferKyselyDB<typeof AgendaSettingsSchema | typeof AgendaEventSchema | typeof AgendaRsvpSchema | typeof AgendaShiftSignupSchema>;
const db = tables<RemindersTables>();

const settingsColumns = ['reminder_template', 'cancellation_template', 'template_language', 'reminders_enabled', 'updated_at', 'updated_by_id'] as const;
export type AgendaSettings = CamelCased<Pick<Selectable<RemindersTables['agenda_settings']>, (typeof settingsColumns)[number]>>;

export async function readSettings(q: Queries): Promise<AgendaSettings> {
  const row = await q.first(db.selectFrom('agenda_settings').select(settingsColumns).where('id', '=', 1));
  if (!row) throw new Error('agenda_settings has no row: the Agenda migration inserts it');
  return camelRow(row);
}

export async function saveSettings(q: Queries, settings: AgendaSettings): Promise<void> {
  await q.write(db.updateTable('agenda_settings').set(snakeRow(settings)).where('id', '=', 1));
}

type DueReminderRow = Pick<Selectable<RemindersTables['agenda_rsvps']>, 'event_id' | 'contact_id'> &
  Pick<Selectable<RemindersTables['agenda_events']>, 'title' | 'starts_at' | 'ends_at' | 'time_zone' | 'address'>;

/** A person due a reminder of an event, with what the message says. */
export type DueReminder = CamelCased<DueReminderRow>;

/**
 * When each reminder is due: the day-before one once the event is less than a day away (but still
 * more than two hours, else only the later one makes sense), the two-hour one inside two hours.
 */
const windows: Record<ReminderKind, { column: string; from: string; to: string }> = {
  day_before: { column: 'day_reminder_at', from: '2 hours', to: '24 hours' },
  two_hours: { column: 'hours_reminder_at', from: '0 seconds', to: '2 hours' },
};

/**
 * Claims up to `limit` answers due this kind of reminder and marks them reminded, in one
 * statement on the caller's transaction: rows another process is claiming are skipped (`skip
 * locked`), and should the transaction roll back, they are due again.
 */
export async function claimDueReminders(tx: Queries, kind: ReminderKind, limit: number): Promise<DueReminder[]> {
  const window = windows[kind];
  const column = sql.raw(window.column);
  const rows = await tx.rows<DueReminderRow>(sql`
    with due as (
      select r.id from agenda_rsvps r join agenda_events e on e.id = r.event_id
      where r.status = 'going' and r.${column} is null and e.status = 'scheduled'
        and e.starts_at > now() + ${window.from}::interval and e.starts_at <= now() + ${window.to}::interval
      order by e.starts_at, r.id limit ${limit}::int
      for update of r skip locked
    ),
    claimed as (update agenda_rsvps r set ${column} = now() from due where r.id = due.id returning r.event_id, r.contact_id)
    select c.event_id, c.contact_id, e.title, e.starts_at, e.ends_at, e.time_zone, e.address
    from claimed c join agenda_events e on e.id = c.event_id`);
  return rows.map((row) => camelRow(row));
}

/** Everyone who expected to be at an event: going, waiting for a place, or signed up for a shift. */
export async function expectedPeople(q: Queries, eventId: string): Promise<string[]> {
  const answered = db.selectFrom('agenda_rsvps').select('contact_id').where('event_id', '=', eventId).where('status', 'in', ['going', 'waitlisted']);
  const signedUp = db.selectFrom('agenda_shift_signups').select('contact_id').where('event_id', '=', eventId);
  return (await q.rows(answered.union(signedUp))).map((row) => row.contact_id);
}
