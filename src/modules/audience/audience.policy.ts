import { definePolicy } from '../../kernel/policy';

/**
 * Who may act on a person's data at their request (Ley 1581 de 2012, art. 8): campaign managers
 * answer the person; only admins read the audit of those answers. The people database (search,
 * the person's page, corrections, notes) follows the leads list's rule: managers only; viewers,
 * treasurers, brigades and volunteers never see people's data.
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
});
