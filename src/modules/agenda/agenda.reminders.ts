import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import type { Queries } from '../../kernel/sql';
import { dispatchNotices, queueNotice, type NoticeChannel, type NoticeRequest } from '../notices';
import { REMINDER_KINDS, type ReminderKind } from './agenda.entities';
import type { EventRecord } from './agenda.repository';
import { claimDueReminders, expectedPeople, readSettings, saveSettings, type AgendaSettings, type DueReminder } from './agenda.reminders.repository';

/** How often each process looks for due reminders; claims make it safe for every process to look. */
export const REMINDER_SWEEP_MS = 60_000;
/** Reminders claimed per statement; a sweep repeats until none are due. */
const CLAIM_BATCH = 200;

const whenFormatters = new Map<string, Intl.DateTimeFormat>();

/** "sábado, 20 de marzo, 7:00 p. m." in the event's own zone. */
export function spokenWhen(instant: Date, timeZone: string): string {
  let formatter = whenFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('es-CO', { timeZone, weekday: 'long', day: 'numeric', month: 'long', hour: 'numeric', minute: '2-digit' });
    whenFormatters.set(timeZone, formatter);
  }
  return formatter.format(instant);
}

type MessageEvent = Pick<DueReminder, 'eventId' | 'title' | 'startsAt' | 'timeZone' | 'address'>;

/**
 * What a notice about an event says. WhatsApp uses the template staff chose (its three
 * placeholders: title, when, where); without one, the notice goes by email only.
 */
function eventNotice(settings: AgendaSettings, template: string | null, event: MessageEvent, contactId: string, key: string, purpose: string, lead: string): NoticeRequest {
  const when = spokenWhen(event.startsAt, event.timeZone);
  const where = event.address ?? 'lugar por confirmar';
  const channels: NoticeChannel[] = template ? ['whatsapp', 'email'] : ['email'];
  return {
    key,
    contactId,
    purpose,
    channels,
    ...(template ? { whatsapp: { template, language: settings.templateLanguage, params: [event.title, when, where] } } : {}),
    email: {
      subject: `${lead}: ${event.title}`.slice(0, 300),
      text: `${lead}: ${event.title}\nCuándo: ${when}\nDónde: ${where}\n`,
    },
  };
}

const KIND_LEAD: Record<ReminderKind, string> = { day_before: 'Te esperamos mañana', two_hours: 'Te esperamos en dos horas' };

/**
 * Queues the reminders that are due, in batches: each batch's claim and its notices commit
 * together. Two processes sweeping at once claim different rows (skip locked), and the notice key
 * (event, person, kind and the event's start) would stop a second message even if they did not;
 * a moved event re-arms its reminders with a new key. Returns how many were queued.
 */
export async function sendDueReminders(deps: AppDeps): Promise<number> {
  const settings = await readSettings(deps.db);
  if (!settings.remindersEnabled) return 0;
  let queued = 0;
  for (const kind of REMINDER_KINDS) {
    for (;;) {
      const batch = await deps.db.transaction(async (tx) => {
        const due = await claimDueReminders(tx, kind, CLAIM_BATCH);
        let sent = 0;
        for (const reminder of due) {
          const key = `agenda:reminder:${kind}:${reminder.eventId}:${reminder.contactId}:${reminder.startsAt.getTime()}`;
          const result = await queueNotice(tx, eventNotice(settings, settings.reminderTemplate, reminder, reminder.contactId, key, 'agenda.reminder', KIND_LEAD[kind]));
          if (result.status === 'queued') sent++;
        }
        return { claimed: due.length, sent };
      });
      queued += batch.sent;
      if (batch.sent) await dispatchNotices(deps);
      if (batch.claimed < CLAIM_BATCH) break;
    }
  }
  return queued;
}

export function startReminders(deps: AppDeps): BackgroundTask {
  return repeatEvery(deps.logger, 'agenda.reminders', REMINDER_SWEEP_MS, async () => {
    await sendDueReminders(deps);
  });
}

/**
 * Tells everyone who expected to be at a cancelled event, in the cancelling transaction (once per
 * event and person, whatever happens next). Nothing is sent for an event already over. Returns
 * how many notices were queued; the caller dispatches them after the commit.
 */
export async function cancellationNotices(tx: Queries, event: EventRecord, now: Date): Promise<number> {
  if (event.endsAt <= now) return 0;
  const settings = await readSettings(tx);
  let queued = 0;
  for (const contactId of await expectedPeople(tx, event.id)) {
    const request = eventNotice(
      settings,
      settings.cancellationTemplate,
      { eventId: event.id, title: event.title, startsAt: event.startsAt, timeZone: event.timeZone, address: event.address },
      contactId,
      `agenda:cancelled:${event.id}:${contactId}`,
      'agenda.cancelled',
      'Evento cancelado',
    );
    if (event.cancellationReason && request.email) request.email.text += `Motivo: ${event.cancellationReason}\n`;
    if ((await queueNotice(tx, request)).status === 'queued') queued++;
  }
  return queued;
}

function presentSettings(settings: AgendaSettings) {
  return {
    reminderTemplate: settings.reminderTemplate,
    cancellationTemplate: settings.cancellationTemplate,
    templateLanguage: settings.templateLanguage,
    remindersEnabled: settings.remindersEnabled,
    updatedAt: settings.updatedAt.toISOString(),
    updatedById: settings.updatedById,
  };
}

export async function getSettings(deps: Pick<AppDeps, 'db'>) {
  return presentSettings(await readSettings(deps.db));
}

export async function replaceSettings(
  deps: Pick<AppDeps, 'db'>,
  input: { reminderTemplate: string | null; cancellationTemplate: string | null; templateLanguage: string; remindersEnabled: boolean },
  actor: Actor,
) {
  const settings: AgendaSettings = { ...input, updatedAt: new Date(), updatedById: actor.id };
  await saveSettings(deps.db, settings);
  return presentSettings(settings);
}
