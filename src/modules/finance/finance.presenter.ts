import type { z } from 'zod';
import type { AuditRecord, CodeWithUse, LedgerEntry, ReceiptRecord, SettingsRecord } from './finance.repository';
import type { codeView, entryView, historyView, settingsView } from './finance.schemas';
import { donorLimit } from './finance.summary';

/** Whether a day falls in the closed period. */
export const isClosed = (date: string, closedThrough: string | null): boolean => closedThrough !== null && date <= closedThrough;

/** An entry's receipt, when it has one (its four columns are written together). */
export function storedReceipt(entry: ReceiptRecord): { sha256: string; type: string; size: number; uploadedAt: Date } | null {
  const { receiptSha256: sha256, receiptType: type, receiptSize: size, receiptUploadedAt: uploadedAt } = entry;
  return sha256 && type && size !== null && uploadedAt ? { sha256, type, size, uploadedAt } : null;
}

export function presentEntry(entry: LedgerEntry, closedThrough: string | null): z.input<typeof entryView> {
  const receipt = storedReceipt(entry);
  return {
    id: entry.id,
    kind: entry.kind,
    date: entry.date,
    amount: entry.amount,
    code: entry.code,
    codeName: entry.codeName,
    counterparty: { name: entry.counterpartyName, idNumber: entry.counterpartyIdNumber },
    description: entry.description,
    notes: entry.notes,
    donorType: entry.donorType,
    reversesId: entry.reversesId,
    reversedById: entry.reversedById,
    eventId: entry.eventId,
    override: entry.override,
    receipt: receipt && { ...receipt, uploadedAt: receipt.uploadedAt.toISOString() },
    periodClosed: isClosed(entry.date, closedThrough),
    recordedById: entry.recordedById,
    createdAt: entry.createdAt.toISOString(),
    updatedAt: entry.updatedAt.toISOString(),
  };
}

export function presentSettings(settings: SettingsRecord & { electionDate: string | null }): z.input<typeof settingsView> {
  return {
    spendingCap: settings.spendingCap,
    electionDate: settings.electionDate,
    donorLimitShare: settings.donorLimitShare,
    donorLimit: donorLimit(settings.spendingCap, settings.donorLimitShare),
    closedThrough: settings.closedThrough,
    updatedAt: settings.updatedAt.toISOString(),
    updatedById: settings.updatedById,
  };
}

export function presentCode(code: CodeWithUse): z.input<typeof codeView> {
  return { code: code.code, kind: code.kind, name: code.name, description: code.description, donation: code.donation, active: code.active, entries: code.entries };
}

export function presentAudit(record: AuditRecord): z.input<typeof historyView>['data'][number] {
  return { id: record.id, action: record.action, at: record.at.toISOString(), actorId: record.actorId, changes: record.changes, reason: record.reason };
}
