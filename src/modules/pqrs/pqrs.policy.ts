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
});

export const PQRS_ROOM = 'pqrs';
