import { allowedRoles } from '../helpers/policy';
import { emailPolicy } from '../../src/modules/email/email.policy';

const allowed = (action: Parameters<typeof emailPolicy.roles>[0]) => allowedRoles(emailPolicy, action);

describe('emailPolicy', () => {
  it('lets managers write and send, and viewers follow the figures and read templates', () => {
    expect(allowed('manageTemplates')).toEqual(['admin', 'manager']);
    expect(allowed('manageCampaigns')).toEqual(['admin', 'manager']);
    expect(allowed('readTemplates')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowed('readCampaigns')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowed('follow')).toEqual(['admin', 'manager', 'viewer']);
  });

  it('shows a real person in a preview only to those who may see people', () => {
    expect(allowed('previewAsContact')).toEqual(['admin', 'manager']);
    expect(() => emailPolicy.authorize({ id: 'u1', role: 'viewer' }, 'previewAsContact')).toThrow(/only managers/);
  });
});
