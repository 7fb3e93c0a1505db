import { definePolicy } from '../../kernel/policy';

/**
 * Who may do what with social monitoring: staff and screens read (public posts of public figures,
 * no personal data of citizens); managers decide whom to watch, import, tune the rules and fetch.
 */
export const socialPolicy = definePolicy({
  read: { roles: ['manager', 'viewer'] },
  manage: { roles: ['manager'] },
  /** Marking an alert seen or dismissed is part of watching the screen. */
  triageAlerts: { roles: ['manager', 'viewer'] },
  /** The live room of alerts and new posts. */
  follow: { roles: ['manager', 'viewer'] },
});
