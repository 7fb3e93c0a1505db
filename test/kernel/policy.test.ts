import type { Actor } from '../../src/kernel/auth/roles';
import { ForbiddenError } from '../../src/kernel/errors';
import { definePolicy } from '../../src/kernel/policy';

const actor = (role: Actor['role'], id = 'u1'): Actor => ({ id, role });

const policy = definePolicy({
  read: { roles: [] },
  manage: { roles: ['manager'] },
  report: {
    roles: ['manager', 'brigade'],
    check: (who: Actor, station: { brigadeMembers: string[] }) => who.role !== 'brigade' || station.brigadeMembers.includes(who.id),
    refusal: 'This station is not one of your brigade’s.',
  },
});

describe('definePolicy', () => {
  it('admits the listed roles, and admin always', () => {
    expect(policy.allows(actor('manager'), 'manage')).toBe(true);
    expect(policy.allows(actor('admin'), 'manage')).toBe(true);
    expect(policy.allows(actor('viewer'), 'manage')).toBe(false);
    expect(policy.roles('manage')).toEqual(['manager']);
  });

  it('admits every signed-in role for an empty list', () => {
    for (const role of ['admin', 'manager', 'treasurer', 'brigade', 'volunteer', 'viewer'] as const) expect(policy.allows(actor(role), 'read')).toBe(true);
  });

  it('applies the object-level check after the role', () => {
    const station = { brigadeMembers: ['b1'] };
    expect(policy.allows(actor('brigade', 'b1'), 'report', station)).toBe(true);
    expect(policy.allows(actor('brigade', 'b2'), 'report', station)).toBe(false);
    expect(policy.allows(actor('manager'), 'report', station)).toBe(true);
    expect(policy.allows(actor('volunteer', 'b1'), 'report', station)).toBe(false);
  });

  it('authorize throws a 403 with the action’s refusal', () => {
    expect(() => policy.authorize(actor('brigade', 'b2'), 'report', { brigadeMembers: [] })).toThrow(ForbiddenError);
    try {
      policy.authorize(actor('brigade', 'b2'), 'report', { brigadeMembers: [] });
    } catch (error) {
      expect((error as ForbiddenError).status).toBe(403);
      expect((error as ForbiddenError).message).toBe('This station is not one of your brigade’s.');
    }
    expect(() => policy.authorize(actor('manager'), 'manage')).not.toThrow();
  });
});
