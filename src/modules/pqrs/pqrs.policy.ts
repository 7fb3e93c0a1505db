import type { Role } from '../../kernel/auth/roles';
import { definePolicy } from '../../kernel/policy';

/**
 * Managers (and admins) run the desk: they see who filed, assign, answer, extend and convert
 * WhatsApp conversations. Viewers follow the desk's figures and deadlines without personal data
 * (the leads list's rule: no citizen, description, answer or attachments), and may join the live
 * room, whose events carry none either. Filing is public (the citizen's form and API).
 */
export const pqrsPolicy = definePolicy({
  read: { roles: ['manager', 'viewer'] },
  /** The citizen, the texts and the attachments of a request. */
  readPersonal: { roles: ['manager'] },
  handle: { roles: ['manager'] },
  configure: { roles: ['manager'] },
  follow: { roles: ['manager', 'viewer'] },
  /**
   * Who may be given requests (staff names and roles, not citizens'): managers to assign, viewers to
   * read the queue's "who handles it" column and filter by it.
   */
  readTeam: { roles: ['manager', 'viewer'] },
});

/** Whom a request may be assigned to: those who may answer it, and admins (who may do everything). */
export const ASSIGNABLE_ROLES: readonly Role[] = ['admin', ...pqrsPolicy.roles('handle').filter((role) => role !== 'admin')];

export const PQRS_ROOM = 'pqrs';
