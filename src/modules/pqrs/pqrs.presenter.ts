import type { z } from 'zod';
import { clockState, extensionLimit, type ClockSettings } from './pqrs.clock';
import type { PqrsRequestEvent } from './pqrs.events';
import type { AttachmentRecord, Citizen, HistoryRecord, RequestRecord, SettingsRecord } from './pqrs.repository';
import type { historyView, requestView, settingsView } from './pqrs.schemas';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function presentAttachment(attachment: AttachmentRecord) {
  return {
    id: attachment.id,
    fileName: attachment.fileName,
    type: attachment.type,
    size: attachment.size,
    sha256: attachment.sha256,
    uploadedAt: attachment.uploadedAt.toISOString(),
  };
}

/** A request as staff see it; `personal` only for those who may see the citizen (managers). */
export function presentRequest(
  request: RequestRecord,
  now: Date,
  clock: ClockSettings,
  personal: { citizen: Citizen | null; attachments: AttachmentRecord[] } | null,
): z.input<typeof requestView> {
  const state = clockState(request, now, clock);
  return {
    id: request.id,
    number: request.number,
    type: request.type,
    subject: request.subject,
    channel: request.channel,
    status: request.status,
    priority: request.priority,
    anonymous: request.anonymous,
    territoryId: request.territoryId,
    assigneeId: request.assigneeId,
    receivedAt: request.receivedAt.toISOString(),
    termDays: request.termDays,
    originalDueDate: request.originalDueDate,
    dueDate: request.dueDate,
    dueAt: request.dueAt.toISOString(),
    businessDaysLeft: state.businessDaysLeft,
    overdue: state.overdue,
    dueSoon: state.dueSoon,
    dueState: state.dueState,
    dueSoonFlaggedAt: iso(request.dueSoonAt),
    latestExtensionDate: extensionLimit(request, now, clock),
    // The reason is staff's free text and may name people: like history notes, only with `personal`.
    extension: request.extendedAt ? { at: request.extendedAt.toISOString(), reason: personal ? (request.extensionReason ?? '') : null, byId: request.extendedById } : null,
    answeredAt: iso(request.answeredAt),
    answeredLate: request.answeredAt ? request.answeredAt.getTime() > request.dueAt.getTime() : null,
    closedAt: iso(request.closedAt),
    conversationId: request.conversationId,
    citizenErased: request.citizenErasedAt !== null,
    updatedAt: request.updatedAt.toISOString(),
    personal: personal && {
      citizen: personal.citizen,
      description: request.description,
      answer: request.answer,
      attachments: personal.attachments.map(presentAttachment),
      receivedNotice: request.receivedNotice,
      answerNotice: request.answerNotice,
      extensionNotice: request.extensionNotice,
    },
  };
}

/** What the desk's room hears of a change: enough to refresh the request's row, nothing personal. */
export function presentEvent(action: PqrsRequestEvent['action'], request: RequestRecord, clock: ClockSettings, now = new Date()): PqrsRequestEvent {
  const state = clockState(request, now, clock);
  return {
    action,
    id: request.id,
    number: request.number,
    type: request.type,
    status: request.status,
    priority: request.priority,
    assigneeId: request.assigneeId,
    dueDate: request.dueDate,
    dueAt: request.dueAt.toISOString(),
    businessDaysLeft: state.businessDaysLeft,
    dueState: state.dueState,
  };
}

/** History as staff see it, each line with its actor's name; notes (free text that may name people) only with `personal`. */
export function presentHistory(rows: HistoryRecord[], personal: boolean, names: ReadonlyMap<string, string>): z.input<typeof historyView> {
  return {
    data: rows.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actorId: row.actorId,
      actorName: row.actorId ? (names.get(row.actorId) ?? null) : null,
      action: row.action,
      changes: row.changes,
      note: personal ? row.note : null,
    })),
  };
}

export function presentSettings(settings: SettingsRecord): z.input<typeof settingsView> {
  return {
    consentText: settings.consentText,
    privacyPolicyUrl: settings.privacyPolicyUrl,
    receivedTemplate: settings.receivedTemplate,
    answeredTemplate: settings.answeredTemplate,
    extendedTemplate: settings.extendedTemplate,
    templateLanguage: settings.templateLanguage,
    updatedAt: settings.updatedAt.toISOString(),
  };
}
