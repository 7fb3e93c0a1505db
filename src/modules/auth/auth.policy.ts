import { definePolicy } from '../../kernel/policy';

/**
 * Who may do what with accounts: every signed-in user manages their own session; only admins
 * manage other people's accounts or give a role at registration (anyone else registers as a
 * volunteer).
 */
export const authPolicy = definePolicy({
  /** One's own profile and session: /me, logout. */
  self: { roles: [] },
  /** Listing users, changing their role, status or name. */
  manageUsers: { roles: ['admin'], refusal: 'Only an admin manages user accounts.' },
  /** Registering someone with a role of the caller's choosing. */
  grantRole: { roles: ['admin'], refusal: 'Only an admin gives roles.' },
});
