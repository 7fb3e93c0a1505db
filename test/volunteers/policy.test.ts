import { ROLES, type Actor } from '../../src/kernel/auth/roles';
import { coversEveryone, volunteersPolicy } from '../../src/modules/volunteers/volunteers.policy';

const actor = (role: Actor['role']): Actor => ({ id: 'u1', role });
const allowed = (action: Parameters<typeof volunteersPolicy.allows>[1]) => ROLES.filter((role) => volunteersPolicy.allows(actor(role), action));

describe('volunteersPolicy', () => {
  it('keeps people’s details with managers, lets field accounts log and read their team, and screens read the figures', () => {
    expect(allowed('read')).toEqual(['admin', 'manager']);
    expect(allowed('manage')).toEqual(['admin', 'manager']);
    expect(allowed('logActivity')).toEqual(['admin', 'manager', 'brigade', 'volunteer']);
    expect(allowed('readActivities')).toEqual(['admin', 'manager', 'brigade', 'volunteer']);
    expect(allowed('readPyramid')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowed('readLeaderboard')).toEqual(['admin', 'manager', 'brigade', 'volunteer', 'viewer']);
  });

  it('lets managers and admins act for everyone, and field roles only for their team', () => {
    expect(ROLES.filter((role) => coversEveryone(actor(role)))).toEqual(['admin', 'manager']);
  });
});
