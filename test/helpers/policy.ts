import { ROLES, roleAllowed, type Role } from '../../src/kernel/auth/roles';

/** The roles a policy lets attempt an action, in the roles' order (admin always among them). */
export function allowedRoles<A extends string>(policy: { roles(action: A): readonly Role[] }, action: A): Role[] {
  return ROLES.filter((role) => roleAllowed(role, policy.roles(action)));
}
