import { ROLES, type Actor } from '../../src/kernel/auth/roles';
import { canMoveTo, isOpen, qrPolicy } from '../../src/modules/qr/qr.policy';

const actor = (role: Actor['role']): Actor => ({ id: 'u1', role });
const allowed = (action: Parameters<typeof qrPolicy.allows>[1]) => ROLES.filter((role) => qrPolicy.allows(actor(role), action));

describe('qrPolicy', () => {
  it('lets managers run campaigns and viewers follow them', () => {
    expect(allowed('manage')).toEqual(['admin', 'manager']);
    expect(allowed('read')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowed('followDashboard')).toEqual(['admin', 'manager', 'viewer']);
  });

  it('shows the people captured to managers only', () => {
    expect(allowed('readLeads')).toEqual(['admin', 'manager']);
  });
});

describe('campaign status', () => {
  it('moves draft → active ⇄ paused → ended, and ended is final', () => {
    expect(canMoveTo('draft', 'active')).toBe(true);
    expect(canMoveTo('active', 'paused')).toBe(true);
    expect(canMoveTo('paused', 'active')).toBe(true);
    expect(canMoveTo('paused', 'draft')).toBe(false);
    expect(canMoveTo('ended', 'active')).toBe(false);
    expect(canMoveTo('ended', 'ended')).toBe(true);
  });

  it('takes submissions only while active and inside its dates', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const active = { status: 'active' as const, startsAt: null, endsAt: null };
    expect(isOpen(active, now)).toBe(true);
    expect(isOpen({ ...active, status: 'paused' }, now)).toBe(false);
    expect(isOpen({ ...active, startsAt: new Date('2026-03-02T00:00:00Z') }, now)).toBe(false);
    expect(isOpen({ ...active, endsAt: now }, now)).toBe(false);
  });
});
