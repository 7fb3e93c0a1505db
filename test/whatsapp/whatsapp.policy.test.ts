import { allowedRoles } from '../helpers/policy';
import { ROLES } from '../../src/kernel/auth/roles';
import { mayBeAssignedConversations, whatsappPolicy } from '../../src/modules/whatsapp/whatsapp.policy';

const allowed = (action: Parameters<typeof whatsappPolicy.roles>[0]) => allowedRoles(whatsappPolicy, action);

describe('whatsappPolicy', () => {
  it('lets managers send and converse, and viewers follow the figures', () => {
    expect(allowed('manageCampaigns')).toEqual(['admin', 'manager']);
    expect(allowed('manageTemplates')).toEqual(['admin', 'manager']);
    expect(allowed('readCampaigns')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowed('readDashboard')).toEqual(['admin', 'manager', 'viewer']);
  });

  it('keeps conversations, people’s own words, to managers, and assigns them only to those who may hold them', () => {
    expect(allowed('converse')).toEqual(['admin', 'manager']);
    expect(ROLES.filter(mayBeAssignedConversations)).toEqual(['admin', 'manager']);
  });

  it('lets everyone who converses read the templates a reply outside the window needs, and the team’s quick replies', () => {
    const readers = allowed('readTemplates');
    expect(allowed('converse').every((role) => readers.includes(role))).toBe(true);
    expect(allowed('manageQuickReplies')).toEqual(['admin', 'manager']);
  });
});
