import { ROLES, type Actor } from '../../src/kernel/auth/roles';
import { ForbiddenError } from '../../src/kernel/errors';
import { authPolicy } from '../../src/modules/auth';

const actor = (role: Actor['role']): Actor => ({ id: 'u1', role });

describe('authPolicy', () => {
  it('lets every signed-in role manage its own session', () => {
    for (const role of ROLES) expect(authPolicy.allows(actor(role), 'self')).toBe(true);
  });

  it('keeps account management and role grants to admins', () => {
    for (const action of ['manageUsers', 'grantRole'] as const) {
      expect(authPolicy.allows(actor('admin'), action)).toBe(true);
      for (const role of ROLES.filter((role) => role !== 'admin')) expect(authPolicy.allows(actor(role), action)).toBe(false);
      expect(() => authPolicy.authorize(actor('manager'), action)).toThrow(ForbiddenError);
    }
  });
});
