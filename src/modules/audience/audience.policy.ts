import { definePolicy } from '../../kernel/policy';

/**
 * Who may act on a person's data at their request (Ley 1581 de 2012, art. 8): campaign managers
 * answer the person; only admins read the audit of those answers. The people database (search,
 * the person's page, corrections, notes), importing, finding duplicates and merging follow the
 * leads list's rule: managers only (and admins); viewers, treasurers, brigades and volunteers
 * never see or change people's data.
 */
export const audiencePolicy = definePolicy({
  /** Everything held about one person, as a file for them. */
  exportPerson: { roles: ['manager'] },
  /** Suppressing the person's data in every module. */
  erasePerson: { roles: ['manager'] },
  /** A withdrawal the person asked staff to record (by phone, in person, in writing). */
  recordWithdrawal: { roles: ['manager'] },
  readAudit: { roles: ['admin'] },
  /** Searching and listing people, and their CSV. */
  listPeople: { roles: ['manager'] },
  /** One person's page: their data, consents, notes and timeline across modules. */
  readPerson: { roles: ['manager'] },
  /** Correcting a person's name, phone, email or cédula, and setting their tags. */
  correctPerson: { roles: ['manager'] },
  /** Writing a note about a person. */
  writeNote: { roles: ['manager'] },
  /** Deleting a note: its author, or an admin. */
  deleteNote: {
    roles: ['manager'],
    check: (actor, note: { authorId: string | null }) => actor.role === 'admin' || note.authorId === actor.id,
    refusal: 'Only the note’s author or an admin may delete it.',
  },
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
