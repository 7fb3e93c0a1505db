import type { z } from 'zod';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { electionDateChanged, electionDateOf, readElectionDate, setElectionDate } from '../campaign';
import { presentCode, presentSettings } from './finance.presenter';
import {
  deleteUnusedCode,
  findCode,
  insertAudit,
  insertCode,
  ledgerFigures,
  listCodes,
  lockSettings,
  readSettings,
  saveSettings,
  totalsByCode,
  updateCode,
  type CodeRecord,
  type SettingsRecord,
} from './finance.repository';
import type { CreateCodeInput, ListCodesInput, SettingsInput, UpdateCodeInput, summaryView } from './finance.schemas';
import { todayIn } from '../../kernel/calendar';
import { changesBetween } from './finance.service';
import { capSummary, rateWindowStart } from './finance.summary';

type Deps = Pick<AppDeps, 'db' | 'config' | 'caches'>;

// ───────────── settings

export async function getSettings(q: Queries) {
  const [settings, electionDate] = await Promise.all([readSettings(q), readElectionDate(q)]);
  return presentSettings({ ...settings, electionDate });
}

const settingsFields = (settings: Omit<SettingsRecord, 'updatedAt' | 'updatedById'> & { electionDate: string | null }) => ({
  spendingCap: settings.spendingCap,
  electionDate: settings.electionDate,
  donorLimitShare: settings.donorLimitShare,
  closedThrough: settings.closedThrough,
});

/**
 * Replaces the settings. `closedThrough` closes every day up to it for good: it only moves forward
 * and only to a day already over, so today's entries and reversals are always open. The election
 * date is the campaign's: given, it is set there (omitted, kept), and the change audited here too.
 */
export async function replaceSettings(deps: Deps, input: SettingsInput, actor: Actor) {
  const now = new Date();
  const today = todayIn(deps.config.timeZone, now);
  const { answer, dateChanged } = await deps.db.transaction(async (tx) => {
    const current = { ...(await lockSettings(tx)), electionDate: await readElectionDate(tx) };
    if (input.closedThrough !== undefined) {
      if (input.closedThrough >= today) throw invalidField('body.closedThrough', `Only a day that is over can be closed; today is ${today}.`);
      if (current.closedThrough && input.closedThrough < current.closedThrough) {
        throw new ConflictError(`Days up to ${current.closedThrough} are already closed, and a closed period is never reopened.`, 'period_closed');
      }
    }
    const next = {
      spendingCap: input.spendingCap,
      electionDate: input.electionDate === undefined ? current.electionDate : input.electionDate,
      donorLimitShare: input.donorLimitShare ?? current.donorLimitShare,
      closedThrough: input.closedThrough ?? current.closedThrough,
      updatedById: actor.id,
      updatedAt: now,
    };
    const changes = changesBetween(settingsFields(current), settingsFields(next));
    if (!Object.keys(changes).length) return { answer: presentSettings(current), dateChanged: false };
    await saveSettings(tx, next, now);
    const dateChanged = next.electionDate !== current.electionDate;
    if (dateChanged) await setElectionDate(tx, next.electionDate);
    await insertAudit(tx, [{ id: newId(), entryId: null, action: 'settings', actorId: actor.id, at: now, changes, reason: null }]);
    return { answer: presentSettings(next), dateChanged };
  });
  if (dateChanged) await electionDateChanged(deps);
  return answer;
}

export async function financeSummary(deps: Deps): Promise<z.input<typeof summaryView>> {
  const today = todayIn(deps.config.timeZone);
  const [settings, electionDate, figures, byCode] = await Promise.all([
    readSettings(deps.db),
    electionDateOf(deps),
    ledgerFigures(deps.db, rateWindowStart(today), today),
    totalsByCode(deps.db),
  ]);
  return { ...capSummary(figures, { ...settings, electionDate }, today), byCode };
}

// ───────────── catalogue

export async function catalogue(q: Queries, query: ListCodesInput) {
  return { data: (await listCodes(q, query)).map(presentCode) };
}

async function oneCode(q: Queries, code: string) {
  const [found] = await listCodes(q, { code });
  if (!found) throw new NotFoundError(`No code ${code} in the catalogue.`);
  return presentCode(found);
}

const codeFields = (code: CodeRecord) => ({ code: code.code, kind: code.kind, name: code.name, description: code.description, donation: code.donation, active: code.active });

export async function createCode(deps: Deps, input: CreateCodeInput, actor: Actor) {
  const now = new Date();
  const code: CodeRecord = { code: input.code, kind: input.kind, name: input.name, description: input.description ?? null, donation: input.donation, active: true };
  await deps.db.transaction(async (tx) => {
    try {
      await insertCode(tx, code, now);
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`The catalogue already has ${input.code}.`, 'code_taken');
      throw error;
    }
    await insertAudit(tx, [{ id: newId(), entryId: null, action: 'code', actorId: actor.id, at: now, changes: changesBetween(null, codeFields(code)), reason: null }]);
  });
  return oneCode(deps.db, code.code);
}

export async function changeCode(deps: Deps, key: string, input: UpdateCodeInput, actor: Actor) {
  const now = new Date();
  await deps.db.transaction(async (tx) => {
    const current = await findCode(tx, key);
    if (!current) throw new NotFoundError(`No code ${key} in the catalogue.`);
    if (input.donation && current.kind !== 'income') throw invalidField('body.donation', 'Only an income code can be a donation code.');
    const next: CodeRecord = {
      ...current,
      name: input.name ?? current.name,
      description: input.description === undefined ? current.description : input.description,
      donation: input.donation ?? current.donation,
      active: input.active ?? current.active,
    };
    const changes = changesBetween(codeFields(current), codeFields(next));
    if (!Object.keys(changes).length) return;
    await updateCode(tx, next, now);
    await insertAudit(tx, [{ id: newId(), entryId: null, action: 'code', actorId: actor.id, at: now, changes: { code: { before: key, after: key }, ...changes }, reason: null }]);
  });
  return oneCode(deps.db, key);
}

/** Removes a code nothing uses; a code in use stays (deactivate it instead), since the report groups its entries by it. */
export async function removeCode(deps: Deps, key: string, actor: Actor): Promise<void> {
  const now = new Date();
  await deps.db.transaction(async (tx) => {
    const current = await findCode(tx, key);
    if (!current) throw new NotFoundError(`No code ${key} in the catalogue.`);
    if (!(await deleteUnusedCode(tx, key))) throw new ConflictError(`${key} has entries: deactivate it (PATCH { "active": false }) instead of deleting it.`, 'code_in_use');
    await insertAudit(tx, [{ id: newId(), entryId: null, action: 'code', actorId: actor.id, at: now, changes: changesBetween(codeFields(current), { code: null }), reason: null }]);
  });
}
