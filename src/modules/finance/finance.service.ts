import type { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import { todayIn } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { LIMITED_DONOR_TYPES, type DonorType, type EntryKind, type OverridableRule, type StoredChanges, type StoredOverride } from './finance.entities';
import { financePolicy } from './finance.policy';
import { isClosed, presentAudit, presentEntry, storedReceipt } from './finance.presenter';
import { detectReceiptType, receiptArea, sha256Of } from './finance.receipts';
import {
  auditOf,
  donatedBy,
  entryPage,
  entryTotals,
  findCode,
  findEntry,
  insertAudit,
  insertEntry,
  lockSettings,
  readSettings,
  setReceipt,
  spentSoFar,
  updateEntry as writeEntry,
  type CodeRecord,
  type EntryRecord,
  type LedgerEntry,
  type ReceiptRecord,
  type SettingsRecord,
} from './finance.repository';
import type { CreateEntryInput, ListEntriesInput, ReverseEntryInput, UpdateEntryInput, entryPageView, eventBudgetView, historyView } from './finance.schemas';
import { eventBudget, eventExists } from '../agenda';
import { donorLimit } from './finance.summary';

type Deps = Pick<AppDeps, 'db' | 'config' | 'files'>;

const cop = (value: number) => `${value.toLocaleString('en')} pesos`;

// ───────────── checks shared by create and edit

/** A code the entry may use: in the catalogue, of the entry's kind, and active. */
async function usableCode(q: Queries, code: string, kind: EntryKind, path: string): Promise<CodeRecord> {
  const found = await findCode(q, code);
  if (!found) throw invalidField(path, `No code ${code} in the catalogue (see GET /api/finance/codes).`, 'unknown_code');
  if (found.kind !== kind) throw invalidField(path, `${code} is an ${found.kind} code and this entry is ${kind === 'income' ? 'an income' : 'an expense'}.`, 'code_kind_mismatch');
  if (!found.active) throw invalidField(path, `${code} is deactivated; use an active code.`, 'code_inactive');
  return found;
}

function checkNotFuture(date: string, today: string, path: string): void {
  if (date > today) throw invalidField(path, `${date} is after today (${today}); a movement is recorded once it happens.`, 'date_in_future');
}

function checkOpen(date: string, settings: SettingsRecord): void {
  if (isClosed(date, settings.closedThrough)) {
    throw new ConflictError(
      `Days up to ${settings.closedThrough} are closed: entries dated then are never added, edited or removed; correct them with a reversal.`,
      'period_closed',
    );
  }
}

/** A contribution under a donation code names who gave it: Ley 1475 de 2011 (art. 27) forbids anonymous ones. */
function checkDonor(kind: EntryKind, code: CodeRecord, donorType: DonorType | null, idNumber: string | null): void {
  if (kind !== 'income' && donorType) throw invalidField('body.donorType', 'Only income has a donor.');
  if (kind !== 'income' || !code.donation) return;
  if (!donorType) throw invalidField('body.donorType', `Income under ${code.code} is a donation: say who gave it (person, company, party or own).`);
  if (!idNumber) throw invalidField('body.counterparty.idNumber', `Income under ${code.code} is a donation: give the donor's NIT or cédula.`);
}

interface Breach {
  rule: OverridableRule;
  message: string;
}

/** The entry as it would be written, with what it contributed before (0 for a new one). */
interface Candidate {
  id: string | undefined;
  kind: EntryKind;
  amount: number;
  code: CodeRecord;
  donorType: DonorType | null;
  idNumber: string | null;
  /** What this entry already counts towards the same total (an edit), so only an increase is checked. */
  countedBefore: number;
}

async function capBreach(tx: Queries, settings: SettingsRecord, candidate: Candidate): Promise<Breach | undefined> {
  const cap = settings.spendingCap;
  if (cap === null || candidate.kind !== 'expense' || candidate.amount <= candidate.countedBefore) return undefined;
  const others = await spentSoFar(tx, candidate.id);
  if (others + candidate.amount <= cap) return undefined;
  return {
    rule: 'cap_exceeded',
    message: `This expense would take spending to ${cop(others + candidate.amount)}, above the spending cap of ${cop(cap)} (${cop(Math.max(0, cap - others))} left).`,
  };
}

async function donorBreach(tx: Queries, settings: SettingsRecord, candidate: Candidate): Promise<Breach | undefined> {
  const limit = donorLimit(settings.spendingCap, settings.donorLimitShare);
  const limited = candidate.kind === 'income' && candidate.code.donation && candidate.donorType !== null && LIMITED_DONOR_TYPES.includes(candidate.donorType);
  if (limit === null || !limited || !candidate.idNumber || candidate.amount <= candidate.countedBefore) return undefined;
  const given = await donatedBy(tx, candidate.idNumber, candidate.id);
  if (given + candidate.amount <= limit) return undefined;
  return {
    rule: 'donor_limit_exceeded',
    message:
      `This donation would take the donor's contributions to ${cop(given + candidate.amount)}, above the limit of ${cop(limit)} ` +
      `(${Math.round(settings.donorLimitShare * 1000) / 10} % of the spending cap; Ley 1475 de 2011, art. 23).`,
  };
}

/**
 * A rule the entry breaks is a 409 naming it, unless a manager sends `override: { reason }`; the
 * override is then kept on the entry and in the audit. A treasurer's override is a 403.
 */
function resolveOverride(breaches: Breach[], override: { reason: string } | undefined, actor: Actor): StoredOverride | null {
  const [first] = breaches;
  if (!first) return null;
  if (!override) throw new ConflictError(`${first.message} A manager may record it anyway with override: { reason }.`, first.rule);
  financePolicy.authorize(actor, 'override');
  return { reason: override.reason, byId: actor.id, rules: breaches.map((breach) => breach.rule) };
}

async function breaches(tx: Queries, settings: SettingsRecord, candidate: Candidate): Promise<Breach[]> {
  const found = [await capBreach(tx, settings, candidate), await donorBreach(tx, settings, candidate)];
  return found.filter((breach): breach is Breach => breach !== undefined);
}

// ───────────── audit

/** An entry's audited fields, under the names the API uses. */
function auditedFields(entry: EntryRecord): Record<string, unknown> {
  return {
    kind: entry.kind,
    date: entry.date,
    amount: entry.amount,
    code: entry.code,
    'counterparty.name': entry.counterpartyName,
    'counterparty.idNumber': entry.counterpartyIdNumber,
    description: entry.description,
    notes: entry.notes,
    donorType: entry.donorType,
    reversesId: entry.reversesId,
    eventId: entry.eventId,
    override: entry.override,
  };
}

/** The fields whose value differs, each with its before and after; every field when there was no before. */
export function changesBetween(before: Record<string, unknown> | null, after: Record<string, unknown>): StoredChanges {
  const changes: StoredChanges = {};
  for (const [field, value] of Object.entries(after)) {
    const previous = before ? (before[field] ?? null) : null;
    if (before && JSON.stringify(previous) === JSON.stringify(value ?? null)) continue;
    if (!before && (value === null || value === undefined)) continue;
    changes[field] = { before: previous, after: value ?? null };
  }
  return changes;
}

// ───────────── entries

const noReceipt: ReceiptRecord = { receiptSha256: null, receiptType: null, receiptSize: null, receiptUploadedAt: null };

async function checkEvent(q: Queries, eventId: string): Promise<void> {
  if (!(await eventExists(q, eventId))) throw invalidField('body.eventId', 'No agenda event has this id.', 'unknown_event');
}

/** An event's budget against the movements recorded for it (reversals net out). */
export async function eventBudgetReport(q: Queries, eventId: string): Promise<z.input<typeof eventBudgetView>> {
  const [event, totals] = await Promise.all([eventBudget(q, eventId), entryTotals(q, { eventId })]);
  if (!event) throw new NotFoundError('No agenda event has this id.');
  const planned = event.budget;
  return {
    eventId,
    title: event.title,
    status: event.status,
    startsAt: event.startsAt.toISOString(),
    planned,
    spent: totals.expenses,
    income: totals.income,
    remaining: planned === null ? null : planned - totals.expenses,
    usedPct: planned ? Math.round((totals.expenses / planned) * 1000) / 10 : null,
    entries: totals.entries,
  };
}

export async function createEntry(deps: Deps, input: CreateEntryInput, actor: Actor) {
  const now = new Date();
  const today = todayIn(deps.config.timeZone, now);
  return deps.db.transaction(async (tx) => {
    const settings = await lockSettings(tx);
    const code = await usableCode(tx, input.code, input.kind, 'body.code');
    checkNotFuture(input.date, today, 'body.date');
    const idNumber = input.counterparty.idNumber ?? null;
    const donorType = input.donorType ?? null;
    checkDonor(input.kind, code, donorType, idNumber);
    checkOpen(input.date, settings);
    if (input.eventId) await checkEvent(tx, input.eventId);
    const candidate: Candidate = { id: undefined, kind: input.kind, amount: input.amount, code, donorType, idNumber, countedBefore: 0 };
    const override = resolveOverride(await breaches(tx, settings, candidate), input.override, actor);
    const entry: LedgerEntry = {
      id: newId(),
      kind: input.kind,
      date: input.date,
      amount: input.amount,
      code: code.code,
      codeName: code.name,
      counterpartyName: input.counterparty.name,
      counterpartyIdNumber: idNumber,
      description: input.description ?? null,
      notes: input.notes ?? null,
      donorType,
      reversesId: null,
      reversedById: null,
      eventId: input.eventId ?? null,
      override,
      ...noReceipt,
      recordedById: actor.id,
      createdAt: now,
      updatedAt: now,
    };
    await insertEntry(tx, entry);
    await insertAudit(tx, [
      { id: newId(), entryId: entry.id, action: 'create', actorId: actor.id, at: now, changes: changesBetween(null, auditedFields(entry)), reason: override?.reason ?? null },
    ]);
    return presentEntry(entry, settings.closedThrough);
  });
}

export async function getEntry(q: Queries, id: string) {
  const [entry, settings] = await Promise.all([findEntry(q, id), readSettings(q)]);
  if (!entry) throw new NotFoundError('No finance entry has this id.');
  return presentEntry(entry, settings.closedThrough);
}

export async function listEntries(deps: Deps, query: ListEntriesInput): Promise<z.input<typeof entryPageView>> {
  const [page, totals, settings] = await Promise.all([entryPage(deps.db, query, query), entryTotals(deps.db, query), readSettings(deps.db)]);
  return {
    data: page.data.map((entry) => presentEntry(entry, settings.closedThrough)),
    nextCursor: page.nextCursor,
    totals: { entries: totals.entries, income: totals.income, expenses: totals.expenses, balance: totals.income - totals.expenses },
  };
}

/** The code an entry is recorded under (a foreign key keeps it in the catalogue). */
async function codeOfEntry(q: Queries, entry: LedgerEntry): Promise<CodeRecord> {
  const code = await findCode(q, entry.code);
  if (!code) throw new Error(`finance code ${entry.code} is missing although an entry uses it`);
  return code;
}

/** Refuses changes to what must stay as it is: a reversal, a reversed entry, an entry of a closed period. */
function checkEditable(entry: LedgerEntry, settings: SettingsRecord): void {
  if (entry.reversesId) throw new ConflictError('A reversal is not edited: it mirrors the entry it reverses.', 'reversal_entry');
  if (entry.reversedById) throw new ConflictError('This entry was reversed and stays as it was; record a new entry instead.', 'already_reversed');
  checkOpen(entry.date, settings);
}

export async function changeEntry(deps: Deps, id: string, input: UpdateEntryInput, actor: Actor) {
  const now = new Date();
  const today = todayIn(deps.config.timeZone, now);
  return deps.db.transaction(async (tx) => {
    const settings = await lockSettings(tx);
    const entry = await findEntry(tx, id, true);
    if (!entry) throw new NotFoundError('No finance entry has this id.');
    checkEditable(entry, settings);
    // A new code must be usable; the one it has stays valid even if deactivated since.
    const code = input.code && input.code !== entry.code ? await usableCode(tx, input.code, entry.kind, 'body.code') : await codeOfEntry(tx, entry);
    const next: LedgerEntry = {
      ...entry,
      date: input.date ?? entry.date,
      amount: input.amount ?? entry.amount,
      code: code.code,
      codeName: code.name,
      counterpartyName: input.counterparty?.name ?? entry.counterpartyName,
      counterpartyIdNumber: input.counterparty ? (input.counterparty.idNumber ?? null) : entry.counterpartyIdNumber,
      description: input.description === undefined ? entry.description : input.description,
      notes: input.notes === undefined ? entry.notes : input.notes,
      donorType: input.donorType === undefined ? entry.donorType : input.donorType,
      eventId: input.eventId === undefined ? entry.eventId : input.eventId,
      updatedAt: now,
    };
    if (input.eventId) await checkEvent(tx, input.eventId);
    if (input.date) checkNotFuture(next.date, today, 'body.date');
    checkDonor(entry.kind, code, next.donorType, next.counterpartyIdNumber);
    checkOpen(next.date, settings);

    const oldCode = code.code === entry.code ? code : await codeOfEntry(tx, entry);
    const sameDonor = oldCode.donation && entry.counterpartyIdNumber === next.counterpartyIdNumber && entry.donorType === next.donorType;
    const candidate: Candidate = {
      id: entry.id,
      kind: entry.kind,
      amount: next.amount,
      code,
      donorType: next.donorType,
      idNumber: next.counterpartyIdNumber,
      countedBefore: entry.kind === 'expense' || sameDonor ? entry.amount : 0,
    };
    const override = resolveOverride(await breaches(tx, settings, candidate), input.override, actor);
    // An override given earlier stays on record; a new one replaces it (the audit keeps both).
    if (override) next.override = override;

    const changes = changesBetween(auditedFields(entry), auditedFields(next));
    if (!Object.keys(changes).length) return presentEntry(entry, settings.closedThrough);
    await writeEntry(tx, next, now);
    await insertAudit(tx, [{ id: newId(), entryId: entry.id, action: 'update', actorId: actor.id, at: now, changes, reason: override?.reason ?? null }]);
    return presentEntry(next, settings.closedThrough);
  });
}

/**
 * The correction for any entry, closed period or not: a new entry dated today with the opposite
 * amount, linked to the original. An entry is reversed once (a unique key holds it too).
 */
export async function reverseEntry(deps: Deps, id: string, input: ReverseEntryInput, actor: Actor) {
  const now = new Date();
  const today = todayIn(deps.config.timeZone, now);
  return deps.db.transaction(async (tx) => {
    const settings = await lockSettings(tx);
    const original = await findEntry(tx, id, true);
    if (!original) throw new NotFoundError('No finance entry has this id.');
    if (original.reversesId) throw new ConflictError('A reversal is not reversed again; record the movement anew instead.', 'reversal_entry');
    if (original.reversedById) throw new ConflictError(`This entry was already reversed by ${original.reversedById}.`, 'already_reversed');
    checkOpen(today, settings);
    const reversal: LedgerEntry = {
      ...original,
      id: newId(),
      date: today,
      amount: -original.amount,
      description: input.reason ?? `Reversión del movimiento del ${original.date} (${original.id})`,
      notes: null,
      reversesId: original.id,
      reversedById: null,
      override: null,
      ...noReceipt,
      recordedById: actor.id,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await insertEntry(tx, reversal);
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError('This entry was already reversed.', 'already_reversed');
      throw error;
    }
    await insertAudit(tx, [
      { id: newId(), entryId: reversal.id, action: 'create', actorId: actor.id, at: now, changes: changesBetween(null, auditedFields(reversal)), reason: input.reason ?? null },
      {
        id: newId(),
        entryId: original.id,
        action: 'reverse',
        actorId: actor.id,
        at: now,
        changes: { reversedById: { before: null, after: reversal.id } },
        reason: input.reason ?? null,
      },
    ]);
    return presentEntry(reversal, settings.closedThrough);
  });
}

export async function entryHistory(q: Queries, id: string): Promise<z.input<typeof historyView>> {
  if (!(await findEntry(q, id))) throw new NotFoundError('No finance entry has this id.');
  return { data: (await auditOf(q, id)).map(presentAudit) };
}

// ───────────── receipts

/**
 * Stores a receipt for an entry, replacing the one it had. The bytes must be what the Content-Type
 * says, by their signature. An entry of a closed period may get its first receipt (the figures do
 * not change) but keeps the one it has.
 */
export async function attachReceipt(deps: Deps, id: string, declaredType: string, bytes: Buffer, actor: Actor) {
  if (!bytes.length) throw invalidField('body', 'The receipt is empty.', 'empty_body');
  const detected = detectReceiptType(bytes);
  if (detected !== declaredType) {
    throw new AppError(
      415,
      'receipt_type_mismatch',
      'Unsupported media type',
      detected
        ? `The file is ${detected} but was sent as ${declaredType}; send it with its own type.`
        : `The file is not a JPEG, PNG or PDF (its first bytes are not), whatever its Content-Type says.`,
    );
  }
  const now = new Date();
  const receipt: ReceiptRecord = { receiptSha256: sha256Of(bytes), receiptType: detected, receiptSize: bytes.length, receiptUploadedAt: now };
  const staged = await receiptArea(deps.files).stage(id, bytes);
  try {
    return await deps.db.transaction(async (tx) => {
      const settings = await lockSettings(tx);
      const entry = await findEntry(tx, id, true);
      if (!entry) throw new NotFoundError('No finance entry has this id.');
      if (storedReceipt(entry) && isClosed(entry.date, settings.closedThrough)) {
        throw new ConflictError(`Days up to ${settings.closedThrough} are closed: this entry keeps the receipt it has.`, 'period_closed');
      }
      await setReceipt(tx, id, receipt, now);
      const summary = (value: ReceiptRecord) => {
        const stored = storedReceipt(value);
        return stored && { sha256: stored.sha256, type: stored.type, size: stored.size };
      };
      await insertAudit(tx, [
        {
          id: newId(),
          entryId: id,
          action: 'receipt',
          actorId: actor.id,
          at: now,
          changes: { receipt: { before: summary(entry), after: summary(receipt) } },
          reason: null,
        },
      ]);
      // Placed while the entry's row is locked, so two uploads land in the order they are recorded.
      await staged.place();
      return presentEntry({ ...entry, ...receipt, updatedAt: now }, settings.closedThrough);
    });
  } catch (error) {
    await staged.discard();
    throw error;
  }
}

/** Where an entry's receipt is, with its type; 404 when it has none. */
export async function receiptOf(deps: Deps & Pick<AppDeps, 'logger'>, id: string): Promise<{ stream: Readable; type: string; size: number; sha256: string }> {
  const entry = await findEntry(deps.db, id);
  if (!entry) throw new NotFoundError('No finance entry has this id.');
  const receipt = storedReceipt(entry);
  if (!receipt) throw new NotFoundError('This entry has no receipt.');
  const stored = await receiptArea(deps.files).read(id);
  if (!stored) {
    deps.logger.warn({ entryId: id }, 'finance receipt recorded but its file is missing');
    throw new NotFoundError('The receipt is recorded but its file is missing from the file store.');
  }
  return { stream: stored.stream, type: receipt.type, size: stored.size, sha256: receipt.sha256 };
}
