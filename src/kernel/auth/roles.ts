/** From most to least power: admin, campaign staff, the campaign's treasurer, election-day brigades, volunteers, read-only screens. */
export const ROLES = ['admin', 'manager', 'treasurer', 'brigade', 'volunteer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Who is acting: the authenticated user behind a request or a socket. */
export interface Actor {
  id: string;
  role: Role;
}

/** `admin` may do everything; any other role must be listed. */
export function roleAllowed(role: Role, allowed: readonly Role[]): boolean {
  return role === 'admin' || allowed.includes(role);
}

/** Whether a permission's roles admit `role`: admins always, and an empty list every signed-in role. */
export function rolePermitted(role: Role, roles: readonly Role[]): boolean {
  return roles.length === 0 || roleAllowed(role, roles);
}
