import type { Role } from '../../kernel/auth/roles';
import { roleAllowed } from '../../kernel/auth/roles';
import { definePolicy } from '../../kernel/policy';

/**
 * Who may do what with WhatsApp: managers write templates, run campaigns and hold the
 * conversations (people's own words and numbers), in REST and in the `whatsapp:inbox` room alike;
 * viewers follow the figures.
 */
export const whatsappPolicy = definePolicy({
  manageTemplates: { roles: ['manager'] },
  readTemplates: { roles: ['manager', 'viewer'] },
  manageCampaigns: { roles: ['manager'] },
  readCampaigns: { roles: ['manager', 'viewer'] },
  /** Reading and answering conversations, assigning them, using the team's quick replies. */
  converse: { roles: ['manager'] },
  /** Writing the team's quick replies. */
  manageQuickReplies: { roles: ['manager'] },
  readDashboard: { roles: ['manager', 'viewer'] },
  /** The figures room `whatsapp`: campaign progress, text-free message activity, the unread badge (the inbox room is `converse`'s). */
  follow: { roles: ['manager', 'viewer'] },
});

/** A conversation is assigned only to someone who may hold conversations. */
export const mayBeAssignedConversations = (role: Role): boolean => roleAllowed(role, whatsappPolicy.roles('converse'));
