import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql, tables, type Queries } from '../../kernel/sql';
import { AgendaSettingsSchema, type ReminderKind } from './agenda.entities';

type SettingsTables = InferKyselyDB<typeof AgendaSettingsSchema>;
const db = tables<SettingsTables>();

export interface AgendaSettings {
  reminderTemplate: string | null;
  cancellationTemplate: string | null;
  templateLanguage: string;
  remindersEnabled: boolean;
  updatedAt: Date;
  updatedById: string | null;
}

export async function readSettings(q: Queries): Promise<AgendaSettings> {
  const row = await q.first(
    db
      .selectFrom('agenda_settings')
      .select(['reminder_template', 'cancellation_template', 'template_language', 'reminders_enabled', 'updated_at', 'updated_by_id'])
      .where('id', '=', 1),
  );
  if (!row) throw new Error('agenda_settings has no row: the Agenda migration inserts it');
  return {
    reminderTemplate: row.reminder_template ?? null,
    cancellationTemplate: row.cancellation_template ?? null,
    templateLanguage: row.template_language,
    remindersEnabled: row.reminders_enabled,
    updatedAt: row.updated_at,
    updatedById: row.updated_by_id ?? null,
  };
}

export async function saveSettings(q: Queries, settings: AgendaSettings): Promise<void> {
  await q.write(
    db
      .updateTable('agenda_settings')
      .set({
        reminder_template: settings.reminderTemplate,
        cancellation_template: settings.cancellationTemplate,
        template_language: settings.templateLanguage,
        reminders_enabled: settings.remindersEnabled,
        updated_at: settings.updatedAt,
        updated_by_id: settings.updatedById,
      })
      .where('id', '=', 1),
  );
}

/** A person due a reminder of an event, with what the message says. */
export interface DueReminder {
  eventId: string;
  contactId: string;
  title: string;
  startsAt: Date;
  endsAt: Date;
  timeZone: string;
  address: string | null;
}

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
  return tx.rows<DueReminder>(sql`
    with due as (
      select r.id from agenda_rsvps r join agenda_events e on e.id = r.event_id
      where r.status = 'going' and r.${column} is null and e.status = 'scheduled'
        and e.starts_at > now() + ${window.from}::interval and e.starts_at <= now() + ${window.to}::interval
      order by e.starts_at, r.id limit ${limit}::int
      for update of r skip locked
    ),
    claimed as (update agenda_rsvps r set ${column} = now() from due where r.id = due.id returning r.event_id, r.contact_id)
    select c.event_id as "eventId", c.contact_id as "contactId", e.title, e.starts_at as "startsAt", e.ends_at as "endsAt", e.time_zone as "timeZone", e.address
    from claimed c join agenda_events e on e.id = c.event_id`);
}

/** Everyone who expected to be at an event: going, waiting for a place, or signed up for a shift. */
export async function expectedPeople(q: Queries, eventId: string): Promise<string[]> {
  const rows = await q.rows<{ contact_id: string }>(sql`
    select contact_id from agenda_rsvps where event_id = ${eventId}::uuid and status in ('going', 'waitlisted')
    union select contact_id from agenda_shift_signups where event_id = ${eventId}::uuid`);
  return rows.map((row) => row.contact_id);
}
