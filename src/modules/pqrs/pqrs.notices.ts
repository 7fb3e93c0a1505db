import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { queueNotice, type NoticeChannel, type NoticeRequest } from '../notices';
import { localDateOf, type ClockSettings } from './pqrs.clock';
import type { StoredNotice } from './pqrs.entities';
import { spanishDate } from './pqrs.page';
import { insertHistory, saveRequest, type RequestRecord, type SettingsRecord } from './pqrs.repository';

/** The three things the law has the citizen told: the filing with its number, an extension with its reason and date, the answer. */
export type CitizenNotice = 'received' | 'extended' | 'answered';

const FIELD = { received: 'receivedNotice', extended: 'extensionNotice', answered: 'answerNotice' } as const;

/** WhatsApp template values may not hold line breaks, tabs or long runs of spaces, and stay short. */
const templateValue = (text: string, max = 900) => text.replace(/\s+/g, ' ').trim().slice(0, max);

/** What the citizen is sent, by email and (with the desk's template of that kind) by WhatsApp. */
export function noticeFor(kind: CitizenNotice, request: RequestRecord, settings: SettingsRecord, clock: ClockSettings): NoticeRequest {
  const due = spanishDate(request.dueDate);
  const received = spanishDate(localDateOf(request.receivedAt, clock.timeZone));
  const content = {
    received: {
      template: settings.receivedTemplate,
      params: [request.number, due],
      subject: `Radicamos su solicitud ${request.number}`,
      text:
        `Recibimos su solicitud «${request.subject}» el ${received} con el número de radicado ${request.number}.\n\n` +
        `Según la Ley 1755 de 2015, le responderemos a más tardar el ${due}. Conserve este número para cualquier consulta.`,
    },
    extended: {
      template: settings.extendedTemplate,
      params: [request.number, due, templateValue(request.extensionReason ?? '')],
      subject: `Ampliamos el plazo de su solicitud ${request.number}`,
      text:
        `No podemos responder su solicitud «${request.subject}» (radicado ${request.number}) en el plazo inicial.\n\n` +
        `Motivo: ${request.extensionReason ?? ''}\n\nLe responderemos a más tardar el ${due}.`,
    },
    answered: {
      template: settings.answeredTemplate,
      params: [request.number, templateValue(request.answer ?? '')],
      subject: `Respuesta a su solicitud ${request.number}`,
      text: `Esta es la respuesta a su solicitud «${request.subject}» (radicado ${request.number}):\n\n${request.answer ?? ''}`,
    },
  }[kind];
  // WhatsApp stays a channel without the desk's template, so a citizen who chose it is recorded as `template_missing`.
  const channels: NoticeChannel[] = request.channel === 'email' ? ['email', 'whatsapp'] : ['whatsapp', 'email'];
  return {
    key: `pqrs:${kind}:${request.id}`,
    contactId: request.contactId!,
    purpose: `pqrs.${kind}`,
    channels,
    ...(content.template ? { whatsapp: { template: content.template, language: settings.templateLanguage, params: content.params } } : {}),
    email: { subject: content.subject, text: content.text },
  };
}

/**
 * Queues the notice in the caller's transaction and records on the request (and in its history)
 * what came of it; the request as saved. An anonymous request or an erased citizen gets no
 * notice, and the record says so (`unreachable`, reason `anonymous` or `erased`).
 * The caller dispatches the notices after the commit.
 */
export async function queueCitizenNotice(
  tx: Queries,
  kind: CitizenNotice,
  request: RequestRecord,
  settings: SettingsRecord,
  clock: ClockSettings,
  actorId: string | null,
): Promise<RequestRecord> {
  let stored: StoredNotice;
  if (!request.contactId || request.citizenErasedAt) {
    // Nobody to tell: recorded all the same, so the desk sees why no notice went.
    stored = { status: 'unreachable', noticeId: null, reason: request.anonymous ? 'anonymous' : 'erased', at: new Date().toISOString() };
  } else {
    const result = await queueNotice(tx, noticeFor(kind, request, settings, clock));
    stored = { status: result.status, noticeId: result.noticeId, at: new Date().toISOString() };
    if (result.status === 'queued') stored.channel = result.channel;
    if (result.status === 'unreachable') stored.reason = result.reason;
  }
  const next: RequestRecord = { ...request, [FIELD[kind]]: stored };
  await saveRequest(tx, next);
  await insertHistory(tx, [
    { id: newId(), requestId: request.id, at: new Date(stored.at), actorId, action: 'notice', changes: { [FIELD[kind]]: { before: null, after: stored } }, note: null },
  ]);
  return next;
}
