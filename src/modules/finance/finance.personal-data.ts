import type { JsonValue, PersonalDataHolder } from '../../kernel/module';
import { storedReceipt } from './finance.presenter';
import { auditOf, entriesOfCounterparties } from './finance.repository';

/** Why the books keep a person's name and cédula after their erasure, as staff report it (docs/finance.md, "Personal data"). */
export const LEDGER_RETENTION_BASIS =
  'Campaign accounts: Constitución art. 109 and Ley 130 de 1994 (public reports of the origin of income), Ley 1475 de 2011 arts. 25 and 27 ' +
  '(reports to the CNE, no anonymous contributions); kept 10 years from the last entry (Ley 962 de 2005, art. 28); ' +
  'deletion does not apply while a legal duty to keep them lasts (Decreto 1377 de 2013, art. 9).';

/**
 * The campaign's books name the people who gave to it or were paid by it, by cédula (or NIT): the
 * ledger names counterparties by number, not by contact, so the person's entries are those under
 * one of their cédulas. The export lists them, each with its audit trail. Erasure keeps them as
 * they are, with the name and cédula: the law obliges the campaign to report every contribution
 * with its donor and to keep its books (`LEDGER_RETENTION_BASIS`); the erasure's answer lists them
 * under `retained`, so staff can tell the person what was kept and why.
 */
export const financePersonalData: PersonalDataHolder = {
  async export(q, _personId, keys) {
    const entries = await entriesOfCounterparties(q, keys.documentIds);
    const result = [];
    // One after the other: `q` is the caller's transaction, a single connection.
    for (const entry of entries) {
      const receipt = storedReceipt(entry);
      const history = await auditOf(q, entry.id);
      result.push({
        id: entry.id,
        kind: entry.kind,
        date: entry.date,
        amount: entry.amount,
        code: entry.code,
        codeName: entry.codeName,
        counterpartyName: entry.counterpartyName,
        counterpartyIdNumber: entry.counterpartyIdNumber,
        donorType: entry.donorType,
        description: entry.description,
        notes: entry.notes,
        reversesId: entry.reversesId,
        receipt: receipt && { type: receipt.type, size: receipt.size, uploadedAt: receipt.uploadedAt },
        createdAt: entry.createdAt,
        // A jsonb column's value: JSON as it was written.
        history: history.map((row) => ({ action: row.action, at: row.at, changes: row.changes as unknown as JsonValue, reason: row.reason })),
      });
    }
    return { entries: result, retentionBasis: entries.length ? LEDGER_RETENTION_BASIS : null };
  },

  async erase(q, _personId, erasure) {
    const entries = await entriesOfCounterparties(q, erasure.keys.documentIds);
    erasure.retain('entries', entries.length, LEDGER_RETENTION_BASIS);
    return {};
  },
};
