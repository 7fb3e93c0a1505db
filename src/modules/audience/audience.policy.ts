import { definePolicy } from '../../kernel/policy';

/**
 * Who may act on a person's data at their request (Ley 1581 de 2012, art. 8): campaign managers
 * answer the person; only admins read the audit of those answers. Importing, finding duplicates
 * and merging people are campaign managers' work too (and admins'); viewers, volunteers and
 * brigades never see or change people this way.
 */
export const audiencePolicy = definePolicy({
  /** Everything held about one person, as a file for them. */
  exportPerson: { roles: ['manager'] },
  /** Suppressing the person's data in every module. */
  erasePerson: { roles: ['manager'] },
  /** A withdrawal the person asked staff to record (by phone, in person, in writing). */
  recordWithdrawal: { roles: ['manager'] },
  readAudit: { roles: ['admin'] },
  /** Supporters' files: they create and change people and record their consent. */
  importContacts: { roles: ['manager'] },
  /** The duplicate finder shows people's names (masked phones and emails) side by side. */
  findDuplicates: { roles: ['manager'] },
  dismissDuplicate: { roles: ['manager'] },
  /** Making two records of one person one, and splitting them again within the undo window. */
  mergeContacts: { roles: ['manager'] },
  undoMerge: { roles: ['manager'] },
  readMerges: { roles: ['manager'] },
});
